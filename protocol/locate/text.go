package locate

import (
	"bytes"
	"errors"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/e2e-conform/toolkit/protocol/engineerr"
	"github.com/e2e-conform/toolkit/protocol/esregexp"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// isSpace reports whether r is in the ECMAScript \s set (WhiteSpace and
// LineTerminator): U+0009–U+000D, U+0020, U+00A0, U+1680, U+2000–U+200A,
// U+2028, U+2029, U+202F, U+205F, U+3000, U+FEFF. Unlike unicode.IsSpace it
// excludes U+0085.
func isSpace(r rune) bool {
	switch {
	case r <= 0x20:
		return r == 0x20 || (r >= 0x09 && r <= 0x0D)
	case r < 0xA0:
		return false
	case r == 0xA0, r == 0x1680, r >= 0x2000 && r <= 0x200A, r == 0x2028, r == 0x2029,
		r == 0x202F, r == 0x205F, r == 0x3000, r == 0xFEFF:
		return true
	}
	return false
}

// normalized reports whether s is already in normal form: no whitespace but
// single U+0020 between non-whitespace.
func normalized(s string) bool {
	prevSpace := true // a leading space is not normal
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			switch {
			case c == ' ':
				if prevSpace {
					return false
				}
				prevSpace = true
			case c >= 0x09 && c <= 0x0D:
				return false
			default:
				prevSpace = false
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if isSpace(r) {
			return false
		}
		prevSpace = false
	}
	return len(s) == 0 || !prevSpace
}

// Normalize is the normalize of spec §10.3: every maximal run of ECMAScript
// whitespace (see the package documentation) becomes one U+0020, and the
// result is trimmed. Bytes that are not UTF-8 are kept as they are.
func Normalize(s string) string {
	if normalized(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	pending := false
	for i := 0; i < len(s); {
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		if isSpace(r) {
			pending = b.Len() > 0
		} else {
			if pending {
				b.WriteByte(' ')
				pending = false
			}
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// lower maps each code point by the Unicode simple lowercase mapping (D35).
// strings.ToLower is exactly strings.Map(unicode.ToLower, s) beyond its ASCII
// fast path, and unicode.ToLower is the simple mapping of UnicodeData.txt; it
// returns s itself when nothing changes.
func lower(s string) string { return strings.ToLower(s) }

// containsLower reports whether lowPat, already lowered, occurs in lower(s),
// without allocating for the texts a semantic node carries.
func containsLower(s, lowPat string, lowPatBytes []byte) bool {
	plain := true // ASCII without upper case: lower(s) == s
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= utf8.RuneSelf || ('A' <= c && c <= 'Z') {
			plain = false
			break
		}
	}
	if plain {
		return strings.Contains(s, lowPat)
	}
	var buf [1024]byte
	b := buf[:0]
	for _, r := range s { // an invalid byte reads as U+FFFD, as in strings.ToLower
		b = utf8.AppendRune(b, unicode.ToLower(r))
	}
	return bytes.Contains(b, lowPatBytes)
}

// Matcher is a compiled [wire.TextPattern]: one resolution compiles each
// pattern once and matches it against every node. A Matcher is immutable and
// safe for concurrent use.
type Matcher struct {
	kind  uint8  // matchExact, matchSubstring or matchRegexp
	value string // exact: normalize(value); substring: lower(normalize(value))
	bytes []byte // substring: value as bytes
	re    *regexp.Regexp
}

const (
	matchExact = iota + 1
	matchSubstring
	matchRegexp
)

// Compile compiles a text pattern (spec §5.6, §10.3, §10.4). A regexp the
// translator refuses is an UNSUPPORTED_CAPABILITY [engineerr.EngineError]; an
// invalid ECMAScript source or invalid flags are the e2e test error
// INVALID_ARGUMENT; a nil pattern or an unknown kind is ENGINE_FAILURE.
func Compile(p *wire.TextPattern) (*Matcher, error) {
	if p == nil {
		return nil, engineerr.New(engineerr.EngineFailure, "text pattern is missing")
	}
	switch p.Kind {
	case wire.PatternString:
		v := Normalize(p.Value)
		if p.Exact {
			return &Matcher{kind: matchExact, value: v}, nil
		}
		l := lower(v)
		return &Matcher{kind: matchSubstring, value: l, bytes: []byte(l)}, nil
	case wire.PatternRegexp:
		re, err := compileRegexp(p.Source, p.Flags)
		if err != nil {
			return nil, err
		}
		return &Matcher{kind: matchRegexp, re: re}, nil
	}
	return nil, engineerr.New(engineerr.EngineFailure, "unknown TextPattern kind %q", p.Kind)
}

// compileRegexp translates an ECMAScript regexp and maps the translator's
// errors to the protocol's (§10.4).
func compileRegexp(source, flags string) (*regexp.Regexp, error) {
	if !esregexp.ValidFlags(flags) {
		return nil, invalidFlags(&esregexp.FlagsError{Flags: flags})
	}
	re, err := esregexp.Compile(source, flags)
	if err == nil {
		return re, nil
	}
	var (
		unsupported *esregexp.UnsupportedError
		syntax      *esregexp.SyntaxError
		badFlags    *esregexp.FlagsError
	)
	switch {
	case errors.As(err, &unsupported):
		e := engineerr.New(engineerr.UnsupportedCapability, "%s", unsupported.Error())
		e.Cause = err
		return nil, e
	case errors.As(err, &syntax):
		e := engineerr.NewE2E(engineerr.CategoryTest, "INVALID_ARGUMENT", "%s", syntax.Error())
		e.Cause = err
		return nil, e
	case errors.As(err, &badFlags):
		return nil, invalidFlags(badFlags)
	}
	e := engineerr.New(engineerr.EngineFailure, "regular expression /%s/%s: %v", source, flags, err)
	e.Cause = err
	return nil, e
}

// invalidFlags is the e2e INVALID_ARGUMENT for flags outside §5.6, with
// esregexp's message.
func invalidFlags(fe *esregexp.FlagsError) error {
	e := engineerr.NewE2E(engineerr.CategoryTest, "INVALID_ARGUMENT", "%s", fe.Error())
	e.Cause = fe
	return e
}

// Match reports whether actual matches the pattern (spec §10.3): actual is
// normalized first; a regexp is tested from position 0 with no state kept
// between calls. A nil Matcher matches nothing.
func (m *Matcher) Match(actual string) bool {
	if m == nil {
		return false
	}
	n := Normalize(actual)
	switch m.kind {
	case matchExact:
		return n == m.value
	case matchSubstring:
		return containsLower(n, m.value, m.bytes)
	case matchRegexp:
		return m.re.MatchString(n)
	}
	return false
}

// MatchesText is matchesText of spec §10.3: whether actual matches p. It
// compiles p on every call; use [Compile] to match one pattern many times.
// Its errors are those of [Compile].
func MatchesText(actual string, p *wire.TextPattern) (bool, error) {
	m, err := Compile(p)
	if err != nil {
		return false, err
	}
	return m.Match(actual), nil
}
