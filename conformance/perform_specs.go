package conformance

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/e2e-conform/toolkit/conformance/fixture"
	"github.com/e2e-conform/toolkit/protocol/engineerr"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// performSpecs registers the ACT specs (catalog ACT): engine/perform on the
// fixture screens, spec §4.10 and §5.8. See helpers_actions.go for how the
// specs act (current refs, the suite's revisions, polling for effects).
//
// Requirements that apply part by part (ACT-001, -003, -006, -007, -008)
// check each listed kind only when the manifest lists it.
//
// Decisions where the catalog leaves room (each repeated at its spec):
//   - "Gets null" (ACT-001, ACT-002, PTR-001) is read off the recorded
//     response frame: the client library reports success for any result
//     of a void method.
//   - ACT-015 and PTR-005 need a kind missing from the manifest's list;
//     when the list is complete the requirement cannot be exercised and is
//     reported not verified, never passed.
//   - ACT-009 checks the catalog's session/restart (and several
//     observations back), not session/reset.
//   - ACT-004 searches stderr only when the suite spawned the server.
//   - ACT-016 gives the tap a 2 s budget, within which the engine may wait
//     for actionability.
//   - A listed part that cannot be checked on the fixture (ACT-008: no
//     rect, or the node already in view) makes the spec not verified once
//     the other parts ran.
func performSpecs(s *suite) {
	// "Gets null" is checked on the recorded response (actExpectVoid): the
	// client library accepts any result of a void method. Only the
	// matching counter is checked (fixture decision for ACT-001: a double
	// tap MAY also count as two taps).
	s.spec("tap, doubleTap and secondaryTap on the counter button's current ref each get null and raise the matching counter by exactly one",
		[]string{"ACT-001"}, func(ctx context.Context, e *Env) {
			a := e.actor(ctx)
			a.stage(ctx, fixture.Counter)
			for _, k := range []struct {
				kind    string
				counter fixture.Status
			}{
				{wire.ActionTap, fixture.CounterTaps},
				{wire.ActionDoubleTap, fixture.CounterDoubleTaps},
				{wire.ActionSecondaryTap, fixture.CounterSecondaryTaps},
			} {
				if !a.can(k.kind) {
					continue
				}
				a.observe(ctx)
				before := a.count(k.counter)
				err := a.perform(ctx, fixture.CounterTap, wire.LocatorAction{Kind: k.kind})
				e.actExpectVoid(err, wire.MethodPerform, "engine/perform "+k.kind+" on the counter's Tap button")
				got := a.awaitCount(ctx, k.counter, before)
				Expect(got).To(Equal(before+1), "%s on the Tap button: want the %q counter raised by exactly one, from %d to %d, got %d", k.kind, k.counter.Label, before, before+1, got)
			}
		})

	// The fixture counts a press held at least fixture.LongPressThreshold
	// as a long press and shows how long it was held; the catalog's 100 ms
	// is the least an engine's default hold may be (D73). The durations
	// are the fixture's readings, not the suite's clock: a staged engine
	// may simulate the hold.
	s.spec("longPress without durationMs gets null and the fixture registers one press held at least 100 ms; with durationMs 800 the press lasts at least 800 ms",
		[]string{"ACT-002"}, func(ctx context.Context, e *Env) {
			a := e.actor(ctx)
			a.stage(ctx, fixture.Counter)
			for _, c := range []struct {
				duration *float64
				least    int
				what     string
			}{
				{nil, 100, "longPress without durationMs"},
				{actPtr(800.0), 800, "longPress with durationMs 800"},
			} {
				a.observe(ctx)
				before := a.count(fixture.CounterLongPresses)
				err := a.perform(ctx, fixture.CounterTap, wire.LocatorAction{Kind: wire.ActionLongPress, DurationMs: c.duration})
				e.actExpectVoid(err, wire.MethodPerform, "engine/perform "+c.what+" on the counter's Tap button")
				got := a.awaitCount(ctx, fixture.CounterLongPresses, before)
				Expect(got).To(Equal(before+1), "%s: want the %q counter raised by exactly one, from %d, got %d (a press held under %s is not a long press)",
					c.what, fixture.CounterLongPresses.Label, before, got, fixture.LongPressThreshold)
				last := a.status(fixture.CounterLastLongPress)
				ms, ok := fixture.ParseMs(last)
				Expect(ok).To(BeTrue(), "%s: the %q status shows %q, want \"<n> ms\"", c.what, fixture.CounterLastLongPress.Label, last)
				Expect(ms).To(BeNumerically(">=", c.least), "%s: want a press held at least %d ms, the fixture registered %d ms", c.what, c.least, ms)
			}
		})

	// "Whatever it held before": the second fill goes into an input that
	// holds the first value. clear then empties an input holding the last
	// fill's value; when fill is not listed, clear is checked on the
	// input's initial content only. An empty input may report value "" or
	// (leniently) no value.
	s.spec("fill leaves the input's observed value equal to the given value, whatever it held before; clear leaves it empty",
		[]string{"ACT-003"}, func(ctx context.Context, e *Env) {
			a := e.actor(ctx)
			a.stage(ctx, fixture.Form)
			if a.can(wire.ActionFill) {
				for _, v := range []string{"Ada Lovelace", "Grâce Hopper 😀"} {
					a.observe(ctx)
					held, _ := a.value(fixture.FormName)
					err := a.perform(ctx, fixture.FormName, wire.LocatorAction{Kind: wire.ActionFill, Value: v})
					Expect(err).NotTo(HaveOccurred(), "fill %q into the form's Name input: want null, got an error", v)
					a.await(ctx, func() bool { got, _ := a.value(fixture.FormName); return got == v })
					got, ok := a.value(fixture.FormName)
					Expect(ok).To(BeTrue(), "after fill %q the Name input reports no value", v)
					Expect(got).To(Equal(v), "fill %q into the Name input that held %q: want the value %q, got %q", v, held, v, got)
				}
			}
			if a.can(wire.ActionClear) {
				a.observe(ctx)
				held, _ := a.value(fixture.FormName)
				err := a.perform(ctx, fixture.FormName, wire.LocatorAction{Kind: wire.ActionClear})
				Expect(err).NotTo(HaveOccurred(), "clear of the form's Name input: want null, got an error")
				a.await(ctx, func() bool { got, _ := a.value(fixture.FormName); return got == "" })
				got, _ := a.value(fixture.FormName)
				Expect(got).To(BeEmpty(), "clear of the Name input that held %q: want it empty, got the value %q", held, got)
			}
		})

	// The fill value is a random canary registered as a secret, so that
	// it is redacted from reports and the run-wide ERR-007 check looks for
	// it too. After the fill the spec provokes a later error (a perform on
	// a ref that binds nothing) and observes; it then reads the errors it
	// got, the engine/log and attempt/* messages of its connection, and —
	// when it spawned the server, after closing the connection so that
	// stderr is drained — every stderr line. A server reached over a socket
	// has no stderr the suite can read: that part is then noted as not
	// checked.
	s.spec("fill with sensitive: true into the password field either succeeds with the value absent from every later error, engine/log line, attempt/* notification and stderr line, or fails with UNSUPPORTED_CAPABILITY",
		[]string{"ACT-004"}, func(ctx context.Context, e *Env) {
			a := e.actor(ctx)
			a.stage(ctx, fixture.Form)
			v := "e2e-conform-sensitive-" + actToken()
			e.Secret(v)
			err := a.perform(ctx, fixture.FormPassword, wire.LocatorAction{Kind: wire.ActionFill, Value: v, Sensitive: true})
			if err != nil {
				actExpectEngineError(err, "fill with sensitive: true into the password field", engineerr.UnsupportedCapability)
				return
			}
			var errs []string
			gone := wire.NodeRef{ID: "e2e-conform-no-such-node-" + actToken(), Revision: a.revision()}
			if err := a.c.Perform(ctx, a.op, gone, wire.LocatorAction{Kind: wire.ActionFill, Value: "later"}); err != nil {
				errs = append(errs, actErrorText(err))
			}
			a.observe(ctx)
			for _, t := range errs {
				Expect(strings.Contains(t, v)).To(BeFalse(), "a later error carries the sensitive fill value: %s", clip(e.Redact(t)))
			}
			for _, m := range a.msgs.All() {
				Expect(strings.Contains(m, v)).To(BeFalse(), "a later server message carries the sensitive fill value: %s", clip(e.Redact(m)))
			}
			if e.Transport != "spawn" {
				noteEntry("the server is reached over a socket: its stderr is not visible to the suite and was not searched for the sensitive value")
				return
			}
			_ = a.c.Close(5 * time.Second) // drains the server's stderr
			for _, l := range e.StderrLines() {
				Expect(strings.Contains(l, v)).To(BeFalse(), "a stderr line of the server carries the sensitive fill value: %s", clip(e.Redact(l)))
			}
		})

	// The suite presses actPressKeys on the keys screen's input (each press
	// on its current ref) and reads the log after each: one new keydown of
	// that key (fixture.KeyEvent.Matches), or, when the engine refuses the
	// key with UNSUPPORTED_CAPABILITY, nothing new.
	s.spec("press delivers named keys, characters, modifier combinations and Shift++ to the node as the keys fixture shows, or fails with UNSUPPORTED_CAPABILITY, and never delivers another key",
		[]string{"ACT-005"}, func(ctx context.Context, e *Env) {
			a := e.actor(ctx)
			a.stage(ctx, fixture.Keys)
			for _, key := range actPressKeys {
				ref := a.ref(ctx, fixture.KeysInput)
				before := len(a.keyLog())
				err := a.c.Perform(ctx, a.op, ref, wire.LocatorAction{Kind: wire.ActionPress, Key: key})
				a.expectKeyDelivered(ctx, key, err, before, fmt.Sprintf("engine/perform press %q on the keys input", key))
			}
		})

	// Both actions are repeated: check on a checked box and uncheck on an
	// unchecked one must leave the state as it is (a toggle fails). When
	// only uncheck is listed, the box is first checked with a click if the
	// manifest offers one.
	s.spec("check and uncheck leave the checkbox's states.checked true and false; on the switch that exposes no state they fail with UNSUPPORTED_CAPABILITY",
		[]string{"ACT-006"}, func(ctx context.Context, e *Env) {
			a := e.actor(ctx)
			a.stage(ctx, fixture.Form)
			checked := func() (bool, bool) {
				n := a.node(fixture.FormSubscribe)
				if n.States == nil || n.States.Checked == nil {
					return false, false
				}
				return *n.States.Checked, true
			}
			leaves := func(kind string, want bool, what string) {
				err := a.perform(ctx, fixture.FormSubscribe, wire.LocatorAction{Kind: kind})
				Expect(err).NotTo(HaveOccurred(), "%s: want null, got an error", what)
				a.await(ctx, func() bool { v, ok := checked(); return ok && v == want })
				v, ok := checked()
				Expect(ok).To(BeTrue(), "%s: the checkbox reports no states.checked", what)
				Expect(v).To(Equal(want), "%s: want states.checked %v, got %v", what, want, v)
				a.quiet(ctx, func() bool { v, _ := checked(); return v != want })
				v, _ = checked()
				Expect(v).To(Equal(want), "%s: states.checked became %v, then %v", what, want, v)
			}
			if a.can(wire.ActionCheck) {
				leaves(wire.ActionCheck, true, "check on the unchecked checkbox")
				leaves(wire.ActionCheck, true, "check on the checked checkbox")
			}
			if a.can(wire.ActionUncheck) {
				if !a.can(wire.ActionCheck) && !a.click(ctx, fixture.FormSubscribe) {
					noteEntry("uncheck was checked on an unchecked box only: the manifest offers no way to check it first")
				}
				leaves(wire.ActionUncheck, false, "uncheck on the checkbox")
				leaves(wire.ActionUncheck, false, "uncheck on the unchecked checkbox")
			}
			for _, kind := range []string{wire.ActionCheck, wire.ActionUncheck} {
				if !a.can(kind) {
					continue
				}
				err := a.perform(ctx, fixture.FormSwitch, wire.LocatorAction{Kind: kind})
				actExpectEngineError(err, kind+" on the switch that exposes no state", engineerr.UnsupportedCapability)
			}
		})

	// hover: the pointer is first placed on the Tap button (D73), then on
	// the hover target, whose counter counts the pointer entering it.
	s.spec("focus leaves the node with states.focused true; hover on the hover target, with the pointer last placed elsewhere, raises the hover counter",
		[]string{"ACT-007"}, func(ctx context.Context, e *Env) {
			a := e.actor(ctx)
			if a.can(wire.ActionFocus) {
				a.stage(ctx, fixture.Form)
				err := a.perform(ctx, fixture.FormName, wire.LocatorAction{Kind: wire.ActionFocus})
				Expect(err).NotTo(HaveOccurred(), "focus on the form's Name input: want null, got an error")
				a.await(ctx, func() bool { return a.node(fixture.FormName).State("focused") })
				Expect(a.node(fixture.FormName).State("focused")).To(BeTrue(), "focus on the Name input: want states.focused true, got the node %s",
					actDigest(a.node(fixture.FormName))[0])
			}
			if a.can(wire.ActionHover) {
				a.stage(ctx, fixture.Counter)
				err := a.perform(ctx, fixture.CounterTap, wire.LocatorAction{Kind: wire.ActionHover})
				Expect(err).NotTo(HaveOccurred(), "hover on the counter's Tap button (placing the pointer elsewhere): want null, got an error")
				a.observe(ctx)
				before := a.count(fixture.CounterHovers)
				err = a.perform(ctx, fixture.CounterHoverTarget, wire.LocatorAction{Kind: wire.ActionHover})
				Expect(err).NotTo(HaveOccurred(), "hover on the counter's hover target: want null, got an error")
				got := a.awaitCount(ctx, fixture.CounterHovers, before)
				Expect(got).To(BeNumerically(">", before), "hover on the hover target with the pointer on the Tap button: want the %q counter raised from %d, got %d",
					fixture.CounterHovers.Label, before, got)
			}
		})

	// scrollIntoView needs the node's rect; swipe reads the tree screen's
	// scroll offset status (fixture decision for ACT-008). A listed part
	// the suite cannot check (no rect, or the node already in view) makes
	// the spec not verified after the other part ran: a pass means every
	// listed part was checked.
	s.spec("scrollIntoView makes the below-the-fold node's rect intersect the viewport; swipe on the root with down raises the vertical scroll offset and with up lowers it",
		[]string{"ACT-008"}, func(ctx context.Context, e *Env) {
			a := e.actor(ctx)
			var unverified []string
			if a.can(wire.ActionScrollIntoView) {
				a.stage(ctx, fixture.Tree)
				n := a.node(fixture.TreeBelowFold)
				switch {
				case n.Rect == nil:
					unverified = append(unverified, "the below-the-fold node reports no rect")
				case actIntersects(*n.Rect, a.snap.Viewport):
					unverified = append(unverified, fmt.Sprintf("the below-the-fold node (rect %+v) already intersects the %vx%v viewport", *n.Rect, a.snap.Viewport.Width, a.snap.Viewport.Height))
				default:
					err := a.perform(ctx, fixture.TreeBelowFold, wire.LocatorAction{Kind: wire.ActionScrollIntoView})
					Expect(err).NotTo(HaveOccurred(), "scrollIntoView on the tree's below-the-fold node: want null, got an error")
					inView := func() bool {
						r := a.node(fixture.TreeBelowFold).Rect
						return r != nil && actIntersects(*r, a.snap.Viewport)
					}
					a.await(ctx, inView)
					r := a.node(fixture.TreeBelowFold).Rect
					Expect(r).NotTo(BeNil(), "after scrollIntoView the below-the-fold node reports no rect")
					Expect(inView()).To(BeTrue(), "scrollIntoView: want the below-the-fold node's rect to intersect the %vx%v viewport, got %+v",
						a.snap.Viewport.Width, a.snap.Viewport.Height, *r)
				}
			}
			if a.can(wire.ActionSwipe) {
				a.stage(ctx, fixture.Tree)
				for _, dir := range []string{wire.DirectionDown, wire.DirectionUp} {
					a.observe(ctx)
					_, before := a.offset(fixture.TreeScrollOffset)
					err := a.c.Perform(ctx, a.op, a.rootRef(ctx), wire.LocatorAction{Kind: wire.ActionSwipe, Direction: dir})
					Expect(err).NotTo(HaveOccurred(), "swipe %s on the tree screen's root: want null, got an error", dir)
					moved := func() bool {
						_, y := a.offset(fixture.TreeScrollOffset)
						return (dir == wire.DirectionDown && y > before) || (dir == wire.DirectionUp && y < before)
					}
					a.await(ctx, moved)
					_, got := a.offset(fixture.TreeScrollOffset)
					Expect(moved()).To(BeTrue(), "swipe %s on the root: want the vertical scroll offset %s than %v, got %v (D46: down brings later content into view)",
						dir, map[string]string{wire.DirectionDown: "greater", wire.DirectionUp: "less"}[dir], before, got)
				}
			}
			if len(unverified) > 0 {
				Skip(notVerified + "scrollIntoView could not be checked: " + strings.Join(unverified, "; "))
			}
		})

	// The old root ref keeps the revision of its observation, as the
	// harness sends it. The catalog names session/restart; the restart
	// part runs when the manifest lists session/restart (and the screen
	// is opened again after it, §4.18), the several-observations-back part
	// always.
	s.spec("swipe on a root ref from several observations back, and from an observation taken before session/restart, scrolls the viewport without NODE_STALE",
		[]string{"ACT-009"}, func(ctx context.Context, e *Env) {
			a := e.actor(ctx)
			a.stage(ctx, fixture.Tree)
			old := a.root().Ref
			old.Revision = a.revision()
			swipe := func(what string) {
				a.observe(ctx)
				_, before := a.offset(fixture.TreeScrollOffset)
				err := a.c.Perform(ctx, a.op, old, wire.LocatorAction{Kind: wire.ActionSwipe, Direction: wire.DirectionDown})
				if ee := actEngineError(err); ee != nil && ee.Code == engineerr.NodeStale {
					Fail(fmt.Sprintf("swipe down on the root ref %q %s: want the viewport scrolled, got NODE_STALE (%q): the root swipe must bind a root ref of any earlier observation", old.ID, what, ee.Message))
				}
				Expect(err).NotTo(HaveOccurred(), "swipe down on the root ref %q %s: want null, got an error", old.ID, what)
				a.await(ctx, func() bool { _, y := a.offset(fixture.TreeScrollOffset); return y > before })
				_, got := a.offset(fixture.TreeScrollOffset)
				Expect(got).To(BeNumerically(">", before), "swipe down on the root ref %q %s: want the vertical scroll offset greater than %v, got %v", old.ID, what, before, got)
			}
			for range 3 {
				a.observe(ctx)
			}
			swipe("from four observations back")
			if e.Manifest.Lists(wire.MethodRestart) {
				Expect(a.c.Restart(ctx, a.op)).To(Succeed(), "session/restart: want null, got an error")
				a.stage(ctx, fixture.Tree)
				swipe("from an observation taken before session/restart")
			}
		})

	// Labels and values differ (fixture decision for ACT-010); each form
	// picks an option other than the one selected before it. The fruit
	// status shows "<label> (<value>)".
	s.spec("selectOption with a label string, {label}, {value} and {index} each selects the intended option",
		[]string{"ACT-010"}, func(ctx context.Context, e *Env) {
			a := e.actor(ctx)
			a.stage(ctx, fixture.Form)
			opts := fixture.FruitOptions
			for _, c := range []struct {
				opt  wire.SelectOption
				want fixture.Option
				what string
			}{
				{wire.SelectOption{Text: opts[1].Label}, opts[1], fmt.Sprintf("the label string %q", opts[1].Label)},
				{wire.SelectOption{By: "label", Text: opts[2].Label}, opts[2], fmt.Sprintf("{label: %q}", opts[2].Label)},
				{wire.SelectOption{By: "value", Text: opts[0].Value}, opts[0], fmt.Sprintf("{value: %q}", opts[0].Value)},
				{wire.SelectOption{By: "index", Index: 1}, opts[1], "{index: 1}"},
			} {
				err := a.perform(ctx, fixture.FormFruit, wire.LocatorAction{Kind: wire.ActionSelectOption, Option: c.opt})
				Expect(err).NotTo(HaveOccurred(), "selectOption with %s: want null, got an error", c.what)
				want := fmt.Sprintf("%s (%s)", c.want.Label, c.want.Value)
				a.await(ctx, func() bool { return a.status(fixture.FormFruitStatus) == want })
				got := a.status(fixture.FormFruitStatus)
				Expect(got).To(Equal(want), "selectOption with %s: want the option %q selected (status %q), got the status %q", c.what, c.want.Label, want, got)
			}
		})

	// The files are created under the run's artifacts directory, named so
	// that the order given is also their sorted order; the files status
	// lists their base names in the order given.
	s.spec("setInputFiles with two absolute paths of files the suite created sets the file input to those two files",
		[]string{"ACT-011"}, func(ctx context.Context, e *Env) {
			a := e.actor(ctx)
			a.stage(ctx, fixture.Form)
			paths := e.actTempFiles()
			want := actBaseNames(paths)
			err := a.perform(ctx, fixture.FormFiles, wire.LocatorAction{Kind: wire.ActionSetInputFiles, Paths: paths})
			Expect(err).NotTo(HaveOccurred(), "setInputFiles %q on the form's file input: want null, got an error", paths)
			a.await(ctx, func() bool { return slices.Equal(fixture.ParseList(a.status(fixture.FormFilesStatus)), want) })
			got := fixture.ParseList(a.status(fixture.FormFilesStatus))
			Expect(got).To(Equal(want), "setInputFiles with two files: want the file input to hold %q, the files status shows %q", want, got)
		})

	// Both refs come from the same observation, as one resolution.
	s.spec("dragTo from the drag source to the drop target's ref makes the fixture register the drop",
		[]string{"ACT-012"}, func(ctx context.Context, e *Env) {
			a := e.actor(ctx)
			a.stage(ctx, fixture.Form)
			a.observe(ctx)
			before := a.count(fixture.FormDrops)
			src, dst := a.refIn(fixture.FormDragSource), a.refIn(fixture.FormDropTarget)
			err := a.c.Perform(ctx, a.op, src, wire.LocatorAction{Kind: wire.ActionDragTo, Target: &dst})
			Expect(err).NotTo(HaveOccurred(), "dragTo from the drag source to the drop target: want null, got an error")
			got := a.awaitCount(ctx, fixture.FormDrops, before)
			Expect(got).To(Equal(before+1), "dragTo onto the drop target: want the %q counter raised from %d to %d, got %d", fixture.FormDrops.Label, before, before+1, got)
			last := a.status(fixture.FormLastDrop)
			Expect(last).To(Equal(fixture.FormDragSource.TestID), "dragTo onto the drop target: want the %q status to name %q, got %q", fixture.FormLastDrop.Label, fixture.FormDragSource.TestID, last)
		})

	// The Mutate button is clicked with the first means the manifest
	// offers (tap, press Enter, pointer tap); the removed item's ref then
	// gets the first listed kind (tap when listed, whose witness is the
	// item taps counter). "Nothing is dispatched" is read as the whole
	// screen unchanged (actDigest) for actQuietWait after the answer. The
	// suite does not require the new item's id to differ: an engine that
	// reuses it fails here because the old ref then binds.
	s.spec("a ref whose node the mutation fixture removed fails with NODE_STALE, retryable: true, and nothing is dispatched",
		[]string{"ACT-013"}, func(ctx context.Context, e *Env) {
			a := e.actor(ctx)
			a.stage(ctx, fixture.Mutation)
			a.observe(ctx)
			removed := a.refIn(fixture.MutationItem)
			mutations := a.count(fixture.MutationCount)
			if !a.click(ctx, fixture.MutationButton) {
				Skip(notVerified + "the suite clicks the Mutate button with the tap or press action or a pointer tap, and the manifest declares none of them (or the button reports no rect)")
			}
			newName := fixture.MutationItemName(mutations + 2)
			a.await(ctx, func() bool {
				n := fixture.MutationItem.Find(a.root())
				return n != nil && n.Name != nil && *n.Name == newName
			})
			got := a.count(fixture.MutationCount)
			Expect(got).To(Equal(mutations+1), "a click on Mutate: want the %q counter raised from %d to %d, got %d", fixture.MutationCount.Label, mutations, mutations+1, got)
			kind := ""
			for _, k := range []string{wire.ActionTap, wire.ActionPress, wire.ActionFocus, wire.ActionHover, wire.ActionDoubleTap, wire.ActionSecondaryTap,
				wire.ActionLongPress, wire.ActionScrollIntoView} {
				if a.can(k) {
					kind = k
					break
				}
			}
			if kind == "" {
				Skip(notVerified + "the suite sends tap, press, focus, hover, doubleTap, secondaryTap, longPress or scrollIntoView to the removed node, and the manifest declares none of them")
			}
			action := wire.LocatorAction{Kind: kind}
			if kind == wire.ActionPress {
				action.Key = "Enter"
			}
			before := actDigest(a.root())
			err := a.c.Perform(ctx, a.op, removed, action)
			what := fmt.Sprintf("engine/perform %s on the ref %q of the removed mutation item", kind, removed.ID)
			ee := actExpectEngineError(err, what, engineerr.NodeStale)
			Expect(ee.Retryable).To(BeTrue(), "%s: want NODE_STALE with retryable: true, got retryable: false", what)
			a.expectUnchanged(ctx, before, what)
		})

	// One kind is used: the first listed in the order of actProbes, on the
	// fixture screen where its effect shows (fresh for each revision), and
	// "performs normally" means the call gets null and the effect shows.
	s.spec("a ref with the current id and the revision \"\" or \"zz9\" performs normally",
		[]string{"ACT-014"}, func(ctx context.Context, e *Env) {
			a := e.actor(ctx)
			var probe *actProbe
			for _, p := range actProbes() {
				if !a.can(p.kind) {
					continue
				}
				if p.kind == wire.ActionClear && !a.can(wire.ActionFill) {
					continue // clear shows only on an input with content
				}
				p := p
				probe = &p
				break
			}
			if probe == nil {
				Skip(notVerified + "no listed action kind has an effect the suite can read on a fixture screen")
			}
			for _, rev := range []string{"", "zz9"} {
				a.stage(ctx, probe.screen)
				if probe.prepare != nil && !probe.prepare(ctx, a) {
					Skip(notVerified + "the suite cannot prepare the " + probe.kind + " check with the kinds the manifest declares")
				}
				a.observe(ctx)
				w0 := probe.witness(a)
				ref := probe.targetRef(a)
				ref.Revision = rev
				err := a.c.Perform(ctx, a.op, ref, probe.build(a))
				what := fmt.Sprintf("engine/perform %s on %s with the current id %q and revision %q", probe.kind, probe.targetName(), ref.ID, rev)
				Expect(err).NotTo(HaveOccurred(), "%s: want it performed (the engine binds by id alone), got an error", what)
				a.await(ctx, func() bool { return probe.witness(a) != w0 })
				Expect(probe.witness(a)).NotTo(Equal(w0), "%s: want its effect on the %s screen, but it still shows %s", what, probe.screen.Name, w0)
			}
		})

	// Every LOCATOR_ACTION_KINDS member missing from actions is sent, on
	// the screen where it would show. When actions lists every kind there
	// is no kind to send: the requirement cannot be exercised and is
	// reported not verified, never passed (a kind outside
	// LOCATOR_ACTION_KINDS is not a LocatorAction at all: its answer is
	// -32602, §4.0, which is not what ACT-015 states).
	s.spec("a kind missing from actions fails with UNSUPPORTED_CAPABILITY and changes nothing",
		[]string{"ACT-015"}, func(ctx context.Context, e *Env) {
			a := e.actor(ctx)
			tried := 0
			for _, p := range actProbes() {
				if e.Manifest.HasAction(p.kind) {
					continue
				}
				tried++
				a.stage(ctx, p.screen)
				if p.prepare != nil {
					p.prepare(ctx, a)
				}
				a.observe(ctx)
				before := actDigest(a.root())
				err := a.c.Perform(ctx, a.op, p.targetRef(a), p.build(a))
				what := fmt.Sprintf("engine/perform %s (not in the manifest's actions) on %s", p.kind, p.targetName())
				actExpectEngineError(err, what, engineerr.UnsupportedCapability)
				a.expectUnchanged(ctx, before, what)
			}
			if tried == 0 {
				Skip(notVerified + "the manifest's actions list every LOCATOR_ACTION_KINDS member, so there is no kind missing from them to send")
			}
		})

	// The call gets a 2 s budget (operation.timeoutMs from the context):
	// the engine may wait for actionability within it (§4.10). When the
	// budget lapses the client aborts with an OPERATION_TIMEOUT reason,
	// which a conformant engine answers with; an engine that answers
	// nothing is SIG's concern.
	s.spec("tap on the disabled button fails with NOT_ACTIONABLE or OPERATION_TIMEOUT, not retryable, and registers no click",
		[]string{"ACT-016"}, func(ctx context.Context, e *Env) {
			a := e.actor(ctx)
			a.stage(ctx, fixture.Counter)
			ref := a.ref(ctx, fixture.CounterDisabled)
			before := a.count(fixture.CounterDisabledTaps)
			tctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			err := a.c.Perform(tctx, a.op, ref, wire.LocatorAction{Kind: wire.ActionTap})
			cancel()
			what := "tap on the counter's disabled button"
			ee := actExpectEngineError(err, what, engineerr.NotActionable, engineerr.OperationTimeout)
			Expect(ee.Retryable).To(BeFalse(), "%s: want %s not retryable, got retryable: true", what, ee.Code)
			var got int
			a.quiet(ctx, func() bool { got = a.count(fixture.CounterDisabledTaps); return got != before })
			Expect(got).To(Equal(before), "%s failed, yet the %q counter went from %d to %d: the input was delivered", what, fixture.CounterDisabledTaps.Label, before, got)
		})

	// The modifiers status shows the modifiers of the most recent tap on
	// the Tap button (fixture decision for ACT-017).
	s.spec("tap with modifiers [\"Shift\"] clicks with Shift held, as the counter fixture shows",
		[]string{"ACT-017"}, func(ctx context.Context, e *Env) {
			a := e.actor(ctx)
			a.stage(ctx, fixture.Counter)
			a.observe(ctx)
			before := a.count(fixture.CounterTaps)
			err := a.perform(ctx, fixture.CounterTap, wire.LocatorAction{Kind: wire.ActionTap, Modifiers: []string{wire.ModShift}})
			Expect(err).NotTo(HaveOccurred(), "tap with modifiers [Shift] on the Tap button: want null, got an error")
			got := a.awaitCount(ctx, fixture.CounterTaps, before)
			Expect(got).To(Equal(before+1), "tap with modifiers [Shift]: want the %q counter raised from %d to %d, got %d", fixture.CounterTaps.Label, before, before+1, got)
			want := fixture.FormatModifiers([]string{wire.ModShift}, wire.ModControl)
			a.await(ctx, func() bool { return a.status(fixture.CounterModifiers) == want })
			mods := a.status(fixture.CounterModifiers)
			Expect(mods).To(Equal(want), "tap with modifiers [Shift]: want the %q status %q, got %q", fixture.CounterModifiers.Label, want, mods)
		})

	// SHOULD, for an engine without tapModifiers: true. "Rather than
	// clicking without Shift": the taps counter and the modifiers status
	// stay as they were.
	s.spec("tap with modifiers [\"Shift\"] on an engine without tapModifiers: true fails with UNSUPPORTED_CAPABILITY rather than clicking without Shift",
		[]string{"ACT-018"}, func(ctx context.Context, e *Env) {
			a := e.actor(ctx)
			a.stage(ctx, fixture.Counter)
			ref := a.ref(ctx, fixture.CounterTap)
			before := actDigest(a.root())
			err := a.c.Perform(ctx, a.op, ref, wire.LocatorAction{Kind: wire.ActionTap, Modifiers: []string{wire.ModShift}})
			what := "tap with modifiers [Shift] on an engine that does not declare tapModifiers: true"
			actExpectEngineError(err, what, engineerr.UnsupportedCapability)
			a.expectUnchanged(ctx, before, what)
		})
}
