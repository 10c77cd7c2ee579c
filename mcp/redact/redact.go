// Package redact replaces secret values in text with `<secret:NAME>` (spec
// mcp.md §6.2). A Redactor holds the values of one host process; every text
// the MCP host returns or logs passes through it.
//
// A value is found in every form a browser or an engine writes it: as is,
// percent-encoded (encodeURIComponent, encodeURI, form encoding with `+`
// for a space), as HTML character references (named, decimal, hexadecimal,
// also only some characters escaped), JSON-escaped (`\uXXXX`, surrogate
// pairs, `\/`), also escaped twice (`%252F`, `&amp;lt;`, JSON inside
// HTML), in any letter case and with white space collapsed. Each text is
// read as written, with every escape decoded once and twice, by one
// Aho–Corasick automaton over the canonical forms of every value, so the
// cost does not grow with the number of values or forms. A text that was
// cut (a field at the engine's limit, a stream between writes) and ends
// with the first 8 characters of a value, or half of a value shorter than
// 16, is masked there too (Cut, HeldTail, Writer).
//
// Not found: transformed values (base64, hashes, last four), values spread
// over several texts, other Unicode normalization forms, and encodings
// applied three times or more.
package redact

import (
	"sort"
	"strings"
	"sync"
)

// MinLength is the shortest secret value accepted (shorter static values are
// INVALID_CONFIG, spec §6.1).
const MinLength = 6

// Redactor replaces registered secret values in text. The zero value is
// not usable; make one with New. Safe for concurrent use.
type Redactor struct {
	mu      sync.RWMutex
	entries map[string]string // value -> name
	m       *matcher          // nil when nothing is registered; immutable
}

// matcher holds the automata of one set of values: lit runs over a text as
// written, dec over the text with its escapes decoded.
type matcher struct {
	lit, dec *automaton
}

// New returns an empty Redactor.
func New() *Redactor {
	return &Redactor{entries: map[string]string{}}
}

// Token is the replacement for the secret name.
func Token(name string) string { return "<secret:" + name + ">" }

// Add registers value as the secret name. Empty values are ignored.
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

// Values reports how many values are registered.
func (r *Redactor) Values() int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.entries)
}

// rebuild makes the matcher of the registered values; r.mu is held.
//
// The literal automaton holds each value's canonical form. The decoding
// one holds it too (a decoded text spells the value), and also the value
// with its own escape-like sequences decoded: a value such as `p%41ss`
// written as is reads `pAss` once decoded.
func (r *Redactor) rebuild() {
	if len(r.entries) == 0 {
		r.m = nil
		return
	}
	values := make([]string, 0, len(r.entries))
	for v := range r.entries {
		values = append(values, v)
	}
	// Deterministic: a form shared by two names is the first name's.
	sort.Slice(values, func(i, j int) bool {
		if r.entries[values[i]] != r.entries[values[j]] {
			return r.entries[values[i]] < r.entries[values[j]]
		}
		return values[i] < values[j]
	})
	var lit, dec []pattern
	seenL, seenD := map[string]bool{}, map[string]bool{}
	add := func(pats []pattern, seen map[string]bool, us []unit, name string) []pattern {
		us = trimSpace(us)
		k := string(runesOf(us))
		if len(us) == 0 || seen[k] {
			return pats
		}
		seen[k] = true
		return append(pats, pattern{runes: runesOf(us), name: name})
	}
	for _, v := range values {
		name := r.entries[v]
		raw, _ := literalUnits(v)
		lit = add(lit, seenL, canonical(raw, false), name)
		// As written, with '+' and white space alike (as decoded text
		// reads them).
		dec = add(dec, seenD, canonical(raw, true), name)
		d, _ := decodedUnits(v)
		if du := canonical(d, true); len(trimSpace(du)) >= MinLength {
			dec = add(dec, seenD, du, name)
		}
	}
	r.m = &matcher{lit: newAutomaton(lit), dec: newAutomaton(dec)}
}

func (r *Redactor) matcher() *matcher {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.m
}

// escapes reports whether s holds a byte that starts an escape sequence or
// is a form-encoded space; without one the decoded reading is the literal
// one.
func escapes(s string) bool { return strings.ContainsAny(s, "%&\\+") }

// result is what a scan of one text found.
type result struct {
	spans []span // chosen occurrences: sorted, not overlapping
	// held is where the end of the text that could begin a value starts
	// (len(s): none); cut is the same for an end long enough to be masked
	// as a cut value (-1: none), the start of the value cutName.
	held, cut int
	cutName   string
}

// scan finds the occurrences of every value in s and what its end holds.
// s is read as written, with its escapes decoded, and decoded twice.
func (m *matcher) scan(s string) result {
	type pass struct {
		a       *automaton
		us      []unit
		pending int // byte where an incomplete sequence at the end starts
		k       int // units before pending
		st, stK int32
	}
	var passes []pass
	lit, p := literalUnits(s)
	passes = append(passes, pass{a: m.lit, us: canonical(lit, false), pending: p})
	if escapes(s) {
		d1, p1 := decodedUnits(s)
		// The second reading stops where the first one is cut: an escape
		// of the second layer may start just before.
		k1 := 0
		for k1 < len(d1) && d1[k1].start < p1 {
			k1++
		}
		if d2, p2, ok := redecode(d1[:k1]); ok {
			if p2 < 0 || p1 < p2 {
				p2 = p1
			}
			passes = append(passes, pass{a: m.dec, us: canonical(d2, true), pending: p2})
		}
		passes = append(passes, pass{a: m.dec, us: canonical(d1, true), pending: p1})
	}
	var spans []span
	for i := range passes {
		p := &passes[i]
		for p.k < len(p.us) && p.us[p.k].start < p.pending {
			p.k++
		}
		spans, p.st, p.stK = p.a.scan(p.us, spans, p.k)
	}
	// Leftmost, then longest, never overlapping.
	sort.Slice(spans, func(i, j int) bool {
		if spans[i].start != spans[j].start {
			return spans[i].start < spans[j].start
		}
		return spans[i].end > spans[j].end
	})
	chosen := spans[:0]
	last := 0
	for _, sp := range spans {
		if sp.start >= last {
			chosen = append(chosen, sp)
			last = sp.end
		}
	}
	res := result{spans: chosen, held: len(s), cut: -1}
	for _, p := range passes {
		if p.pending >= last {
			res.held = min(res.held, p.pending)
		}
		ends := []struct {
			us []unit
			st int32
		}{{p.us, p.st}}
		if p.pending < len(s) && p.k > 0 {
			// Cut in the middle of an escape: what precedes it.
			ends = append(ends, struct {
				us []unit
				st int32
			}{p.us[:p.k], p.stK})
		}
		for _, e := range ends {
			if len(e.us) == 0 {
				continue
			}
			if h, _ := p.a.tail(e.us, e.st, last, false, s); h >= 0 {
				res.held = min(res.held, h)
			}
			if c, name := p.a.tail(e.us, e.st, last, true, s); c >= 0 && (res.cut < 0 || c < res.cut) {
				res.cut, res.cutName = c, name
			}
		}
	}
	return res
}

// replace writes s with the spans replaced by their tokens.
func replace(s string, spans []span) string {
	if len(spans) == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	at := 0
	for _, sp := range spans {
		b.WriteString(s[at:sp.start])
		b.WriteString(Token(sp.name))
		at = sp.end
	}
	b.WriteString(s[at:])
	return b.String()
}

// String returns s with every registered value, in any of its forms,
// replaced by its token.
func (r *Redactor) String(s string) string {
	m := r.matcher()
	if m == nil || s == "" {
		return s
	}
	return replace(s, m.scan(s).spans)
}

// Cut is String for a text that may have been cut short (a field at the
// engine's length limit, a target cut at 256 characters and ending in
// `…`): where it ends with the first 8 characters of a value (in any form,
// also in the middle of an escape sequence), or half of a value shorter
// than 16, or 8 characters of a form of one, that end is masked too.
func (r *Redactor) Cut(s string) string {
	m := r.matcher()
	if m == nil || s == "" {
		return s
	}
	ell := ""
	if t, ok := strings.CutSuffix(s, "…"); ok {
		s, ell = t, "…"
	}
	res := m.scan(s)
	if res.cut < 0 {
		return replace(s, res.spans) + ell
	}
	return replace(s[:res.cut], res.spans) + Token(res.cutName) + ell
}

// HeldTail reports how many bytes at the end of s could be the start of a
// registered value in any of its forms (also an escape sequence s ends in
// the middle of): a stream redactor keeps them back until more text
// arrives (spec §6.2). An occurrence of a whole value is never split.
func (r *Redactor) HeldTail(s string) int {
	m := r.matcher()
	if m == nil || s == "" {
		return 0
	}
	return len(s) - m.scan(s).held
}

// split redacts the part of s a stream can write now and returns it with
// the number of bytes at the end to hold back.
func (r *Redactor) split(s string) (out string, held int) {
	m := r.matcher()
	if m == nil {
		return s, 0
	}
	res := m.scan(s)
	return replace(s[:res.held], res.spans), len(s) - res.held
}
