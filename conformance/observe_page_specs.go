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
	// Pixels are asked for twice: with the password field empty, then
	// holding a typed value (a filled secure field is what masking is
	// about, but the count binds "whenever pixels are returned", and §4.8
	// counts secure nodes, not filled ones: an engine that skips the empty
	// field fails). In the second, each secure node's rect must be masked
	// in the pixels (D75; §4.8: "Pixels MUST mask every secure field").
	// Pixels stay optional: an engine that returns none passes with a
	// note, as for OBS-009. With no node reported secure the count has
	// nothing to bound and the spec is not verified (OBS-007 judges the
	// missing state); so is the pixel clause when the suite cannot put a
	// value into the field or read the pixels (OBS-009 judges them).
	s.spec("whenever pixels of the form fixture are returned, maskedRegionCount is at least the number of nodes with states.secure: true, and with a typed value in the password field each such node's rect is masked in the pixels (D75)",
		[]string{"OBS-010"}, func(ctx context.Context, e *runEnv) {
			c, op, _ := e.pooledAttempt(ctx)
			sc := fixture.Form()
			snap := e.fxStage(ctx, c, op, sc, "")
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
			_, notTyped := e.fxTypePassword(ctx, c, op, snap)
			snap, err = c.Observe(ctx, op, &wire.EngineObserveOptions{Pixels: true})
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
			if notTyped != "" {
				Skip(notVerified + "maskedRegionCount held; whether the secure rects are masked in the pixels was not judged without a typed value in the password field: " + notTyped)
			}
			img, err := readPNGData(snap.Pixels.Data)
			if err != nil {
				Skip(notVerified + "maskedRegionCount held; the suite cannot read the pixels to judge the secure rects (OBS-009 judges them): " + err.Error())
			}
			unmasked, unjudged, pw := secureMasks(img, snap, fixture.FormPassword())
			Expect(unmasked).To(BeEmpty(), "pixels of the form fixture with a typed value in the password field: want every node with states.secure: true masked (D75: the inner part of its rect, scaled and inset by a quarter of its height, of one colour; §4.8: \"Pixels MUST mask every secure field\"), got %s",
				strings.Join(unmasked, "; "))
			if pw == nil || pw.verdict != maskMasked {
				why := "the password field is not reported secure"
				if pw != nil {
					why = pw.detail
				}
				Skip(notVerified + "maskedRegionCount held; the password field's mask could not be judged in the pixels: " + why)
			}
			if len(unjudged) > 0 {
				noteEntry("secure nodes whose mask could not be judged in the pixels: %s", strings.Join(unjudged, "; "))
			}
			e.observed("OBS-010", "secure rect masked in pixels")
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
