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

// performRefSpecs registers ACT-013 and ACT-014: a stale ref fails with
// NODE_STALE, and the revision of a current ref is not checked (spec §4.10,
// §5.8).
func performRefSpecs(s *suite) {
	// The Mutate button is clicked with the first means the manifest
	// offers (tap, press Enter, pointer tap); the removed item's ref then
	// gets the first listed kind (tap when listed, whose witness is the
	// item taps counter). "Nothing is dispatched" is read as the whole
	// screen unchanged (actDigest) for actQuietWait after the answer. The
	// suite does not require the new item's id to differ: an engine that
	// reuses it fails here because the old ref then binds.
	s.spec("a ref whose node the mutation fixture removed fails with NODE_STALE, retryable: true, and nothing is dispatched",
		[]string{"ACT-013"}, func(ctx context.Context, e *runEnv) {
			a := e.openScreenClient(ctx)
			a.stage(ctx, fixture.Mutation())
			a.observe(ctx)
			removed := a.refIn(fixture.MutationItem())
			mutations := a.count(fixture.MutationCount())
			if !a.click(ctx, fixture.MutationButton()) {
				Skip(notVerified + "the suite clicks the Mutate button with the tap or press action or a pointer tap, and the manifest declares none of them (or the button reports no rect)")
			}
			newName := fixture.MutationItemName(mutations + 2)
			a.await(ctx, func() bool {
				n := fixture.MutationItem().Find(a.root())
				return n != nil && n.Name != nil && *n.Name == newName
			})
			got := a.count(fixture.MutationCount())
			Expect(got).To(Equal(mutations+1), "a click on Mutate: want the %q counter raised from %d to %d, got %d", fixture.MutationCount().Label, mutations, mutations+1, got)
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
		[]string{"ACT-014"}, func(ctx context.Context, e *runEnv) {
			a := e.openScreenClient(ctx)
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
}
