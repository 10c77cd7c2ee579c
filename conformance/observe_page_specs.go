package conformance

import (
	"context"
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/e2e-conform/toolkit/conformance/fixture"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// observePageSpecs registers OBS-010, OBS-012 and OBS-013: masked regions of
// secure nodes, the location after session/open, and observations without
// side effects (spec §4.8).
func observePageSpecs(s *suite) {
	// When the engine declares fill, pixels are asked for twice: with the
	// password field empty, then filled (a filled secure field is what
	// masking is about, but the count binds "whenever pixels are returned",
	// and §4.8 counts secure nodes, not filled ones: an engine that skips
	// the empty field fails). Pixels stay optional: an engine that returns none passes
	// with a note, as for OBS-009. With no node reported secure the count
	// has nothing to bound and the spec is not verified (OBS-007 judges the
	// missing state).
	s.spec("whenever pixels of the form fixture are returned, maskedRegionCount is at least the number of nodes with states.secure: true",
		[]string{"OBS-010"}, func(ctx context.Context, e *runEnv) {
			c, op, _ := e.pooledAttempt(ctx)
			sc := fixture.Form()
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
				err = c.Perform(ctx, op, fxNode(snap, sc, fixture.FormPassword()).Ref, wire.LocatorAction{Kind: wire.ActionFill, Value: v, Sensitive: true})
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
		[]string{"OBS-012"}, func(ctx context.Context, e *runEnv) {
			c, op, _ := e.pooledAttempt(ctx)
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
			for _, p := range []string{fixture.PageA().Path, fixture.PageA().Path + "?from=e2e-conform"} {
				check(e.FixtureURL+p, e.fxStage(ctx, c, op, fixture.PageA(), p))
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
		[]string{"OBS-013"}, func(ctx context.Context, e *runEnv) {
			c, op, _ := e.pooledAttempt(ctx)
			sc := fixture.Counter()
			statuses := []fixture.Status{fixture.CounterTaps(), fixture.CounterDoubleTaps(), fixture.CounterSecondaryTaps(), fixture.CounterLongPresses(),
				fixture.CounterLastLongPress(), fixture.CounterHovers(), fixture.CounterModifiers(), fixture.CounterDisabledTaps()}
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
			// Five observations take a few milliseconds: a side effect
			// that lands after its observation answered shows only later.
			watchQuietly(ctx, time.Now(), func() {
				got := read(fxObserve(ctx, c, op, "of the counter fixture, after the five"))
				Expect(got).To(Equal(want), "within %d ms after the five observations: want the counters as first staged %v, got %v", actQuietWait.Milliseconds(), want, got)
			})
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
