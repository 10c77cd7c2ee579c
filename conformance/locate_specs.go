package conformance

import (
	"context"
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/e2e-conform/toolkit/conformance/fixture"
	"github.com/e2e-conform/toolkit/protocol/client"
	"github.com/e2e-conform/toolkit/protocol/engineerr"
	"github.com/e2e-conform/toolkit/protocol/locate"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// Location: spec §4.9, §5.7, §10; catalog LOC.
func locateSpecs(s *suite) {
	// The selectors are CSS that names an id and a frame name no document
	// carries, so they match no nested document on a web surface; a surface
	// without nested documents answers every frame with FRAME_NOT_FOUND
	// (§10.1). A device whose selector language refuses CSS syntax would
	// answer otherwise: the catalog gives no selector that cannot match on
	// every platform, and the web's is the one a selector language most
	// likely speaks. retryable is not checked: it may be true on a surface
	// that can have nested documents and false on one that cannot (§4.9),
	// and ERR-003 checks it run-wide.
	s.spec("a frame expression whose selector matches no nested document fails with FRAME_NOT_FOUND",
		[]string{"LOC-013"}, func(ctx context.Context, e *runEnv) {
			a := e.openRawAttempt(ctx)
			a.openFixtureRoot(ctx)
			check := func(where string) {
				for _, sel := range []string{`iframe[name="e2e-conform-no-such-frame"]`, `#e2e-conform-no-such-frame`} {
					expr := fmt.Sprintf(`{"kind":"frame","selector":%q,"source":{"kind":"query","query":{"kind":"role","value":{"kind":"string","value":"button","exact":true}}}}`, sel)
					what := "engine/locate of a frame expression with selector " + sel + " " + where
					eo := expectCode(a.call(ctx, wire.MethodLocate, `"expression":`+expr), wire.CodeEngineError, what)
					d := dataOf(eo)
					Expect(d.Type+" "+d.Code).To(Equal("engine FRAME_NOT_FOUND"), "%s: want engine FRAME_NOT_FOUND, got %s %s (%q)", what, d.Type, d.Code, eo.Message)
				}
			}
			check("on the fixture server's root page")
			// "Zero matching nested documents → FRAME_NOT_FOUND" (§4.9)
			// holds also on a surface that has nested documents (where it
			// is retryable): in the full profile the frames fixture, whose
			// two documents neither selector matches, is checked too, when
			// it could be staged (the requirement needs no fixture).
			if a.stageRaw(ctx, fixture.Frames()) != nil {
				check("on the frames fixture")
			}
		})

	// ---- fixture specs (profile full) ----
	//
	// Each case's expected answer is the contract's elements (by test id)
	// with the ids the engine's own observation gives them (LOC-003), in
	// document order; the answer must also equal the §10 reference resolver
	// over that observation, the semantics a native query engine must
	// reproduce (§4.9). A hidden element the engine leaves out of its tree
	// is left out of the expected answer (§4.8 speaks of reported hidden
	// nodes).

	// The budget is announced as timeoutMs 30000 (the call's context has
	// no deadline, so the client sends its 30 s default); the suite gives
	// up waiting after 5 s so that the failure message can tell how late
	// the answer was. D70: 2000 ms.
	s.spec("a locate query matching nothing on the tree fixture gets [] without error within 2000 ms although timeoutMs is 30000",
		[]string{"LOC-001"}, func(ctx context.Context, e *runEnv) {
			c, op, _ := e.pooledAttempt(ctx)
			snap := e.fxStage(ctx, c, op, fixture.Tree(), "")
			locateNothingWithin(ctx, c, op, snap, "")
		})

	// The clause needs no fixture: the start surface serves as well,
	// where the engine's own observation shows the queries match nothing
	// (so the core profile checks it too).
	s.specNoFixture("a locate query matching nothing on the engine's start surface gets [] without error within 2000 ms although timeoutMs is 30000, without a fixture screen",
		[]string{"LOC-001"}, func(ctx context.Context, e *runEnv) {
			if !e.Manifest.Lists(wire.MethodObserve) {
				Skip(notVerified + "the engine lists no engine/observe, so the suite cannot show that its queries match nothing on the start surface")
			}
			c, op, _ := e.inAttempt(ctx)
			snap, err := c.Observe(ctx, op, nil)
			if err != nil {
				Skip(notVerified + "the start surface could not be observed (" + fxDescribeError(err) + "), so the suite cannot show that its queries match nothing there")
			}
			locateNothingWithin(ctx, c, op, snap, " on the start surface")
		})

	s.spec("a locate query matching the tree fixture's duplicate buttons gets both, in document order, without error",
		[]string{"LOC-002"}, func(ctx context.Context, e *runEnv) {
			dups := []string{fixture.TreeDupFirst().TestID, fixture.TreeDupSecond().TestID}
			e.fxLocateCases(ctx, fixture.Tree(), []fxCase{
				{what: "role button named \"Duplicate\" (exact)", expr: fxRole("button", fxNamed(fxExact(fixture.DuplicateName))), want: dups},
				{what: "text \"Duplicate\" (exact)", expr: fxQuery(wire.QueryText, fxExact(fixture.DuplicateName)), want: dups},
			})
		})

	// Every node a locate answers (headings, every button, the marker, the
	// groups) must carry the id the observation taken right before gave the
	// node with the same test id; a located node without test id must carry
	// an id of the observation. The descendants a located node carries are
	// nodes of the answer too (§4.9: "a node that appears in an observation
	// and in a locate ... carries the same ref.id in both"), so the groups,
	// which nest the echo and visibility nodes, are checked whole.
	s.spec("a node in an observation and in a locate sent right after it has the same ref.id in both",
		[]string{"LOC-003"}, func(ctx context.Context, e *runEnv) {
			c, op, _ := e.pooledAttempt(ctx)
			sc := fixture.Tree()
			e.fxStage(ctx, c, op, sc, "")
			var problems []string
			located := 0
			for _, k := range []struct {
				what string
				expr wire.LocatorExpression
			}{
				{"role heading", fxRole("heading")},
				{"role button", fxRole("button")},
				{"testId " + fixture.MarkerTestID, fxTestID(fixture.MarkerTestID)},
				{"text \"" + fixture.AccentText + "\"", fxQuery(wire.QueryText, fxExact(fixture.AccentText))},
				{"role group", fxRole("group")},
			} {
				snap := fxObserve(ctx, c, op, "of the tree fixture")
				x := fxIndexOf(snap)
				byTestID := map[string]string{}
				for id, t := range x.testID {
					byTestID[t] = id
				}
				got, err := c.Locate(ctx, op, k.expr)
				Expect(err).NotTo(HaveOccurred(), "engine/locate %s: want the matching nodes, got %s", k.what, fxDescribeError(err))
				Expect(got).NotTo(BeEmpty(), "engine/locate %s on the tree fixture: want its nodes, got []", k.what)
				var nodes []*wire.SemanticNode
				for i := range got {
					got[i].Walk(func(d *wire.SemanticNode) bool { nodes = append(nodes, d); return true })
				}
				for _, n := range nodes {
					located++
					switch {
					case n.TestID != nil && byTestID[*n.TestID] == "":
						problems = append(problems, fmt.Sprintf("%s: located node %s has test id %q, which no node of the observation has", k.what, n.Ref.ID, *n.TestID))
					case n.TestID != nil && byTestID[*n.TestID] != n.Ref.ID:
						problems = append(problems, fmt.Sprintf("%s: the node with test id %q is %s in the observation and %s in the locate answer", k.what, *n.TestID, byTestID[*n.TestID], n.Ref.ID))
					case n.TestID == nil:
						if _, ok := x.pos[n.Ref.ID]; !ok {
							problems = append(problems, fmt.Sprintf("%s: located node %s (name %s) has an id the observation does not hold", k.what, n.Ref.ID, fxText(n.Name)))
						}
					}
				}
			}
			Expect(problems).To(BeEmpty(), "ids of %d located node(s) against the observation just before: %s", located, strings.Join(firstFew(problems, 10), "; "))
		})

	s.spec("a role query compares the role exactly, then applies name, states (absent states as false, pressed included) and level, and never returns a hidden node",
		[]string{"LOC-004"}, func(ctx context.Context, e *runEnv) {
			h1, h2, h3 := fixture.TreeHeading1().TestID, fixture.TreeHeading2().TestID, fixture.TreeHeading3().TestID
			dups := []string{fixture.TreeDupFirst().TestID, fixture.TreeDupSecond().TestID}
			e.fxLocateCases(ctx, fixture.Tree(), []fxCase{
				{what: "role heading", expr: fxRole("heading"), want: []string{h1, h2, h3}},
				{what: "role Heading (another case)", expr: fxRole("Heading"), want: nil},
				{what: "role headin (a prefix)", expr: fxRole("headin"), want: nil},
				{what: "role heading with its exact flag false (ignored)", expr: fxQuery(wire.QueryRole, fxLoose("heading")), want: []string{h1, h2, h3}},
				{what: "role heading level 2", expr: fxRole("heading", fxLevel(2)), want: []string{h2}},
				{what: "role heading level 4", expr: fxRole("heading", fxLevel(4)), want: nil},
				{what: "role button named \"Bold\" (exact)", expr: fxRole("button", fxNamed(fxExact("Bold"))), want: []string{fixture.TreeBold().TestID}},
				{what: "role button named \"bold\" (exact: false)", expr: fxRole("button", fxNamed(fxLoose("bold"))), want: []string{fixture.TreeBold().TestID}},
				{what: "role button named \"bold\" (exact)", expr: fxRole("button", fxNamed(fxExact("bold"))), want: nil},
				{what: "role heading named \"Section\" level 3", expr: fxRole("heading", fxNamed(fxExact("Section")), fxLevel(3)), want: nil},
				{what: "role button pressed: true", expr: fxRole("button", fxPressed(true)), want: []string{fixture.TreeBold().TestID}},
				{what: "role button named \"Bold\" pressed: false", expr: fxRole("button", fxNamed(fxExact("Bold")), fxPressed(false)), want: nil},
				{what: "role button named \"Italic\" pressed: false", expr: fxRole("button", fxNamed(fxExact("Italic")), fxPressed(false)), want: []string{fixture.TreeItalic().TestID}},
				{what: "role button named \"Duplicate\" pressed: false (no pressed state reads as false)", expr: fxRole("button", fxNamed(fxExact(fixture.DuplicateName)), fxPressed(false)), want: dups},
				{what: "role button named \"Visibility button\" (its hidden twin never matches)", expr: fxRole("button", fxNamed(fxExact("Visibility button"))), want: []string{fixture.TreeShownButton().TestID}},
				{what: "role textbox named \"Visibility field\"", expr: fxRole("textbox", fxNamed(fxExact("Visibility field"))), want: []string{fixture.TreeShownField().TestID}},
			})
			// The other states a role query filters by: disabled on the
			// counter screen, checked on the form screen (absent reads as
			// false there too).
			tap, disabled := fixture.CounterTap().TestID, fixture.CounterDisabled().TestID
			e.fxLocateCases(ctx, fixture.Counter(), []fxCase{
				{what: "role button disabled: true", expr: fxRole("button", fxStateFilter(wire.QueryStates{Disabled: wire.Bool(true)})), want: []string{disabled}},
				{what: "role button named \"Tap\" disabled: true", expr: fxRole("button", fxNamed(fxExact("Tap")), fxStateFilter(wire.QueryStates{Disabled: wire.Bool(true)})), want: nil},
				{what: "role button named \"Disabled\" disabled: false", expr: fxRole("button", fxNamed(fxExact("Disabled")), fxStateFilter(wire.QueryStates{Disabled: wire.Bool(false)})), want: nil},
				{what: "role button named \"Tap\" disabled: false", expr: fxRole("button", fxNamed(fxExact("Tap")), fxStateFilter(wire.QueryStates{Disabled: wire.Bool(false)})), want: []string{tap}},
			})
			box := fixture.FormSubscribe().TestID
			e.fxLocateCases(ctx, fixture.Form(), []fxCase{
				{what: "role checkbox checked: true (the box is unchecked)", expr: fxRole("checkbox", fxStateFilter(wire.QueryStates{Checked: wire.Bool(true)})), want: nil},
				{what: "role checkbox checked: false", expr: fxRole("checkbox", fxStateFilter(wire.QueryStates{Checked: wire.Bool(false)})), want: []string{box}},
				{what: "role checkbox named \"Subscribe\" checked: false, expanded: false, selected: false", expr: fxRole("checkbox", fxNamed(fxExact("Subscribe")), fxStateFilter(wire.QueryStates{Checked: wire.Bool(false), Expanded: wire.Bool(false), Selected: wire.Bool(false)})), want: []string{box}},
				{what: "role checkbox named \"Subscribe\" expanded: true", expr: fxRole("checkbox", fxNamed(fxExact("Subscribe")), fxStateFilter(wire.QueryStates{Expanded: wire.Bool(true)})), want: nil},
			})
		})

	// Without visible the hidden twins match where the engine reports
	// them; with it they never do. Index: the hidden twin comes right
	// before its visible twin, so "first" without visible picks the hidden
	// one (when reported) and with visible the shown one.
	s.spec("visible: true drops hidden nodes for every query kind, also under scope, inside filter.has and before index",
		[]string{"LOC-005"}, func(ctx context.Context, e *runEnv) {
			hf, sf := fixture.TreeHiddenField().TestID, fixture.TreeShownField().TestID
			ht, st := fixture.TreeHiddenText().TestID, fixture.TreeShownText().TestID
			hb, sb := fixture.TreeHiddenButton().TestID, fixture.TreeShownButton().TestID
			group := fxRole("group", fxNamed(fxExact("Visibility")))
			e.fxLocateCases(ctx, fixture.Tree(), []fxCase{
				{what: "role textbox named \"Visibility field\", visible", expr: fxRole("textbox", fxNamed(fxExact("Visibility field")), fxVisible), want: []string{sf}},
				{what: "label \"Visibility field\"", expr: fxQuery(wire.QueryLabel, fxExact("Visibility field")), want: []string{hf, sf}},
				{what: "label \"Visibility field\", visible", expr: fxQuery(wire.QueryLabel, fxExact("Visibility field"), fxVisible), want: []string{sf}},
				{what: "placeholder \"Visible or not\"", expr: fxQuery(wire.QueryPlaceholder, fxExact("Visible or not")), want: []string{hf, sf}},
				{what: "placeholder \"Visible or not\", visible", expr: fxQuery(wire.QueryPlaceholder, fxExact("Visible or not"), fxVisible), want: []string{sf}},
				{what: "text \"Visibility text\"", expr: fxQuery(wire.QueryText, fxExact("Visibility text")), want: []string{ht, st}},
				{what: "text \"Visibility text\", visible", expr: fxQuery(wire.QueryText, fxExact("Visibility text"), fxVisible), want: []string{st}},
				{what: "displayValue \"twin value\"", expr: fxQuery(wire.QueryDisplayValue, fxExact("twin value")), want: []string{hf, sf}},
				{what: "displayValue \"twin value\", visible", expr: fxQuery(wire.QueryDisplayValue, fxExact("twin value"), fxVisible), want: []string{sf}},
				{what: "testId " + hb, expr: fxTestID(hb), want: []string{hb}},
				{what: "testId " + hb + ", visible", expr: fxTestID(hb, fxVisible), want: nil},
				{what: "text \"Visibility text\", visible, under scope role group \"Visibility\"", expr: fxScoped(fxQuery(wire.QueryText, fxExact("Visibility text"), fxVisible), group), want: []string{st}},
				{what: "label \"Visibility button\", visible, under scope role group \"Visibility\"", expr: fxScoped(fxQuery(wire.QueryLabel, fxExact("Visibility button"), fxVisible), group), want: []string{sb}},
				{what: "role group \"Visibility\" filtered by has testId " + ht, expr: fxFilter(group, nil, fxExpr(fxTestID(ht))), want: []string{fixture.TreeVisGroup().TestID}},
				{what: "role group \"Visibility\" filtered by has testId " + ht + ", visible", expr: fxFilter(group, nil, fxExpr(fxTestID(ht, fxVisible))), want: nil},
				{what: "index first of label \"Visibility button\"", expr: fxIndex(fxQuery(wire.QueryLabel, fxExact("Visibility button")), "first", 0), want: []string{hb}},
				{what: "index first of label \"Visibility button\", visible", expr: fxIndex(fxQuery(wire.QueryLabel, fxExact("Visibility button"), fxVisible), "first", 0), want: []string{sb}},
				{what: "index 0 of placeholder \"Visible or not\", visible", expr: fxIndex(fxQuery(wire.QueryPlaceholder, fxExact("Visible or not"), fxVisible), "", 0), want: []string{sf}},
			})
		})

	s.spec("text and label queries return only the innermost node where containers echo a descendant's text",
		[]string{"LOC-006"}, func(ctx context.Context, e *runEnv) {
			outer, middle, leaf := fixture.TreeEchoOuter().TestID, fixture.TreeEchoMiddle().TestID, fixture.TreeEchoLeaf().TestID
			e.fxLocateCases(ctx, fixture.Tree(), []fxCase{
				{what: "text \"" + fixture.EchoText + "\" (exact)", expr: fxQuery(wire.QueryText, fxExact(fixture.EchoText)), want: []string{leaf}},
				{what: "text \"echo\" (exact: false; the groups' names match too)", expr: fxQuery(wire.QueryText, fxLoose("echo")), want: []string{leaf}},
				{what: "label \"" + fixture.EchoLabel + "\" (exact)", expr: fxQuery(wire.QueryLabel, fxExact(fixture.EchoLabel)), want: []string{middle}},
				{what: "role group named \"" + fixture.EchoLabel + "\" (a role query keeps every match)", expr: fxRole("group", fxNamed(fxExact(fixture.EchoLabel))), want: []string{outer, middle}},
			})
		})

	// Each query kind must match its own member and not the others': the
	// negative cases name a value that only another member holds.
	s.spec("label, placeholder, displayValue and testId queries match name, attributes.placeholder, value and testId, and text queries match name or text",
		[]string{"LOC-007"}, func(ctx context.Context, e *runEnv) {
			hf, sf := fixture.TreeHiddenField().TestID, fixture.TreeShownField().TestID
			e.fxLocateCases(ctx, fixture.Tree(), []fxCase{
				{what: "label \"Bold\" (a name)", expr: fxQuery(wire.QueryLabel, fxExact("Bold")), want: []string{fixture.TreeBold().TestID}},
				{what: "label \"Visibility text\" (only a text)", expr: fxQuery(wire.QueryLabel, fxExact("Visibility text")), want: nil},
				{what: "label \"Visible or not\" (only a placeholder)", expr: fxQuery(wire.QueryLabel, fxExact("Visible or not")), want: nil},
				{what: "placeholder \"Visible or not\"", expr: fxQuery(wire.QueryPlaceholder, fxExact("Visible or not")), want: []string{hf, sf}},
				{what: "placeholder \"Visibility field\" (only a name)", expr: fxQuery(wire.QueryPlaceholder, fxExact("Visibility field")), want: nil},
				{what: "displayValue \"twin value\"", expr: fxQuery(wire.QueryDisplayValue, fxExact("twin value")), want: []string{hf, sf}},
				{what: "displayValue \"Visibility text\" (only a text)", expr: fxQuery(wire.QueryDisplayValue, fxExact("Visibility text")), want: nil},
				{what: "testId " + fixture.TreeDupSecond().TestID, expr: fxTestID(fixture.TreeDupSecond().TestID), want: []string{fixture.TreeDupSecond().TestID}},
				{what: "testId \"Duplicate\" (only a name)", expr: fxTestID(fixture.DuplicateName), want: nil},
				{what: "text \"Italic\" (a name)", expr: fxQuery(wire.QueryText, fxExact("Italic")), want: []string{fixture.TreeItalic().TestID}},
				{what: "text \"" + fixture.SpacedText + "\" (a text)", expr: fxQuery(wire.QueryText, fxExact(fixture.SpacedText)), want: []string{fixture.TreeSpaced().TestID}},
				{what: "text \"twin value\" (only a value)", expr: fxQuery(wire.QueryText, fxExact("twin value")), want: nil},
			})
		})

	s.spec("with scope, only strict descendants of the scope's matches are returned, never a scope node itself",
		[]string{"LOC-008"}, func(ctx context.Context, e *runEnv) {
			outer := fxTestID(fixture.TreeEchoOuter().TestID)
			visGroup := fxTestID(fixture.TreeVisGroup().TestID)
			e.fxLocateCases(ctx, fixture.Tree(), []fxCase{
				{what: "role button under scope testId vis-group", expr: fxScoped(fxRole("button"), visGroup), want: []string{fixture.TreeShownButton().TestID}},
				{what: "text \"" + fixture.EchoText + "\" under scope testId echo-outer", expr: fxScoped(fxQuery(wire.QueryText, fxExact(fixture.EchoText)), outer), want: []string{fixture.TreeEchoLeaf().TestID}},
				{what: "testId echo-outer under scope testId echo-outer", expr: fxScoped(outer, outer), want: nil},
				{what: "role group under scope testId vis-group", expr: fxScoped(fxRole("group"), visGroup), want: nil},
				{what: "role heading under scope role heading", expr: fxScoped(fxRole("heading"), fxRole("heading")), want: nil},
			})
		})

	s.spec("filter.hasText keeps nodes whose own or a descendant's name, text or value matches, filter.has keeps nodes with a match among their strict descendants, and with both both hold",
		[]string{"LOC-009"}, func(ctx context.Context, e *runEnv) {
			visGroup, outer, middle := fixture.TreeVisGroup().TestID, fixture.TreeEchoOuter().TestID, fixture.TreeEchoMiddle().TestID
			group := fxRole("group", fxNamed(fxExact("Visibility")))
			echoes := fxRole("group", fxNamed(fxExact(fixture.EchoLabel)))
			e.fxLocateCases(ctx, fixture.Tree(), []fxCase{
				{what: "role button filtered by hasText \"Bold\" (its own name)", expr: fxFilter(fxRole("button"), fxPattern(fxExact("Bold")), nil), want: []string{fixture.TreeBold().TestID}},
				{what: "role group \"Visibility\" filtered by hasText \"Visibility text\" (a descendant's text)", expr: fxFilter(group, fxPattern(fxExact("Visibility text")), nil), want: []string{visGroup}},
				{what: "role group \"Visibility\" filtered by hasText \"twin value\" (a descendant's value)", expr: fxFilter(group, fxPattern(fxExact("twin value")), nil), want: []string{visGroup}},
				{what: "role group \"" + fixture.EchoLabel + "\" filtered by hasText \"Visibility text\"", expr: fxFilter(echoes, fxPattern(fxExact("Visibility text")), nil), want: nil},
				{what: "role group \"" + fixture.EchoLabel + "\" filtered by has testId echo-leaf", expr: fxFilter(echoes, nil, fxExpr(fxTestID(fixture.TreeEchoLeaf().TestID))), want: []string{outer, middle}},
				{what: "role group \"" + fixture.EchoLabel + "\" filtered by has testId echo-middle", expr: fxFilter(echoes, nil, fxExpr(fxTestID(middle))), want: []string{outer}},
				{what: "testId echo-leaf filtered by has testId echo-leaf (not a strict descendant)", expr: fxFilter(fxTestID(fixture.TreeEchoLeaf().TestID), nil, fxExpr(fxTestID(fixture.TreeEchoLeaf().TestID))), want: nil},
				{what: "role group \"" + fixture.EchoLabel + "\" filtered by hasText \"" + fixture.EchoText + "\" and has testId vis-shown-button", expr: fxFilter(echoes, fxPattern(fxExact(fixture.EchoText)), fxExpr(fxTestID(fixture.TreeShownButton().TestID))), want: nil},
				{what: "role group \"Visibility\" filtered by hasText \"Visibility\" (exact: false) and has testId vis-shown-button", expr: fxFilter(group, fxPattern(fxLoose("Visibility")), fxExpr(fxTestID(fixture.TreeShownButton().TestID))), want: []string{visGroup}},
				{what: "role group \"" + fixture.EchoLabel + "\" filtered by hasText \"Mixed\" and has testId echo-leaf", expr: fxFilter(echoes, fxPattern(fxLoose("Mixed")), fxExpr(fxTestID(fixture.TreeEchoLeaf().TestID))), want: nil},
			})
		})

	s.spec("index first, last and a number pick from the source's matches, and an index past the end gets []",
		[]string{"LOC-010"}, func(ctx context.Context, e *runEnv) {
			dups := fxRole("button", fxNamed(fxExact(fixture.DuplicateName)))
			first, second := fixture.TreeDupFirst().TestID, fixture.TreeDupSecond().TestID
			h := fxRole("heading")
			e.fxLocateCases(ctx, fixture.Tree(), []fxCase{
				{what: "index first of the duplicate buttons", expr: fxIndex(dups, "first", 0), want: []string{first}},
				{what: "index last of the duplicate buttons", expr: fxIndex(dups, "last", 0), want: []string{second}},
				{what: "index 0 of the duplicate buttons", expr: fxIndex(dups, "", 0), want: []string{first}},
				{what: "index 1 of the duplicate buttons", expr: fxIndex(dups, "", 1), want: []string{second}},
				{what: "index 2 of the duplicate buttons (past the end)", expr: fxIndex(dups, "", 2), want: nil},
				{what: "index 1 of role heading", expr: fxIndex(h, "", 1), want: []string{fixture.TreeHeading2().TestID}},
				{what: "index last of role heading", expr: fxIndex(h, "last", 0), want: []string{fixture.TreeHeading3().TestID}},
				{what: "index 99 of role heading", expr: fxIndex(h, "", 99), want: nil},
				{what: "index first of role heading level 4 (no match)", expr: fxIndex(fxRole("heading", fxLevel(4)), "first", 0), want: nil},
			})
		})

	// The spaced node's source text has irregular whitespace
	// (fixture.SpacedSource); an engine may report it normalized or not,
	// and both sides are normalized before comparing (§10.3).
	s.spec("string patterns compare whitespace-normalized text: exact: true whole and case-sensitive, exact: false as a case-insensitive substring",
		[]string{"LOC-011"}, func(ctx context.Context, e *runEnv) {
			sp := []string{fixture.TreeSpaced().TestID}
			e.fxLocateCases(ctx, fixture.Tree(), []fxCase{
				{what: "text \"" + fixture.SpacedText + "\" (exact)", expr: fxQuery(wire.QueryText, fxExact(fixture.SpacedText)), want: sp},
				{what: "text written with irregular whitespace (exact)", expr: fxQuery(wire.QueryText, fxExact(fixture.SpacedSource)), want: sp},
				// Whitespace is the ECMAScript \s set (§10.3), not ASCII's.
				{what: "text \"Mixed\u00a0Case\u3000Text\" (exact; a no-break and an ideographic space)", expr: fxQuery(wire.QueryText, fxExact("Mixed\u00a0Case\u3000Text")), want: sp},
				{what: "text \"case\u2003text\" (exact: false; an em space)", expr: fxQuery(wire.QueryText, fxLoose("case\u2003text")), want: sp},
				// lower is the Unicode simple lowercase mapping (§10.3, D35).
				{what: "text \"CAFÉ CRÈME\" (exact: false; non-ASCII letters in another case)", expr: fxQuery(wire.QueryText, fxLoose("CAFÉ CRÈME")), want: []string{fixture.TreeAccent().TestID}},
				{what: "text \"mixed case text\" (exact: the case differs)", expr: fxQuery(wire.QueryText, fxExact("mixed case text")), want: nil},
				{what: "text \"Mixed Case\" (exact: not the whole text)", expr: fxQuery(wire.QueryText, fxExact("Mixed Case")), want: nil},
				{what: "text \"mixed   CASE\" (exact: false)", expr: fxQuery(wire.QueryText, fxLoose("mixed   CASE")), want: sp},
				{what: "text \"CASE TEXT\" (exact: false)", expr: fxQuery(wire.QueryText, fxLoose("CASE TEXT")), want: sp},
				{what: "text \"case  text!\" (exact: false, not a substring)", expr: fxQuery(wire.QueryText, fxLoose("case  text!")), want: nil},
				{what: "role button named \"DUPLICATE\" (exact: false)", expr: fxRole("button", fxNamed(fxLoose("DUPLICATE"))), want: []string{fixture.TreeDupFirst().TestID, fixture.TreeDupSecond().TestID}},
				{what: "role button named \"DUPLICATE\" (exact)", expr: fxRole("button", fxNamed(fxExact("DUPLICATE"))), want: nil},
			})
		})

	// The suite's regexp table (catalog LOC-012): each case either gets
	// the ECMAScript result (written here from the fixture texts) or fails
	// with UNSUPPORTED_CAPABILITY, which §4.9 allows for a regexp the engine
	// cannot evaluate with ECMAScript semantics. No comparison with the §10
	// reference: its RE2 translation refuses what ECMAScript evaluates.
	s.spec("each regexp case of the suite's table gets the ECMAScript result or fails with UNSUPPORTED_CAPABILITY",
		[]string{"LOC-012"}, func(ctx context.Context, e *runEnv) {
			sp, acc := []string{fixture.TreeSpaced().TestID}, []string{fixture.TreeAccent().TestID}
			re := func(what, source, flags string, want []string) fxCase {
				return fxCase{what: fmt.Sprintf("%s: text /%s/%s", what, source, flags), expr: fxQuery(wire.QueryText, wire.RegexpPattern(source, flags)),
					want: want, mayRefuse: true, noReference: true}
			}
			e.fxLocateCases(ctx, fixture.Tree(), []fxCase{
				re("flag i", `^mixed case text$`, "i", sp),
				re("no flag i", `^mixed case text$`, "", nil),
				re("flag y (sticky at 0)", `Case`, "y", nil),
				re("flag y at the start", `Mixed`, "y", sp),
				re("flags i and y", `mixed`, "iy", sp),
				re("\\u00e9", `Caf\u00e9 cr\u00e8me`, "", acc),
				re("a named group", `(?<drink>coffee)$`, "", acc),
				re("[^]", `Caf[^] cr[^]me`, "", acc),
				re("a lookbehind", `(?<=Café )crème`, "", acc),
				re("a negative lookbehind", `(?<!Café )crème`, "", nil),
				re("a backreference", `co(f)\1ee`, "", acc),
				re("a backreference that fails", `(c)\1`, "", nil),
			})
		})

	// Off the web the statement accepts any array (or the refusal); the
	// answer's shape is the client's to validate (WIRE-013).
	s.spec("a selector expression either fails with UNSUPPORTED_CAPABILITY or answers an array of nodes, and on the web the duplicate buttons' CSS selector returns those two buttons in document order",
		[]string{"LOC-014"}, func(ctx context.Context, e *runEnv) {
			c, op, _ := e.pooledAttempt(ctx)
			snap := e.fxStage(ctx, c, op, fixture.Tree(), "")
			x := fxIndexOf(snap)
			expr := wire.LocatorExpression{Kind: wire.ExprSelector, Selector: fixture.DuplicateSelector}
			got, err := c.Locate(ctx, op, expr)
			if err != nil {
				Expect(fxIsEngineCode(err, string(engineerr.UnsupportedCapability))).To(BeTrue(),
					"engine/locate of the selector %q: want an array of nodes or engine UNSUPPORTED_CAPABILITY, got %s", fixture.DuplicateSelector, fxDescribeError(err))
				Expect(e.Manifest.Platform).NotTo(Equal("web"), "engine/locate of the CSS selector %q on a web engine: want the two duplicate buttons, got UNSUPPORTED_CAPABILITY", fixture.DuplicateSelector)
				return
			}
			if e.Manifest.Platform != "web" {
				noteEntry("platform %q: the selector %q answered %s; only a web engine's answer is compared with the fixture", e.Manifest.Platform, fixture.DuplicateSelector, x.render(fxIDs(got)))
				return
			}
			want, missing := fxWantIDs(snap, x, []string{fixture.TreeDupFirst().TestID, fixture.TreeDupSecond().TestID})
			Expect(missing).To(BeEmpty(), "the tree fixture's duplicate buttons: want both in the observation, missing %v", missing)
			Expect(fxIDs(got)).To(Equal(want), "engine/locate of the CSS selector %q: want %s, got %s", fixture.DuplicateSelector, x.render(want), x.render(fxIDs(got)))
		})

	// The error object is read as written on the wire (the client would
	// turn FRAME_AMBIGUOUS with retryable: true into ENGINE_FAILURE).
	s.spec("on the frames fixture a frame expression whose selector matches two nested documents fails with FRAME_AMBIGUOUS, retryable: false",
		[]string{"LOC-015"}, func(ctx context.Context, e *runEnv) {
			c, op, _ := e.pooledAttempt(ctx)
			e.fxStage(ctx, c, op, fixture.Frames(), "")
			for _, src := range []wire.LocatorExpression{
				fxRole("button", fxNamed(fxExact(fixture.FrameOneButton().Name))),
				fxTestID(fixture.FrameTwoButton().TestID),
			} {
				what := fmt.Sprintf("engine/locate of a frame expression with selector %q (both nested documents) around a %s query", fixture.FramesSelector, src.Query.Kind)
				got, err := c.Locate(ctx, op, wire.LocatorExpression{Kind: wire.ExprFrame, Selector: fixture.FramesSelector, Source: &src})
				Expect(err).To(HaveOccurred(), "%s: want engine FRAME_AMBIGUOUS, got the result %v", what, fxIDs(got))
				eo := fxWireError(err)
				Expect(eo).NotTo(BeNil(), "%s: want engine FRAME_AMBIGUOUS, got %v", what, err)
				d := dataOf(eo)
				Expect(fmt.Sprint(eo.Code, " ", d.Type, " ", d.Code)).To(Equal(fmt.Sprint(wire.CodeEngineError, " engine FRAME_AMBIGUOUS")),
					"%s: want -32000 engine FRAME_AMBIGUOUS, got %s", what, fxDescribeError(err))
				Expect(d.Retryable).NotTo(BeNil(), "%s: want retryable: false, got no retryable", what)
				Expect(*d.Retryable).To(BeFalse(), "%s: want retryable: false, got retryable: true", what)
			}
		})
}

// locateNothingWithin sends queries that match nothing on snap (checked
// against the §10 reference resolver first) and wants [] within 2000 ms
// for each although timeoutMs is 30000 (LOC-001, D70). The suite gives up
// waiting after 5 s so that the failure can tell how late the answer was.
func locateNothingWithin(ctx context.Context, c *client.Conn, op client.Op, snap *wire.EngineSnapshot, where string) {
	for _, k := range []struct {
		what string
		expr wire.LocatorExpression
	}{
		{"a role query for a button named \"e2e-conform: no such node\"", fxRole("button", fxNamed(fxExact("e2e-conform: no such node")))},
		{"a testId query for \"e2e-conform-no-such-test-id\"", fxTestID("e2e-conform-no-such-test-id")},
	} {
		ref, err := locate.ResolveExpression(&k.expr, []*wire.SemanticNode{&snap.Root}, locate.Options{})
		if err != nil || len(ref) > 0 {
			Skip(fmt.Sprintf(notVerified+"%s%s: the suite's query must match nothing on the engine's observation (the §10 reference), it matches %d node(s) (%v)", k.what, where, len(ref), err))
		}
		lctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		stop := context.AfterFunc(ctx, cancel)
		give := time.AfterFunc(5*time.Second, cancel)
		start := time.Now()
		got, err := c.Locate(lctx, op, k.expr)
		took := time.Since(start)
		give.Stop()
		stop()
		cancel()
		Expect(err).NotTo(HaveOccurred(), "%s with timeoutMs 30000: want [] within 2000 ms, got %s after %d ms", k.what, fxDescribeError(err), took.Milliseconds())
		Expect(fxIDs(got)).To(BeEmpty(), "%s: want [], got %d node(s) %v", k.what, len(got), fxIDs(got))
		Expect(took).To(BeNumerically("<=", 2000*time.Millisecond), "%s with timeoutMs 30000: want [] within 2000 ms (resolved once, no waiting), got it after %d ms", k.what, took.Milliseconds())
	}
}
