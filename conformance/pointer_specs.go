package conformance

import (
	"context"
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/e2e-conform/toolkit/conformance/fixture"
	"github.com/e2e-conform/toolkit/protocol/engineerr"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// pointerSpecs registers the PTR specs (catalog PTR): engine/performAt on
// the pointer fixture screen, spec §4.11 and §5.11. Points are chosen
// inside the pointer surface's (or the scroll box's) observed rect, a
// quarter pixel off the integer grid; without a rect the spec is not
// verified. The screen logs each pointer event with its CSS coordinates
// (fixture.PointerEvent); a spec reads the events logged after its call
// and looks at those of the kind it sent (a double tap MAY be preceded by
// its two taps, a long press MAY end in a tap).
func pointerSpecs(s *suite) {
	s.spec("tap, doubleTap, secondaryTap and hover at a point of the pointer surface each get null, and the fixture shows that event within 1 CSS pixel of the point",
		[]string{"PTR-001"}, func(ctx context.Context, e *runEnv) {
			a := e.openScreenClient(ctx)
			a.stage(ctx, fixture.Pointer())
			for i, k := range []struct{ kind, event string }{
				{wire.ActionTap, fixture.PointerTap},
				{wire.ActionDoubleTap, fixture.PointerDoubleTap},
				{wire.ActionSecondaryTap, fixture.PointerSecondaryTap},
				{wire.ActionHover, fixture.PointerHover},
			} {
				if !a.canPointer(k.kind) {
					continue
				}
				a.observe(ctx)
				before := a.ptrLogLen()
				pt := a.pointIn(fixture.PointerSurface(), 0.2+0.18*float64(i), 0.25+0.15*float64(i))
				err := a.c.PerformAt(ctx, a.op, pt, wire.PointerAction{Kind: k.kind})
				what := fmt.Sprintf("engine/performAt %s at (%v, %v)", k.kind, pt.X, pt.Y)
				e.actExpectVoid(err, wire.MethodPerformAt, what)
				a.await(ctx, func() bool { return len(ptrOfKind(a.pointerEvents(before), k.event)) > 0 })
				evs := ptrOfKind(a.pointerEvents(before), k.event)
				Expect(evs).NotTo(BeEmpty(), "%s: want a %q event in the pointer screen's log, got %q", what, k.event, ptrEventLines(a.pointerEvents(before)))
				for _, ev := range evs {
					Expect(ev.Near(pt.X, pt.Y, 1)).To(BeTrue(), "%s: want the %q event within 1 CSS pixel of the point, got %q", what, k.event, ev.String())
				}
			}
		})

	s.spec("longPress at a point registers a long press there, lasting at least durationMs when given",
		[]string{"PTR-002"}, func(ctx context.Context, e *runEnv) {
			a := e.openScreenClient(ctx)
			a.stage(ctx, fixture.Pointer())
			for i, c := range []struct {
				duration *float64
				what     string
			}{
				{nil, "longPress without durationMs"},
				{actPtr(800.0), "longPress with durationMs 800"},
			} {
				a.observe(ctx)
				before := a.ptrLogLen()
				pt := a.pointIn(fixture.PointerSurface(), 0.3+0.4*float64(i), 0.6)
				err := a.c.PerformAt(ctx, a.op, pt, wire.PointerAction{Kind: wire.ActionLongPress, DurationMs: c.duration})
				what := fmt.Sprintf("engine/performAt %s at (%v, %v)", c.what, pt.X, pt.Y)
				Expect(err).NotTo(HaveOccurred(), "%s: want null, got an error", what)
				a.await(ctx, func() bool { return len(ptrOfKind(a.pointerEvents(before), fixture.PointerLongPress)) > 0 })
				evs := ptrOfKind(a.pointerEvents(before), fixture.PointerLongPress)
				Expect(evs).To(HaveLen(1), "%s: want one %q event in the pointer screen's log, got %q", what, fixture.PointerLongPress, ptrEventLines(a.pointerEvents(before)))
				Expect(evs[0].Near(pt.X, pt.Y, 1)).To(BeTrue(), "%s: want the long press within 1 CSS pixel of the point, got %q", what, evs[0].String())
				if c.duration != nil {
					Expect(evs[0].HeldMs).To(BeNumerically(">=", int(*c.duration)), "%s: want a press held at least %v ms, the fixture registered %q", what, *c.duration, evs[0].String())
				}
			}
			a.expectNoLatePointer(ctx, fixture.PointerLongPress, "longPress")
		})

	s.spec("dragTo and swipeTo register a pointer path that starts within 1 CSS pixel of point and ends within 1 CSS pixel of target",
		[]string{"PTR-003"}, func(ctx context.Context, e *runEnv) {
			a := e.openScreenClient(ctx)
			a.stage(ctx, fixture.Pointer())
			for i, k := range []struct {
				kind     string
				duration *float64
			}{
				{wire.ActionDragTo, nil},
				{wire.ActionSwipeTo, actPtr(300.0)},
			} {
				if !a.canPointer(k.kind) {
					continue
				}
				a.observe(ctx)
				before := a.ptrLogLen()
				from := a.pointIn(fixture.PointerSurface(), 0.15+0.1*float64(i), 0.2)
				to := a.pointIn(fixture.PointerSurface(), 0.8-0.1*float64(i), 0.75)
				err := a.c.PerformAt(ctx, a.op, from, wire.PointerAction{Kind: k.kind, Target: &to, DurationMs: k.duration})
				what := fmt.Sprintf("engine/performAt %s from (%v, %v) to (%v, %v)", k.kind, from.X, from.Y, to.X, to.Y)
				Expect(err).NotTo(HaveOccurred(), "%s: want null, got an error", what)
				a.await(ctx, func() bool { return len(ptrOfKind(a.pointerEvents(before), fixture.PointerPath)) > 0 })
				evs := ptrOfKind(a.pointerEvents(before), fixture.PointerPath)
				Expect(evs).To(HaveLen(1), "%s: want one %q event in the pointer screen's log, got %q", what, fixture.PointerPath, ptrEventLines(a.pointerEvents(before)))
				ev := evs[0]
				Expect(ev.Near(from.X, from.Y, 1)).To(BeTrue(), "%s: want the path to start within 1 CSS pixel of the point, got %q", what, ev.String())
				end := fixture.PointerEvent{X: ev.ToX, Y: ev.ToY}
				Expect(end.Near(to.X, to.Y, 1)).To(BeTrue(), "%s: want the path to end within 1 CSS pixel of the target, got %q", what, ev.String())
			}
			a.expectNoLatePointer(ctx, fixture.PointerPath, "dragTo and swipeTo")
		})

	// Directions in the order down, right, up, left, so that each one
	// has room to travel from where the one before left the box (D46:
	// down and right grow the offset).
	s.spec("swipe at a point inside the scroll container scrolls that container in the swipe's direction",
		[]string{"PTR-004"}, func(ctx context.Context, e *runEnv) {
			a := e.openScreenClient(ctx)
			a.stage(ctx, fixture.Pointer())
			for _, dir := range []string{wire.DirectionDown, wire.DirectionRight, wire.DirectionUp, wire.DirectionLeft} {
				a.observe(ctx)
				x0, y0 := a.offset(fixture.PointerScrollOffset())
				pt := a.pointIn(fixture.PointerScrollBox(), 0.5, 0.5)
				err := a.c.PerformAt(ctx, a.op, pt, wire.PointerAction{Kind: wire.ActionSwipe, Direction: dir})
				what := fmt.Sprintf("engine/performAt swipe %s at (%v, %v) inside the scroll box", dir, pt.X, pt.Y)
				Expect(err).NotTo(HaveOccurred(), "%s: want null, got an error", what)
				moved := func() bool {
					x, y := a.offset(fixture.PointerScrollOffset())
					switch dir {
					case wire.DirectionDown:
						return y > y0
					case wire.DirectionUp:
						return y < y0
					case wire.DirectionRight:
						return x > x0
					}
					return x < x0
				}
				a.await(ctx, moved)
				x, y := a.offset(fixture.PointerScrollOffset())
				Expect(moved()).To(BeTrue(), "%s: want the box's scroll offset to travel %s from (%v, %v) (D46: down and right grow it), got (%v, %v)", what, dir, x0, y0, x, y)
			}
		})

	// Every POINTER_ACTION_KINDS member missing from pointerActions is
	// sent on the pointer screen, where it would show. When pointerActions
	// lists every kind there is no kind to send: not verified, never
	// passed (see ACT-015).
	s.spec("a kind missing from pointerActions fails with UNSUPPORTED_CAPABILITY and changes nothing",
		[]string{"PTR-005"}, func(ctx context.Context, e *runEnv) {
			a := e.openScreenClient(ctx)
			tried := 0
			for _, p := range ptrProbes() {
				if e.Manifest.HasPointerAction(p.kind) {
					continue
				}
				tried++
				a.stage(ctx, fixture.Pointer())
				before := actDigest(a.root())
				pt, action := p.action(a)
				err := a.c.PerformAt(ctx, a.op, pt, action)
				what := fmt.Sprintf("engine/performAt %s (not in the manifest's pointerActions) at (%v, %v)", p.kind, pt.X, pt.Y)
				actExpectEngineError(err, what, engineerr.UnsupportedCapability)
				a.expectUnchanged(ctx, before, what)
			}
			if tried == 0 {
				Skip(notVerified + "the manifest's pointerActions list every POINTER_ACTION_KINDS member, so there is no kind missing from them to send")
			}
		})
}
