package conformance

import (
	"context"
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/e2e-conform/toolkit/conformance/fixture"
	"github.com/e2e-conform/toolkit/protocol/engineerr"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// performScrollSpecs registers ACT-008 and ACT-009: scrollIntoView and swipe,
// and swipe on an old root ref (spec §4.10, §5.8).
func performScrollSpecs(s *suite) {
	// scrollIntoView needs the node's rect; swipe reads the tree screen's
	// scroll offset status (fixture decision for ACT-008). A listed part
	// the suite cannot check (no rect, or the node already in view) makes
	// the spec not verified after the other part ran: a pass means every
	// listed part was checked.
	s.spec("scrollIntoView makes the below-the-fold node's rect intersect the viewport; swipe on the root with down raises the vertical scroll offset and with up lowers it",
		[]string{"ACT-008"}, func(ctx context.Context, e *runEnv) {
			a := e.openScreenClient(ctx)
			var unverified []string
			if a.can(wire.ActionScrollIntoView) {
				a.stage(ctx, fixture.Tree())
				n := a.node(fixture.TreeBelowFold())
				switch {
				case n.Rect == nil:
					unverified = append(unverified, "the below-the-fold node reports no rect")
				case actIntersects(*n.Rect, a.snap.Viewport):
					unverified = append(unverified, fmt.Sprintf("the below-the-fold node (rect %+v) already intersects the %vx%v viewport", *n.Rect, a.snap.Viewport.Width, a.snap.Viewport.Height))
				default:
					err := a.perform(ctx, fixture.TreeBelowFold(), wire.LocatorAction{Kind: wire.ActionScrollIntoView})
					Expect(err).NotTo(HaveOccurred(), "scrollIntoView on the tree's below-the-fold node: want null, got an error")
					inView := func() bool {
						r := a.node(fixture.TreeBelowFold()).Rect
						return r != nil && actIntersects(*r, a.snap.Viewport)
					}
					a.await(ctx, inView)
					r := a.node(fixture.TreeBelowFold()).Rect
					Expect(r).NotTo(BeNil(), "after scrollIntoView the below-the-fold node reports no rect")
					Expect(inView()).To(BeTrue(), "scrollIntoView: want the below-the-fold node's rect to intersect the %vx%v viewport, got %+v",
						a.snap.Viewport.Width, a.snap.Viewport.Height, *r)
				}
			}
			if a.can(wire.ActionSwipe) {
				a.stage(ctx, fixture.Tree())
				for _, dir := range []string{wire.DirectionDown, wire.DirectionUp} {
					a.observe(ctx)
					_, before := a.offset(fixture.TreeScrollOffset())
					err := a.c.Perform(ctx, a.op, a.rootRef(ctx), wire.LocatorAction{Kind: wire.ActionSwipe, Direction: dir})
					Expect(err).NotTo(HaveOccurred(), "swipe %s on the tree screen's root: want null, got an error", dir)
					moved := func() bool {
						_, y := a.offset(fixture.TreeScrollOffset())
						return (dir == wire.DirectionDown && y > before) || (dir == wire.DirectionUp && y < before)
					}
					a.await(ctx, moved)
					_, got := a.offset(fixture.TreeScrollOffset())
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
		[]string{"ACT-009"}, func(ctx context.Context, e *runEnv) {
			a := e.openScreenClient(ctx)
			a.stage(ctx, fixture.Tree())
			old := a.root().Ref
			old.Revision = a.revision()
			swipe := func(what string) {
				a.observe(ctx)
				_, before := a.offset(fixture.TreeScrollOffset())
				err := a.c.Perform(ctx, a.op, old, wire.LocatorAction{Kind: wire.ActionSwipe, Direction: wire.DirectionDown})
				if ee := actEngineError(err); ee != nil && ee.Code == engineerr.NodeStale {
					Fail(fmt.Sprintf("swipe down on the root ref %q %s: want the viewport scrolled, got NODE_STALE (%q): the root swipe must bind a root ref of any earlier observation", old.ID, what, ee.Message))
				}
				Expect(err).NotTo(HaveOccurred(), "swipe down on the root ref %q %s: want null, got an error", old.ID, what)
				a.await(ctx, func() bool { _, y := a.offset(fixture.TreeScrollOffset()); return y > before })
				_, got := a.offset(fixture.TreeScrollOffset())
				Expect(got).To(BeNumerically(">", before), "swipe down on the root ref %q %s: want the vertical scroll offset greater than %v, got %v", old.ID, what, before, got)
			}
			for range 3 {
				a.observe(ctx)
			}
			swipe("from four observations back")
			if e.Manifest.Lists(wire.MethodRestart) {
				Expect(a.c.Restart(ctx, a.op)).To(Succeed(), "session/restart: want null, got an error")
				a.stage(ctx, fixture.Tree())
				swipe("from an observation taken before session/restart")
			}
		})
}
