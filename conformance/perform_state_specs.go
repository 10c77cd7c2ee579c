package conformance

import (
	"context"

	. "github.com/onsi/gomega"

	"github.com/e2e-conform/toolkit/conformance/fixture"
	"github.com/e2e-conform/toolkit/protocol/engineerr"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// performStateSpecs registers ACT-006 and ACT-007: check and uncheck, focus
// and hover (spec §4.10, §5.8).
func performStateSpecs(s *suite) {
	// Both actions are repeated: check on a checked box and uncheck on an
	// unchecked one must leave the state as it is (a toggle fails). When
	// only uncheck is listed, the box is first checked with a click if the
	// manifest offers one. §5.5: "a state the engine does not report is
	// absent (and reads as false in queries)": an absent states.checked
	// is an unchecked box once the engine has reported the box checked; an
	// uncheck the suite could not see clear a checked box is not verified.
	s.spec("check and uncheck leave the checkbox's states.checked true and false; on the switch that exposes no state they fail with UNSUPPORTED_CAPABILITY",
		[]string{"ACT-006"}, func(ctx context.Context, e *runEnv) {
			a := e.openScreenClient(ctx)
			a.stage(ctx, fixture.Form())
			onSwitch := func() {
				for _, kind := range []string{wire.ActionCheck, wire.ActionUncheck} {
					if !a.can(kind) {
						continue
					}
					err := a.perform(ctx, fixture.FormSwitch(), wire.LocatorAction{Kind: kind})
					actExpectEngineError(err, kind+" on the switch that exposes no state", engineerr.UnsupportedCapability)
				}
			}
			// notVerified still checks the switch, then ends the spec
			// not verified: the checkbox clause was not observed.
			notVerified := func(reason string) {
				onSwitch()
				skipNotVerified(reason)
			}
			sawChecked := false // the box reported states.checked true
			checked := func() (bool, bool) {
				n := a.node(fixture.FormSubscribe())
				if n.States == nil || n.States.Checked == nil {
					return false, false
				}
				sawChecked = sawChecked || *n.States.Checked
				return *n.States.Checked, true
			}
			// reads is the box's state as §5.5 reads it: absent is false
			// once the box has reported a state of true.
			reads := func(want bool) bool {
				v, ok := checked()
				return ok && v == want || !ok && !want && sawChecked
			}
			leaves := func(kind string, want bool, what string) {
				err := a.perform(ctx, fixture.FormSubscribe(), wire.LocatorAction{Kind: kind})
				Expect(err).NotTo(HaveOccurred(), "%s: want null, got an error", what)
				a.await(ctx, func() bool { return reads(want) })
				v, ok := checked()
				if !ok && !want && !sawChecked {
					notVerified(what + ": the checkbox never reported states.checked, so its state after uncheck cannot be read")
				}
				Expect(ok || !want).To(BeTrue(), "%s: the checkbox reports no states.checked", what)
				Expect(v).To(Equal(want), "%s: want states.checked %v, got %v", what, want, v)
				a.quiet(ctx, func() bool { return !reads(want) })
				v, _ = checked()
				Expect(v).To(Equal(want), "%s: states.checked became %v, then %v", what, want, v)
			}
			if a.can(wire.ActionCheck) {
				leaves(wire.ActionCheck, true, "check on the unchecked checkbox")
				leaves(wire.ActionCheck, true, "check on the checked checkbox")
			}
			if a.can(wire.ActionUncheck) {
				if !a.can(wire.ActionCheck) {
					if !a.click(ctx, fixture.FormSubscribe()) {
						notVerified("uncheck: the manifest offers no way to check the box first, so no uncheck of a checked box can be seen")
					}
					a.await(ctx, func() bool { return reads(true) })
				}
				if !sawChecked { // set by every read of the box so far
					notVerified("uncheck: the checkbox never reported states.checked true, so no uncheck of a checked box can be seen")
				}
				leaves(wire.ActionUncheck, false, "uncheck on the checkbox")
				leaves(wire.ActionUncheck, false, "uncheck on the unchecked checkbox")
			}
			onSwitch()
		})

	// hover: the pointer is first placed on the Tap button (D73), then on
	// the hover target, whose counter counts the pointer entering it.
	s.spec("focus leaves the node with states.focused true; hover on the hover target, with the pointer last placed elsewhere, raises the hover counter",
		[]string{"ACT-007"}, func(ctx context.Context, e *runEnv) {
			a := e.openScreenClient(ctx)
			if a.can(wire.ActionFocus) {
				a.stage(ctx, fixture.Form())
				err := a.perform(ctx, fixture.FormName(), wire.LocatorAction{Kind: wire.ActionFocus})
				Expect(err).NotTo(HaveOccurred(), "focus on the form's Name input: want null, got an error")
				a.await(ctx, func() bool { return a.node(fixture.FormName()).State("focused") })
				Expect(a.node(fixture.FormName()).State("focused")).To(BeTrue(), "focus on the Name input: want states.focused true, got the node %s",
					actDigest(a.node(fixture.FormName()))[0])
			}
			if a.can(wire.ActionHover) {
				a.stage(ctx, fixture.Counter())
				err := a.perform(ctx, fixture.CounterTap(), wire.LocatorAction{Kind: wire.ActionHover})
				Expect(err).NotTo(HaveOccurred(), "hover on the counter's Tap button (placing the pointer elsewhere): want null, got an error")
				a.observe(ctx)
				before := a.count(fixture.CounterHovers())
				err = a.perform(ctx, fixture.CounterHoverTarget(), wire.LocatorAction{Kind: wire.ActionHover})
				Expect(err).NotTo(HaveOccurred(), "hover on the counter's hover target: want null, got an error")
				got := a.awaitCount(ctx, fixture.CounterHovers(), before)
				Expect(got).To(BeNumerically(">", before), "hover on the hover target with the pointer on the Tap button: want the %q counter raised from %d, got %d",
					fixture.CounterHovers().Label, before, got)
			}
		})
}
