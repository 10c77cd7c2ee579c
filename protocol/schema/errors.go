package schema

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
)

// Violation is one failed check, located by a JSON pointer into the
// validated instance ("" is the root, "/methods/3").
type Violation struct {
	Pointer string // RFC 6901 pointer into the instance
	Rule    string // manifest dependency rule "M1".."M13" when the violation is one, else ""
	Message string // what is wrong, in words, naming the offending value where useful
}

// Error lists every violation of one validated instance.
type Error struct {
	Subject    string      // what was validated: "manifest", "params of engine/perform", "result of engine/observe", "AppLogParams", ...
	Violations []Violation // sorted by Pointer, then Rule; never empty
}

// Error renders the violations as
// "<subject>: <pointer>: <message>; <pointer>: <message>", writing "(root)"
// for the empty pointer.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Subject)
	b.WriteString(": ")
	if len(e.Violations) == 0 {
		b.WriteString("invalid")
		return b.String()
	}
	for i, v := range e.Violations {
		if i > 0 {
			b.WriteString("; ")
		}
		if v.Pointer == "" {
			b.WriteString("(root)")
		} else {
			b.WriteString(v.Pointer)
		}
		b.WriteString(": ")
		b.WriteString(v.Message)
	}
	return b.String()
}

// sortViolations orders violations by pointer (token by token, array
// indexes numerically), then rule, then message, and drops exact duplicates.
func sortViolations(vs []Violation) []Violation {
	slices.SortStableFunc(vs, func(a, b Violation) int {
		if c := comparePointers(a.Pointer, b.Pointer); c != 0 {
			return c
		}
		if c := compareRules(a.Rule, b.Rule); c != 0 {
			return c
		}
		return strings.Compare(a.Message, b.Message)
	})
	return slices.Compact(vs)
}

// compareRules orders "" first, then M1 < M2 < ... < M13.
func compareRules(a, b string) int {
	if a == b {
		return 0
	}
	na, ea := strconv.Atoi(strings.TrimPrefix(a, "M"))
	nb, eb := strconv.Atoi(strings.TrimPrefix(b, "M"))
	if ea == nil && eb == nil && strings.HasPrefix(a, "M") && strings.HasPrefix(b, "M") {
		return cmp.Compare(na, nb)
	}
	return strings.Compare(a, b)
}

func comparePointers(a, b string) int {
	if a == b {
		return 0
	}
	ta, tb := splitPointer(a), splitPointer(b)
	for i := 0; i < len(ta) && i < len(tb); i++ {
		if ta[i] == tb[i] {
			continue
		}
		na, ea := strconv.Atoi(ta[i])
		nb, eb := strconv.Atoi(tb[i])
		if ea == nil && eb == nil {
			if c := cmp.Compare(na, nb); c != 0 {
				return c
			}
		}
		return strings.Compare(ta[i], tb[i])
	}
	return cmp.Compare(len(ta), len(tb))
}

// splitPointer returns the raw (still escaped) tokens of a pointer.
func splitPointer(p string) []string {
	if p == "" {
		return nil
	}
	return strings.Split(p[1:], "/")
}

// escapeToken escapes one RFC 6901 reference token.
func escapeToken(tok string) string {
	if !strings.ContainsAny(tok, "~/") {
		return tok
	}
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
}

func unescapeToken(tok string) string {
	if !strings.Contains(tok, "~") {
		return tok
	}
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
}

// pointerOf renders instance location tokens as an RFC 6901 pointer.
func pointerOf(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(escapeToken(t))
	}
	return b.String()
}

// resolvePointer returns the value p points at in v.
func resolvePointer(v any, p string) (any, bool) {
	for _, tok := range splitPointer(p) {
		tok = unescapeToken(tok)
		switch c := v.(type) {
		case map[string]any:
			x, ok := c[tok]
			if !ok {
				return nil, false
			}
			v = x
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) || strconv.Itoa(i) != tok {
				return nil, false
			}
			v = c[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// at returns the value at unescaped instance location tokens.
func at(v any, tokens []string) any {
	for _, tok := range tokens {
		switch c := v.(type) {
		case map[string]any:
			v = c[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil
			}
			v = c[i]
		default:
			return nil
		}
	}
	return v
}
