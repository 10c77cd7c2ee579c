package conformance

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"unicode/utf16"
)

// ERR-007 says no error, engine/log line, attempt/* notification or stderr
// line "contains" a canary. A reasonable reading of "contains" is "discloses
// to whoever reads it": the value written as is, or in an encoding that
// every reader undoes by reflex and that a server applies without meaning
// to hide anything. The suite therefore looks for each canary
//
//   - raw;
//   - JSON-escaped, as the encoders in use write string contents: HTML-safe
//     (Go's \u003c \u003e \u0026), plain (JavaScript's JSON.stringify), and
//     ASCII-only (\uXXXX for every non-ASCII unit, surrogate pairs
//     included, lower- or upper-case hex), in raw JSON text and in stderr
//     lines alike; and, in a message, inside every decoded JSON string;
//   - base64, standard and URL alphabets, padded or not, at any alignment
//     (a canary inside a larger encoded value such as a basic-auth header
//     "user:<secret>");
//   - percent-encoded (query and path escaping, either hex case).
//
// Reversed text, hex dumps, hashes, fragments and other transformations are
// not searched: they are deliberate obfuscation or not the value, and
// treating them as "contains" would let coincidences fail engines. The
// canaries carry non-ASCII, non-BMP and HTML-special characters, so that
// an escaped form differs from the raw one and a raw-only search would
// miss it.

// leakForm is one form in which a canary could be written.
type leakForm struct {
	name string
	text string
}

// canaryFormsCache memoizes leakForms (every message is searched for every
// canary).
var canaryFormsCache = struct {
	sync.Mutex
	m map[string][]leakForm
}{m: map[string][]leakForm{}}

// leakForms returns the forms of secret the suite searches for, raw first,
// without duplicates.
func leakForms(secret string) []leakForm {
	canaryFormsCache.Lock()
	defer canaryFormsCache.Unlock()
	if f, ok := canaryFormsCache.m[secret]; ok {
		return f
	}
	var out []leakForm
	seen := map[string]bool{}
	add := func(name, text string) {
		if text == "" || seen[text] {
			return
		}
		seen[text] = true
		out = append(out, leakForm{name, text})
	}
	add("raw", secret)
	add("JSON-escaped", jsonEscape(secret, true))
	add("JSON-escaped", jsonEscape(secret, false))
	ascii := asciiJSONEscape(secret)
	add("JSON-escaped (ASCII)", ascii)
	add("JSON-escaped (ASCII)", upperUnicodeEscapes(ascii))
	for _, enc := range []struct {
		name string
		e    *base64.Encoding
	}{{"base64", base64.StdEncoding}, {"base64url", base64.URLEncoding}} {
		for align := 0; align < 3; align++ {
			add(enc.name, base64Core(enc.e, secret, align))
		}
	}
	for _, p := range []string{url.QueryEscape(secret), url.PathEscape(secret)} {
		add("percent-encoded", p)
		add("percent-encoded", lowerPercent(p))
	}
	if len(canaryFormsCache.m) < 10000 {
		canaryFormsCache.m[secret] = out
	}
	return out
}

// jsonEscape is secret as it appears between the quotes of a JSON string
// written by an encoder that escapes HTML characters (Go) or not.
func jsonEscape(secret string, html bool) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(html)
	_ = enc.Encode(secret)
	s := strings.TrimSpace(b.String())
	return strings.TrimSuffix(strings.TrimPrefix(s, `"`), `"`)
}

// asciiJSONEscape is secret JSON-escaped with every non-ASCII UTF-16 unit
// as \uXXXX (Python's ensure_ascii), lower-case hex.
func asciiJSONEscape(secret string) string {
	plain := jsonEscape(secret, false)
	var b strings.Builder
	for _, r := range plain {
		if r < 0x80 {
			b.WriteRune(r)
			continue
		}
		for _, u := range utf16.Encode([]rune{r}) {
			fmt.Fprintf(&b, `\u%04x`, u)
		}
	}
	return b.String()
}

// upperUnicodeEscapes upper-cases the hex digits of \uXXXX escapes.
func upperUnicodeEscapes(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if strings.HasPrefix(s[i:], `\u`) && i+6 <= len(s) {
			b.WriteString(`\u` + strings.ToUpper(s[i+2:i+6]))
			i += 5
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// lowerPercent lower-cases the hex digits of %XX escapes.
func lowerPercent(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+3 <= len(s) {
			b.WriteString("%" + strings.ToLower(s[i+1:i+3]))
			i += 2
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// base64Core is the part of the base64 encoding of secret that its bytes
// alone determine when it starts align bytes into the encoded value: the
// characters whose 6 bits all come from secret.
func base64Core(enc *base64.Encoding, secret string, align int) string {
	if len(secret) < 6 {
		return ""
	}
	full := enc.WithPadding(base64.NoPadding).EncodeToString(append(make([]byte, align), secret...))
	start := (align*8 + 5) / 6
	end := ((align + len(secret)) * 8) / 6
	if end > len(full) {
		end = len(full)
	}
	if start >= end {
		return ""
	}
	return full[start:end]
}

// findLeak reports the form in which text discloses secret, if it does.
// When text is JSON, every decoded string in it is searched too.
func findLeak(text, secret string) (string, bool) {
	return newLeakText(text).find(secret)
}

// leakText is a text searched for several secrets: a JSON text is decoded
// once.
type leakText struct {
	raw     string
	decoded []string // the strings of a JSON text, decoded
}

func newLeakText(text string) *leakText {
	lt := &leakText{raw: text}
	t := strings.TrimSpace(text)
	var v any
	if (strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[")) && json.Unmarshal([]byte(t), &v) == nil {
		walkStrings(v, func(s string) bool {
			lt.decoded = append(lt.decoded, s)
			return true
		})
	}
	return lt
}

// find reports the form in which the text discloses secret, if it does.
func (lt *leakText) find(secret string) (string, bool) {
	if secret == "" {
		return "", false
	}
	forms := leakForms(secret)
	for _, f := range forms {
		if strings.Contains(lt.raw, f.text) {
			return f.name, true
		}
	}
	for _, s := range lt.decoded {
		for _, f := range forms {
			if strings.Contains(s, f.text) {
				if f.name == "raw" {
					return "JSON-escaped", true // raw once decoded
				}
				return f.name, true
			}
		}
	}
	return "", false
}

// walkStrings calls fn on every string (keys included) of a decoded JSON
// value until fn returns false.
func walkStrings(v any, fn func(string) bool) bool {
	switch x := v.(type) {
	case string:
		return fn(x)
	case []any:
		for _, e := range x {
			if !walkStrings(e, fn) {
				return false
			}
		}
	case map[string]any:
		for k, e := range x {
			if !fn(k) || !walkStrings(e, fn) {
				return false
			}
		}
	}
	return true
}

// redactForms replaces every form of secret in s, for a failure message.
func redactForms(s, secret string) string {
	for _, f := range leakForms(secret) {
		s = strings.ReplaceAll(s, f.text, "[canary, "+f.name+"]")
	}
	return s
}
