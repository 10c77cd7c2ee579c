package conformance

import (
	"context"
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/e2e-conform/toolkit/conformance/fixture"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// observeLimitSpecs registers the OBS-005 spec of filled values (issue
// 25): the limits screen holds its long values from its markup, and an
// engine that cuts only those, or cuts only past 513 units, passed. Here
// the suite fills the values itself into every text field the fixture
// contract has, at and around the limit.
func observeLimitSpecs(s *suite) {
	// §4.8: "text, value and selection at most 512 UTF-16 code units, cut
	// by keeping the start"; §0.4: limits count UTF-16 code units and "a
	// cut never splits a surrogate pair". A value within its limit is the
	// field's current value (§5.5), not cut: the parenthesis "a value
	// exactly at its limit may have been cut" tells a reader that a
	// 512-unit value may be a cut one (as the limits screen spec reads
	// it). Values are compared as they are, not normalized. A field whose
	// fill the engine refuses is not judged; the spec then ends not
	// verified, after judging the others.
	s.spec("a value filled into each text field of the tree, form, keys, storage and limits screens comes back whole at 511 and at 512 UTF-16 units (ending with a surrogate pair), and cut to a non-empty prefix of at most 512 units that splits no surrogate pair at 513 units, also when a surrogate pair straddles unit 512",
		[]string{"OBS-005"}, func(ctx context.Context, e *runEnv) {
			if !e.fxCanPerform(wire.ActionFill) {
				Skip(notVerified + "the suite fills the fields with engine/perform fill, which the engine does not declare")
			}
			c, op, _ := e.pooledAttempt(ctx)
			var refused []string
			for _, f := range filledValueFields() {
				snap := e.fxStage(ctx, c, op, f.screen, "")
				node := fxNode(snap, f.screen, f.field)
				for _, v := range filledValueCases() {
					what := fmt.Sprintf("the %s screen's field %q filled with %s", f.screen.Name, f.field.TestID, v.what)
					if err := c.Perform(ctx, op, node.Ref, wire.LocatorAction{Kind: wire.ActionFill, Value: v.value}); err != nil {
						refused = append(refused, fmt.Sprintf("%s: %s", what, fxDescribeError(err)))
						break
					}
					snap = fxObserve(ctx, c, op, "after filling "+what)
					node = fxNode(snap, f.screen, f.field)
					over := fieldsOverLimit(snap)
					Expect(over).To(BeEmpty(), "field limits after filling %s: %s", what, strings.Join(firstFew(over, 10), "; "))
					if v.whole {
						got := derefStr(node.Value)
						Expect(node.Value != nil && got == v.value).To(BeTrue(), "value of %s: want it whole, %d UTF-16 units (it fits the limit of 512), got %s, %d units ending %q",
							what, utf16Len(v.value), map[bool]string{true: "it", false: "none"}[node.Value != nil], utf16Len(got), tail(got, 12))
						e.observed("OBS-005", "filled value whole within the limit")
						continue
					}
					expectCutPrefix("value of "+what, node.Value, v.value, wire.TextMaxUnits)
					e.observed("OBS-005", "filled value cut to a prefix")
				}
			}
			if len(refused) > 0 {
				Skip(notVerified + "the engine refused to fill " + strings.Join(refused, "; "))
			}
			e.requireEvidence("OBS-005", "no filled value was observed")
		})
}

// filledField is a text field of a fixture screen.
type filledField struct {
	screen fixture.Screen
	field  fixture.Element
}

// filledValueFields are the contract's text fields (role textbox, not
// secure): every place a fixture screen can hold a long value.
func filledValueFields() []filledField {
	return []filledField{
		{fixture.Tree(), fixture.TreeShownField()},
		{fixture.Form(), fixture.FormName()},
		{fixture.Keys(), fixture.KeysInput()},
		{fixture.Storage(), fixture.StorageInput()},
		{fixture.Limits(), fixture.LimitsExactValue()},
		{fixture.Limits(), fixture.LimitsLongValue()},
	}
}

// filledValue is one value the suite fills: whole when it fits 512 units.
type filledValue struct {
	what, value string
	whole       bool
}

// filledValueCases are the values around the limit of 512 UTF-16 units,
// each carrying é (1 unit, 2 UTF-8 bytes), so that counting bytes or code
// points instead of units shows.
func filledValueCases() []filledValue {
	return []filledValue{
		{"a 511-unit value", unitString(511, 0), true},
		{"a 512-unit value ending with a surrogate pair (units 511–512)", unitString(512, 511), true},
		{"a 513-unit value", unitString(513, 0), false},
		{"a 513-unit value with a surrogate pair at units 512–513", unitString(513, 512), false},
	}
}

// unitString is a string of exactly n UTF-16 units without whitespace; when
// pairAt > 0, U+1F600 (a surrogate pair) takes units pairAt and pairAt+1
// (1-based).
func unitString(n, pairAt int) string {
	const filler = "e2e-conform-value-é-"
	var b strings.Builder
	fill := []rune(filler)
	for units, i := 0, 0; units < n; i++ {
		if pairAt > 0 && units == pairAt-1 {
			b.WriteRune('😀')
			units += 2
			continue
		}
		b.WriteRune(fill[i%len(fill)])
		units++
	}
	return b.String()
}
