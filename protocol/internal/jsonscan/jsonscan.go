// Package jsonscan walks JSON that is already known to be valid (checked
// with json.Valid) without decoding it: the members of an object, the
// elements of an array, the end of a value. The protocol layer uses it to
// read a message's envelope and the params of its hot methods once, with no
// allocation, keeping every member raw until a typed decoder reads it.
//
// Every function assumes valid JSON; on invalid input they return false or
// stop early, never panic.
package jsonscan

import (
	"encoding/json"
	"unicode/utf8"
)

// isSpace reports JSON whitespace.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// SkipSpace returns the index of the first non-space byte of b at or after i.
func SkipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// Trim returns b without leading and trailing JSON whitespace.
func Trim(b []byte) []byte {
	i := SkipSpace(b, 0)
	j := len(b)
	for j > i && isSpace(b[j-1]) {
		j--
	}
	return b[i:j]
}

// ValueEnd returns the index just past the value starting at b[i] (no
// leading space), or -1.
func ValueEnd(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				e := stringEnd(b, j)
				if e < 0 {
					return -1
				}
				j = e - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	default:
		j := i
		for j < len(b) && !isSpace(b[j]) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ':' {
			j++
		}
		if j == i {
			return -1
		}
		return j
	}
}

// stringEnd returns the index just past the string starting at b[i] == '"'.
func stringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

// Object calls fn for each member of the object b (trimmed or not), in
// order, with the raw key (quotes included) and the raw value; fn returns
// false to stop. It returns false when b is not an object.
func Object(b []byte, fn func(key, value []byte) bool) bool {
	i := SkipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = SkipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return true
	}
	for i < len(b) {
		if b[i] != '"' {
			return false
		}
		ke := stringEnd(b, i)
		if ke < 0 {
			return false
		}
		key := b[i:ke]
		i = SkipSpace(b, ke)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		i = SkipSpace(b, i+1)
		ve := ValueEnd(b, i)
		if ve < 0 {
			return false
		}
		if !fn(key, b[i:ve]) {
			return true
		}
		i = SkipSpace(b, ve)
		if i >= len(b) {
			return false
		}
		if b[i] == '}' {
			return true
		}
		if b[i] != ',' {
			return false
		}
		i = SkipSpace(b, i+1)
	}
	return false
}

// Array calls fn for each element of the array b; it returns false when b
// is not an array.
func Array(b []byte, fn func(value []byte) bool) bool {
	i := SkipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return false
	}
	i = SkipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return true
	}
	for i < len(b) {
		ve := ValueEnd(b, i)
		if ve < 0 {
			return false
		}
		if !fn(b[i:ve]) {
			return true
		}
		i = SkipSpace(b, ve)
		if i >= len(b) {
			return false
		}
		if b[i] == ']' {
			return true
		}
		if b[i] != ',' {
			return false
		}
		i = SkipSpace(b, i+1)
	}
	return false
}

// plain reports whether the raw string s (quotes included) holds no escape
// and only valid UTF-8, so that its text is s[1:len(s)-1].
func plain(s []byte) bool {
	for _, c := range s[1 : len(s)-1] {
		if c == '\\' || c >= utf8.RuneSelf {
			if c == '\\' {
				return false
			}
			return utf8.Valid(s[1 : len(s)-1])
		}
	}
	return true
}

// KeyIs reports whether the raw key (quotes included) names name, escapes
// decoded (a key written "\u006did" is "mid").
func KeyIs(key []byte, name string) bool {
	if len(key) < 2 || key[0] != '"' {
		return false
	}
	if plain(key) {
		return string(key[1:len(key)-1]) == name
	}
	s, ok := String(key)
	return ok && s == name
}

// Key returns the decoded text of a raw key.
func Key(key []byte) string {
	s, _ := String(key)
	return s
}

// String decodes a raw JSON string; ok is false when raw is not one.
// Invalid UTF-8 and lone surrogates become U+FFFD, as encoding/json does.
func String(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	if plain(raw) {
		return string(raw[1 : len(raw)-1]), true
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// StringLen reports whether raw is a JSON string and whether its text is
// empty, without decoding it.
func StringLen(raw []byte) (isString, empty bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return false, false
	}
	return true, len(raw) == 2
}
