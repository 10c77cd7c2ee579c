package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/e2e-conform/toolkit/protocol/client"
	"github.com/e2e-conform/toolkit/protocol/transport"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// Handshake and lifecycle: spec §2, §4.1–§4.7; catalog LIFE.
func lifecycleSpecs(s *suite) {
	lifecycleClauseSpecs(s)
	s.spec("initialize gets {protocolVersion: 1, manifest}, the same manifest for role run and role worker",
		[]string{"LIFE-001"}, func(ctx context.Context, e *runEnv) {
			var manifests []json.RawMessage
			for _, role := range []string{"run", "worker"} {
				r := e.raw(ctx)
				f, err := r.Call(ctx, "1", "initialize", initializeParams(role))
				Expect(err).NotTo(HaveOccurred())
				var res struct {
					ProtocolVersion json.RawMessage `json:"protocolVersion"`
					Manifest        json.RawMessage `json:"manifest"`
				}
				Expect(json.Unmarshal(expectResult(f, "initialize as "+role), &res)).To(Succeed())
				Expect(string(res.ProtocolVersion)).To(Equal("1"), "protocolVersion of the result")
				Expect(res.Manifest).NotTo(BeEmpty(), "manifest of the result")
				manifests = append(manifests, res.Manifest)
			}
			var a, b wire.Manifest
			Expect(json.Unmarshal(manifests[0], &a)).To(Succeed())
			Expect(json.Unmarshal(manifests[1], &b)).To(Succeed())
			Expect(client.Diff(a, b)).To(BeEmpty(), "role run and role worker announce different manifests")
		})

	s.spec("initialize with protocolVersion 2, 0 or \"1\", or an unknown role, gets -32602 and leaves the server uninitialized",
		[]string{"LIFE-002"}, func(ctx context.Context, e *runEnv) {
			for _, params := range []string{
				`{"protocolVersion":2,"clientInfo":{"name":"e2e-conform"},"role":"worker"}`,
				`{"protocolVersion":0,"clientInfo":{"name":"e2e-conform"},"role":"worker"}`,
				`{"protocolVersion":"1","clientInfo":{"name":"e2e-conform"},"role":"worker"}`,
				`{"protocolVersion":1,"clientInfo":{"name":"e2e-conform"},"role":"admin"}`,
				// "Names of methods, codes, kinds and roles are
				// case-sensitive" (§0.4): another letter case, a space or an
				// empty string is "a role other than run or worker" (§2.2).
				`{"protocolVersion":1,"clientInfo":{"name":"e2e-conform"},"role":"Worker"}`,
				`{"protocolVersion":1,"clientInfo":{"name":"e2e-conform"},"role":"RUN"}`,
				`{"protocolVersion":1,"clientInfo":{"name":"e2e-conform"},"role":" worker"}`,
				`{"protocolVersion":1,"clientInfo":{"name":"e2e-conform"},"role":""}`,
			} {
				r := e.raw(ctx)
				f, err := r.Call(ctx, "1", "initialize", params)
				Expect(err).NotTo(HaveOccurred())
				expectCode(f, wire.CodeInvalidParams, "initialize "+params)
				f, err = r.Call(ctx, "2", wire.MethodObserve, `{"operation":`+signalOp("1", client.Op{})+`}`)
				Expect(err).NotTo(HaveOccurred())
				expectCode(f, wire.CodeNotInitialized, "an engine method after a refused initialize")
			}
		})

	s.spec("an engine method or shutdown before initialize gets -32002",
		[]string{"LIFE-003"}, func(ctx context.Context, e *runEnv) {
			r := e.raw(ctx)
			for i, m := range []string{wire.MethodObserve, wire.MethodOpen, wire.MethodInit, wire.MethodShutdown} {
				f, err := r.Call(ctx, fmt.Sprint(i+1), m, `{}`)
				Expect(err).NotTo(HaveOccurred())
				expectCode(f, wire.CodeNotInitialized, m+" before initialize")
			}
			// A well-formed session/open of a URL the suite watches, before
			// initialize: refused, and never run, neither now nor once the
			// connection is initialized (watched for actQuietWait after).
			watched := e.watchURL(ctx)
			f, err := r.Call(ctx, "7", wire.MethodOpen, fmt.Sprintf(`{"url":%q,"operation":{"signal":{"id":7},"timeoutMs":30000,"runId":"run-x","attemptId":"attempt-x","origin":"test"}}`, watched.url))
			Expect(err).NotTo(HaveOccurred())
			expectCode(f, wire.CodeNotInitialized, "a well-formed session/open of "+watched.url+" before initialize")
			// "and has no effect" (§2.7: -32002 whatever the method): the
			// refused shutdown did not shut the connection down, so after
			// initialize an unknown method gets -32601, not -32600 (§2.4).
			f, err = r.Call(ctx, "5", "initialize", initializeParams("worker"))
			Expect(err).NotTo(HaveOccurred())
			expectResult(f, "initialize after the requests refused with -32002")
			f, err = r.Call(ctx, "6", "foo/bar", `{}`)
			Expect(err).NotTo(HaveOccurred())
			expectCode(f, wire.CodeMethodNotFound, "an unknown method after initialize, on a connection whose shutdown before initialize was refused (-32600 means the shutdown took effect)")
			Expect(watched.reachedBy(ctx, time.Now().Add(actQuietWait))).To(BeZero(), "session/open of %s before initialize was refused with -32002, but the engine reached the URL (%d connection(s)) once initialized: want no effect", watched.url, watched.connections())
		})

	s.spec("a second initialize gets -32600 and the connection keeps working",
		[]string{"LIFE-004"}, func(ctx context.Context, e *runEnv) {
			r := e.initialized(ctx)
			f, err := r.Call(ctx, "1", "initialize", initializeParams("worker"))
			Expect(err).NotTo(HaveOccurred())
			expectCode(f, wire.CodeInvalidRequest, "a second initialize")
			f, err = r.Call(ctx, "2", "foo/bar", `{}`)
			Expect(err).NotTo(HaveOccurred())
			expectCode(f, wire.CodeMethodNotFound, "an unknown method after the second initialize")
		})

	s.spec("the server sends no request or notification before initialized",
		[]string{"LIFE-005"}, func(ctx context.Context, e *runEnv) {
			r := e.raw(ctx)
			// Every frame up to the answers of the requests below must be a
			// response: Next, not Call, which would pass over notifications.
			next := func(id string) {
				f, err := r.Next(ctx)
				Expect(err).NotTo(HaveOccurred())
				Expect(f.IsResponse()).To(BeTrue(), "the server sent %s before initialized", f.Method())
				Expect(f.ID()).To(Equal(id))
			}
			Expect(r.Send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":` + initializeParams("worker") + `}`)).To(Succeed())
			next("0")
			if e.Manifest.Lists(wire.MethodInit) {
				Expect(r.Send(`{"jsonrpc":"2.0","id":1,"method":"lifecycle/init","params":` + initParams(e, "9001") + `}`)).To(Succeed())
				next("1")
			}
			Expect(r.Send(`{"jsonrpc":"2.0","id":2,"method":"foo/bar","params":{}}`)).To(Succeed())
			next("2")
		})

	s.spec("shutdown gets null; every later request, shutdown included, gets -32600",
		[]string{"LIFE-006"}, func(ctx context.Context, e *runEnv) {
			r := e.initialized(ctx)
			f, err := r.Call(ctx, "1", "shutdown", "")
			Expect(err).NotTo(HaveOccurred())
			Expect(string(expectResult(f, "shutdown"))).To(Equal("null"))
			f, err = r.Call(ctx, "2", wire.MethodObserve, `{"operation":`+signalOp("1", client.Op{})+`}`)
			Expect(err).NotTo(HaveOccurred())
			expectCode(f, wire.CodeInvalidRequest, "a request after shutdown")
			f, err = r.Call(ctx, "3", "shutdown", "")
			Expect(err).NotTo(HaveOccurred())
			expectCode(f, wire.CodeInvalidRequest, "a second shutdown")
		})

	s.spec("after shutdown and exit the process exits with status 0 within 2000 ms; after exit alone with status 1 within 5000 ms",
		[]string{"LIFE-007"}, func(ctx context.Context, e *runEnv) {
			for _, clean := range []bool{true, false} {
				r := e.initialized(ctx)
				if clean {
					f, err := r.Call(ctx, "1", "shutdown", "")
					Expect(err).NotTo(HaveOccurred())
					expectResult(f, "shutdown")
				}
				Expect(r.Notify("exit", "")).To(Succeed())
				bound, want := 2*time.Second, 0
				if !clean {
					bound, want = 5*time.Second, 1
				}
				status := exitStatus(r.Conn(), bound)
				Expect(status).To(Equal(want), "exit status after exit (shutdown first: %v); -1 means it did not exit within %s", clean, bound)
			}
		})

	// Two processes: one whose stdin closes with nothing in flight (after
	// initialize), one whose stdin closes with engine methods in flight,
	// inside init and an attempt (§11; outside one an operation MAY be
	// answered INVALID_STATE at once, §4.0): a session/open of a page the
	// suite's HTTP server holds (its fetch arrived, no answer; the page
	// stays held until the spec ends, so an engine that waits for it never
	// exits), when the engine fetches it, and a burst of lifecycleBurst
	// engine/observe requests written just before stdin closes. "In flight"
	// is the client's view: sent and not answered when stdin closed, read
	// off the frames' arrival times. When none was, the in-flight clause is
	// not verified, after the exit was checked.
	s.spec("when stdin closes without shutdown, also with an engine method in flight, the process exits within 5000 ms",
		[]string{"LIFE-008"}, func(ctx context.Context, e *runEnv) {
			closeStdin := func(r *rawConn, what string) time.Time {
				sc, ok := r.Conn().(transport.SpawnConn)
				Expect(ok).To(BeTrue())
				closed := time.Now()
				Expect(sc.CloseStdin()).To(Succeed())
				Expect(exitStatus(sc, 5*time.Second)).NotTo(Equal(-1), "the process did not exit within 5000 ms of stdin closing %s", what)
				return closed
			}
			closeStdin(e.initialized(ctx), "with nothing in flight (after initialize)")
			ss := e.openPipelined(ctx)
			if e.Manifest.Lists(wire.MethodOpen) || e.Manifest.Lists(wire.MethodObserve) {
				ss.attempt(ctx, false)
			}
			var pending []string // requests sent before stdin closed
			held := ""
			if e.Manifest.Lists(wire.MethodOpen) {
				h, id := ss.openHeld(ctx)
				pending = append(pending, id)
				select {
				case <-h.Arrived:
					if !ss.answered(id) {
						held = " (session/open of a page the suite holds among them)"
					}
				default:
				}
			}
			if e.Manifest.Lists(wire.MethodObserve) {
				for range lifecycleBurst {
					id := ss.id()
					ss.write(id, wire.MethodObserve, `{"operation":`+ss.operation(id, 30000)+`}`)
					pending = append(pending, id)
				}
			}
			closed := closeStdin(ss.r, fmt.Sprintf("with %d engine method(s) just written%s", len(pending), held))
			for {
				if _, err := ss.next(ctx); err != nil {
					break // the process exited: its stdout ended
				}
			}
			inFlight := 0
			for _, id := range pending {
				if rep, ok := ss.replies[id]; !ok || rep.at.After(closed) {
					inFlight++
				}
			}
			if inFlight == 0 {
				Skip(notVerified + fmt.Sprintf("the process exited within 5000 ms of stdin closing, but every one of the %d engine method(s) written before the close was answered before it, so none was in flight", len(pending)))
			}
			e.observed("LIFE-008", fmt.Sprintf("%d engine method(s) in flight when stdin closed%s", inFlight, held))
		})

	s.spec("lifecycle/dispose on a connection that never received lifecycle/init gets null",
		[]string{"LIFE-010"}, func(ctx context.Context, e *runEnv) {
			r := e.initialized(ctx)
			f, err := r.Call(ctx, "1", wire.MethodDispose, `{"signal":{"id":1},"timeoutMs":5000}`)
			Expect(err).NotTo(HaveOccurred())
			Expect(string(expectResult(f, "cold dispose"))).To(Equal("null"))
		})

	s.spec("startAttempt with screens true and false gets null, and engine/observe returns a snapshot inside the attempt",
		[]string{"LIFE-011"}, func(ctx context.Context, e *runEnv) {
			for _, screens := range []bool{true, false} {
				c, _ := e.open(ctx)
				op, err := e.attemptWith(ctx, c, screens)
				Expect(err).NotTo(HaveOccurred(), "startAttempt with screens %v", screens)
				if e.Manifest.Lists(wire.MethodObserve) {
					_, err := c.Observe(ctx, op, nil)
					Expect(err).NotTo(HaveOccurred(), "engine/observe inside the attempt")
				}
				Expect(c.EndAttempt(ctx, 5000)).To(Succeed())
			}
		})

	// Both startAttempts follow lifecycle/init (when listed), as the
	// client's do (§2.9 Open step 3): a startAttempt without it MAY fail
	// INVALID_STATE (§2.8), which would hide an overlap accepted.
	s.spec("a startAttempt while an attempt is open gets -32000 engine INVALID_STATE",
		[]string{"LIFE-012"}, func(ctx context.Context, e *runEnv) {
			ss := e.openPipelined(ctx)
			if e.Manifest.Lists(wire.MethodInit) {
				Expect(string(expectResult(ss.init(ctx), "lifecycle/init"))).To(Equal("null"), "the result of lifecycle/init")
			}
			start := func(what string) *frame {
				id := ss.id()
				return ss.call(ctx, id, wire.MethodStartAttempt, ss.startParams(false, id))
			}
			expectResult(start("the first"), "the first startAttempt after lifecycle/init")
			eo := expectCode(start("an overlapping"), wire.CodeEngineError, "a startAttempt while the first attempt is open (no endAttempt between)")
			d := dataOf(eo)
			Expect(d.Type+" "+d.Code).To(Equal("engine INVALID_STATE"), "the error data of an overlapping startAttempt: want engine INVALID_STATE, got %s %q", d.Type, d.Code)
			ss.endAttempt(ctx)
		})

	// The startAttempts follow lifecycle/init (when listed), as in LIFE-012:
	// without it a startAttempt MAY fail INVALID_STATE (§2.8), and the
	// clauses after a startAttempt aborted at send and mid-flight would not
	// be exercised.
	s.spec("endAttempt gets null twice in a row, with no attempt open, and after startAttempts aborted at send and mid-flight",
		[]string{"LIFE-013"}, func(ctx context.Context, e *runEnv) {
			ss := e.openPipelined(ctx)
			end := func(what string) {
				id := ss.id()
				f := ss.call(ctx, id, wire.MethodEndAttempt, `{"signal":{"id":`+id+`},"timeoutMs":5000}`)
				Expect(string(expectResult(f, "endAttempt "+what))).To(Equal("null"), "the result of endAttempt %s", what)
			}
			end("with no attempt open")
			end("right after another")
			if e.Manifest.Lists(wire.MethodStartAttempt) {
				if e.Manifest.Lists(wire.MethodInit) {
					Expect(string(expectResult(ss.init(ctx), "lifecycle/init"))).To(Equal("null"), "the result of lifecycle/init")
				}
				id := ss.id()
				p := strings.Replace(ss.startParams(false, id), `"signal":{"id":`+id+`}`, `"signal":{"id":`+id+`,"aborted":true}`, 1)
				ss.call(ctx, id, wire.MethodStartAttempt, p)
				end("after a startAttempt aborted at send")
				id = ss.id()
				ss.write(id, wire.MethodStartAttempt, ss.startParams(false, id))
				ss.abort(id, "")
				_, err := ss.await(ctx, id, 0)
				Expect(err).NotTo(HaveOccurred(), "waiting for the answer to a startAttempt aborted mid-flight")
				end("after a startAttempt aborted mid-flight")
			}
			end("at the end")
		})

	s.spec("settleAttempt with nothing pending gets null within its timeoutMs, on both calls of an attempt",
		[]string{"LIFE-014"}, func(ctx context.Context, e *runEnv) {
			c, _, _ := e.inAttempt(ctx)
			for i := 0; i < 2; i++ {
				start := time.Now()
				Expect(c.SettleAttempt(ctx, 5000)).To(Succeed())
				took := time.Since(start)
				Expect(took).To(BeNumerically("<", 5*time.Second), "settleAttempt %d of 2 with timeoutMs 5000 and nothing pending: want null within 5000 ms, got it after %d ms", i+1, took.Milliseconds())
			}
		})

	// Each bound is measured on a raw connection from the moment the suite
	// finished writing the request to the moment its reader read the
	// response off the wire (frame.At): neither the connection's setup nor
	// the suite's own scheduling after the read counts. When timeoutMs runs
	// out without an answer, the suite writes $/abort for the request's
	// signal, as the client does (§4.5–§4.7, §7.6), and the answer must
	// come within timeoutMs + 2000 ms of the write.
	s.spec("each listed cleanup method answers within its timeoutMs plus 2000 ms, the suite aborting its signal when timeoutMs runs out",
		[]string{"LIFE-016"}, func(ctx context.Context, e *runEnv) {
			ss := e.openPipelined(ctx)
			ss.attempt(ctx, false)
			const budget = 1000
			timed := func(method, params string) {
				id := ss.id()
				t := ss.write(id, method, strings.ReplaceAll(params, "SIG", id))
				if _, err := ss.await(ctx, id, time.Until(t.Add(budget*time.Millisecond))); err != nil {
					Expect(ctx.Err()).NotTo(HaveOccurred(), "the spec's budget ran out")
					Expect(ss.r.endErr()).To(BeNil(), "the connection ended while %s was in flight", method)
					ss.abort(id, "")
					By(fmt.Sprintf("%s: timeoutMs %d ran out, $/abort written", method, budget))
				}
				ss.answeredWithin(ctx, id, t, budget*time.Millisecond+2*time.Second, fmt.Sprintf("%s with timeoutMs %d", method, budget))
				e.observed("LIFE-016", method+" answered")
				By(fmt.Sprintf("%s answered %d ms after it was written", method, ss.replies[id].at.Sub(t).Milliseconds()))
			}
			cleanup := fmt.Sprintf(`{"signal":{"id":SIG},"timeoutMs":%d}`, budget)
			if e.Manifest.Lists(wire.MethodSettleAttempt) {
				timed(wire.MethodSettleAttempt, cleanup)
			}
			if e.Manifest.Lists(wire.MethodEndAttempt) {
				timed(wire.MethodEndAttempt, cleanup)
			}
			if e.Manifest.Lists(wire.MethodDispose) {
				timed(wire.MethodDispose, cleanup)
			}
			if e.Manifest.Lists(wire.MethodFinish) {
				timed(wire.MethodFinish, fmt.Sprintf(`{"runId":"run-finish","targetName":"conformance","env":{},"signal":{"id":SIG},"timeoutMs":%d}`, budget))
			}
			e.requireEvidence("LIFE-016", "the engine lists none of the cleanup methods")
		})

	s.spec("lifecycle/prepare answers null or workers in 1..slots with string env values; with slots 0 it succeeds without workers",
		[]string{"LIFE-017"}, func(ctx context.Context, e *runEnv) {
			for _, slots := range []int64{2, 0} {
				c, _ := e.open(ctx)
				res, err := c.Prepare(ctx, wire.PrepareParams{RunID: e.nextID("run"), TargetName: "conformance", ProjectRoot: e.Artifacts, Slots: slots, Env: map[string]string{}})
				Expect(err).NotTo(HaveOccurred(), "prepare with slots %d", slots)
				if res != nil && res.Workers != nil {
					Expect(*res.Workers).To(BeNumerically(">=", 1), "workers with slots %d", slots)
					Expect(*res.Workers).To(BeNumerically("<=", slots), "workers with slots %d", slots)
				}
			}
		})

	s.spec("lifecycle/finish gets null after prepare and on a connection that never received prepare",
		[]string{"LIFE-018"}, func(ctx context.Context, e *runEnv) {
			finish := wire.FinishParams{RunID: "run-f", TargetName: "conformance", Env: map[string]string{}, TimeoutMs: 5000}
			c, _ := e.open(ctx)
			Expect(c.Finish(ctx, finish)).To(Succeed(), "finish without prepare")
			if e.Manifest.Lists(wire.MethodPrepare) {
				c2, _ := e.open(ctx)
				_, err := c2.Prepare(ctx, wire.PrepareParams{RunID: "run-f", TargetName: "conformance", ProjectRoot: e.Artifacts, Slots: 1, Env: map[string]string{}})
				Expect(err).NotTo(HaveOccurred())
				Expect(c2.Finish(ctx, finish)).To(Succeed(), "finish after prepare")
			}
		})

	// LIFE-009 applies part by part: the re-init on one connection when
	// lifecycle/dispose is listed, the new connection over socket only.
	s.spec("lifecycle/init gets null; after init and dispose a second init either fails INVALID_STATE or gets null with observe then working; over socket init works on a new connection after init, dispose and shutdown",
		[]string{"LIFE-009"}, func(ctx context.Context, e *runEnv) {
			observes := func(ss *pipelinedConn, what string) {
				if !e.Manifest.Lists(wire.MethodObserve) {
					return
				}
				ss.attempt(ctx, false)
				id := ss.id()
				expectResult(ss.call(ctx, id, wire.MethodObserve, `{"operation":`+ss.operation(id, 30000)+`}`), "engine/observe "+what)
			}
			s1 := e.openPipelined(ctx)
			Expect(string(expectResult(s1.init(ctx), "lifecycle/init"))).To(Equal("null"), "the result of lifecycle/init")
			if !e.Manifest.Lists(wire.MethodDispose) {
				return
			}
			s1.call(ctx, s1.id(), wire.MethodDispose, `{"signal":{"id":900},"timeoutMs":5000}`)
			f := s1.init(ctx)
			got := initOutcome(f)
			Expect(got).To(BeElementOf("null", "INVALID_STATE"), "a second lifecycle/init after dispose on one connection: want null or engine INVALID_STATE, got %s", got)
			if got == "null" {
				observes(s1, "after a second init on one connection")
			}
			if e.Transport != "socket" {
				return
			}
			// The first connection is closed before the second opens: a
			// socket server MAY serve every connection from one engine
			// (§2.8), which the first connection still holds initialized.
			s1.closeWorker(ctx, "the first connection")
			s2 := e.openPipelined(ctx)
			expectResult(s2.init(ctx), "lifecycle/init")
			s2.call(ctx, s2.id(), wire.MethodDispose, `{"signal":{"id":900},"timeoutMs":5000}`)
			expectResult(s2.call(ctx, s2.id(), wire.MethodShutdown, ""), "shutdown")
			_ = s2.r.Notify(wire.MethodExit, "")
			_ = s2.r.Close(5 * time.Second)
			s3 := e.openPipelined(ctx)
			Expect(string(expectResult(s3.init(ctx), "lifecycle/init on a new connection after init, dispose and shutdown on another"))).To(Equal("null"))
			observes(s3, "after init on a new connection")
		})

	// The catalog reports LIFE-015 not verified when no first settleAttempt
	// fails. Besides a plain attempt, the suite sends one first
	// settleAttempt aborted at send: an engine may fail it (CANCELLED), and
	// the second, not aborted, must not repeat that failure.
	s.spec("whenever the first settleAttempt of an attempt fails, the second, sent right after it, does not fail with the same code and message",
		[]string{"LIFE-015"}, func(ctx context.Context, e *runEnv) {
			failed := 0
			for _, abortFirst := range []bool{false, true} {
				ss := e.openPipelined(ctx)
				ss.attempt(ctx, false)
				if e.Manifest.Lists(wire.MethodObserve) {
					id := ss.id()
					ss.call(ctx, id, wire.MethodObserve, `{"operation":`+ss.operation(id, 30000)+`}`)
				}
				id := ss.id()
				sig := `{"id":` + id + `}`
				if abortFirst {
					sig = `{"id":` + id + `,"aborted":true}`
				}
				first := ss.call(ctx, id, wire.MethodSettleAttempt, `{"signal":`+sig+`,"timeoutMs":5000}`).Error()
				id = ss.id()
				second := ss.call(ctx, id, wire.MethodSettleAttempt, `{"signal":{"id":`+id+`},"timeoutMs":5000}`).Error()
				if first == nil {
					continue
				}
				failed++
				if second != nil {
					Expect(second.Code == first.Code && second.Message == first.Message).To(BeFalse(),
						"the second settleAttempt reported the first one's failure again: %d %q", second.Code, second.Message)
				}
			}
			if failed == 0 {
				skipNotVerified("no first settleAttempt failed (the suite cannot provoke a failure on this surface)")
			}
		})
}

func initParams(e *runEnv, signal string) string {
	return fmt.Sprintf(`{"runId":"run-x","targetName":"conformance","projectRoot":%q,"app":{},"env":{},"headed":false,"workerSlot":0,"signal":{"id":%s}}`, e.Artifacts, signal)
}

// exitStatus waits up to d for a spawned server to exit and returns its
// status, or -1.
func exitStatus(tc transport.Conn, d time.Duration) int {
	sc, ok := tc.(transport.SpawnConn)
	if !ok {
		return -1
	}
	select {
	case <-sc.Exited():
		st, _ := sc.Wait()
		if st == nil {
			return -1
		}
		return st.ExitCode()
	case <-time.After(d):
		return -1
	}
}

// lifecycleBurst is how many engine/observe requests LIFE-008 writes just
// before stdin closes: the last of them are still unanswered when it does,
// on an engine that answers each in microseconds.
const lifecycleBurst = 20

// cleanupBudgets are the timeoutMs values of the LIFE-016 clause spec,
// smallest first: an engine that honours only large budgets, or that never
// answers faster than a fixed delay, passes one large timeoutMs.
var cleanupBudgets = []int{100, 1000, 3000}

// lifecycleClauseSpecs are the clause-level LIFE specs (issue 9 §3).
func lifecycleClauseSpecs(s *suite) {
	s.spec("settleAttempt, endAttempt, finish and dispose, each listed, answer within timeoutMs + 2000 ms for timeoutMs 100, 1000 and 3000, the suite aborting the signal when timeoutMs runs out",
		[]string{"LIFE-016"}, func(ctx context.Context, e *runEnv) {
			// §4.5–§4.7, §4.2: each "MUST answer within timeoutMs"; D71
			// gives the 2000 ms slack and the abort at timeoutMs.
			ss := e.openPipelined(ctx)
			ss.attempt(ctx, false)
			cleanup := func(sig string, t int) string { return fmt.Sprintf(`{"signal":{"id":%s},"timeoutMs":%d}`, sig, t) }
			methods := []struct {
				name   string
				params func(sig string, t int) string
			}{
				{wire.MethodSettleAttempt, cleanup},
				{wire.MethodEndAttempt, cleanup},
				{wire.MethodFinish, func(sig string, t int) string {
					return fmt.Sprintf(`{"runId":%q,"targetName":"conformance","env":{},"signal":{"id":%s},"timeoutMs":%d}`, e.nextID("run"), sig, t)
				}},
				{wire.MethodDispose, cleanup},
			}
			for _, m := range methods {
				if !e.Manifest.Lists(m.name) {
					continue
				}
				for _, t := range cleanupBudgets {
					id := ss.id()
					at := ss.write(id, m.name, m.params(id, t))
					budget := time.Duration(t) * time.Millisecond
					if _, err := ss.await(ctx, id, time.Until(at.Add(budget))); err != nil {
						Expect(ctx.Err()).NotTo(HaveOccurred(), "the spec's budget ran out")
						Expect(ss.r.endErr()).To(BeNil(), "the connection ended while %s with timeoutMs %d was in flight", m.name, t)
						ss.abort(id, "") // as the client does when the budget runs out (§7.6)
					}
					ss.answeredWithin(ctx, id, at, budget+2*time.Second, fmt.Sprintf("%s with timeoutMs %d (its signal aborted at %d ms)", m.name, t, t))
					e.observed("LIFE-016", fmt.Sprintf("%s answered in time with timeoutMs %d", m.name, t))
				}
			}
			e.requireEvidence("LIFE-016", "the engine lists none of the cleanup methods")
		})

	s.spec("a request and shutdown written in one write are answered in that order, and a shutdown written while session/open of the slow page is in flight gets its null only after session/open has been answered",
		[]string{"LIFE-019"}, func(ctx context.Context, e *runEnv) {
			// §2.4: "The server writes the null result only after every
			// request it received before shutdown on this connection has
			// been answered (D9)"; it "still honors $/abort".
			//
			// 1. The narrowest window: the request and shutdown in one
			// write, so the server reads both before it can answer the
			// first. The request is an engine method when one needs no
			// state (engine/observe answers or fails), else an unknown
			// method. Nothing proves the request was still in flight
			// when shutdown was read, so this part records no evidence;
			// a null read before the request's answer is a failure all
			// the same.
			ss := e.openPipelined(ctx)
			first, method, params := ss.id(), probeMethod, ""
			if e.Manifest.Lists(wire.MethodObserve) {
				method, params = wire.MethodObserve, `{"operation":`+ss.operation(first, 30000)+`}`
			}
			shut := ss.id()
			ss.sent[first], ss.sent[shut] = method, wire.MethodShutdown
			content := `{"jsonrpc":"2.0","id":` + first + `,"method":"` + method + `"`
			if params != "" {
				content += `,"params":` + params
			}
			Expect(ss.r.Write(append(framed(content+"}"), framed(`{"jsonrpc":"2.0","id":`+shut+`,"method":"shutdown"}`)...))).To(Succeed())
			order := ss.answerOrder(ctx, within, first, shut)
			expectAnsweredFirst(order, first, shut, fmt.Sprintf("%s (id %s) and shutdown (id %s) written in one write", method, first, shut))
			if len(order) < 2 {
				AddReportEntry("note", fmt.Sprintf("%s and shutdown written in one write: only %v answered within %d ms, the order was not checked", method, order, within.Milliseconds()))
			}

			// 2. A request kept in flight: session/open of the suite's
			// slow page (an HTTP endpoint that answers after 5 s).
			if !e.Manifest.Lists(wire.MethodOpen) {
				skipNothingToCheck("the suite keeps a request in flight with session/open of its slow page, and the engine does not list session/open")
			}
			ss = e.openPipelined(ctx)
			ss.attempt(ctx, false)
			open := ss.id()
			_, inFlight := ss.openSlow(ctx, open, open, 30000)
			if !inFlight {
				skipNothingToCheck("session/open of the slow page was answered before a request for an unknown method: the suite could keep no request in flight")
			}
			shut = ss.id()
			ss.write(shut, wire.MethodShutdown, "")
			// A request after shutdown is answered by itself (-32600,
			// §2.7): once it is, the server has read shutdown.
			after := ss.id()
			ss.write(after, probeMethod, "")
			_, err := ss.await(ctx, after, within)
			Expect(err).NotTo(HaveOccurred(), "a request written after shutdown while session/open was in flight: no answer within %d ms", within.Milliseconds())
			// The server read shutdown before it answered the request
			// written after it; session/open still unanswered then was in
			// flight when shutdown was read.
			openPending := !ss.answered(open)
			if ss.answered(shut) && openPending {
				failf("shutdown (id %s) written while session/open of the slow page (id %s) was in flight: want its null after session/open's answer, got it while session/open was still unanswered", shut, open)
			}
			// The open is watched for actQuietWait before it is aborted: an
			// engine that answers it within that window (a refusal racing
			// the probe, a page it does not treat as slow) keeps no request
			// in flight that a run can count on, and whether the window
			// caught it would vary from run to run.
			settled := !openPending
			if openPending {
				_, err := ss.await(ctx, open, actQuietWait)
				settled = err == nil
			}
			if !settled {
				ss.abort(open, "") // §2.4: after shutdown the server still honors $/abort
			}
			order = ss.answerOrder(ctx, abortBound+within, open, shut)
			expectAnsweredFirst(order, open, shut, fmt.Sprintf("shutdown (id %s) written while session/open of the slow page (id %s) was in flight, then $/abort for the open", shut, open))
			if settled {
				skipNothingToCheck(fmt.Sprintf("session/open of the slow page was answered before the server read shutdown or within %d ms after: the engine kept no request in flight a run can count on", actQuietWait.Milliseconds()))
			}
			// An engine that refuses the page (a kiosk's URL policy) may
			// answer the refusal a little after the suite's probe: the
			// window was the refusal's own timing, which no run can count
			// on (the verdict would vary from run to run). An error that is
			// not the abort's answer is checked with a control open of the
			// slow page on a fresh connection (this one has shut down); the
			// same error there makes the check not verified.
			if rep, ok := ss.replies[open]; ok {
				if eo := rep.f.Error(); eo != nil && !abortAnswer(eo, "") {
					control := e.openPipelined(ctx)
					control.attempt(ctx, false)
					if c := control.slowPageRefusal(ctx, eo); c != nil {
						skipNothingToCheck(fmt.Sprintf("the engine refuses session/open of the slow page (%d %q), so the suite can keep no request in flight", c.Code, c.Message))
					}
				}
			}
			e.observed("LIFE-019", "shutdown read while session/open of the slow page was in flight")
			e.requireEvidence("LIFE-019", "no request could be kept in flight")
		})
}

// expectAnsweredFirst fails when shutdown's answer (id shut) was read
// while the earlier request first was unanswered: §2.4 allows shutdown's
// null only after it. A shutdown not answered at all breaks no LIFE-019
// clause (LIFE-006 checks its null).
func expectAnsweredFirst(order []string, first, shut, what string) {
	for _, id := range order {
		if id == first {
			return
		}
		if id == shut {
			failf("%s: want the earlier request's answer (id %s) before shutdown's null, got shutdown's answer first (answers read in the order %v)", what, first, order)
		}
	}
}

// answerOrder reads for at most d until every one of ids has been
// answered, and returns the ids in the order their answers were read
// (those answered before the call first, in their reading order); an id
// unanswered within d is missing from the list.
func (s *pipelinedConn) answerOrder(ctx context.Context, d time.Duration, ids ...string) []string {
	wctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	for {
		done := true
		for _, id := range ids {
			done = done && s.answered(id)
		}
		if done {
			break
		}
		if _, err := s.next(wctx); err != nil {
			break
		}
	}
	var got []string
	for _, id := range ids {
		if s.answered(id) {
			got = append(got, id)
		}
	}
	sort.SliceStable(got, func(i, j int) bool { return s.replies[got[i]].seq < s.replies[got[j]].seq })
	return got
}
