// Package redact replaces secret values in text with `<secret:NAME>` (spec
// mcp.md §6.2). A Redactor holds the values of one host process; every text
// the MCP host returns or logs passes through it.
package redact

import (
	"html"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"
)

// MinLength is the shortest secret value accepted (shorter static values are
// INVALID_CONFIG, spec §6.1).
const MinLength = 6

// Redactor replaces registered secret values in text. The zero value is
// not usable; make one with New. Safe for concurrent use.
type Redactor struct {
	mu      sync.RWMutex
	entries map[string]string // value -> name
	re      *regexp.Regexp    // nil when nothing is registered
	names   map[string]string // lower-cased form -> name, for the regexp match
}

// New returns an empty Redactor.
func New() *Redactor {
	return &Redactor{entries: map[string]string{}, names: map[string]string{}}
}

// Token is the replacement for the secret name.
func Token(name string) string { return "<secret:" + name + ">" }

// Add registers value (and its encoded forms) as the secret name. Empty
// values are ignored.
func (r *Redactor) Add(name, value string) {
	if value == "" {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.entries[value] = name
	r.rebuild()
}

// Remove forgets every value registered under name.
func (r *Redactor) Remove(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for v, n := range r.entries {
		if n == name {
			delete(r.entries, v)
		}
	}
	r.rebuild()
}

// Reset forgets every value.
func (r *Redactor) Reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.entries = map[string]string{}
	r.rebuild()
}

// forms lists the encodings of v that are matched (spec §6.2): as written,
// JSON-escaped, HTML-escaped, percent-encoded (query and path forms) and
// whitespace-collapsed. Letter case is ignored by the matcher.
func forms(v string) []string {
	out := []string{v}
	j := jsonEscape(v)
	out = append(out, j, html.EscapeString(v), url.QueryEscape(v), url.PathEscape(v))
	if c := strings.Join(strings.Fields(v), " "); c != "" {
		out = append(out, c)
	}
	return out
}

func jsonEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '<':
			b.WriteString(`\u003c`)
		case '>':
			b.WriteString(`\u003e`)
		case '&':
			b.WriteString(`\u0026`)
		default:
			if r < 0x20 {
				b.WriteString(`\u00`)
				const hex = "0123456789abcdef"
				b.WriteByte(hex[r>>4])
				b.WriteByte(hex[r&0xf])
			} else {
				b.WriteRune(r)
			}
		}
	}
	return b.String()
}

// rebuild recompiles the matcher; r.mu is held.
func (r *Redactor) rebuild() {
	r.names = map[string]string{}
	var alts []string
	for v, name := range r.entries {
		for _, f := range forms(v) {
			if f == "" {
				continue
			}
			k := strings.ToLower(f)
			if _, dup := r.names[k]; dup {
				continue
			}
			r.names[k] = name
			alts = append(alts, f)
		}
	}
	if len(alts) == 0 {
		r.re = nil
		return
	}
	// Longest first, so that a form containing another wins.
	sort.Slice(alts, func(i, j int) bool { return len(alts[i]) > len(alts[j]) })
	for i, a := range alts {
		alts[i] = regexp.QuoteMeta(a)
	}
	r.re = regexp.MustCompile("(?i)" + strings.Join(alts, "|"))
}

// String returns s with every registered value replaced by its token.
func (r *Redactor) String(s string) string {
	r.mu.RLock()
	re, names := r.re, r.names
	r.mu.RUnlock()
	if re == nil || s == "" {
		return s
	}
	return re.ReplaceAllStringFunc(s, func(m string) string {
		if n, ok := names[strings.ToLower(m)]; ok {
			return Token(n)
		}
		return m
	})
}

// HeldTail reports how many bytes at the end of s could be the start of a
// registered value (a cut value, spec §6.2): a stream redactor keeps them
// back until more text arrives.
func (r *Redactor) HeldTail(s string) int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	best := 0
	ls := strings.ToLower(s)
	for f := range r.names {
		for n := min(len(f)-1, len(ls)); n > best; n-- {
			if strings.HasSuffix(ls, f[:n]) && utf8.ValidString(f[:n]) {
				best = n
				break
			}
		}
	}
	return best
}

// Values reports how many values are registered.
func (r *Redactor) Values() int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.entries)
}
