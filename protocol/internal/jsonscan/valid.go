package jsonscan

import "unicode/utf8"

// maxDepth is encoding/json's nesting limit: json.Valid refuses deeper
// documents.
const maxDepth = 10000

// Valid reports whether b is one JSON value (surrounding whitespace
// allowed) in valid UTF-8: exactly utf8.Valid(b) && json.Valid(b), in one
// pass and several times faster than encoding/json's scanner, which runs a
// state function per byte. FuzzValid holds it to the two.
func Valid(b []byte) bool {
	v := validator{b: b}
	return v.all()
}

// Member locates one member of an object in the validated bytes: the raw
// key (quotes included) is b[KeyStart:KeyEnd], the raw value
// b[ValueStart:ValueEnd]. Offsets, not slices, so that recording them
// makes nothing escape.
type Member struct{ KeyStart, KeyEnd, ValueStart, ValueEnd int }

// Key is the member's raw key in b.
func (m Member) Key(b []byte) []byte { return b[m.KeyStart:m.KeyEnd] }

// Value is the member's raw value in b.
func (m Member) Value(b []byte) []byte { return b[m.ValueStart:m.ValueEnd] }

// ValidMembers is Valid, and, when b is an object, records its members in
// into from the same pass (the members' ends come from the validation, not
// from a second scan, and nothing is allocated): n is how many members the
// object has, of which the first min(n, len(into)) are in into, in order.
// A caller finding n > len(into) walks the object with Object.
func ValidMembers(b []byte, into []Member) (valid bool, n int) {
	v := validator{b: b, members: into}
	valid = v.all()
	return valid, v.count
}

type validator struct {
	b       []byte
	i       int
	members []Member // where the top-level members are recorded
	count   int      // top-level members seen
}

func (v *validator) all() bool {
	v.space()
	if !v.value(0) {
		return false
	}
	v.space()
	return v.i == len(v.b)
}

func (v *validator) space() {
	for v.i < len(v.b) && isSpace(v.b[v.i]) {
		v.i++
	}
}

// value validates the value at v.i, nested depth deep.
func (v *validator) value(depth int) bool {
	if v.i >= len(v.b) {
		return false
	}
	switch c := v.b[v.i]; {
	case c == '"':
		return v.str()
	case c == '{':
		if depth+1 > maxDepth {
			return false
		}
		v.i++
		v.space()
		if v.i < len(v.b) && v.b[v.i] == '}' {
			v.i++
			return true
		}
		for {
			keyStart := v.i
			if v.i >= len(v.b) || v.b[v.i] != '"' || !v.str() {
				return false
			}
			keyEnd := v.i
			v.space()
			if v.i >= len(v.b) || v.b[v.i] != ':' {
				return false
			}
			v.i++
			v.space()
			valueStart := v.i
			if !v.value(depth + 1) {
				return false
			}
			if depth == 0 {
				if v.count < len(v.members) {
					v.members[v.count] = Member{keyStart, keyEnd, valueStart, v.i}
				}
				v.count++
			}
			v.space()
			if v.i >= len(v.b) {
				return false
			}
			switch v.b[v.i] {
			case ',':
				v.i++
				v.space()
			case '}':
				v.i++
				return true
			default:
				return false
			}
		}
	case c == '[':
		if depth+1 > maxDepth {
			return false
		}
		v.i++
		v.space()
		if v.i < len(v.b) && v.b[v.i] == ']' {
			v.i++
			return true
		}
		for {
			if !v.value(depth + 1) {
				return false
			}
			v.space()
			if v.i >= len(v.b) {
				return false
			}
			switch v.b[v.i] {
			case ',':
				v.i++
				v.space()
			case ']':
				v.i++
				return true
			default:
				return false
			}
		}
	case c == 't':
		return v.literal("true")
	case c == 'f':
		return v.literal("false")
	case c == 'n':
		return v.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		return v.number()
	}
	return false
}

func (v *validator) literal(s string) bool {
	if len(v.b)-v.i < len(s) || string(v.b[v.i:v.i+len(s)]) != s {
		return false
	}
	v.i += len(s)
	return true
}

// number validates -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
func (v *validator) number() bool {
	b := v.b
	i := v.i
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		start := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == start {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		start := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == start {
			return false
		}
	}
	v.i = i
	return true
}

// str validates the string at v.i (b[v.i] == '"'): no control character,
// valid escapes, valid UTF-8.
func (v *validator) str() bool {
	b := v.b
	i := v.i + 1
	for i < len(b) {
		c := b[i]
		switch {
		case c == '"':
			v.i = i + 1
			return true
		case c == '\\':
			if i+1 >= len(b) {
				return false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) {
					return false
				}
				for _, h := range b[i+2 : i+6] {
					if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
						return false
					}
				}
				i += 6
			default:
				return false
			}
		case c < 0x20:
			return false
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 {
				return false
			}
			i += size
		}
	}
	return false
}
