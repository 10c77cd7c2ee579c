package wire

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Key modifiers (KEY_MODIFIERS, spec §5.9).
const (
	ModShift         = "Shift"
	ModControl       = "Control"
	ModAlt           = "Alt"
	ModMeta          = "Meta"
	ModControlOrMeta = "ControlOrMeta"
)

// KeyModifiers returns KEY_MODIFIERS.
func KeyModifiers() []string {
	return []string{ModShift, ModControl, ModAlt, ModMeta, ModControlOrMeta}
}

// KeyNames returns KEY_NAMES, the 27 named keys (spec §5.9).
func KeyNames() []string {
	return []string{"Enter", "Escape", "Tab", "Backspace", "Delete", "Insert", "Space",
		"ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight", "Home", "End", "PageUp", "PageDown",
		"F1", "F2", "F3", "F4", "F5", "F6", "F7", "F8", "F9", "F10", "F11", "F12"}
}

// Key is a parsed key of the key grammar: modifiers in the order given, and
// either a named key (Name) or one printable character (Char).
type Key struct {
	Modifiers []string
	Name      string // a KEY_NAMES member, or ""
	Char      rune   // the character when Name is ""
}

// String renders the key back in the grammar.
func (k Key) String() string {
	last := k.Name
	if last == "" {
		last = string(k.Char)
	}
	return strings.Join(append(append([]string{}, k.Modifiers...), last), "+")
}

// KeyError says why a string is outside the key grammar.
type KeyError struct {
	Key    string
	Reason string
}

func (e *KeyError) Error() string { return fmt.Sprintf("key %q is invalid: %s", e.Key, e.Reason) }

// ParseKey parses key by the grammar of spec §5.9.
func ParseKey(key string) (Key, error) {
	bad := func(format string, args ...any) (Key, error) {
		return Key{}, &KeyError{Key: key, Reason: fmt.Sprintf(format, args...)}
	}
	if key == "" {
		return bad("empty")
	}
	if key == "+" {
		return Key{Char: '+'}, nil
	}
	var parts []string
	if strings.HasSuffix(key, "+") && len(key) > 1 {
		head := key[:len(key)-2]
		if head == "" {
			parts = []string{"", "+"}
		} else {
			parts = append(strings.Split(head, "+"), "+")
		}
		if !strings.HasSuffix(key, "++") {
			return bad("empty key after the last +")
		}
	} else {
		parts = strings.Split(key, "+")
	}
	last := parts[len(parts)-1]
	if last == "" {
		return bad("empty key after the last +")
	}
	var mods []string
	for _, p := range parts[:len(parts)-1] {
		if !contains(KeyModifiers(), p) {
			return bad("%q is not a modifier (one of %s)", p, strings.Join(KeyModifiers(), ", "))
		}
		if contains(mods, p) {
			return bad("modifier %s repeated", p)
		}
		mods = append(mods, p)
	}
	if contains(KeyNames(), last) {
		return Key{Modifiers: mods, Name: last}, nil
	}
	r, size := utf8.DecodeRuneInString(last)
	if size != len(last) || r == utf8.RuneError {
		return bad("%q is neither a key name nor one character", last)
	}
	if !Printable(r) {
		return bad("U+%04X is not a printable character", r)
	}
	return Key{Modifiers: mods, Char: r}, nil
}

// Printable reports whether r is outside the general categories Cc, Cf, Cs,
// Co, Cn, Zl and Zp (spec §5.9).
func Printable(r rune) bool {
	if !utf8.ValidRune(r) {
		return false
	}
	// Every assigned code point outside C, Zl and Zp is in one of these.
	return unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Zs)
}
