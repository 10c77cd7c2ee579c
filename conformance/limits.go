package conformance

import (
	"fmt"
	"strings"
	"unicode/utf8"

	. "github.com/onsi/gomega"

	"github.com/e2e-conform/toolkit/protocol/wire"
)

// fieldsOverLimit lists every name over 256 and every text, value and
// selection over 512 UTF-16 units in snap (OBS-005).
func fieldsOverLimit(snap *wire.EngineSnapshot) []string {
	var over []string
	snap.Root.Walk(func(n *wire.SemanticNode) bool {
		for _, f := range []struct {
			member string
			v      *string
			limit  int
		}{{"name", n.Name, 256}, {"text", n.Text, 512}, {"value", n.Value, 512}, {"selection", n.Selection, 512}} {
			if f.v != nil && utf16Len(*f.v) > f.limit {
				over = append(over, fmt.Sprintf("node %s (test id %s): %s has %d UTF-16 units, more than %d", n.Ref.ID, fxText(n.TestID), f.member, utf16Len(*f.v), f.limit))
			}
		}
		return true
	})
	return over
}

// expectCutPrefix checks that got, a member of a value longer than limit,
// is a non-empty prefix of full within limit UTF-16 units: compared as it
// is, so a split surrogate pair (which decodes as U+FFFD) is no prefix.
func expectCutPrefix(what string, got *string, full string, limit int) {
	Expect(got).NotTo(BeNil(), "%s: want it cut to a prefix of the fixture's %d-unit text, got none", what, utf16Len(full))
	g := *got
	ok := g != "" && utf16Len(g) <= limit && strings.HasPrefix(full, g) && utf8.ValidString(g)
	Expect(ok).To(BeTrue(), "%s: want a non-empty prefix of the fixture's %d-unit text within %d UTF-16 units (a cut keeps the start and never splits a surrogate pair), got %d units ending %q",
		what, utf16Len(full), limit, utf16Len(g), tail(g, 12))
}

// tail returns the last n runes of s.
func tail(s string, n int) string {
	r := []rune(s)
	if len(r) > n {
		r = r[len(r)-n:]
	}
	return string(r)
}

// derefStr is *p, "" for nil.
func derefStr(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
