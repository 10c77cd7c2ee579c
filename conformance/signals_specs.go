package conformance

import (
	"context"
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/e2e-conform/toolkit/protocol/engineerr"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// Signals and abort: spec §7; catalog SIG.
//
// The specs on the slow page first check that session/open of it is still
// in flight after a request for an unknown method was answered; an engine
// that answers it before does not treat the page as slow, and the spec is
// then not verified rather than passed. Every request carries a signal id
// of its own (its request id) unless a spec shares or reuses one on
// purpose.
func signalSpecs(s *suite) {
	s.spec("a tap whose operation signal has aborted: true gets an error within 2000 ms and leaves the counter unchanged",
		[]string{"SIG-001"}, func(ctx context.Context, e *runEnv) {
			c, op, _ := e.pooledAttempt(ctx)
			snap := e.stage(ctx, c, op, counterPath, counterMarker)
			btn := counterTap(snap)
			if btn == nil {
				Skip(notVerified + fmt.Sprintf("the counter screen shows no button named %q", counterTapName))
			}
			before := screenText(snap)
			// "aborted: true" binds with and without a reason (§7.5, D24):
			// the client sends the cause of a cancellation as the reason.
			for _, cause := range []error{nil, engineerr.NewE2E(engineerr.CategoryTest, "TEST_TIMEOUT", "SIG-001 tap aborted at send")} {
				what := fmt.Sprintf("a tap aborted at send (with a reason: %v)", cause != nil)
				aborted, cancel := context.WithCancelCause(ctx)
				cancel(cause) // the client sends the signal with aborted: true
				start := time.Now()
				err := c.Perform(aborted, op, btn.Ref, wire.LocatorAction{Kind: "tap"})
				took := time.Since(start)
				Expect(err).To(HaveOccurred(), "%s: want an error, got a result", what)
				Expect(took).To(BeNumerically("<", abortBound), "%s: want an error within 2000 ms, got one after %d ms", what, took.Milliseconds())
				after, err := c.Observe(ctx, op, nil)
				Expect(err).NotTo(HaveOccurred(), "engine/observe after %s", what)
				Expect(screenText(after)).To(Equal(before), "the counter screen changed after %s (want it unchanged)", what)
			}
			// Watched for actQuietWait after the last error: a tap performed
			// after its error answer changes the counter too (the first
			// tap's late effect shows in the second's check or here).
			watchQuietly(ctx, time.Now(), func() {
				after, err := c.Observe(ctx, op, nil)
				Expect(err).NotTo(HaveOccurred(), "engine/observe after the aborted taps")
				Expect(screenText(after)).To(Equal(before), "the counter screen changed within %d ms after the aborted taps' errors (want it unchanged)", actQuietWait.Milliseconds())
			})
		})

	// SIG-001's catalog row names the counter fixture; the rule it rests
	// on binds every operation method and needs none (§7.5: "any server
	// MUST answer such a request with an error and MUST NOT act on the
	// surface", D24). Without a fixture screen the suite watches two
	// effects of session/open: the engine reaching the URL (a connection
	// to a listener the suite opens for this spec alone, one per aborted
	// request, never named anywhere else) and the snapshot's location;
	// and the location effect of session/back, session/restart and
	// session/reset. Each request is sent aborted at send without and with
	// a reason. A control session/open, not aborted, of a third listener
	// must be seen to connect (and its location to show), or that effect
	// is not observable on this engine and stays not verified. The control
	// comes after the aborted opens and is answered before their listeners
	// are read, so an engine acting on them in order has acted by then.
	s.specNoFixture("a session/open, session/back, session/restart or session/reset whose signal has aborted: true, with or without a reason, gets an error within 2000 ms and has no effect: the URL is not reached and the location does not change",
		[]string{"SIG-001"}, func(ctx context.Context, e *runEnv) {
			if !e.Manifest.Lists(wire.MethodOpen) {
				Skip(notVerified + "the engine does not list session/open, whose effects the no-fixture check watches")
			}
			ss := e.openPipelined(ctx)
			ss.attempt(ctx, false)
			reasons := []string{"", reasonE2E("SIG-001 aborted at send", false)}
			abortedOp := func(id, reason string) string {
				sig := `{"id":` + id + `,"aborted":true}`
				if reason != "" {
					sig = `{"id":` + id + `,"aborted":true,"reason":` + reason + `}`
				}
				return fmt.Sprintf(`{"signal":%s,"timeoutMs":30000,"runId":%q,"attemptId":%q,"origin":"test"}`, sig, ss.op.RunID, ss.op.AttemptID)
			}
			var lastRefused time.Time // when the last aborted request's error was read
			sendAborted := func(method, rest, reason, what string) {
				id := ss.id()
				t := ss.write(id, method, "{"+rest+`"operation":`+abortedOp(id, reason)+"}")
				f := ss.answeredWithin(ctx, id, t, abortBound, what)
				Expect(f.Error()).NotTo(BeNil(), "%s: want an error, got the result %s", what, clip(string(f.Result())))
				lastRefused = time.Now()
			}
			location := func(what string) (string, bool) {
				if !e.Manifest.Lists(wire.MethodObserve) {
					return "", false
				}
				id := ss.id()
				snap, err := wire.DecodeSnapshot(expectResult(ss.call(ctx, id, wire.MethodObserve, `{"operation":`+ss.operation(id, 30000)+`}`), "engine/observe "+what))
				Expect(err).NotTo(HaveOccurred(), "engine/observe %s: the result is no snapshot", what)
				if snap.Location == "" {
					return "", false
				}
				return snap.Location, true
			}
			var watched []*urlWatch
			for _, reason := range reasons {
				w := e.watchURL(ctx)
				watched = append(watched, w)
				sendAborted(wire.MethodOpen, fmt.Sprintf(`"url":%q,`, w.url), reason, fmt.Sprintf("session/open of %s aborted at send (with a reason: %v)", w.url, reason != ""))
				if loc, ok := location("after a session/open aborted at send"); ok {
					Expect(sameURL(loc, w.url)).To(BeFalse(), "after session/open of %s aborted at send (with a reason: %v): want the location unchanged, got that URL", w.url, reason != "")
				}
			}
			// The control needs more of the engine than SIG-001 does: no
			// sentence obliges an engine to open a URL outside its app
			// (§4.18), so a refused control only leaves its effects
			// unobservable (the evidence check below), never failed.
			control := e.watchURL(ctx)
			id := ss.id()
			controlRefused := ""
			if eo := ss.call(ctx, id, wire.MethodOpen, ss.openParams(control.url, id, 30000)).Error(); eo != nil {
				controlRefused = fmt.Sprintf(" (the control session/open, not aborted, was refused: %d %q)", eo.Code, clip(eo.Message))
			}
			// An effect that follows the error answer counts too: the URLs
			// and the location are watched until actQuietWait has passed
			// since the last aborted open was answered.
			for _, w := range watched {
				if w.reachedBy(ctx, lastRefused.Add(actQuietWait)) > 0 {
					break // judged below
				}
			}
			loc, hasLoc := location("after the control session/open")
			locWorks := hasLoc && sameURL(loc, control.url)
			if locWorks {
				e.observed("SIG-001", "location unchanged after session/open aborted at send")
			} else if hasLoc {
				for i, w := range watched {
					Expect(sameURL(loc, w.url)).To(BeFalse(), "after the control session/open of %s: the location is %s, the URL of session/open aborted at send (with a reason: %v): want the aborted open to have had no effect", control.url, loc, reasons[i] != "")
				}
			}
			if control.connections() > 0 {
				for i, w := range watched {
					Expect(w.connections()).To(BeZero(), "session/open of %s aborted at send (with a reason: %v): want the URL never reached, got %d connection(s) to it", w.url, reasons[i] != "", w.connections())
					e.observed("SIG-001", "URL of a session/open aborted at send not reached")
				}
			}
			var second *urlWatch
			if locWorks {
				// A second page, so that back has somewhere to go. It needs
				// more than SIG-001 does: refused, the back, restart and
				// reset clauses stay unobserved (no evidence), never failed.
				second = e.watchURL(ctx)
				id := ss.id()
				if ss.call(ctx, id, wire.MethodOpen, ss.openParams(second.url, id, 30000)).Error() != nil {
					locWorks = false
				}
			}
			if locWorks {
				var sent []string
				for _, m := range []string{wire.MethodBack, wire.MethodRestart, wire.MethodReset} {
					if !e.Manifest.Lists(m) {
						continue
					}
					for _, reason := range reasons {
						what := fmt.Sprintf("%s aborted at send (with a reason: %v)", m, reason != "")
						sendAborted(m, "", reason, what)
						got, ok := location("after " + what)
						Expect(ok && sameURL(got, second.url)).To(BeTrue(), "after %s: want the location still %s, got %s", what, second.url, orDefault(got, "none"))
						sent = append(sent, what)
						e.observed("SIG-001", "location unchanged after "+m+" aborted at send")
					}
				}
				// A late effect of any of them counts: the location is
				// watched for actQuietWait after the last one's error (a
				// late effect of an earlier one shows in a later check).
				if len(sent) > 0 {
					watchQuietly(ctx, lastRefused, func() {
						got, ok := location("after " + sent[len(sent)-1])
						Expect(ok && sameURL(got, second.url)).To(BeTrue(), "within %d ms after %s: want the location still %s, got %s", actQuietWait.Milliseconds(), strings.Join(sent, ", "), second.url, orDefault(got, "none"))
					})
				}
			}
			e.requireEvidence("SIG-001", "the engine neither reached the control URL nor reported its location, so no effect of a session/open aborted at send could be observed"+controlRefused)
		})

	s.spec("a request aborted at send with a reason gets that reason back as its error, code, message and data equal",
		[]string{"SIG-002"}, func(ctx context.Context, e *runEnv) {
			ss := e.openPipelined(ctx)
			ss.attempt(ctx, false)
			method, rest := abortableMethod(e)
			for _, reason := range []string{reasonE2E("SIG-002 e2e", false), reasonEngine("SIG-002 engine", "OPERATION_TIMEOUT", false)} {
				id := ss.id()
				op := fmt.Sprintf(`{"signal":{"id":%s,"aborted":true,"reason":%s},"timeoutMs":30000,"runId":%q,"attemptId":%q,"origin":"test"}`, id, reason, ss.op.RunID, ss.op.AttemptID)
				f := ss.call(ctx, id, method, "{"+rest+`"operation":`+op+"}")
				eo := f.Error()
				Expect(eo).NotTo(BeNil(), "%s aborted at send with a reason: want the reason as its error, got a result", method)
				Expect(sameError(eo, reason)).To(BeEmpty(), "%s aborted at send: the error is not the reason", method)
			}
		})

	s.spec("a $/abort for the signal of an in-flight session/open of the slow page, with and without a reason, gets it answered within 2000 ms",
		[]string{"SIG-003"}, func(ctx context.Context, e *runEnv) {
			ss := e.openPipelined(ctx)
			ss.attempt(ctx, false)
			// An open answered with an error must not land later (§7.7:
			// "An engine whose signal aborts MUST stop promptly").
			landing := ss.watchSlowLanding(ctx)
			for _, reason := range []string{"", reasonE2E("SIG-003", false)} {
				id := ss.id()
				opened, inFlight := ss.openSlow(ctx, id, id, 30000)
				if !inFlight {
					// A navigation going on behind an earlier answer may
					// be what refused this open: judged before the skip.
					landing.check(ctx)
					ss.skipNotSlow(id)
				}
				t := ss.abort(id, reason)
				f := ss.answeredWithin(ctx, id, t, abortBound, fmt.Sprintf("session/open of the slow page after $/abort (reason %v)", reason != ""))
				sent := ss.n
				ss.notRefused(ctx, f, reason) // may open the slow page again, unaborted
				landing.aborted(opened, t, f, ss.n != sent)
			}
			// One watch for both aborted opens: it runs past the last
			// one's arrival, so it also covers the first one's, which
			// comes earlier.
			landing.check(ctx)
		})

	s.spec("when the $/abort of an in-flight session/open carries a reason and the request did not complete, its error equals the reason",
		[]string{"SIG-004"}, func(ctx context.Context, e *runEnv) {
			ss := e.openPipelined(ctx)
			ss.attempt(ctx, false)
			checked := 0
			for _, reason := range []string{reasonE2E("SIG-004 e2e", false), reasonEngine("SIG-004 engine", "OPERATION_TIMEOUT", false)} {
				id := ss.id()
				if _, inFlight := ss.openSlow(ctx, id, id, 30000); !inFlight {
					ss.skipNotSlow(id)
				}
				t := ss.abort(id, reason)
				f := ss.answeredWithin(ctx, id, t, abortBound, "session/open of the slow page after $/abort with a reason")
				if f.Error() == nil {
					continue // it completed: the requirement says nothing then
				}
				checked++
				if sameError(f.Error(), reason) != "" {
					ss.refusesSlowPage(ctx, f.Error())
				}
				Expect(sameError(f.Error(), reason)).To(BeEmpty(), "session/open aborted with a reason: the error is not the reason")
			}
			if checked == 0 {
				Skip(notVerified + "session/open of the slow page completed despite each $/abort")
			}
		})

	// SIG-005 has no reason of its own to echo: the killing case is a reason
	// that says retryable: true, which a server must not pass through (the
	// toolkit server rewrites it, §7.5). Aborts at send need no slow page;
	// aborts mid-flight need it in flight, and the spec is not verified when
	// it is not.
	s.spec("every error answering an aborted request, aborted at send or by $/abort, with a retryable reason or none, is not retryable",
		[]string{"SIG-005"}, func(ctx context.Context, e *runEnv) {
			ss := e.openPipelined(ctx)
			ss.attempt(ctx, false)
			reasons := []string{reasonEngine("SIG-005 engine", "NODE_STALE", true), reasonE2E("SIG-005 e2e", true), ""}
			for _, reason := range reasons {
				id := ss.id()
				sig := `{"id":` + id + `,"aborted":true}`
				if reason != "" {
					sig = `{"id":` + id + `,"aborted":true,"reason":` + reason + `}`
				}
				op := fmt.Sprintf(`{"signal":%s,"timeoutMs":30000,"runId":%q,"attemptId":%q,"origin":"test"}`, sig, ss.op.RunID, ss.op.AttemptID)
				f := ss.call(ctx, id, wire.MethodOpen, fmt.Sprintf(`{"url":%q,"operation":%s}`, e.FixtureURL+slowPath, op))
				if eo := f.Error(); eo != nil {
					Expect(retryable(eo)).To(BeFalse(), "session/open aborted at send (reason %s): want a non-retryable error, got %s", orDefault(reason, "none"), clip(string(f.Msg["error"])))
				}
			}
			for _, reason := range reasons {
				id := ss.id()
				if _, inFlight := ss.openSlow(ctx, id, id, 30000); !inFlight {
					// The mid-flight clause cannot be exercised: not
					// verified, not passed on the at-send clause alone.
					ss.skipNotSlow(id)
				}
				t := ss.abort(id, reason)
				f := ss.answeredWithin(ctx, id, t, abortBound, "session/open of the slow page after $/abort")
				ss.notRefused(ctx, f, reason)
				if eo := f.Error(); eo != nil {
					Expect(retryable(eo)).To(BeFalse(), "session/open aborted by $/abort (reason %s): want a non-retryable error, got %s", orDefault(reason, "none"), clip(string(f.Msg["error"])))
				}
			}
		})

	s.spec("when the $/abort of an in-flight session/open has no reason and the request did not complete, its error is -32000 engine CANCELLED, retryable: false",
		[]string{"SIG-006"}, func(ctx context.Context, e *runEnv) {
			ss := e.openPipelined(ctx)
			ss.attempt(ctx, false)
			id := ss.id()
			if _, inFlight := ss.openSlow(ctx, id, id, 30000); !inFlight {
				ss.skipNotSlow(id)
			}
			t := ss.abort(id, "")
			f := ss.answeredWithin(ctx, id, t, abortBound, "session/open of the slow page after $/abort without a reason")
			eo := f.Error()
			if eo == nil {
				Skip(notVerified + "session/open of the slow page completed despite the $/abort")
			}
			if d := dataOf(eo); eo.Code != wire.CodeEngineError || d.Type != "engine" || d.Code != "CANCELLED" {
				ss.refusesSlowPage(ctx, eo)
			}
			expectCode(f, wire.CodeEngineError, "session/open aborted without a reason")
			d := dataOf(eo)
			Expect(d.Type+" "+d.Code).To(Equal("engine CANCELLED"), "the error data of session/open aborted without a reason")
			Expect(d.Retryable).NotTo(BeNil(), "retryable of the CANCELLED error")
			Expect(*d.Retryable).To(BeFalse(), "retryable of the CANCELLED error")
		})

	s.spec("a $/abort for an id the server never saw gets no response and disturbs nothing",
		[]string{"SIG-007"}, func(ctx context.Context, e *runEnv) {
			ss := e.openPipelined(ctx)
			if e.Manifest.Lists(wire.MethodObserve) || e.Manifest.Lists(wire.MethodOpen) {
				ss.attempt(ctx, false)
			}
			// Ids this connection never carried: an integer, a string, and
			// the string form of a live integer id (1 and "1" differ, §7.1).
			ss.abort("990001", "")
			ss.abort(`"e2e-conform-never-seen"`, reasonE2E("SIG-007", false))
			ss.abort(`"1"`, "")
			ss.probe(ctx, "after $/abort for unknown ids")
			ss.noStray("$/abort for ids the server never saw")
			if e.Manifest.Lists(wire.MethodObserve) {
				// The id must not have been remembered as aborted.
				id := ss.id()
				f := ss.call(ctx, id, wire.MethodObserve, `{"operation":`+ss.operation("990001", 30000)+`}`)
				expectResult(f, "engine/observe carrying the signal id of an earlier $/abort for an unknown id")
			}
			if e.Manifest.Lists(wire.MethodOpen) {
				// With a request in flight: a $/abort for the string form
				// of its integer signal id, and one for an integer never
				// seen, must leave it running (a server that compares ids
				// as text, or aborts whatever is in flight, does not).
				open := ss.id()
				if _, inFlight := ss.openSlow(ctx, open, open, 30000); !inFlight {
					AddReportEntry("note", "session/open of the slow page was answered at once: the unknown-id aborts with a request in flight were not sent")
				} else {
					ss.abort(`"`+open+`"`, "")
					ss.abort("990003", "")
					if rep, err := ss.await(ctx, open, abortBound); err == nil {
						if eo := rep.f.Error(); eo != nil && dataOf(eo).Type == "engine" && dataOf(eo).Code == "CANCELLED" {
							failf("session/open of the slow page (signal id %s, an integer) answered CANCELLED after $/abort for the string %q and the integer 990003, ids the server never saw: want it left in flight", open, open)
						}
						// A refusal of the page, or a result: not the abort's
						// doing, and nothing shown either way.
						AddReportEntry("note", "session/open of the slow page was answered within 2000 ms of the unknown-id aborts without CANCELLED: the in-flight case shows nothing")
					} else {
						Expect(ctx.Err()).NotTo(HaveOccurred(), "the spec's budget ran out")
						e.observed("SIG-007", "request in flight undisturbed by $/abort for unknown ids")
						// Its own $/abort still applies (SIG-004 judges how).
						ss.answeredWithin(ctx, open, ss.abort(open, ""), abortBound, "session/open of the slow page after its own $/abort")
					}
				}
			}
			ss.probe(ctx, "at the end")
			ss.noStray("$/abort for ids the server never saw")
		})

	s.spec("a session/open of the slow page and a $/abort for its signal written in one write: the abort applies within 2000 ms",
		[]string{"SIG-008"}, func(ctx context.Context, e *runEnv) {
			ss := e.openPipelined(ctx)
			ss.attempt(ctx, false)
			// The slow page must stay in flight on this engine first.
			id := ss.id()
			if _, inFlight := ss.openSlow(ctx, id, id, 30000); !inFlight {
				ss.skipNotSlow(id)
			}
			ss.notRefused(ctx, ss.answeredWithin(ctx, id, ss.abort(id, ""), abortBound, "session/open of the slow page after $/abort"), "")
			id = ss.id()
			req := `{"jsonrpc":"2.0","id":` + id + `,"method":"session/open","params":` + ss.openParams(e.FixtureURL+slowPath, id, 30000) + `}`
			ss.sent[id] = wire.MethodOpen
			Expect(ss.r.Write(append(framed(req), framed(`{"jsonrpc":"2.0","method":"$/abort","params":{"id":`+id+`}}`)...))).To(Succeed())
			t := time.Now()
			ss.notRefused(ctx, ss.answeredWithin(ctx, id, t, abortBound, "session/open of the slow page written in one write with its $/abort"), "")
		})

	// The two requests are those of the applicability: session/open of the
	// slow page and engine/observe, sharing one signal. The observe may be
	// answered before the abort; a server keeping one request per id (the
	// last) then leaves the open unaborted, which is what fails.
	s.spec("aborting one id that an in-flight session/open of the slow page and an engine/observe share gets both answered within 2000 ms",
		[]string{"SIG-009"}, func(ctx context.Context, e *runEnv) {
			ss := e.openPipelined(ctx)
			ss.attempt(ctx, false)
			sig := ss.id()
			open := ss.id()
			ss.write(open, wire.MethodOpen, ss.openParams(e.FixtureURL+slowPath, sig, 30000))
			observe := ss.id()
			ss.write(observe, wire.MethodObserve, `{"operation":`+ss.operation(sig, 30000)+`}`)
			ss.probe(ctx, "while two requests sharing a signal are in flight")
			if ss.answered(open) {
				ss.skipNotSlow(open)
			}
			t := ss.abort(sig, "")
			ss.notRefused(ctx, ss.answeredWithin(ctx, open, t, abortBound, "session/open sharing the aborted signal"), "")
			ss.answeredWithin(ctx, observe, t, abortBound, "engine/observe sharing the aborted signal")
		})

	// "Gets both answered" binds every request sharing the id (§7.3 rule 2:
	// "every request sharing it sees the abort"), not the one a server's
	// signal table happens to keep: a table keeping the first or the last
	// registration, or a fixed number of them, answers one and lets the
	// others run to the end of the slow page (5 s). Two and then three
	// slow opens share one id, all in flight when the abort is written.
	s.spec("aborting one id that two, then three, in-flight session/open requests of the slow page share gets every one of them answered within 2000 ms",
		[]string{"SIG-009"}, func(ctx context.Context, e *runEnv) {
			ss := e.openPipelined(ctx)
			ss.attempt(ctx, false)
			for _, n := range []int{2, 3} {
				sig := ss.id()
				var ids []string
				for range n {
					id := ss.id()
					ss.write(id, wire.MethodOpen, ss.openParams(e.FixtureURL+slowPath, sig, 30000))
					ids = append(ids, id)
				}
				ss.probe(ctx, fmt.Sprintf("while %d session/open requests sharing signal %s are in flight", n, sig))
				for i, id := range ids {
					if ss.answered(id) {
						Skip(notVerified + fmt.Sprintf("session/open %d of %d of the slow page sharing signal %s was answered before a request for an unknown method: the engine does not keep the slow page in flight", i+1, n, sig))
					}
				}
				t := ss.abort(sig, "")
				for i, id := range ids {
					ss.answeredWithin(ctx, id, t, abortBound, fmt.Sprintf("session/open %d of %d (request %s) sharing the aborted signal %s", i+1, n, id, sig))
					e.observed("SIG-009", fmt.Sprintf("sharer %d of %d answered after the abort", i+1, n))
				}
			}
			e.requireEvidence("SIG-009", "no request sharing an aborted signal was answered")
		})

	s.spec("a request reusing a forgotten signal id, after its $/abort or an attempt-scoped id after endAttempt, is a new live signal that a later $/abort aborts",
		[]string{"SIG-010"}, func(ctx context.Context, e *runEnv) {
			ss := e.openPipelined(ctx)
			ss.attempt(ctx, false)
			scoped := ss.startSig // attempt-scoped: the first attempt's startAttempt signal
			sig := "77001"
			id := ss.id()
			if _, inFlight := ss.openSlow(ctx, id, sig, 30000); !inFlight {
				ss.skipNotSlow(id)
			}
			ss.notRefused(ctx, ss.answeredWithin(ctx, id, ss.abort(sig, ""), abortBound, "session/open of the slow page after $/abort"), "")
			// The id is forgotten: reused without aborted, it is a new live
			// signal (not answered as aborted at once), and aborting it
			// applies.
			id = ss.id()
			if _, inFlight := ss.openSlow(ctx, id, sig, 30000); !inFlight {
				if eo := ss.replies[id].f.Error(); eo != nil {
					ss.refusesSlowPage(ctx, eo)
				}
				failf("session/open reusing signal id %s after its $/abort: want it in flight, as a new live signal, got an answer at once: %s", sig, clip(string(ss.replies[id].f.Content)))
			}
			ss.notRefused(ctx, ss.answeredWithin(ctx, id, ss.abort(sig, ""), abortBound, "session/open reusing a forgotten id, after a $/abort of it"), "")
			if !e.Manifest.Lists(wire.MethodStartAttempt) || !e.Manifest.Lists(wire.MethodEndAttempt) {
				return // no attempt-scoped ids to forget
			}
			ss.endAttempt(ctx)
			ss.attempt(ctx, false)
			id = ss.id()
			if _, inFlight := ss.openSlow(ctx, id, scoped, 30000); !inFlight {
				if eo := ss.replies[id].f.Error(); eo != nil {
					ss.refusesSlowPage(ctx, eo)
				}
				failf("session/open reusing the previous attempt's startAttempt signal id %s after endAttempt: want it in flight, as a new live signal, got an answer at once: %s", scoped, clip(string(ss.replies[id].f.Content)))
			}
			ss.notRefused(ctx, ss.answeredWithin(ctx, id, ss.abort(scoped, ""), abortBound, "session/open reusing an attempt-scoped id after endAttempt, after a $/abort of it"), "")
		})

	s.spec("dispose with a reuseSignal gets null; a later $/abort of that id gets no response, and init afterwards is answered as without the abort",
		[]string{"SIG-011"}, func(ctx context.Context, e *runEnv) {
			lists := e.Manifest.Lists(wire.MethodInit)
			// How a second init on a connection is answered without the
			// abort (LIFE-009): null or INVALID_STATE.
			var baseline string
			if lists {
				s1 := e.openPipelined(ctx)
				expectResult(s1.init(ctx), "lifecycle/init")
				expectResult(s1.call(ctx, s1.id(), wire.MethodDispose, `{"signal":{"id":900},"timeoutMs":5000}`), "lifecycle/dispose")
				baseline = initOutcome(s1.init(ctx))
				if e.Transport == "socket" {
					// A socket server MAY serve every connection from one
					// engine (§2.8): the second connection starts from an
					// engine no other connection holds initialized.
					s1.closeWorker(ctx, "the baseline connection")
				}
			}
			s2 := e.openPipelined(ctx)
			if lists {
				expectResult(s2.init(ctx), "lifecycle/init")
			}
			id := s2.id()
			f := s2.call(ctx, id, wire.MethodDispose, `{"signal":{"id":`+id+`},"timeoutMs":5000,"reuseSignal":{"id":"reuse-1"}}`)
			Expect(string(expectResult(f, "lifecycle/dispose with a reuseSignal"))).To(Equal("null"), "the result of lifecycle/dispose with a reuseSignal")
			s2.abort(`"reuse-1"`, "")
			if lists {
				got := initOutcome(s2.init(ctx))
				Expect(got).To(Equal(baseline), "lifecycle/init after dispose and a $/abort of its reuseSignal: want it answered as without the abort")
				if got == "null" && e.Manifest.Lists(wire.MethodObserve) {
					s2.attempt(ctx, false)
					id := s2.id()
					expectResult(s2.call(ctx, id, wire.MethodObserve, `{"operation":`+s2.operation(id, 30000)+`}`), "engine/observe after the second init")
				}
			}
			s2.probe(ctx, "after the $/abort of a kept reuseSignal")
			s2.noStray("$/abort of a kept reuseSignal")
			if e.Transport == "socket" {
				s2.closeWorker(ctx, "the connection whose reuseSignal was aborted")
				s3 := e.openPipelined(ctx)
				if lists {
					Expect(string(expectResult(s3.init(ctx), "lifecycle/init on a new connection after the $/abort of a reuseSignal"))).To(Equal("null"))
				}
			}
		})

	s.spec("a session/open of the slow page with timeoutMs 1000 and no $/abort is answered within 3000 ms",
		[]string{"SIG-012"}, func(ctx context.Context, e *runEnv) {
			ss := e.openPipelined(ctx)
			ss.attempt(ctx, false)
			id := ss.id()
			t, inFlight := ss.openSlow(ctx, id, id, 1000)
			if !inFlight {
				ss.skipNotSlow(id)
			}
			ss.notRefused(ctx, ss.answeredWithin(ctx, id, t, 3000*time.Millisecond, "session/open of the slow page with timeoutMs 1000"), "")
		})
}

// abortableMethod picks the listed operation method SIG-002 sends aborted
// at send, with the params it needs besides operation. Every manifest that
// lists an operation method lists one of these (rules M2, M4, M6, M7, M9).
func abortableMethod(e *runEnv) (method, rest string) {
	for _, m := range []string{wire.MethodObserve, wire.MethodScreenshot, wire.MethodCapture, wire.MethodBack, wire.MethodRestart, wire.MethodReset} {
		if e.Manifest.Lists(m) {
			return m, ""
		}
	}
	if e.Manifest.Lists(wire.MethodOpen) {
		return wire.MethodOpen, fmt.Sprintf(`"url":%q,`, e.FixtureURL+counterPath)
	}
	Skip(notVerified + "no operation method the suite can send aborted at send")
	return "", ""
}
