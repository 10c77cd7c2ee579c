package conformance

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/e2e-conform/toolkit/conformance/fixture"
	"github.com/e2e-conform/toolkit/protocol/engineerr"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// performRefusalSpecs registers ACT-015, ACT-016, ACT-017 and ACT-018: an
// undeclared kind, a node that is not actionable, and tap modifiers with and
// without tapModifiers (spec §4.10, §5.8).
func performRefusalSpecs(s *suite) {
	// Every LOCATOR_ACTION_KINDS member missing from actions is sent, on
	// the screen where it would show. When actions lists every kind there
	// is no kind to send: the requirement cannot be exercised and is
	// reported not verified, never passed (a kind outside
	// LOCATOR_ACTION_KINDS is not a LocatorAction at all: its answer is
	// -32602, §4.0, which is not what ACT-015 states).
	s.spec("a kind missing from actions fails with UNSUPPORTED_CAPABILITY and changes nothing",
		[]string{"ACT-015"}, func(ctx context.Context, e *runEnv) {
			a := e.openScreenClient(ctx)
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

	// The call gets a 1 s budget (operation.timeoutMs from the context):
	// the engine may wait for actionability within it (§4.10). When the
	// budget lapses the client aborts with an OPERATION_TIMEOUT reason,
	// which a conformant engine answers with; an engine that answers
	// nothing is SIG's concern.
	s.spec("tap on the disabled button fails with NOT_ACTIONABLE or OPERATION_TIMEOUT, not retryable, and registers no click",
		[]string{"ACT-016"}, func(ctx context.Context, e *runEnv) {
			a := e.openScreenClient(ctx)
			a.stage(ctx, fixture.Counter())
			ref := a.ref(ctx, fixture.CounterDisabled())
			before := a.count(fixture.CounterDisabledTaps())
			tctx, cancel := context.WithTimeout(ctx, time.Second)
			err := a.c.Perform(tctx, a.op, ref, wire.LocatorAction{Kind: wire.ActionTap})
			cancel()
			what := "tap on the counter's disabled button"
			ee := actExpectEngineError(err, what, engineerr.NotActionable, engineerr.OperationTimeout)
			Expect(ee.Retryable).To(BeFalse(), "%s: want %s not retryable, got retryable: true", what, ee.Code)
			var got int
			a.quiet(ctx, func() bool { got = a.count(fixture.CounterDisabledTaps()); return got != before })
			Expect(got).To(Equal(before), "%s failed, yet the %q counter went from %d to %d: the input was delivered", what, fixture.CounterDisabledTaps().Label, before, got)
		})

	// The modifiers status shows the modifiers of the most recent tap on
	// the Tap button (fixture decision for ACT-017).
	s.spec("tap with modifiers [\"Shift\"] clicks with Shift held, as the counter fixture shows",
		[]string{"ACT-017"}, func(ctx context.Context, e *runEnv) {
			a := e.openScreenClient(ctx)
			a.stage(ctx, fixture.Counter())
			a.observe(ctx)
			before := a.count(fixture.CounterTaps())
			err := a.perform(ctx, fixture.CounterTap(), wire.LocatorAction{Kind: wire.ActionTap, Modifiers: []string{wire.ModShift}})
			Expect(err).NotTo(HaveOccurred(), "tap with modifiers [Shift] on the Tap button: want null, got an error")
			got := a.awaitCount(ctx, fixture.CounterTaps(), before)
			Expect(got).To(Equal(before+1), "tap with modifiers [Shift]: want the %q counter raised from %d to %d, got %d", fixture.CounterTaps().Label, before, before+1, got)
			want := fixture.FormatModifiers([]string{wire.ModShift}, wire.ModControl)
			a.await(ctx, func() bool { return a.status(fixture.CounterModifiers()) == want })
			mods := a.status(fixture.CounterModifiers())
			Expect(mods).To(Equal(want), "tap with modifiers [Shift]: want the %q status %q, got %q", fixture.CounterModifiers().Label, want, mods)
		})

	// SHOULD, for an engine without tapModifiers: true. "Rather than
	// clicking without Shift": the taps counter and the modifiers status
	// stay as they were.
	s.spec("tap with modifiers [\"Shift\"] on an engine without tapModifiers: true fails with UNSUPPORTED_CAPABILITY rather than clicking without Shift",
		[]string{"ACT-018"}, func(ctx context.Context, e *runEnv) {
			a := e.openScreenClient(ctx)
			a.stage(ctx, fixture.Counter())
			ref := a.ref(ctx, fixture.CounterTap())
			before := actDigest(a.root())
			err := a.c.Perform(ctx, a.op, ref, wire.LocatorAction{Kind: wire.ActionTap, Modifiers: []string{wire.ModShift}})
			what := "tap with modifiers [Shift] on an engine that does not declare tapModifiers: true"
			actExpectEngineError(err, what, engineerr.UnsupportedCapability)
			a.expectUnchanged(ctx, before, what)
		})
}
