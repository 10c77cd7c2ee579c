package conformance

import (
	"testing"
	"unicode/utf16"
)

// TestFilledValueCases: the OBS-005 fill values have the lengths their
// names say, and the pair sits where they say (units counted 1-based).
func TestFilledValueCases(t *testing.T) {
	for _, c := range []struct {
		n, pairAt int
	}{{511, 0}, {512, 511}, {513, 0}, {513, 512}} {
		s := unitString(c.n, c.pairAt)
		u := utf16.Encode([]rune(s))
		if len(u) != c.n {
			t.Errorf("unitString(%d, %d) has %d units", c.n, c.pairAt, len(u))
		}
		if c.pairAt > 0 && (!utf16.IsSurrogate(rune(u[c.pairAt-1])) || !utf16.IsSurrogate(rune(u[c.pairAt]))) {
			t.Errorf("unitString(%d, %d): units %d–%d are no surrogate pair", c.n, c.pairAt, c.pairAt, c.pairAt+1)
		}
	}
}
