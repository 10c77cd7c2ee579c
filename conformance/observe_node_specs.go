package conformance

import (
	"context"
	"fmt"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/e2e-conform/toolkit/conformance/fixture"
	"github.com/e2e-conform/toolkit/protocol/locate"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// observeNodeSpecs registers OBS-004, OBS-005, OBS-006 and OBS-007: ids never
// reused, the length limits of names and texts, secure nodes without values,
// and states that reflect the fixture (spec §4.8).
func observeNodeSpecs(s *suite) {
	// The removed item is told by its ref.id: after each tap of Mutate the
	// suite keeps the item's id, and no node of any later observation may
	// carry one of the kept ids (neither the replacement, which has the
	// same test id, nor any other node). A tap that does not mutate leaves
	// nothing to check: not verified (ACT-001 judges the tap).
	s.spec("after the mutation fixture removes its item and adds another, no later snapshot gives the removed item's id to another node",
		[]string{"OBS-004"}, func(ctx context.Context, e *runEnv) {
			if !e.fxCanPerform(wire.ActionTap) {
				Skip(notVerified + "the suite mutates the fixture with engine/perform tap, which the engine does not declare")
			}
			c, op, _ := e.pooledAttempt(ctx)
			sc := fixture.Mutation()
			snap := e.fxStage(ctx, c, op, sc, "")
			var removed []string
			for round := 1; round <= 2; round++ {
				removed = append(removed, fxNode(snap, sc, fixture.MutationItem()).Ref.ID)
				button := fxNode(snap, sc, fixture.MutationButton())
				err := c.Perform(ctx, op, button.Ref, wire.LocatorAction{Kind: wire.ActionTap})
				Expect(err).NotTo(HaveOccurred(), "engine/perform tap on the Mutate button: want null, got %s", fxDescribeError(err))
				snap = fxObserve(ctx, c, op, "after tapping Mutate")
				if n, ok := fixture.MutationCount().Count(&snap.Root); !ok || n < round {
					shown := "no mutation count"
					if st := fixture.MutationCount().Find(&snap.Root); st != nil {
						shown = fxText(st.Text)
					}
					Skip(notVerified + fmt.Sprintf("after %d tap(s) of Mutate the fixture shows %s: no mutation happened, so there is no removed node to check", round, shown))
				}
				fxNode(snap, sc, fixture.MutationItem()) // the replacement is there
			}
			for i := 1; i <= 3; i++ {
				if i > 1 {
					snap = fxObserve(ctx, c, op, "after the mutations")
				}
				var reused []string
				snap.Root.Walk(func(n *wire.SemanticNode) bool {
					if slices.Contains(removed, n.Ref.ID) {
						reused = append(reused, fmt.Sprintf("%s on the node with test id %s, name %s", n.Ref.ID, fxText(n.TestID), fxText(n.Name)))
					}
					return true
				})
				Expect(reused).To(BeEmpty(), "observation %d after two mutations: want none of the removed items' ids %v on any node, got %s", i, removed, strings.Join(reused, "; "))
			}
			// "An id MUST NOT be given to a different node later in the
			// surface's lifetime" (§4.8) outlives the document: the screen
			// is opened again (a new document, a new item) and none of its
			// nodes may carry a removed id either.
			snap = e.fxStage(ctx, c, op, sc, "")
			var reused []string
			snap.Root.Walk(func(n *wire.SemanticNode) bool {
				if slices.Contains(removed, n.Ref.ID) {
					reused = append(reused, fmt.Sprintf("%s on the node with test id %s, name %s", n.Ref.ID, fxText(n.TestID), fxText(n.Name)))
				}
				return true
			})
			Expect(reused).To(BeEmpty(), "the mutation fixture opened again after two mutations: want none of the removed items' ids %v on any node, got %s", removed, strings.Join(reused, "; "))
		})

	// "A cut value is a prefix of the fixture's full text" is checked on
	// the two nodes the contract makes too long (LongText, 600 units with a
	// surrogate pair at 511–512, and LongName, 300 units); both sides are
	// whitespace-normalized (§10.3) first, since an engine may report text
	// normalized. The cut need not be maximal: the statement asks for a
	// prefix within the limit. A split surrogate pair decodes as U+FFFD and
	// is no prefix.
	s.spec("on the tree fixture every name has at most 256 and every text, value and selection at most 512 UTF-16 units, and the cut long text and long name are prefixes of the fixture's full texts",
		[]string{"OBS-005"}, func(ctx context.Context, e *runEnv) {
			c, op, _ := e.pooledAttempt(ctx)
			sc := fixture.Tree()
			snap := e.fxStage(ctx, c, op, sc, "")
			over := fieldsOverLimit(snap)
			Expect(over).To(BeEmpty(), "field limits on the tree fixture: %s", strings.Join(firstFew(over, 10), "; "))
			prefix := func(what string, got *string, full string) {
				Expect(got).NotTo(BeNil(), "%s: want it cut to a prefix of the fixture's %d-unit text, got none", what, utf16Len(full))
				g := locate.Normalize(*got)
				Expect(g != "" && strings.HasPrefix(locate.Normalize(full), g)).To(BeTrue(),
					"%s: want a non-empty prefix of the fixture's full text (a cut keeps the start and never splits a surrogate pair), got %d UTF-16 units: %q",
					what, utf16Len(*got), clip(*got))
			}
			prefix("text of the long text node", fxNode(snap, sc, fixture.TreeLongText()).Text, fixture.LongText())
			prefix("name of the long-named button", fxNode(snap, sc, fixture.TreeLongName()).Name, fixture.LongName())
		})

	// The boundaries of OBS-005 on the limits screen (the tree fixture's
	// second screen). A member within its limit is not cut: name is the
	// accessible name and value the current input value (§5.5), and §4.8
	// cuts only what exceeds "at most 256 / 512"; its parenthesis (a value
	// exactly at its limit may have been cut) tells a reader that a
	// 512-unit value may be a cut one, not that a fitting value may be cut.
	// Each string carries é (1 unit, 2 UTF-8 bytes) and 😀 (2 units, 1 code
	// point), so counting bytes or code points instead of UTF-16 units
	// (§0.4, D45) shows: the exact ones end with a pair at the limit, the
	// long value has one straddling unit 512, which a cut must not split
	// (a split pair decodes as U+FFFD and is no prefix). Names and texts
	// are compared whitespace-normalized (§10.3), values as they are.
	s.spec("on the limits fixture a name of exactly 256 and a text and a value of exactly 512 UTF-16 units, ending with a surrogate pair, come back whole, and a 600-unit value is cut to a non-empty prefix of at most 512 units that splits no surrogate pair",
		[]string{"OBS-005"}, func(ctx context.Context, e *runEnv) {
			c, op, _ := e.pooledAttempt(ctx)
			sc := fixture.Limits()
			snap := e.fxStage(ctx, c, op, sc, "")
			over := fieldsOverLimit(snap)
			Expect(over).To(BeEmpty(), "field limits on the limits fixture: %s", strings.Join(firstFew(over, 10), "; "))
			whole := func(what string, got *string, full string, normalize bool) {
				g, w := derefStr(got), full
				if normalize {
					g, w = locate.Normalize(g), locate.Normalize(full)
				}
				Expect(got != nil && g == w).To(BeTrue(), "%s: want it whole, %d UTF-16 units (it fits its limit), got %s, %d units ending %q", what, utf16Len(full), map[bool]string{true: "it", false: "none"}[got != nil], utf16Len(derefStr(got)), tail(derefStr(got), 12))
				e.observed("OBS-005", what+" whole at the limit")
			}
			whole("name of the exactly-256-unit button", fxNode(snap, sc, fixture.LimitsExactName()).Name, fixture.ExactName(), true)
			whole("text of the exactly-512-unit text", fxNode(snap, sc, fixture.LimitsExactText()).Text, fixture.ExactText(), true)
			whole("value of the exactly-512-unit field", fxNode(snap, sc, fixture.LimitsExactValue()).Value, fixture.ExactValue(), false)
			got := fxNode(snap, sc, fixture.LimitsLongValue()).Value
			expectCutPrefix("value of the 600-unit field", got, fixture.LongValue(), wire.TextMaxUnits)
			e.observed("OBS-005", "600-unit value cut to a prefix")
		})

	// selection is "selected text in the focused field" (§5.5): the limits
	// screen focuses the 600-unit field with its whole value selected when
	// it loads, so an engine reporting selections reports a 600-unit one,
	// which must come cut like value. An engine that reports no selection
	// there leaves the clause not verified.
	s.spec("on the limits fixture the selection of the focused field whose 600-unit value is wholly selected is cut to a non-empty prefix of at most 512 UTF-16 units that splits no surrogate pair",
		[]string{"OBS-005"}, func(ctx context.Context, e *runEnv) {
			c, op, _ := e.pooledAttempt(ctx)
			sc := fixture.Limits()
			snap := e.fxStage(ctx, c, op, sc, "")
			over := fieldsOverLimit(snap)
			Expect(over).To(BeEmpty(), "field limits on the limits fixture: %s", strings.Join(firstFew(over, 10), "; "))
			n := fxNode(snap, sc, fixture.LimitsLongValue())
			if n.Selection == nil {
				Skip(notVerified + fmt.Sprintf("the engine reports no selection on the focused field whose whole 600-unit value is selected (states %s)", fxStates(n)))
			}
			expectCutPrefix("selection of the 600-unit field", n.Selection, fixture.LongValue(), wire.TextMaxUnits)
			e.observed("OBS-005", "600-unit selection cut to a prefix")
		})

	// The password field is filled with a sensitive canary (also an
	// ERR-007 canary) when the engine declares fill; every secure node of
	// the observation is then checked, the password field first (it must be
	// reported secure for the check to bite). Without fill the unfilled
	// field is checked and the spec ends not verified.
	s.spec("the filled password field of the form fixture, like every node with states.secure: true, carries no value and no selection",
		[]string{"OBS-006"}, func(ctx context.Context, e *runEnv) {
			c, op, _ := e.pooledAttempt(ctx)
			sc := fixture.Form()
			snap := e.fxStage(ctx, c, op, sc, "")
			filled := false
			if e.fxCanPerform(wire.ActionFill) {
				v := fxCanary("e2e-conform-password-")
				e.Secret(v)
				err := c.Perform(ctx, op, fxNode(snap, sc, fixture.FormPassword()).Ref, wire.LocatorAction{Kind: wire.ActionFill, Value: v, Sensitive: true})
				Expect(err).NotTo(HaveOccurred(), "engine/perform fill (sensitive) of the password field: want null, got %s", fxDescribeError(err))
				filled = true
				snap = fxObserve(ctx, c, op, "after filling the password field")
			}
			pw := fxNode(snap, sc, fixture.FormPassword())
			Expect(pw.State("secure")).To(BeTrue(), "the password field: want states.secure: true, got states %s", fxStates(pw))
			noneSecret := func(snap *wire.EngineSnapshot, when string) {
				var bad []string
				snap.Root.Walk(func(n *wire.SemanticNode) bool {
					if n.State("secure") && (n.Value != nil || n.Selection != nil) {
						bad = append(bad, fmt.Sprintf("node %s (test id %s) carries value %s and selection %s", n.Ref.ID, fxText(n.TestID), fxText(n.Value), fxText(n.Selection)))
					}
					return true
				})
				Expect(bad).To(BeEmpty(), "secure nodes %s: want no value and no selection, got %s", when, strings.Join(bad, "; "))
			}
			noneSecret(snap, "after the fill")
			// A fill leaves the caret at the end (a collapsed selection);
			// ControlOrMeta+a then selects the whole password, which an
			// engine reading every field's selection would report. An
			// engine without the press action, or that refuses the key,
			// is judged on the fill alone (the row's case).
			if filled && e.fxCanPerform(wire.ActionPress) {
				err := c.Perform(ctx, op, pw.Ref, wire.LocatorAction{Kind: wire.ActionPress, Key: "ControlOrMeta+a"})
				if err == nil {
					noneSecret(fxObserve(ctx, c, op, "after ControlOrMeta+a in the password field"), "with the password selected (ControlOrMeta+a)")
				} else {
					By("press ControlOrMeta+a in the password field: " + fxDescribeError(err) + "; judged on the fill alone")
				}
			}
			if !filled {
				Skip(notVerified + "the engine does not declare the fill action, so the password field was checked unfilled only")
			}
		})

	// Every element of the counter, tree and form screens is compared with
	// the states the contract lists for it (an absent state reads as false,
	// §5.5), and the heading levels; a hidden element the engine leaves out
	// of its tree is not judged ("a reported hidden node"). The checkbox is
	// then checked (check, else tap) and the name input focused (focus):
	// without those actions those two parts stay not verified.
	s.spec("reported nodes reflect the fixture: the checked checkbox checked, the disabled button disabled, the focused input focused, reported hidden nodes hidden, the password field secure, the pressed toggle pressed, headings at levels 1 to 3",
		[]string{"OBS-007"}, func(ctx context.Context, e *runEnv) {
			c, op, _ := e.pooledAttempt(ctx)
			var problems, unverified []string
			for _, sc := range []fixture.Screen{fixture.Counter(), fixture.Tree(), fixture.Form()} {
				snap := e.fxStage(ctx, c, op, sc, "")
				problems = append(problems, fxStateProblems(snap, sc)...)
			}
			sc := fixture.Form()
			snap := fxObserve(ctx, c, op, "of the form fixture")
			switch {
			case e.fxCanPerform(wire.ActionCheck) || e.fxCanPerform(wire.ActionTap):
				kind := wire.ActionCheck
				if !e.fxCanPerform(kind) {
					kind = wire.ActionTap
				}
				err := c.Perform(ctx, op, fxNode(snap, sc, fixture.FormSubscribe()).Ref, wire.LocatorAction{Kind: kind})
				Expect(err).NotTo(HaveOccurred(), "engine/perform %s on the Subscribe checkbox: want null, got %s", kind, fxDescribeError(err))
				snap = fxObserve(ctx, c, op, "after checking the checkbox")
				if n := fxNode(snap, sc, fixture.FormSubscribe()); !n.State("checked") {
					problems = append(problems, fmt.Sprintf("form: the Subscribe checkbox after %s: want states.checked true, got states %s", kind, fxStates(n)))
				}
			default:
				unverified = append(unverified, "the checked checkbox (the engine declares neither check nor tap)")
			}
			if e.fxCanPerform(wire.ActionFocus) {
				err := c.Perform(ctx, op, fxNode(snap, sc, fixture.FormName()).Ref, wire.LocatorAction{Kind: wire.ActionFocus})
				Expect(err).NotTo(HaveOccurred(), "engine/perform focus on the Name input: want null, got %s", fxDescribeError(err))
				snap = fxObserve(ctx, c, op, "after focusing the Name input")
				if n := fxNode(snap, sc, fixture.FormName()); !n.State("focused") {
					problems = append(problems, fmt.Sprintf("form: the Name input after focus: want states.focused true, got states %s", fxStates(n)))
				}
			} else {
				unverified = append(unverified, "the focused input (the engine does not declare focus)")
			}
			Expect(problems).To(BeEmpty(), "nodes against the fixture contract, %d problem(s): %s", len(problems), strings.Join(firstFew(problems, 12), "; "))
			if len(unverified) > 0 {
				Skip(notVerified + "not checked: " + strings.Join(unverified, "; "))
			}
		})
}
