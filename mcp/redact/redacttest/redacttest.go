// Package redacttest writes a secret value in every form a browser or an
// engine writes it, for tests of what the MCP host redacts (spec mcp.md
// §6.2): as is, in upper case, percent-encoded as JavaScript's
// encodeURIComponent and encodeURI and as a form (`+` for a space), as HTML
// character references (Go's html.EscapeString, named, decimal,
// hexadecimal, partly escaped), and JSON-escaped (json.Marshal, `\uXXXX`
// for every character, `\/`), also JSON inside HTML.
package redacttest

import (
	"encoding/json"
	"fmt"
	"html"
	"strings"
	"unicode/utf16"
)

// Encoding is one way of writing a value.
type Encoding struct {
	Name string
	// Encode writes s; every encoding writes each character on its own,
	// so the encoding of a prefix is a prefix of the encoding.
	Encode func(s string) string
}

// jsURIEscape percent-encodes every UTF-8 byte of s except ASCII letters,
// digits and the characters in keep.
func jsURIEscape(s, keep string) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c < 0x80 && strings.IndexByte(keep, c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// EncodeURIComponent is JavaScript's encodeURIComponent: it keeps ASCII
// letters, digits and -_.!~*'().
func EncodeURIComponent(s string) string { return jsURIEscape(s, "-_.!~*'()") }

// EncodeURI is JavaScript's encodeURI: it also keeps ;,/?:@&=+$#.
func EncodeURI(s string) string { return jsURIEscape(s, "-_.!~*'();,/?:@&=+$#") }

// FormEncode is application/x-www-form-urlencoded as browsers write it.
func FormEncode(s string) string {
	return strings.ReplaceAll(jsURIEscape(strings.ReplaceAll(s, " ", "\x00"), "*-._\x00"), "\x00", "+")
}

var named = map[rune]string{'&': "&amp;", '<': "&lt;", '>': "&gt;", '"': "&quot;", '\'': "&apos;",
	'!': "&excl;", '@': "&commat;", '/': "&sol;", ' ': "&nbsp;", 'ä': "&auml;", 'ö': "&ouml;", '+': "&plus;", '%': "&percnt;"}

// perRune encodes every rune of s with f ("" keeps the rune).
func perRune(s string, f func(r rune, i int) string) string {
	var b strings.Builder
	i := 0
	for _, r := range s {
		if e := f(r, i); e != "" {
			b.WriteString(e)
		} else {
			b.WriteRune(r)
		}
		i++
	}
	return b.String()
}

func jsonU(r rune) string {
	var b strings.Builder
	for _, u := range utf16.Encode([]rune{r}) {
		fmt.Fprintf(&b, `\u%04x`, u)
	}
	return b.String()
}

func jsonMarshal(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

// Encodings lists every form.
func Encodings() []Encoding {
	return []Encoding{
		{"as is", func(s string) string { return s }},
		{"upper case", strings.ToUpper},
		{"encodeURIComponent", EncodeURIComponent},
		{"encodeURIComponent lower hex", func(s string) string { return strings.ToLower(EncodeURIComponent(s)) }},
		{"encodeURI", EncodeURI},
		{"form", FormEncode},
		{"html.EscapeString", html.EscapeString},
		{"html named", func(s string) string { return perRune(s, func(r rune, _ int) string { return named[r] }) }},
		{"html decimal", func(s string) string {
			return perRune(s, func(r rune, _ int) string { return fmt.Sprintf("&#%d;", r) })
		}},
		{"html hex", func(s string) string {
			return perRune(s, func(r rune, _ int) string { return fmt.Sprintf("&#x%X;", r) })
		}},
		{"html partly", func(s string) string {
			return perRune(s, func(r rune, i int) string {
				if i%2 == 1 {
					return fmt.Sprintf("&#x%x;", r)
				}
				return named[r]
			})
		}},
		{"json.Marshal", jsonMarshal},
		{"json \\u every char", func(s string) string { return perRune(s, func(r rune, _ int) string { return jsonU(r) }) }},
		{"json \\/", func(s string) string {
			return perRune(s, func(r rune, _ int) string {
				switch {
				case r == '/':
					return `\/`
				case r >= 0x80:
					return jsonU(r)
				}
				return ""
			})
		}},
		{"json in html", func(s string) string { return html.EscapeString(jsonMarshal(s)) }},
	}
}

// Values are secret values with characters that every encoding escapes
// differently.
var Values = []struct{ Name, Value string }{
	{"canary", "Cn4ry/S3cr3t&x"},
	{"hunter", "Hunter2!@x"},
	{"unicode", "pässwörd-😀-1"},
	{"quotes", `a b+c"d<e>'f`},
	{"escapelike", "p%41ss&lt;x1"},
}

// Prefix is the first n runes of s.
func Prefix(s string, n int) string {
	i := 0
	for k := range s {
		if i == n {
			return s[:k]
		}
		i++
	}
	return s
}
