package redact

import (
	"html"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A unit is one canonical character of a text and the bytes of the text it
// was read from: one rune as written, or the rune an escape sequence
// stands for (`%2F`, `&amp;`, `&#x2F;`, `\u002f`, `\/`), letter case
// folded, a run of white space (and, decoded, `+`) as one ' '.
type unit struct {
	r          rune
	start, end int
}

// maxEntity bounds the length of an HTML character reference scanned for
// (the longest HTML5 name is 31 characters, plus `&` and `;`).
const maxEntity = 33

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func hexVal(c byte) int {
	switch {
	case c <= '9':
		return int(c - '0')
	case c >= 'a':
		return int(c-'a') + 10
	}
	return int(c-'A') + 10
}

// canon appends r to us as a canonical unit spanning [start, end): letter
// case folded, white space (and, when plusIsSpace, '+') merged into the
// previous white-space unit.
func canon(us []unit, r rune, start, end int, plusIsSpace bool) []unit {
	if r < 128 {
		switch {
		case r == ' ' || '\t' <= r && r <= '\r' || plusIsSpace && r == '+':
		case 'A' <= r && r <= 'Z':
			return append(us, unit{r + 'a' - 'A', start, end})
		default:
			return append(us, unit{r, start, end})
		}
	}
	if r < 128 || unicode.IsSpace(r) {
		if n := len(us); n > 0 && us[n-1].r == ' ' {
			us[n-1].end = end
			return us
		}
		return append(us, unit{' ', start, end})
	}
	return append(us, unit{unicode.ToLower(r), start, end})
}

// canonical maps raw units to canonical ones (see canon), in place.
func canonical(raw []unit, plusIsSpace bool) []unit {
	us := raw[:0]
	for _, u := range raw {
		us = canon(us, u.r, u.start, u.end, plusIsSpace)
	}
	return us
}

// literalUnits reads s as written. pending is where an incomplete UTF-8
// sequence at the end of s starts (a text cut mid-character), len(s) when
// there is none; its bytes are units of U+FFFD.
func literalUnits(s string) (us []unit, pending int) {
	pending = len(s)
	us = make([]unit, 0, len(s))
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 && !utf8.FullRuneInString(s[i:]) && pending == len(s) {
			pending = i
		}
		us = append(us, unit{r, i, i + n})
		i += n
	}
	return us, pending
}

// decodedUnits reads s with every escape sequence a browser or an engine
// writes decoded: percent-encoding (UTF-8 bytes, any hex case), HTML
// character references (named, decimal, hexadecimal), JSON string escapes
// (`\uXXXX` with surrogate pairs, `\/`, `\n` …). An escape sequence that
// s ends in the middle of is read as written, and pending is where it
// starts (a text cut mid-escape), len(s) when there is none. The runes are
// as decoded (not canonical).
func decodedUnits(s string) (us []unit, pending int) {
	pending = len(s)
	us = make([]unit, 0, len(s))
	for i := 0; i < len(s); {
		var ok, incomplete bool
		switch s[i] {
		case '%':
			var r rune
			var n int
			if r, n, ok, incomplete = percent(s[i:]); ok {
				us = append(us, unit{r, i, i + n})
				i += n
			}
		case '&':
			var dec string
			var n int
			if dec, n, ok, incomplete = entity(s[i:]); ok {
				for _, r := range dec {
					us = append(us, unit{r, i, i + n})
				}
				i += n
			}
		case '\\':
			var r rune
			var n int
			if r, n, ok, incomplete = jsonEscape(s[i:]); ok {
				us = append(us, unit{r, i, i + n})
				i += n
			}
		}
		if ok {
			continue
		}
		if incomplete && pending == len(s) {
			pending = i
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 && !utf8.FullRuneInString(s[i:]) && pending == len(s) {
			pending = i
		}
		us = append(us, unit{r, i, i + n})
		i += n
	}
	return us, pending
}

// redecode decodes the runes of raw, units of some text, once more (a value
// escaped twice: `%252F`, `&amp;lt;`, JSON inside HTML), with spans in that
// text. pending is where, in that text, an escape the runes end inside
// starts.
func redecode(raw []unit) (us []unit, pending int, ok bool) {
	var b strings.Builder
	pos := make([]int, 0, len(raw)+8) // byte of the runes' text -> index in raw
	for i, u := range raw {
		n, _ := b.WriteRune(u.r)
		for range n {
			pos = append(pos, i)
		}
	}
	t := b.String()
	if !escapes(t) {
		return nil, 0, false
	}
	d, p := decodedUnits(t)
	for i := range d {
		d[i].start, d[i].end = raw[pos[d[i].start]].start, raw[pos[d[i].end-1]].end
	}
	pending = -1
	if p < len(t) {
		pending = raw[pos[p]].start
	}
	return d, pending, true
}

// percent decodes the percent-encoded character at the start of s (one
// to four %HH bytes of UTF-8). incomplete reports that s ends inside one.
func percent(s string) (r rune, n int, ok, incomplete bool) {
	var b [utf8.UTFMax]byte
	need := 1
	for k := 0; k < need; k++ {
		at := 3 * k
		switch {
		case len(s) <= at:
			return 0, 0, false, true
		case s[at] != '%':
			return 0, 0, false, false
		case len(s) == at+1 || len(s) == at+2 && isHex(s[at+1]):
			return 0, 0, false, true
		case !isHex(s[at+1]) || !isHex(s[at+2]):
			return 0, 0, false, false
		}
		b[k] = byte(hexVal(s[at+1])<<4 | hexVal(s[at+2]))
		if k == 0 {
			switch c := b[0]; {
			case c < 0x80:
				return rune(c), 3, true, false
			case c&0xe0 == 0xc0:
				need = 2
			case c&0xf0 == 0xe0:
				need = 3
			case c&0xf8 == 0xf0:
				need = 4
			default:
				return 0, 0, false, false
			}
		}
	}
	r, size := utf8.DecodeRune(b[:need])
	if r == utf8.RuneError || size != need {
		return 0, 0, false, false
	}
	return r, 3 * need, true, false
}

// entity decodes the HTML character reference at the start of s (`&amp;`,
// `&#38;`, `&#x26;`; the `;` is required). incomplete reports that s ends
// inside what could still become one.
func entity(s string) (dec string, n int, ok, incomplete bool) {
	j := 1
	for j < len(s) && j < maxEntity {
		c := s[j]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '#') {
			break
		}
		j++
	}
	if j == len(s) {
		return "", 0, false, j < maxEntity
	}
	if s[j] != ';' || j == 1 {
		return "", 0, false, false
	}
	ref := s[:j+1]
	if d := html.UnescapeString(ref); d != ref {
		return d, j + 1, true, false
	}
	return "", 0, false, false
}

// jsonEscape decodes the JSON string escape at the start of s.
// incomplete reports that s ends inside one.
func jsonEscape(s string) (r rune, n int, ok, incomplete bool) {
	if len(s) < 2 {
		return 0, 0, false, true
	}
	switch s[1] {
	case '"', '\\', '/':
		return rune(s[1]), 2, true, false
	case 'b':
		return '\b', 2, true, false
	case 'f':
		return '\f', 2, true, false
	case 'n':
		return '\n', 2, true, false
	case 'r':
		return '\r', 2, true, false
	case 't':
		return '\t', 2, true, false
	case 'u':
	default:
		return 0, 0, false, false
	}
	u, ok, incomplete := hex4(s[2:])
	if !ok {
		return 0, 0, false, incomplete
	}
	if !utf16IsHigh(u) {
		if utf16IsLow(u) {
			return 0, 0, false, false
		}
		return u, 6, true, false
	}
	rest := s[6:]
	if len(rest) < 2 {
		if rest == "" || rest == `\` {
			return 0, 0, false, true
		}
		return 0, 0, false, false
	}
	if rest[0] != '\\' || rest[1] != 'u' {
		return 0, 0, false, false
	}
	lo, ok, incomplete := hex4(rest[2:])
	if !ok || !utf16IsLow(lo) {
		return 0, 0, false, incomplete
	}
	return (u-0xd800)<<10 | (lo - 0xdc00) + 0x10000, 12, true, false
}

func hex4(s string) (r rune, ok, incomplete bool) {
	for k := 0; k < 4; k++ {
		if k == len(s) {
			return 0, false, true
		}
		if !isHex(s[k]) {
			return 0, false, false
		}
		r = r<<4 | rune(hexVal(s[k]))
	}
	return r, true, false
}

func utf16IsHigh(r rune) bool { return 0xd800 <= r && r < 0xdc00 }
func utf16IsLow(r rune) bool  { return 0xdc00 <= r && r < 0xe000 }

// trimSpace drops leading and trailing ' ' units.
func trimSpace(us []unit) []unit {
	for len(us) > 0 && us[0].r == ' ' {
		us = us[1:]
	}
	for len(us) > 0 && us[len(us)-1].r == ' ' {
		us = us[:len(us)-1]
	}
	return us
}

func runesOf(us []unit) []rune {
	out := make([]rune, len(us))
	for i, u := range us {
		out[i] = u.r
	}
	return out
}
