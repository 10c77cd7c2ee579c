package conformance

import (
	"context"

	. "github.com/onsi/gomega"

	"github.com/e2e-conform/toolkit/conformance/fixture"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// performTapSpecs registers ACT-001 and ACT-002: tap, doubleTap, secondaryTap
// and longPress on the counter fixture (spec §4.10, §5.8).
func performTapSpecs(s *suite) {
	// "Gets null" is checked on the recorded response (actExpectVoid): the
	// client library accepts any result of a void method. Only the
	// matching counter is checked (fixture decision for ACT-001: a double
	// tap MAY also count as two taps).
	s.spec("tap, doubleTap and secondaryTap on the counter button's current ref each get null and raise the matching counter by exactly one",
		[]string{"ACT-001"}, func(ctx context.Context, e *runEnv) {
			a := e.openScreenClient(ctx)
			a.stage(ctx, fixture.Counter())
			for _, k := range []struct {
				kind    string
				counter fixture.Status
			}{
				{wire.ActionTap, fixture.CounterTaps()},
				{wire.ActionDoubleTap, fixture.CounterDoubleTaps()},
				{wire.ActionSecondaryTap, fixture.CounterSecondaryTaps()},
			} {
				if !a.can(k.kind) {
					continue
				}
				a.observe(ctx)
				before := a.count(k.counter)
				err := a.perform(ctx, fixture.CounterTap(), wire.LocatorAction{Kind: k.kind})
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
		[]string{"ACT-002"}, func(ctx context.Context, e *runEnv) {
			a := e.openScreenClient(ctx)
			a.stage(ctx, fixture.Counter())
			for _, c := range []struct {
				duration *float64
				least    int
				what     string
			}{
				{nil, 100, "longPress without durationMs"},
				{actPtr(800.0), 800, "longPress with durationMs 800"},
			} {
				a.observe(ctx)
				before := a.count(fixture.CounterLongPresses())
				err := a.perform(ctx, fixture.CounterTap(), wire.LocatorAction{Kind: wire.ActionLongPress, DurationMs: c.duration})
				e.actExpectVoid(err, wire.MethodPerform, "engine/perform "+c.what+" on the counter's Tap button")
				got := a.awaitCount(ctx, fixture.CounterLongPresses(), before)
				Expect(got).To(Equal(before+1), "%s: want the %q counter raised by exactly one, from %d, got %d (a press held under %s is not a long press)",
					c.what, fixture.CounterLongPresses().Label, before, got, fixture.LongPressThreshold)
				last := a.status(fixture.CounterLastLongPress())
				ms, ok := fixture.ParseMs(last)
				Expect(ok).To(BeTrue(), "%s: the %q status shows %q, want \"<n> ms\"", c.what, fixture.CounterLastLongPress().Label, last)
				Expect(ms).To(BeNumerically(">=", c.least), "%s: want a press held at least %d ms, the fixture registered %d ms", c.what, c.least, ms)
			}
		})
}
