package esregexp

import (
	"regexp/syntax"
	"strconv"
	"strings"
	"sync"
)

// emitSet returns one RE2 atom matching exactly the code points of g.
// Surrogate code points never occur in the valid UTF-8 subjects RE2 matches,
// so they are a "don't care" when choosing the shortest form.
func emitSet(g runeSet) string {
	if len(g) == 0 {
		return `[^\x{0}-\x{10ffff}]`
	}
	if len(g) == 1 && g[0].lo == g[0].hi {
		return literal(g[0].lo)
	}
	w := union(g, surrogateSet)
	if w.equal(fullSet) {
		return `(?s:.)`
	}
	switch {
	case g.equal(digitSet):
		return `\d`
	case g.equal(wordSet):
		return `\w`
	}
	neg := w.complement(maxCodePoint)
	switch {
	case neg.equal(digitSet):
		return `\D`
	case neg.equal(wordSet):
		return `\W`
	}
	var b strings.Builder
	if len(neg) < len(g) {
		b.WriteString("[^")
		writeRanges(&b, neg)
	} else {
		b.WriteByte('[')
		writeRanges(&b, g)
	}
	b.WriteByte(']')
	return b.String()
}

// writeRanges writes the ranges of s as the body of an RE2 bracket expression.
func writeRanges(b *strings.Builder, s runeSet) {
	for _, r := range s {
		writeLiteral(b, r.lo)
		if r.hi != r.lo {
			if r.hi > r.lo+1 {
				b.WriteByte('-')
			}
			writeLiteral(b, r.hi)
		}
	}
}

// literal returns the RE2 syntax of the code point c as a literal, valid both
// inside and outside bracket expressions.
func literal(c rune) string {
	if c < 0x80 && isAlnum(c) {
		return string(c)
	}
	var b strings.Builder
	writeLiteral(&b, c)
	return b.String()
}

func writeLiteral(b *strings.Builder, c rune) {
	switch {
	case c < 0x80 && isAlnum(c), c == ' ':
		b.WriteByte(byte(c))
	case c > ' ' && c < 0x7F:
		// ASCII punctuation: a backslash makes it literal in RE2.
		b.WriteByte('\\')
		b.WriteByte(byte(c))
	case c == '\t':
		b.WriteString(`\t`)
	case c == '\n':
		b.WriteString(`\n`)
	case c == '\v':
		b.WriteString(`\v`)
	case c == '\f':
		b.WriteString(`\f`)
	case c == '\r':
		b.WriteString(`\r`)
	default:
		b.WriteString(`\x{`)
		b.WriteString(strconv.FormatInt(int64(c), 16))
		b.WriteByte('}')
	}
}

func isAlnum(c rune) bool {
	return c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z'
}

// nativeProps caches, for each name, whether RE2 (Go's regexp/syntax)
// accepts \p{name} and gives it exactly the code points this package
// computed. Go's parser misreads some names (multi-word script names such as
// Old_Italic), so a name is used natively only when both agree; otherwise the
// set is written out as ranges.
var nativeProps sync.Map // string -> bool

// nativeProperty returns `\p{name}` when RE2 reads it as exactly set, else "".
func nativeProperty(name string, set runeSet) string {
	text := `\p{` + name + `}`
	if v, ok := nativeProps.Load(name); ok {
		if v.(bool) {
			return text
		}
		return ""
	}
	ok := false
	if re, err := syntax.Parse(text, syntax.Perl); err == nil {
		switch re.Op {
		case syntax.OpCharClass:
			var rs []rng
			for i := 0; i+1 < len(re.Rune); i += 2 {
				rs = append(rs, rng{re.Rune[i], re.Rune[i+1]})
			}
			ok = makeSet(rs).equal(set)
		case syntax.OpAnyChar:
			ok = set.equal(fullSet)
		}
	}
	nativeProps.Store(name, ok)
	if ok {
		return text
	}
	return ""
}
