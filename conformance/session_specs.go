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
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// Session steering: spec §4.18; catalog SESS.
func sessionSpecs(s *suite) {
	// The MUST is that the open fails (D69). The error's content is the
	// SHOULD of §4.18 and D55, which the catalog gives no ID of its own: it
	// is recorded as a "warning" report entry, never as a failure. D55 says
	// the harness recognizes each of ERR_CONNECTION_REFUSED in the message,
	// errno ECONNREFUSED and e2e APP_UNREACHABLE, so any one of them is
	// enough for no warning. The open gets a 10 s budget (timeoutMs), so
	// that an engine that waits out its budget before failing answers within
	// the spec's own timeout.
	s.spec("session/open of an http URL on a closed loopback port fails",
		[]string{"SESS-002"}, func(ctx context.Context, e *runEnv) {
			a := e.openRawAttempt(ctx)
			u := closedLoopbackURL()
			// Twice: the second open of the attempt must fail as well
			// (§4.18 "When nothing answers at the URL, open MUST fail", on
			// every call, not only a connection's first).
			first := a.callWithin(ctx, wire.MethodOpen, fmt.Sprintf(`"url":%q`, u), 10000)
			Expect(first.Error()).NotTo(BeNil(), "session/open of %s, where nothing listens: want an error, got the result %s", u, clip(string(first.Result())))
			f := a.callWithin(ctx, wire.MethodOpen, fmt.Sprintf(`"url":%q`, u), 10000)
			eo := f.Error()
			Expect(eo).NotTo(BeNil(), "the second session/open of %s, where nothing listens: want an error, got the result %s", u, clip(string(f.Result())))
			d := dataOf(eo)
			var errno struct {
				Errno any `json:"errno"`
			}
			_ = unmarshalIfPresent(eo.Data, &errno)
			if !strings.Contains(eo.Message, "ERR_CONNECTION_REFUSED") && fmt.Sprint(errno.Errno) != "ECONNREFUSED" && !(d.Type == "e2e" && d.Code == "APP_UNREACHABLE") {
				AddReportEntry("warning", fmt.Sprintf("SESS-002 (SHOULD, §4.18, D55): session/open of %s failed with %d %q, data %s: it SHOULD carry ERR_CONNECTION_REFUSED in the message and errno ECONNREFUSED in data, or be e2e APP_UNREACHABLE, so that the harness reports APP_UNREACHABLE",
					u, eo.Code, eo.Message, orDefault(clip(string(eo.Data)), "none")))
			}
		})

	// ---- fixture specs (profile full) ----

	// "The next observation": one engine/observe right after each open,
	// no polling (e.stage polls; it is not used here). The open gets a
	// result, which the client checks to be null against the method's
	// result schema. An open refused with an error is the staging rule's
	// (fxOpen): the engine did not stage the page, and the spec is not
	// verified, as every other fixture requirement is then; an open that
	// got null and a next observation without the page fails.
	s.spec("session/open of a fixture URL gets null and the next observation shows that page",
		[]string{"SESS-001"}, func(ctx context.Context, e *runEnv) {
			e.fxNeed("to read the page back", wire.MethodObserve)
			c, op, _ := e.pooledAttempt(ctx)
			staged := false // some page of this spec was shown: the engine can stage the surface
			for _, sc := range []fixture.Screen{fixture.PageA(), fixture.PageB(), fixture.Counter(), fixture.PageA()} {
				u := sc.URL(e.FixtureURL)
				e.fxOpen(ctx, c, op, u)
				snap := fxObserve(ctx, c, op, "right after session/open of "+u)
				if sc.Shown(&snap.Root) {
					staged = true
					continue
				}
				got := "no marker"
				if other, ok := fixture.Identify(&snap.Root); ok {
					got = "the marker of " + other.Path
				}
				// The same staging rule as every fixture spec: a page that
				// never shows within 5 s means the suite cannot stage this
				// engine's surface (not verified); a page that shows later,
				// or after other pages did, means open answered null before
				// the page was there.
				_, later := fxEventually(ctx, c, op, 5*time.Second, "after session/open of "+u, func(s *wire.EngineSnapshot) bool { return sc.Shown(&s.Root) })
				if !later && !staged {
					Skip(notVerified + fmt.Sprintf("session/open of %s got null but no observation within 5 s showed the page's marker %q (got %s, location %q): the suite cannot stage this engine's surface", u, sc.Marker, got, snap.Location))
				}
				failf("the observation right after session/open of %s: want the page's marker %q, got %s (location %q)%s", u, sc.Marker, got, snap.Location,
					map[bool]string{true: "; the page showed in a later observation: open answered before the page was shown", false: "; earlier fixture pages of this spec were shown"}[later])
			}
		})

	// back with no history is sent first in a new attempt, before any
	// open; after opening page A and page B, back must show page A (read
	// back within 5 s: the statement does not say "the next observation",
	// and a browser's back may settle after its answer).
	s.spec("session/back with no history gets null, and after opening page A and then page B it shows page A",
		[]string{"SESS-003"}, func(ctx context.Context, e *runEnv) {
			e.fxNeed("to open pages A and B", wire.MethodOpen)
			c, op, _ := e.inAttempt(ctx)
			err := c.Back(ctx, op)
			Expect(err).NotTo(HaveOccurred(), "session/back with no history (first operation of a new attempt): want null, got %s", fxDescribeError(err))
			e.fxStage(ctx, c, op, fixture.PageA(), "")
			e.fxStage(ctx, c, op, fixture.PageB(), "")
			err = c.Back(ctx, op)
			Expect(err).NotTo(HaveOccurred(), "session/back after opening page A and then page B: want null, got %s", fxDescribeError(err))
			snap, ok := fxEventually(ctx, c, op, 5*time.Second, "after session/back", func(s *wire.EngineSnapshot) bool { return fixture.PageA().Shown(&s.Root) })
			got := "no marker"
			if other, found := fixture.Identify(&snap.Root); found {
				got = "the marker of " + other.Path
			}
			Expect(ok).To(BeTrue(), "after opening page A, then page B, then session/back: want page A (marker %q) within 5 s, got %s (location %q)", fixture.PageA().Marker, got, snap.Location)
		})

	// Two observations after each of restart and reset (those listed) must
	// show no location ("until open is called"); then open must work again.
	// about:blank counts as no location (D65).
	s.spec("after session/restart or session/reset the next observations have no location (or about:blank) until session/open is called",
		[]string{"SESS-004"}, func(ctx context.Context, e *runEnv) {
			c, op, _ := e.pooledAttempt(ctx)
			for _, m := range []string{wire.MethodRestart, wire.MethodReset} {
				if !e.Manifest.Lists(m) {
					continue
				}
				e.fxStage(ctx, c, op, fixture.PageA(), "")
				var err error
				if m == wire.MethodRestart {
					err = c.Restart(ctx, op)
				} else {
					err = c.Reset(ctx, op)
				}
				Expect(err).NotTo(HaveOccurred(), "%s on page A: want null, got %s", m, fxDescribeError(err))
				// "Until open is called": observed twice at least, and for
				// actQuietWait after the answer (a surface that brings its
				// page back on its own after the answer breaks it too).
				i := 0
				blank := func() {
					i++
					snap := fxObserve(ctx, c, op, "after "+m)
					Expect(snap.Location == "" || snap.Location == "about:blank").To(BeTrue(),
						"observation %d after %s (no session/open since): want no location or about:blank, got location %q", i, m, snap.Location)
				}
				answered := time.Now()
				blank()
				watchQuietly(ctx, answered, blank)
			}
			e.fxStage(ctx, c, op, fixture.PageA(), "")
		})

	s.spec("after session/reset the storage fixture's persisted value is gone",
		[]string{"SESS-005"}, func(ctx context.Context, e *runEnv) {
			c, op, _ := e.pooledAttempt(ctx)
			v := fxCanary("v5-")
			got := fxStored(e.fxStage(ctx, c, op, fixture.Storage(), fixture.StoragePath(v)))
			if !slices.Contains(got, v) {
				Skip(notVerified + fmt.Sprintf("the storage fixture opened with the query %s=%s shows %v: it did not store the value, so there is nothing for session/reset to clear", fixture.StorageSetParam, v, got))
			}
			err := c.Reset(ctx, op)
			Expect(err).NotTo(HaveOccurred(), "session/reset: want null, got %s", fxDescribeError(err))
			got = fxStored(e.fxStage(ctx, c, op, fixture.Storage(), ""))
			Expect(got).NotTo(ContainElement(v), "the storage fixture reopened after session/reset: want %q gone, got the stored values %v", v, got)
		})

	s.spec("after session/restart the storage fixture's persisted value is still there",
		[]string{"SESS-006"}, func(ctx context.Context, e *runEnv) {
			c, op, _ := e.pooledAttempt(ctx)
			v := fxCanary("v6-")
			got := fxStored(e.fxStage(ctx, c, op, fixture.Storage(), fixture.StoragePath(v)))
			if !slices.Contains(got, v) {
				Skip(notVerified + fmt.Sprintf("the storage fixture opened with the query %s=%s shows %v: it did not store the value, so there is nothing for session/restart to keep", fixture.StorageSetParam, v, got))
			}
			err := c.Restart(ctx, op)
			Expect(err).NotTo(HaveOccurred(), "session/restart: want null, got %s", fxDescribeError(err))
			got = fxStored(e.fxStage(ctx, c, op, fixture.Storage(), ""))
			Expect(got).To(ContainElement(v), "the storage fixture reopened after session/restart: want %q still stored, got the stored values %v", v, got)
		})
}
