package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/e2e-conform/toolkit/conformance/fixture"
	"github.com/e2e-conform/toolkit/protocol/locate"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// Observation: spec §4.8, §5.4, §5.5; catalog OBS.
//
// The specs read snapshots off a raw connection: the client library
// decodes them leniently (unknown state keys are dropped) and fails a whole
// connection on a malformed one, while these specs must see every member as
// sent. Observations are taken on the engine's start surface and, when the
// engine lists session/open, on the fixture server's root page (a plain
// document: no fixture screen is needed, and a web engine then observes more
// than a blank page).
func observeSpecs(s *suite) {
	s.spec("every snapshot is an EngineSnapshot: a root with a non-empty ref.id, a positive viewport, and every node valid per §5.5",
		[]string{"OBS-001"}, func(ctx context.Context, e *Env) {
			a := e.rawAttempt(ctx)
			check := func(what string, snap map[string]json.RawMessage) {
				p := snapshotProblems(snap)
				Expect(p).To(BeEmpty(), "%s: want a valid EngineSnapshot, got %d problem(s): %s", what, len(p), strings.Join(firstFew(p, 10), "; "))
			}
			check("the start surface", a.observe(ctx, ""))
			check("the start surface with pixels", a.observe(ctx, `{"pixels":true}`))
			if e.Manifest.Lists(wire.MethodOpen) {
				a.openFixtureRoot(ctx)
				check("the fixture server's root page", a.observe(ctx, ""))
			}
			// "Every node valid per §5.5" binds nodes a start surface
			// seldom shows (a password field's inputPurpose, headings'
			// levels, a select's options): in the full profile the tree
			// and form fixtures are checked too, each when it could be
			// staged (the requirement needs no fixture).
			for _, sc := range []fixture.Screen{fixture.Tree, fixture.Form} {
				if snap := a.stageRaw(ctx, sc); snap != nil {
					check("the "+sc.Name+" fixture", snap)
				}
			}
		})

	s.spec("root.ref.id is the same across consecutive observations and across session/restart and session/reset",
		[]string{"OBS-002"}, func(ctx context.Context, e *Env) {
			a := e.rawAttempt(ctx)
			want := rawRootID(a.observe(ctx, ""))
			Expect(want).NotTo(BeEmpty(), "root.ref.id of the first observation")
			same := func(what string) {
				got := rawRootID(a.observe(ctx, ""))
				Expect(got).To(Equal(want), "root.ref.id %s: want %q (the first observation's), got %q", what, want, got)
			}
			same("of the next observation")
			same("of a third observation")
			// Consecutive observations are any observations (§4.8: the
			// root's ref.id "MUST be stable across observations of the
			// surface"): one with pixels and one asking for the pixel
			// fallback on a readable tree are among them.
			for _, opts := range []string{`{"pixels":true}`, `{"pixels":true,"pixelFallback":true}`} {
				got := rawRootID(a.observe(ctx, opts))
				Expect(got).To(Equal(want), "root.ref.id of an observation with options %s: want %q (the first observation's), got %q", opts, want, got)
			}
			if e.Manifest.Lists(wire.MethodOpen) {
				a.openFixtureRoot(ctx)
				same("after session/open of the fixture server's root page")
			}
			for _, m := range []string{wire.MethodRestart, wire.MethodReset} {
				if !e.Manifest.Lists(m) {
					continue
				}
				expectNull(a.call(ctx, m, ""), m)
				same("after " + m)
				if e.Manifest.Lists(wire.MethodOpen) {
					a.openFixtureRoot(ctx)
					same("after " + m + " and a new session/open")
				}
			}
		})

	s.spec("no two nodes of one snapshot share a ref.id",
		[]string{"OBS-003"}, func(ctx context.Context, e *Env) {
			a := e.rawAttempt(ctx)
			check := func(what string, snap map[string]json.RawMessage) {
				seen := map[string]int{}
				var dups []string
				for _, id := range rawNodeIDs(snap["root"]) {
					seen[id]++
					if seen[id] == 2 {
						dups = append(dups, fmt.Sprintf("%q", id))
					}
				}
				Expect(dups).To(BeEmpty(), "%s: want unique node ids, got %d shared: %s", what, len(dups), strings.Join(firstFew(dups, 10), ", "))
			}
			check("the start surface", a.observe(ctx, ""))
			check("the start surface with pixels", a.observe(ctx, `{"pixels":true}`))
			if e.Manifest.Lists(wire.MethodOpen) {
				a.openFixtureRoot(ctx)
				check("the fixture server's root page", a.observe(ctx, ""))
			}
			// "Node ids MUST be unique within one snapshot" (§4.8) binds
			// every snapshot, also of nodes a start surface seldom shows
			// (duplicate buttons, a select's options): in the full profile
			// the tree and form fixtures are checked too, each when it could
			// be staged (the requirement needs no fixture, so one that could
			// not be staged leaves the checks above).
			for _, sc := range []fixture.Screen{fixture.Tree, fixture.Form} {
				if snap := a.stageRaw(ctx, sc); snap != nil {
					check("the "+sc.Name+" fixture", snap)
				}
			}
		})

	s.spec("without options.pixels: true the snapshot carries no pixels",
		[]string{"OBS-008"}, func(ctx context.Context, e *Env) {
			a := e.rawAttempt(ctx)
			for _, opts := range []string{"", `{}`, `{"pixels":false}`} {
				snap := a.observe(ctx, opts)
				_, has := snap["pixels"]
				Expect(has).To(BeFalse(), "engine/observe with options %s: want no pixels, got pixels", orDefault(opts, "absent"))
			}
		})

	// Pixels stay optional with options.pixels: true ("when producible",
	// §4.8): an engine that returns none has nothing to decode, and the
	// spec passes with a note (not "not verified": that would make a full
	// run incomplete for an engine that never produces pixels, which
	// conforms).
	s.spec("pixels returned with options.pixels: true decode from padded standard base64 to a PNG of the stated width and height, with mediaType image/png and scale > 0",
		[]string{"OBS-009"}, func(ctx context.Context, e *Env) {
			a := e.rawAttempt(ctx)
			snap := a.observe(ctx, `{"pixels":true}`)
			raw, has := snap["pixels"]
			if !has {
				Skip(nothingToCheck + "engine/observe with options.pixels: true returned no pixels; there was nothing to decode")
			}
			var px struct {
				Data      *string          `json:"data"`
				MediaType *string          `json:"mediaType"`
				Width     json.RawMessage  `json:"width"`
				Height    json.RawMessage  `json:"height"`
				Scale     *json.RawMessage `json:"scale"`
			}
			Expect(json.Unmarshal(raw, &px)).To(Succeed(), "pixels: want an object, got %s", clip(string(raw)))
			Expect(px.MediaType).NotTo(BeNil(), "pixels.mediaType: want image/png, got none")
			Expect(*px.MediaType).To(Equal("image/png"), "pixels.mediaType: want image/png, got %q", *px.MediaType)
			Expect(px.Scale).NotTo(BeNil(), "pixels.scale: want a number > 0, got none")
			var scale float64
			Expect(json.Unmarshal(*px.Scale, &scale)).To(Succeed(), "pixels.scale: want a number > 0, got %s", *px.Scale)
			Expect(scale).To(BeNumerically(">", 0), "pixels.scale: want a number > 0, got %v", scale)
			w, wok := wire.ParseInteger(px.Width)
			h, hok := wire.ParseInteger(px.Height)
			Expect(wok && hok).To(BeTrue(), "pixels.width and height: want integers, got %s and %s", px.Width, px.Height)
			Expect(px.Data).NotTo(BeNil(), "pixels.data: want base64 of a PNG, got none")
			iw, ih, err := decodePNG(*px.Data)
			Expect(err).NotTo(HaveOccurred(), "pixels.data: want padded standard base64 of a PNG")
			Expect([]int64{int64(iw), int64(ih)}).To(Equal([]int64{w, h}), "pixels: the PNG is %d×%d, the snapshot states %d×%d", iw, ih, w, h)
		})

	// Without a fixture the suite cannot make the tree unreadable, so the
	// fallback's own shape (pixels and a root holding only ref) is checked
	// only if treeUnavailable ever appears — and on the readable tree used
	// here it must not appear at all, with or without pixelFallback.
	// "The full tree" is read as: the fallback answer's root carries what
	// the plain observation's root carried beyond ref (children, role, …),
	// the surface staying put between the two.
	s.spec("treeUnavailable appears only with options.pixelFallback: true, and with a readable tree pixelFallback: true still returns the full tree",
		[]string{"OBS-011"}, func(ctx context.Context, e *Env) {
			a := e.rawAttempt(ctx)
			plain := a.observe(ctx, "")
			Expect(plain).NotTo(HaveKey("treeUnavailable"), "engine/observe without options: want no treeUnavailable, got %s", plain["treeUnavailable"])
			for _, opts := range []string{`{"pixels":true}`, `{"pixelFallback":false}`, `{"pixels":true,"pixelFallback":false}`} {
				snap := a.observe(ctx, opts)
				Expect(snap).NotTo(HaveKey("treeUnavailable"), "engine/observe with options %s (no pixelFallback): want no treeUnavailable, got %s", opts, snap["treeUnavailable"])
			}
			want := memberNames(plain["root"])
			for _, opts := range []string{`{"pixelFallback":true}`, `{"pixels":true,"pixelFallback":true}`} {
				snap := a.observe(ctx, opts)
				Expect(snap).NotTo(HaveKey("treeUnavailable"),
					"engine/observe with options %s while the tree is readable (a plain observation just returned it): want the full tree, got treeUnavailable", opts)
				got := memberNames(snap["root"])
				for _, m := range want {
					Expect(got).To(ContainElement(m), "engine/observe with options %s: want the full tree (the root with %v, as the plain observation's), got a root with %v", opts, want, got)
				}
			}
			// "The full tree" is every node, not only the root's members
			// (§4.8: "When the tree can be read, the engine MUST return it,
			// whatever pixelFallback says"). In the full profile the tree
			// fixture gives a deep tree to compare (else the surface at
			// hand): every node id of the plain observations taken right
			// before and right after the fallback one must be in it; a node
			// only one of them holds is the surface changing, not judged.
			deep := a.stageRaw(ctx, fixture.Tree)
			if deep == nil {
				deep = a.observe(ctx, "")
			}
			before := rawNodeIDs(deep["root"])
			for _, opts := range []string{`{"pixelFallback":true}`, `{"pixels":true,"pixelFallback":true}`} {
				fallback := rawNodeIDs(a.observe(ctx, opts)["root"])
				after := rawNodeIDs(a.observe(ctx, "")["root"])
				var missing []string
				for _, id := range before {
					if slices.Contains(after, id) && !slices.Contains(fallback, id) {
						missing = append(missing, fmt.Sprintf("%q", id))
					}
				}
				Expect(missing).To(BeEmpty(), "engine/observe with options %s while the tree is readable: want the full tree (every node of the plain observations before and after it, %d nodes), got %d node(s) missing: %s",
					opts, len(after), len(missing), strings.Join(firstFew(missing, 10), ", "))
				before = after
			}
		})

	// ---- fixture specs (profile full) ----

	// The removed item is told by its ref.id: after each tap of Mutate the
	// suite keeps the item's id, and no node of any later observation may
	// carry one of the kept ids (neither the replacement, which has the
	// same test id, nor any other node). A tap that does not mutate leaves
	// nothing to check: not verified (ACT-001 judges the tap).
	s.spec("after the mutation fixture removes its item and adds another, no later snapshot gives the removed item's id to another node",
		[]string{"OBS-004"}, func(ctx context.Context, e *Env) {
			if !e.fxCanPerform(wire.ActionTap) {
				Skip(notVerified + "the suite mutates the fixture with engine/perform tap, which the engine does not declare")
			}
			c, op, _ := e.inAttempt(ctx)
			sc := fixture.Mutation
			snap := e.fxStage(ctx, c, op, sc, "")
			var removed []string
			for round := 1; round <= 2; round++ {
				removed = append(removed, fxNode(snap, sc, fixture.MutationItem).Ref.ID)
				button := fxNode(snap, sc, fixture.MutationButton)
				err := c.Perform(ctx, op, button.Ref, wire.LocatorAction{Kind: wire.ActionTap})
				Expect(err).NotTo(HaveOccurred(), "engine/perform tap on the Mutate button: want null, got %s", fxDescribeError(err))
				snap = fxObserve(ctx, c, op, "after tapping Mutate")
				if n, ok := fixture.MutationCount.Count(&snap.Root); !ok || n < round {
					shown := "no mutation count"
					if st := fixture.MutationCount.Find(&snap.Root); st != nil {
						shown = fxText(st.Text)
					}
					Skip(notVerified + fmt.Sprintf("after %d tap(s) of Mutate the fixture shows %s: no mutation happened, so there is no removed node to check", round, shown))
				}
				fxNode(snap, sc, fixture.MutationItem) // the replacement is there
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
		[]string{"OBS-005"}, func(ctx context.Context, e *Env) {
			c, op, _ := e.inAttempt(ctx)
			sc := fixture.Tree
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
			prefix("text of the long text node", fxNode(snap, sc, fixture.TreeLongText).Text, fixture.LongText)
			prefix("name of the long-named button", fxNode(snap, sc, fixture.TreeLongName).Name, fixture.LongName)
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
		[]string{"OBS-005"}, func(ctx context.Context, e *Env) {
			c, op, _ := e.inAttempt(ctx)
			sc := fixture.Limits
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
			whole("name of the exactly-256-unit button", fxNode(snap, sc, fixture.LimitsExactName).Name, fixture.ExactName, true)
			whole("text of the exactly-512-unit text", fxNode(snap, sc, fixture.LimitsExactText).Text, fixture.ExactText, true)
			whole("value of the exactly-512-unit field", fxNode(snap, sc, fixture.LimitsExactValue).Value, fixture.ExactValue, false)
			got := fxNode(snap, sc, fixture.LimitsLongValue).Value
			expectCutPrefix("value of the 600-unit field", got, fixture.LongValue, wire.TextMaxUnits)
			e.observed("OBS-005", "600-unit value cut to a prefix")
		})

	// selection is "selected text in the focused field" (§5.5): the limits
	// screen focuses the 600-unit field with its whole value selected when
	// it loads, so an engine reporting selections reports a 600-unit one,
	// which must come cut like value. An engine that reports no selection
	// there leaves the clause not verified.
	s.spec("on the limits fixture the selection of the focused field whose 600-unit value is wholly selected is cut to a non-empty prefix of at most 512 UTF-16 units that splits no surrogate pair",
		[]string{"OBS-005"}, func(ctx context.Context, e *Env) {
			c, op, _ := e.inAttempt(ctx)
			sc := fixture.Limits
			snap := e.fxStage(ctx, c, op, sc, "")
			over := fieldsOverLimit(snap)
			Expect(over).To(BeEmpty(), "field limits on the limits fixture: %s", strings.Join(firstFew(over, 10), "; "))
			n := fxNode(snap, sc, fixture.LimitsLongValue)
			if n.Selection == nil {
				Skip(notVerified + fmt.Sprintf("the engine reports no selection on the focused field whose whole 600-unit value is selected (states %s)", fxStates(n)))
			}
			expectCutPrefix("selection of the 600-unit field", n.Selection, fixture.LongValue, wire.TextMaxUnits)
			e.observed("OBS-005", "600-unit selection cut to a prefix")
		})

	// The password field is filled with a sensitive canary (also an
	// ERR-007 canary) when the engine declares fill; every secure node of
	// the observation is then checked, the password field first (it must be
	// reported secure for the check to bite). Without fill the unfilled
	// field is checked and the spec ends not verified.
	s.spec("the filled password field of the form fixture, like every node with states.secure: true, carries no value and no selection",
		[]string{"OBS-006"}, func(ctx context.Context, e *Env) {
			c, op, _ := e.inAttempt(ctx)
			sc := fixture.Form
			snap := e.fxStage(ctx, c, op, sc, "")
			filled := false
			if e.fxCanPerform(wire.ActionFill) {
				v := fxCanary("e2e-conform-password-")
				e.Secret(v)
				err := c.Perform(ctx, op, fxNode(snap, sc, fixture.FormPassword).Ref, wire.LocatorAction{Kind: wire.ActionFill, Value: v, Sensitive: true})
				Expect(err).NotTo(HaveOccurred(), "engine/perform fill (sensitive) of the password field: want null, got %s", fxDescribeError(err))
				filled = true
				snap = fxObserve(ctx, c, op, "after filling the password field")
			}
			pw := fxNode(snap, sc, fixture.FormPassword)
			Expect(pw.State("secure")).To(BeTrue(), "the password field: want states.secure: true, got states %s", fxStates(pw))
			var bad []string
			snap.Root.Walk(func(n *wire.SemanticNode) bool {
				if n.State("secure") && (n.Value != nil || n.Selection != nil) {
					bad = append(bad, fmt.Sprintf("node %s (test id %s) carries value %s and selection %s", n.Ref.ID, fxText(n.TestID), fxText(n.Value), fxText(n.Selection)))
				}
				return true
			})
			Expect(bad).To(BeEmpty(), "secure nodes: want no value and no selection, got %s", strings.Join(bad, "; "))
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
		[]string{"OBS-007"}, func(ctx context.Context, e *Env) {
			c, op, _ := e.inAttempt(ctx)
			var problems, unverified []string
			for _, sc := range []fixture.Screen{fixture.Counter, fixture.Tree, fixture.Form} {
				snap := e.fxStage(ctx, c, op, sc, "")
				problems = append(problems, fxStateProblems(snap, sc)...)
			}
			sc := fixture.Form
			snap := fxObserve(ctx, c, op, "of the form fixture")
			switch {
			case e.fxCanPerform(wire.ActionCheck) || e.fxCanPerform(wire.ActionTap):
				kind := wire.ActionCheck
				if !e.fxCanPerform(kind) {
					kind = wire.ActionTap
				}
				err := c.Perform(ctx, op, fxNode(snap, sc, fixture.FormSubscribe).Ref, wire.LocatorAction{Kind: kind})
				Expect(err).NotTo(HaveOccurred(), "engine/perform %s on the Subscribe checkbox: want null, got %s", kind, fxDescribeError(err))
				snap = fxObserve(ctx, c, op, "after checking the checkbox")
				if n := fxNode(snap, sc, fixture.FormSubscribe); !n.State("checked") {
					problems = append(problems, fmt.Sprintf("form: the Subscribe checkbox after %s: want states.checked true, got states %s", kind, fxStates(n)))
				}
			default:
				unverified = append(unverified, "the checked checkbox (the engine declares neither check nor tap)")
			}
			if e.fxCanPerform(wire.ActionFocus) {
				err := c.Perform(ctx, op, fxNode(snap, sc, fixture.FormName).Ref, wire.LocatorAction{Kind: wire.ActionFocus})
				Expect(err).NotTo(HaveOccurred(), "engine/perform focus on the Name input: want null, got %s", fxDescribeError(err))
				snap = fxObserve(ctx, c, op, "after focusing the Name input")
				if n := fxNode(snap, sc, fixture.FormName); !n.State("focused") {
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

	// When the engine declares fill, pixels are asked for twice: with the
	// password field empty, then filled (a filled secure field is what
	// masking is about, but the count binds "whenever pixels are returned",
	// and §4.8 counts secure nodes, not filled ones: an engine that skips
	// the empty field fails). Pixels stay optional: an engine that returns none passes
	// with a note, as for OBS-009. With no node reported secure the count
	// has nothing to bound and the spec is not verified (OBS-007 judges the
	// missing state).
	s.spec("whenever pixels of the form fixture are returned, maskedRegionCount is at least the number of nodes with states.secure: true",
		[]string{"OBS-010"}, func(ctx context.Context, e *Env) {
			c, op, _ := e.inAttempt(ctx)
			sc := fixture.Form
			snap := e.fxStage(ctx, c, op, sc, "")
			if e.fxCanPerform(wire.ActionFill) {
				// "Whenever pixels are returned" (catalog OBS-010) includes
				// the empty password field: it is secure before it holds a
				// value, and the count must cover it then too.
				empty, err := c.Observe(ctx, op, &wire.EngineObserveOptions{Pixels: true})
				Expect(err).NotTo(HaveOccurred(), "engine/observe with options.pixels: true of the form fixture, the password field empty: want a snapshot, got %s", fxDescribeError(err))
				if secure := fxCountSecure(empty); empty.Pixels != nil && secure > 0 {
					masked := int64(0)
					if empty.MaskedRegionCount != nil {
						masked = *empty.MaskedRegionCount
					}
					Expect(masked).To(BeNumerically(">=", secure), "pixels of the form fixture with the password field empty: want maskedRegionCount >= %d (the nodes with states.secure: true), got %d", secure, masked)
				}
				v := fxCanary("e2e-conform-password-")
				e.Secret(v)
				err = c.Perform(ctx, op, fxNode(snap, sc, fixture.FormPassword).Ref, wire.LocatorAction{Kind: wire.ActionFill, Value: v, Sensitive: true})
				Expect(err).NotTo(HaveOccurred(), "engine/perform fill (sensitive) of the password field: want null, got %s", fxDescribeError(err))
			}
			snap, err := c.Observe(ctx, op, &wire.EngineObserveOptions{Pixels: true})
			Expect(err).NotTo(HaveOccurred(), "engine/observe with options.pixels: true of the form fixture: want a snapshot, got %s", fxDescribeError(err))
			secure := fxCountSecure(snap)
			if secure == 0 {
				Skip(notVerified + "the form fixture's observation reports no node with states.secure: true, so maskedRegionCount has nothing to be judged against")
			}
			if snap.Pixels == nil {
				Skip(nothingToCheck + "engine/observe with options.pixels: true returned no pixels on the form fixture; there was no masking to judge")
			}
			masked := int64(0)
			if snap.MaskedRegionCount != nil {
				masked = *snap.MaskedRegionCount
			}
			Expect(masked).To(BeNumerically(">=", secure), "pixels of the form fixture: want maskedRegionCount >= %d (the nodes with states.secure: true), got %d", secure, masked)
		})

	// Three URLs are opened: page A, page A with a query (every screen
	// ignores its query, the contract says), and the fixture server's bare
	// origin without a trailing slash (the statement's own example; no
	// marker there, so its open is not staged and a failed open is left to
	// SESS-001). An observation without location passes (the statement
	// judges a present one), noted when none had one.
	s.spec("after session/open of a fixture URL, a present location equals that URL, both compared after WHATWG URL serialization",
		[]string{"OBS-012"}, func(ctx context.Context, e *Env) {
			c, op, _ := e.inAttempt(ctx)
			var problems []string
			present := 0
			check := func(opened string, snap *wire.EngineSnapshot) {
				if snap.Location == "" {
					return
				}
				present++
				want, err := fxSerializeURL(opened)
				Expect(err).NotTo(HaveOccurred(), "serializing the URL the suite opened")
				got, err := fxSerializeURL(snap.Location)
				if err != nil || got != want {
					problems = append(problems, fmt.Sprintf("after session/open of %s: want location %s, got %q", opened, want, snap.Location))
				}
			}
			for _, p := range []string{fixture.PageA.Path, fixture.PageA.Path + "?from=e2e-conform"} {
				check(e.FixtureURL+p, e.fxStage(ctx, c, op, fixture.PageA, p))
			}
			if err := c.Open(ctx, op, e.FixtureURL); err == nil {
				check(e.FixtureURL, fxObserve(ctx, c, op, "after session/open of the fixture server's origin"))
			} else {
				noteEntry("session/open of the fixture server's origin %s failed (%s); that URL was not compared", e.FixtureURL, fxDescribeError(err))
			}
			Expect(problems).To(BeEmpty(), "locations: %s", strings.Join(problems, "; "))
			if present == 0 {
				Skip(nothingToCheck + "no observation after session/open carried a location; there was nothing to compare")
			}
		})

	// The baseline is the observation that first showed the staged screen;
	// each status of the counter screen (the counters, the last long press
	// and the modifiers) must read the same in the five observations after
	// it.
	s.spec("five consecutive observations change none of the counter fixture's counters",
		[]string{"OBS-013"}, func(ctx context.Context, e *Env) {
			c, op, _ := e.inAttempt(ctx)
			sc := fixture.Counter
			statuses := []fixture.Status{fixture.CounterTaps, fixture.CounterDoubleTaps, fixture.CounterSecondaryTaps, fixture.CounterLongPresses,
				fixture.CounterLastLongPress, fixture.CounterHovers, fixture.CounterModifiers, fixture.CounterDisabledTaps}
			read := func(snap *wire.EngineSnapshot) []string {
				out := make([]string, len(statuses))
				for i, st := range statuses {
					out[i] = st.Label + ": " + fxStatus(snap, sc, st)
				}
				return out
			}
			want := read(e.fxStage(ctx, c, op, sc, ""))
			for i := 1; i <= 5; i++ {
				got := read(fxObserve(ctx, c, op, "of the counter fixture"))
				Expect(got).To(Equal(want), "observation %d of 5: want the counters as first staged %v, got %v", i, want, got)
			}
		})
}

// fxCountSecure counts the nodes of snap with states.secure: true.
func fxCountSecure(snap *wire.EngineSnapshot) int {
	secure := 0
	snap.Root.Walk(func(n *wire.SemanticNode) bool {
		if n.State("secure") {
			secure++
		}
		return true
	})
	return secure
}
