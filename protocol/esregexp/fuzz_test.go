package esregexp

import (
	"errors"
	"regexp"
	"strings"
	"testing"
)

// fuzzFlags maps a byte to a flags string in canonical order; bits 5 and 6
// (u and v) may both be set, which must give a FlagsError.
func fuzzFlags(bits uint8) string {
	var b strings.Builder
	for i, f := range "dgimsuvy" {
		if bits&(1<<i) != 0 {
			b.WriteRune(f)
		}
	}
	return b.String()
}

var fuzzSubjects = []string{"", "a", "abc", "A B", "ſK k", "é É", "😀 x", "a\nb", "\u2028", "12-34", "{}[]()"}

func FuzzCompile(f *testing.F) {
	var g golden
	readJSON(f, "golden.json", &g)
	bitsOf := func(flags string) uint8 {
		var bits uint8
		for i, c := range "dgimsuvy" {
			if strings.ContainsRune(flags, c) {
				bits |= 1 << i
			}
		}
		return bits
	}
	for _, c := range g.Match {
		f.Add(c.Source, bitsOf(c.Flags))
	}
	for _, c := range g.Unsupported {
		if len(c.Source) < 200 {
			f.Add(c.Source, bitsOf(c.Flags))
		}
	}
	for _, c := range g.Syntax {
		f.Add(c.Source, bitsOf(c.Flags))
	}
	f.Fuzz(func(t *testing.T, source string, bits uint8) {
		if len(source) > 1024 {
			// Long sources only slow the fuzzer down; the unit tests cover
			// long patterns (deep nesting, counts of 1000).
			t.Skip()
		}
		flags := fuzzFlags(bits)
		re, err := Compile(source, flags)
		expr, terr := Translate(source, flags)

		var ue *UnsupportedError
		var se *SyntaxError
		var fe *FlagsError
		kinds := 0
		for _, ok := range []bool{errors.As(err, &ue), errors.As(err, &se), errors.As(err, &fe)} {
			if ok {
				kinds++
			}
		}
		switch {
		case err == nil && re == nil:
			t.Fatalf("/%q/%s: nil regexp without an error", source, flags)
		case err == nil && kinds != 0, err != nil && (kinds != 1 || re != nil):
			t.Fatalf("/%q/%s: got (%v, %v), want exactly one of regexp, UnsupportedError, SyntaxError, FlagsError", source, flags, re, err)
		}
		if fe != nil && ValidFlags(flags) {
			t.Fatalf("FlagsError for valid flags %q", flags)
		}
		if ue != nil && strings.HasPrefix(ue.Construct, "a construct RE2 rejects") {
			t.Fatalf("/%q/%s: the translation is not valid RE2: %v", source, flags, err)
		}
		// Translate agrees with Compile.
		if (err == nil) != (terr == nil) || err != nil && err.Error() != terr.Error() {
			t.Fatalf("/%q/%s: Compile says %v, Translate %v", source, flags, err, terr)
		}
		if re == nil {
			return
		}
		if re.String() != expr {
			t.Fatalf("/%q/%s: Compile compiled %q, Translate returned %q", source, flags, re, expr)
		}
		if _, err := regexp.Compile(expr); err != nil {
			t.Fatalf("/%q/%s: translation %q does not compile: %v", source, flags, expr, err)
		}
		for _, s := range fuzzSubjects {
			re.MatchString(s)
		}
	})
}
