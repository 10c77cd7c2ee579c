package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/e2e-conform/toolkit/conformance/fixture"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// Wire and framing: spec §1; catalog WIRE (WIRE-001, -002, -012 and -013
// are checked on every message by the run-wide checks).
func wireSpecs(s *suite) {
	wireClauseSpecs(s)
	wireParamsShapeSpecs(s)
	s.spec("a message split across writes, 50 ms apart, several messages in one write, and a Content-Type field are handled",
		[]string{"WIRE-003"}, func(ctx context.Context, e *runEnv) {
			r := e.initialized(ctx)
			msg := framed(`{"jsonrpc":"2.0","id":1,"method":"foo/bar","params":{}}`)
			parts := [][]byte{msg[:9], msg[9:30], msg[30:]}
			written := 0
			for i, part := range parts {
				// A failed write means the server closed the connection on
				// the bytes before this part: it took a partial header part
				// for a whole one, or reads one message per read.
				Expect(r.Write(part)).To(Succeed(), "writing part %d of %d (%q) of a request split across writes 50 ms apart, after the first %d bytes %q: want the server to wait for the rest of the message",
					i+1, len(parts), part, written, msg[:written])
				written += len(part)
				time.Sleep(50 * time.Millisecond) // the split the requirement names, not synchronisation
			}
			f, err := r.Response(ctx, "1")
			Expect(err).NotTo(HaveOccurred(), "the answer to a request written in 3 parts 50 ms apart (split inside the header part and the content): want -32601")
			expectCode(f, wire.CodeMethodNotFound, "a split request")
			two := append(append([]byte("Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n"), framed(`{"jsonrpc":"2.0","id":2,"method":"foo/bar"}`)...),
				framed(`{"jsonrpc":"2.0","id":3,"method":"foo/bar"}`)...)
			Expect(r.Write(two)).To(Succeed())
			got := map[string]bool{}
			for len(got) < 2 {
				f, err := r.Next(ctx)
				Expect(err).NotTo(HaveOccurred(), "waiting for the answers to two messages written at once")
				if f.IsResponse() {
					got[f.ID()] = true
				}
			}
			Expect(got).To(HaveKey("2"))
			Expect(got).To(HaveKey("3"))
		})

	s.spec("content that is not UTF-8 JSON executes nothing, then the next request is answered or the connection closes within 5000 ms",
		[]string{"WIRE-004"}, func(ctx context.Context, e *runEnv) {
			for _, bad := range []string{`{"jsonrpc":"2.0","id":1,"method":`, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"foo/\xff\"}"} {
				r := e.initialized(ctx)
				Expect(r.Send(bad)).To(Succeed())
				expectSurvivesOrCloses(ctx, r, "2", "content that is not UTF-8 JSON")
			}
			// "Executes nothing" for a request that would do something: a
			// session/open of a URL the suite watches whose runId holds a
			// byte that is not UTF-8. A decoder that repairs the string
			// (Go's encoding/json does) runs the open, and its answer can
			// come after the next request's: the URL is watched for
			// actQuietWait after that answer.
			if e.Manifest.Lists(wire.MethodOpen) {
				watched := e.watchURL(ctx)
				r := e.initialized(ctx)
				bad := fmt.Sprintf("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":%q,\"params\":{\"url\":%q,\"operation\":{\"signal\":{\"id\":1},\"timeoutMs\":30000,\"runId\":\"run-\xff\",\"attemptId\":\"attempt-x\",\"origin\":\"test\"}}}", wire.MethodOpen, watched.url)
				Expect(r.Send(bad)).To(Succeed())
				what := "a session/open of " + watched.url + " whose runId is not UTF-8"
				expectSurvivesOrCloses(ctx, r, "2", what)
				Expect(watched.reachedBy(ctx, time.Now().Add(actQuietWait))).To(BeZero(), "after %s the engine reached the URL (%d connection(s)): it executed content that is not UTF-8 JSON", what, watched.connections())
			}
		})

	s.spec("a JSON object that is not a JSON-RPC 2.0 message gets -32600 and the connection keeps working",
		[]string{"WIRE-005"}, func(ctx context.Context, e *runEnv) {
			r := e.initialized(ctx)
			for i, bad := range []string{
				`{"jsonrpc":"1.0","id":%d,"method":"foo/bar"}`,
				`{"id":%d,"method":"foo/bar"}`,
				`{"jsonrpc":"2.0","id":%d,"method":7}`,
			} {
				id := fmt.Sprint(10 + i)
				Expect(r.Send(fmt.Sprintf(bad, 10+i))).To(Succeed())
				f, err := r.NextResponse(ctx)
				Expect(err).NotTo(HaveOccurred(), "no answer to %s", fmt.Sprintf(bad, 10+i))
				expectCode(f, wire.CodeInvalidRequest, fmt.Sprintf(bad, 10+i))
				Expect(f.ID()).To(Or(Equal(id), Equal("null")), "the answer to %s: want id %s or null", fmt.Sprintf(bad, 10+i), id)
			}
			for _, bad := range []string{`{"jsonrpc":"2.0","id":true,"method":"foo/bar"}`, `{"jsonrpc":"2.0","id":1.5,"method":"foo/bar"}`} {
				Expect(r.Send(bad)).To(Succeed())
				f, err := r.NextResponse(ctx)
				Expect(err).NotTo(HaveOccurred(), "no answer to %s", bad)
				expectCode(f, wire.CodeInvalidRequest, bad)
			}
			f, err := r.Call(ctx, "20", "foo/bar", "")
			Expect(err).NotTo(HaveOccurred())
			expectCode(f, wire.CodeMethodNotFound, "a request after the faults")
		})

	s.spec("a batch executes none of its elements and gets at most one -32600 with id null",
		[]string{"WIRE-006"}, func(ctx context.Context, e *runEnv) {
			r := e.initialized(ctx)
			batch := `[{"jsonrpc":"2.0","id":1,"method":"shutdown"},{"jsonrpc":"2.0","id":2,"method":"foo/bar"}]`
			batchElems := map[string]string{"1": "shutdown", "2": "foo/bar"}
			Expect(r.Send(batch)).To(Succeed())
			Expect(r.Send(`{"jsonrpc":"2.0","id":3,"method":"foo/bar"}`)).To(Succeed())
			wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			defer cancel()
			answers := 0
			for {
				f, err := r.Next(wctx)
				if err != nil {
					if strings.Contains(err.Error(), "connection ended") {
						return // the server closed the connection (§1.3)
					}
					Fail("the server neither answered the request after a batch nor closed the connection within 5000 ms")
				}
				if !f.IsResponse() {
					continue
				}
				if f.ID() != "3" {
					answers++
					if elem, ok := batchElems[f.ID()]; ok {
						if eo := f.Error(); eo == nil {
							failf("the batch's element %s (id %s) was executed: it was answered on its own with the result %s; want none of a batch's elements executed and the batch answered at most once, -32600 with id null (§1.3)", elem, f.ID(), clip(string(f.Result())))
						} else {
							failf("the batch's element %s (id %s) was answered on its own, error %d %q: the server took the batch's elements for separate requests; want the batch answered as a whole, at most once, -32600 with id null, and none of its elements executed (§1.3)", elem, f.ID(), eo.Code, eo.Message)
						}
					}
					Expect(answers).To(Equal(1), "the batch got more than one response (the latest: %s)", clip(string(f.Content)))
					Expect(f.ID()).To(Equal("null"), "the batch was answered with the id %s (%s): want at most one -32600 with id null", f.ID(), clip(string(f.Content)))
					expectCode(f, wire.CodeInvalidRequest, "the answer to a batch")
					continue
				}
				// shutdown from the batch did not run: the request is
				// answered -32601, not -32600.
				expectCode(f, wire.CodeMethodNotFound, "a request after a batch (a batch element ran if this is -32600)")
				return
			}
		})

	s.spec("a header announcing more than 67,108,864 bytes, or lacking a valid Content-Length, makes the server close within 5000 ms",
		[]string{"WIRE-007"}, func(ctx context.Context, e *runEnv) {
			for _, header := range []string{fmt.Sprintf("Content-Length: %d\r\n\r\n", wire.MaxMessageBytes+1), "Content-Type: application/json\r\n\r\n{}"} {
				r := e.initialized(ctx)
				Expect(r.Write([]byte(header))).To(Succeed())
				select {
				case <-r.Ended():
				case <-time.After(5 * time.Second):
					Fail(fmt.Sprintf("the server did not close within 5000 ms after %q", header))
				}
			}
		})

	s.spec("every request gets exactly one response with its id in the same JSON type and value",
		[]string{"WIRE-008"}, func(ctx context.Context, e *runEnv) {
			r := e.initialized(ctx)
			for _, id := range []string{"0", "7", "2147483647", `"abc"`, `"7"`} {
				f, err := r.Call(ctx, id, "foo/bar", "")
				Expect(err).NotTo(HaveOccurred(), "request id %s", id)
				Expect(f.ID()).To(Equal(id))
			}
			// Exactly one: nothing more arrives before the answer to a final
			// request.
			f, err := r.Call(ctx, "99", "foo/bar", "")
			Expect(err).NotTo(HaveOccurred(), "a second response to an earlier request arrived")
			Expect(f.ID()).To(Equal("99"))
		})

	s.spec("a request for an unknown method gets -32601; unknown notifications get nothing; the connection keeps working",
		[]string{"WIRE-009"}, func(ctx context.Context, e *runEnv) {
			r := e.initialized(ctx)
			f, err := r.Call(ctx, "1", "foo/bar", `{}`)
			Expect(err).NotTo(HaveOccurred())
			expectCode(f, wire.CodeMethodNotFound, "foo/bar")
			Expect(r.Notify("$/cancelRequest", `{"id":1}`)).To(Succeed())
			Expect(r.Notify("foo/bar", `{}`)).To(Succeed())
			f, err = r.Call(ctx, "2", "foo/baz", "")
			Expect(err).NotTo(HaveOccurred(), "a notification was answered")
			expectCode(f, wire.CodeMethodNotFound, "foo/baz")
			// A method outside §1.7 whose name is not ASCII (names are
			// case-sensitive strings, §0.4; any string is a method name):
			// still -32601, not an internal or parse error.
			f, err = r.Call(ctx, "3", exerciseUnknown, `{}`)
			Expect(err).NotTo(HaveOccurred())
			expectCode(f, wire.CodeMethodNotFound, "the unknown method "+exerciseUnknown)
		})

	s.spec("a listed method with array params, a missing member, or a member of the wrong type gets -32602",
		[]string{"WIRE-010"}, func(ctx context.Context, e *runEnv) {
			var method string
			for _, m := range []string{wire.MethodObserve, wire.MethodOpen, wire.MethodInit, wire.MethodDispose} {
				if e.Manifest.Lists(m) {
					method = m
					break
				}
			}
			if method == "" {
				if len(e.Manifest.Methods) == 0 {
					Skip(notVerified + "the manifest lists no method, and WIRE-010 binds a request to a listed method")
				}
				method = e.Manifest.Methods[0]
			}
			// Sent inside init and an attempt, as every operation check (§11):
			// the params are what is wrong, nothing else.
			ss := e.openPipelined(ctx)
			ss.attempt(ctx, false)
			for _, params := range []string{`[]`, `{}`, `{"operation":{"signal":{"id":1},"timeoutMs":"soon","runId":"r","attemptId":"a"},"signal":{"id":"x","aborted":"yes"},"timeoutMs":"soon"}`} {
				f := ss.call(ctx, ss.id(), method, params)
				expectCode(f, wire.CodeInvalidParams, method+" with params "+params)
			}
		})

	// The open runs inside init and an attempt, as every operation check
	// does (§11; an operation outside an attempt MAY get INVALID_STATE,
	// §4.0, D57). The probe is written right after the open; reading stops
	// at the first of the two answers. An open refused with an error before
	// the probe was answered was never in flight: the engine did not stage
	// the slow page, and the spec is not verified (§11 Fixture). A result
	// before the probe's answer fails: the open completed while the probe
	// waited.
	s.spec("while session/open of the slow page is in flight, a request for an unknown method is answered before it completes",
		[]string{"WIRE-011"}, func(ctx context.Context, e *runEnv) {
			ss := e.openPipelined(ctx)
			ss.attempt(ctx, false)
			open := ss.id()
			ss.write(open, wire.MethodOpen, ss.openParams(e.FixtureURL+slowPath, open, 30000))
			probe := ss.id()
			ss.write(probe, probeMethod, "")
			for !ss.answered(open) && !ss.answered(probe) {
				_, err := ss.next(ctx)
				Expect(err).NotTo(HaveOccurred(), "waiting for the answers to session/open of the slow page (id %s) and to a request for an unknown method (id %s) written after it", open, probe)
			}
			if ss.answered(open) {
				rep := ss.replies[open]
				if eo := rep.f.Error(); eo != nil {
					stagingRefused(e.FixtureURL+slowPath, eo)
				}
				failf("session/open of the slow page (id %s) was answered with a result before the request for an unknown method written right after it (id %s): want the unknown method answered while the open is in flight", open, probe)
			}
			expectCode(ss.replies[probe].f, wire.CodeMethodNotFound, "a request for an unknown method while session/open of the slow page is in flight")
			ss.abort(open, "")
			if rep, err := ss.await(ctx, open, abortBound+time.Second); err == nil {
				// A refusal that came after the probe's answer was no slow
				// page in flight either (the staging rule).
				ss.notRefused(ctx, rep.f, "")
			}
			e.observed("WIRE-011", "unknown method answered while session/open of the slow page was in flight")
		})
}

// expectSurvivesOrCloses sends a valid request after a fault: it must be
// answered normally (an answer to the fault may come first), or the server
// must close within 5000 ms.
func expectSurvivesOrCloses(ctx context.Context, r *rawConn, id, what string) {
	if err := r.Send(`{"jsonrpc":"2.0","id":` + id + `,"method":"foo/bar"}`); err != nil {
		return // already closed
	}
	wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	for {
		f, err := r.NextResponse(wctx)
		if err != nil {
			if strings.Contains(err.Error(), "connection ended") {
				return
			}
			Fail(fmt.Sprintf("after %s the server neither answered the next request, foo/bar (id %s), nor closed the connection within 5000 ms: %v", what, id, err))
		}
		if f.ID() == "null" {
			expectCode(f, wire.CodeParseError, "the answer to "+what)
			continue
		}
		if f.ID() != id {
			failf("after %s: got a response with id %s (%s) before the answer to the next request (id %s): the server executed what it could not parse (repaired it, or read it as a request); want nothing executed from it, at most a -32700 with id null (§1.3)",
				what, f.ID(), clip(string(f.Content)), id)
		}
		expectCode(f, wire.CodeMethodNotFound, "the request after "+what)
		return
	}
}

// nonASCIIText is the text the WIRE-001 cases carry: 2-, 3- and 4-byte
// UTF-8 sequences, the last outside the BMP (a UTF-16 surrogate pair), so
// that bytes, characters and UTF-16 units all count differently.
const nonASCIIText = "é–漢😀"

// within bounds one wait of a clause spec: a server that miscounts a frame
// waits for bytes that never come, and the spec must say so, not time out.
const within = 5 * time.Second

// opWithin is the timeoutMs of the operations the WIRE-001 clause spec
// sends: an engine may use all of it (a locate may start a browser), so
// the spec waits for it, aborts, and fails only after abortBound more.
const opWithin = 8000

// wireClauseSpecs are the clause-level WIRE specs (issue 9 §3): each
// exercises a clause the specs above leave out, at its boundary.
func wireClauseSpecs(s *suite) {
	s.spec("engine/observe, engine/perform, lifecycle/startAttempt, settleAttempt and endAttempt, each listed, get -32602 for string, number and null params, a missing member, a wrong type, a value outside its enum and a null member, and an invalid startAttempt opens no attempt",
		[]string{"WIRE-010"}, func(ctx context.Context, e *runEnv) {
			ss := e.openPipelined(ctx)
			if e.Manifest.Lists(wire.MethodInit) {
				Expect(string(expectResult(ss.init(ctx), "lifecycle/init"))).To(Equal("null"))
			}
			checked := 0
			for _, m := range []string{wire.MethodObserve, wire.MethodPerform, wire.MethodStartAttempt, wire.MethodSettleAttempt, wire.MethodEndAttempt} {
				if !e.Manifest.Lists(m) {
					continue
				}
				for _, c := range invalidParams(m, e.Artifacts) {
					id := ss.id()
					params := c.params
					if strings.Contains(params, "%[1]s") {
						params = fmt.Sprintf(params, id)
					}
					ss.write(id, m, params)
					rep, err := ss.await(ctx, id, within)
					Expect(err).NotTo(HaveOccurred(), "%s with %s (params %s): no answer within %d ms", m, c.what, params, within.Milliseconds())
					expectCode(rep.f, wire.CodeInvalidParams, m+" with "+c.what+" (params "+clip(params)+")")
					checked++
				}
			}
			if checked == 0 {
				skipNotVerified("the engine lists none of engine/observe, engine/perform and the attempt methods")
			}
			// "has no effect" (WIRE-010): after the invalid startAttempts no
			// attempt is open, so a valid one is not INVALID_STATE (§4.4).
			inAttempt := !e.Manifest.Lists(wire.MethodStartAttempt)
			if e.Manifest.Lists(wire.MethodStartAttempt) {
				id := ss.id()
				f := ss.call(ctx, id, wire.MethodStartAttempt, ss.startParams(false, id))
				if eo := f.Error(); eo != nil {
					Expect(dataOf(eo).Code).NotTo(Equal("INVALID_STATE"), "a valid lifecycle/startAttempt after invalid ones got INVALID_STATE %q: an invalid startAttempt opened an attempt", eo.Message)
				} else {
					inAttempt = true
				}
			}
			// "has no effect" for an operation: inside the attempt, a
			// session/open of a URL the suite watches whose timeoutMs is a
			// string gets -32602, and the URL is never reached (watched for
			// actQuietWait after the answer).
			if inAttempt && e.Manifest.Lists(wire.MethodOpen) {
				watched := e.watchURL(ctx)
				id := ss.id()
				op := strings.Replace(ss.operation(id, 30000), `"timeoutMs":30000`, `"timeoutMs":"soon"`, 1)
				params := fmt.Sprintf(`{"url":%q,"operation":%s}`, watched.url, op)
				ss.write(id, wire.MethodOpen, params)
				rep, err := ss.await(ctx, id, within)
				Expect(err).NotTo(HaveOccurred(), "session/open with operation.timeoutMs a string (params %s): no answer within %d ms", params, within.Milliseconds())
				expectCode(rep.f, wire.CodeInvalidParams, "session/open with operation.timeoutMs a string (params "+clip(params)+")")
				Expect(watched.reachedBy(ctx, time.Now().Add(actQuietWait))).To(BeZero(), "session/open of %s with operation.timeoutMs a string got -32602, but the engine reached the URL (%d connection(s)): want no effect", watched.url, watched.connections())
			}
			if e.Manifest.Lists(wire.MethodStartAttempt) {
				ss.endAttempt(ctx)
			}
		})

	// "has no effect" (WIRE-010) for engine/perform, whose cases above
	// name a ref no screen holds: on the counter screen, a tap on its
	// button whose operation is invalid (timeoutMs a string; origin
	// outside its enum) gets -32602 and the screen does not change,
	// watched for actQuietWait after the last answer. A valid tap, last,
	// must change the screen within 5 s, or a tap's effect is not
	// observable on this engine and the clause stays not verified.
	s.specFixture("an engine/perform tap on the counter screen's button whose operation.timeoutMs is a string, whose operation.origin is outside its enum, or whose valid params come wrapped in a one-element array, gets -32602 and leaves the counter unchanged",
		[]string{"WIRE-010"}, func(ctx context.Context, e *runEnv) {
			if !e.Manifest.Lists(wire.MethodPerform) {
				Skip(notApplicable + "the engine does not list engine/perform (WIRE-010 binds listed methods)")
			}
			e.fxNeed("to stage the counter screen and read it", wire.MethodOpen, wire.MethodObserve)
			ss := e.openPipelined(ctx)
			ss.attempt(ctx, false)
			observe := func(what string) *wire.EngineSnapshot {
				id := ss.id()
				raw := expectResult(ss.call(ctx, id, wire.MethodObserve, `{"operation":`+ss.operation(id, 30000)+`}`), what)
				var snap wire.EngineSnapshot
				Expect(json.Unmarshal(raw, &snap)).To(Succeed(), "%s: the result is not an EngineSnapshot", what)
				return &snap
			}
			// observeUntil polls the screen (as the harness does) until it
			// shows what ok wants, or leaves the spec not verified after 5 s.
			observeUntil := func(what string, ok func(*wire.EngineSnapshot) bool, unseen string) *wire.EngineSnapshot {
				for deadline := time.Now().Add(5 * time.Second); ; actPause(ctx, actPollEvery) {
					if snap := observe(what); ok(snap) {
						return snap
					}
					if time.Now().After(deadline) {
						skipNotVerified(unseen)
					}
				}
			}
			id := ss.id()
			if eo := ss.call(ctx, id, wire.MethodOpen, ss.openParams(e.FixtureURL+counterPath, id, 30000)).Error(); eo != nil {
				skipNotVerified(fmt.Sprintf("session/open of the counter screen got error %d %q", eo.Code, eo.Message))
			}
			snap := observeUntil("engine/observe of the counter screen",
				func(s *wire.EngineSnapshot) bool { return findText(&s.Root, counterMarker) != nil },
				fmt.Sprintf("the counter screen did not show its marker %q within 5 s", counterMarker))
			btn := counterTap(snap)
			if btn == nil {
				skipNotVerified(fmt.Sprintf("the counter screen shows no button named %q", counterTapName))
			}
			ref, err := json.Marshal(btn.Ref)
			Expect(err).NotTo(HaveOccurred())
			before := screenText(snap)
			tap := func(op string) string {
				return fmt.Sprintf(`{"ref":%s,"action":{"kind":"tap"},"operation":%s}`, ref, op)
			}
			const rule = `§4.0: "Params that break the method's schema are answered with -32602 and have no effect."`
			for _, c := range []struct{ what, from, to string }{
				{"operation.timeoutMs a string", `"timeoutMs":30000`, `"timeoutMs":"soon"`},
				{"operation.origin outside its enum", `"origin":"test"`, `"origin":"robot"`},
			} {
				id := ss.id()
				params := tap(strings.Replace(ss.operation(id, 30000), c.from, c.to, 1))
				ss.write(id, wire.MethodPerform, params)
				rep, err := ss.await(ctx, id, within)
				Expect(err).NotTo(HaveOccurred(), "engine/perform tap with %s (params %s): no answer within %d ms", c.what, params, within.Milliseconds())
				expectCode(rep.f, wire.CodeInvalidParams, "engine/perform tap on the counter's button with "+c.what+" (params "+clip(params)+")")
				Expect(screenText(observe("engine/observe after the invalid tap"))).To(Equal(before), "the counter screen changed after an engine/perform tap with %s got -32602: want no effect (%s)", c.what, rule)
			}
			// The valid tap's params wrapped in a one-element array (§1.4:
			// "Array params are answered with -32602").
			id = ss.id()
			params := "[" + tap(ss.operation(id, 30000)) + "]"
			ss.write(id, wire.MethodPerform, params)
			rep, err := ss.await(ctx, id, within)
			Expect(err).NotTo(HaveOccurred(), "engine/perform tap with its valid params wrapped in a one-element array (params %s): no answer within %d ms", params, within.Milliseconds())
			expectCode(rep.f, wire.CodeInvalidParams, "engine/perform tap on the counter's button with its valid params wrapped in a one-element array (params "+clip(params)+")")
			Expect(screenText(observe("engine/observe after the wrapped tap"))).To(Equal(before), "the counter screen changed after an engine/perform tap with its params wrapped in a one-element array got -32602: want no effect (%s)", rule)
			watchQuietly(ctx, time.Now(), func() {
				Expect(screenText(observe("engine/observe after the invalid taps"))).To(Equal(before), "the counter screen changed within %d ms after the invalid taps got -32602: want no effect (%s)", actQuietWait.Milliseconds(), rule)
			})
			// The control: a valid tap changes the screen.
			id = ss.id()
			if eo := ss.call(ctx, id, wire.MethodPerform, tap(ss.operation(id, 30000))).Error(); eo != nil {
				skipNotVerified(fmt.Sprintf("a valid tap on the counter's button got error %d %q, so a tap's effect could not be seen", eo.Code, eo.Message))
			}
			observeUntil("engine/observe after the valid tap",
				func(s *wire.EngineSnapshot) bool { return screenText(s) != before },
				"a valid tap on the counter's button did not change the counter screen within 5 s: a tap's effect is not observable, so the unchanged screen after the invalid taps shows nothing")
			e.observed("WIRE-010", "invalid engine/perform taps left the counter unchanged; a valid one changed it")
			ss.endAttempt(ctx)
		})

	s.spec("header parts with charset utf8, UTF-8 and Utf8, with Content-Type before Content-Length, and with a field the server does not know are each read and answered",
		[]string{"WIRE-003"}, func(ctx context.Context, e *runEnv) {
			// §1.1: the header part is "one or more header fields" in no
			// set order; "a receiver accepts utf-8 and utf8 in any letter
			// case"; "Receivers ignore fields they do not know". Each field
			// is "Name: value": the suite writes the space after the colon,
			// which the grammar shows, and checks no header without it.
			type variant struct{ what, header string }
			cases := []variant{
				{"Content-Type with charset=utf8", "Content-Length: %d\r\nContent-Type: application/vscode-jsonrpc; charset=utf8\r\n\r\n"},
				{"Content-Type with charset=UTF-8", "Content-Length: %d\r\nContent-Type: application/vscode-jsonrpc; charset=UTF-8\r\n\r\n"},
				{"Content-Type with charset=Utf8", "Content-Length: %d\r\nContent-Type: application/vscode-jsonrpc; charset=Utf8\r\n\r\n"},
				{"Content-Type before Content-Length", "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: %d\r\n\r\n"},
				{"an unknown field X-E2E-Conform before Content-Length", "X-E2E-Conform: 1\r\nContent-Length: %d\r\n\r\n"},
				{"an unknown field X-E2E-Conform after Content-Length", "Content-Length: %d\r\nX-E2E-Conform: 1\r\n\r\n"},
			}
			r := e.initialized(ctx)
			ss := &pipelinedConn{e: e, r: r, replies: map[string]reply{}, sent: map[string]string{}}
			ids := make([]string, len(cases))
			for i, c := range cases {
				ids[i] = ss.id()
				ss.sent[ids[i]] = "foo/bar"
				content := `{"jsonrpc":"2.0","id":` + ids[i] + `,"method":"foo/bar"}`
				Expect(r.Write([]byte(fmt.Sprintf(c.header, len(content))+content))).To(Succeed(), "writing a request with %s", c.what)
			}
			for i, c := range cases {
				rep, err := ss.await(ctx, ids[i], within)
				if err != nil {
					failf("a request for foo/bar framed with %s (header %q): want -32601 within %d ms, got no answer (%v); the server answered the requests framed with: %s",
						c.what, strings.ReplaceAll(c.header, "%d", "N"), within.Milliseconds(), err, answeredCases(ss, ids, func(i int) string { return cases[i].what }))
				}
				expectCode(rep.f, wire.CodeMethodNotFound, "a request for foo/bar framed with "+c.what)
			}
		})

	s.spec("requests carrying non-ASCII and non-BMP text (clientInfo.name, an unknown method's name, runId, attemptId, a locate query) are read by their byte length, and every non-ASCII frame the server writes has a Content-Length in bytes",
		[]string{"WIRE-001"}, func(ctx context.Context, e *runEnv) {
			// §1.1: "Content-Length (REQUIRED): the length of the content
			// part in bytes"; the content part is UTF-8. A server counting
			// characters or UTF-16 units reads too far (it waits, or eats
			// the next frame) and writes too short a length.
			before := len(e.Violations("WIRE-001"))
			r := e.raw(ctx)
			ss := &pipelinedConn{e: e, r: r, replies: map[string]reply{}, sent: map[string]string{}}
			init := `{"protocolVersion":1,"clientInfo":{"name":"e2e-conform ` + nonASCIIText + `"},"role":"worker"}`
			ss.write("0", wire.MethodInitialize, init)
			rep, err := ss.await(ctx, "0", within)
			if err != nil {
				failf("initialize with clientInfo.name %q: want an answer within %d ms, got none (%v): a server that counts characters, not bytes, waits for content that never comes", "e2e-conform "+nonASCIIText, within.Milliseconds(), err)
			}
			expectResult(rep.f, "initialize with a non-ASCII clientInfo.name")
			Expect(r.Notify(wire.MethodInitialized, "{}")).To(Succeed())
			// An unknown method whose name is non-ASCII, and a plain
			// request in the same write: a server that reads the first
			// frame by characters eats the second one's header.
			odd, plain := ss.id(), ss.id()
			ss.sent[odd], ss.sent[plain] = "unknown", "unknown"
			msg := append(framed(`{"jsonrpc":"2.0","id":`+odd+`,"method":"e2e-conform/`+nonASCIIText+`"}`), framed(`{"jsonrpc":"2.0","id":`+plain+`,"method":"foo/bar"}`)...)
			Expect(r.Write(msg)).To(Succeed())
			for _, id := range []string{odd, plain} {
				rep, err := ss.await(ctx, id, within)
				if err != nil {
					failf("a request for the unknown method %q followed, in the same write, by one for foo/bar: want both answered -32601 within %d ms, request %s got no answer (%v)", "e2e-conform/"+nonASCIIText, within.Milliseconds(), id, err)
				}
				expectCode(rep.f, wire.CodeMethodNotFound, "a request for an unknown method (the first one named with non-ASCII text), its frame read by bytes")
			}
			// runId and attemptId (the attempt/* notifications carry the
			// latter back), and a locate query naming non-ASCII text.
			ss.op.RunID = "run-" + nonASCIIText
			if e.Manifest.Lists(wire.MethodInit) {
				Expect(string(expectResult(ss.init(ctx), "lifecycle/init with runId "+ss.op.RunID))).To(Equal("null"))
			}
			if e.Manifest.Lists(wire.MethodStartAttempt) {
				dir, err := os.MkdirTemp(e.Artifacts, "attempt-non-ascii-")
				Expect(err).NotTo(HaveOccurred())
				ss.op.AttemptID = e.nextID("attempt-" + nonASCIIText)
				ss.open = ss.op.AttemptID
				id := ss.id()
				ss.write(id, wire.MethodStartAttempt, fmt.Sprintf(`{"attemptId":%q,"artifactsDir":%q,"signal":{"id":%s},"screens":true}`, ss.op.AttemptID, dir, id))
				// No bound but the spec's: startAttempt may start a browser.
				rep, err := ss.await(ctx, id, 0)
				Expect(err).NotTo(HaveOccurred(), "lifecycle/startAttempt with attemptId %q: no answer", ss.op.AttemptID)
				expectResult(rep.f, "lifecycle/startAttempt with attemptId "+ss.op.AttemptID)
			}
			if e.Manifest.Lists(wire.MethodLocate) {
				id := ss.id()
				q := `{"kind":"query","query":{"kind":"text","value":{"kind":"string","value":"` + nonASCIIText + `","exact":false}}}`
				ss.write(id, wire.MethodLocate, `{"expression":`+q+`,"operation":`+ss.operation(id, opWithin)+`}`)
				rep, err := ss.awaitOp(ctx, id, opWithin)
				Expect(err).NotTo(HaveOccurred(), "engine/locate of the text %q (a frame misread leaves the server waiting for bytes)", nonASCIIText)
				if eo := rep.f.Error(); eo != nil {
					// The engine may fail the locate (no page open: INVALID_STATE);
					// it must not have misread the frame.
					Expect(eo.Code).NotTo(BeElementOf(wire.CodeParseError, wire.CodeInvalidRequest, wire.CodeInvalidParams),
						"engine/locate of the text %q, a valid request: want a result or an engine error, got %d %q (the frame was misread)", nonASCIIText, eo.Code, eo.Message)
				}
			}
			// In the full profile the tree screen shows non-ASCII text
			// (fixture.AccentText, and LongText's surrogate pair), which the
			// server must write back in an observation.
			if e.cfg.profile() == ProfileFull && e.Manifest.Lists(wire.MethodOpen) && e.Manifest.Lists(wire.MethodObserve) {
				id := ss.id()
				ss.write(id, wire.MethodOpen, ss.openParams(e.FixtureURL+fixture.Tree().Path, id, 30000))
				if rep, err := ss.await(ctx, id, 10*time.Second); err == nil && rep.f.Error() == nil {
					for i := 0; i < 50; i++ {
						id := ss.id()
						ss.write(id, wire.MethodObserve, `{"operation":`+ss.operation(id, opWithin)+`}`)
						rep, err := ss.awaitOp(ctx, id, opWithin)
						Expect(err).NotTo(HaveOccurred(), "engine/observe of the tree screen (non-ASCII text; a frame misread leaves the server waiting for bytes)")
						if rep.f.Error() != nil || strings.Contains(string(rep.f.Content), fixture.AccentText) {
							break
						}
						actPause(ctx, 100*time.Millisecond) // polling an observation, the harness's own way
					}
				}
			}
			v := e.Violations("WIRE-001")
			Expect(v[min(before, len(v)):]).To(BeEmpty(), "frames the server wrote while the suite sent non-ASCII text")
			if e.specObserved("WIRE-001") == 0 {
				AddReportEntry("note", "no non-ASCII frame from the server could be provoked (no echo of the non-ASCII names, no attempt/* message, no fixture text): the server's byte counting on writes is not checked")
			}
		})
}

// paramsCase is one invalid params of WIRE-010: what it breaks and the
// params, "%s" standing for a valid operation.
type paramsCase struct{ what, params string }

// invalidParams are the WIRE-010 cases for method, built around its valid
// params: "params not an object, a required member missing, a member of
// the wrong type or outside its enum, a null where not allowed" (§2.7).
func invalidParams(method, artifacts string) []paramsCase {
	common := []paramsCase{
		{"string params", `"params"`},
		{"number params", `7`},
		{"null params (the method has required members)", `null`},
		{"empty params (every required member missing)", `{}`},
	}
	// op is a valid operation with one member replaced (name, raw JSON),
	// written once: a JSON object with a repeated name is ambiguous.
	op := func(change ...string) string {
		members := [][2]string{{"signal", `{"id":%[1]s}`}, {"timeoutMs", "30000"}, {"runId", `"run-x"`}, {"attemptId", `"attempt-x"`}, {"origin", `"test"`}}
		var b strings.Builder
		for i, m := range members {
			if len(change) == 2 && change[0] == m[0] {
				m[1] = change[1]
			}
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`"` + m[0] + `":` + m[1])
		}
		return "{" + b.String() + "}"
	}
	switch method {
	case wire.MethodObserve:
		return append(common,
			paramsCase{"operation.timeoutMs a string", `{"operation":` + op("timeoutMs", `"soon"`) + `}`},
			paramsCase{"operation.origin outside its enum", `{"operation":` + op("origin", `"robot"`) + `}`},
			paramsCase{"operation.runId null", `{"operation":` + op("runId", "null") + `}`},
			paramsCase{"operation.signal null", `{"operation":` + op("signal", "null") + `}`},
			paramsCase{"options.pixels a string", `{"operation":` + op() + `,"options":{"pixels":"yes"}}`},
		)
	case wire.MethodPerform:
		ref := `"ref":{"id":"e2e-conform-none","revision":""}`
		return append(common,
			paramsCase{"the operation missing", `{` + ref + `,"action":{"kind":"tap"}}`},
			paramsCase{"action.kind outside its enum", `{` + ref + `,"action":{"kind":"teleport"},"operation":` + op() + `}`},
			paramsCase{"swipe direction outside its enum", `{` + ref + `,"action":{"kind":"swipe","direction":"sideways"},"operation":` + op() + `}`},
			paramsCase{"ref null", `{"ref":null,"action":{"kind":"tap"},"operation":` + op() + `}`},
			paramsCase{"action a string", `{` + ref + `,"action":"tap","operation":` + op() + `}`},
		)
	case wire.MethodStartAttempt:
		return append(common,
			paramsCase{"screens a string", fmt.Sprintf(`{"attemptId":"bad-screens","artifactsDir":%q,"signal":{"id":%%[1]s},"screens":"yes"}`, artifacts)},
			paramsCase{"attemptId null", fmt.Sprintf(`{"attemptId":null,"artifactsDir":%q,"signal":{"id":%%[1]s},"screens":false}`, artifacts)},
			paramsCase{"artifactsDir missing", `{"attemptId":"no-dir","signal":{"id":%[1]s},"screens":false}`},
			paramsCase{"signal.id a boolean", fmt.Sprintf(`{"attemptId":"bad-signal","artifactsDir":%q,"signal":{"id":true},"screens":false}`, artifacts)},
		)
	case wire.MethodSettleAttempt, wire.MethodEndAttempt:
		return append(common,
			paramsCase{"timeoutMs a string", `{"signal":{"id":%[1]s},"timeoutMs":"soon"}`},
			paramsCase{"timeoutMs missing", `{"signal":{"id":%[1]s}}`},
			paramsCase{"signal null", `{"signal":null,"timeoutMs":5000}`},
		)
	}
	return common
}

// answeredCases lists the cases whose request (ids[i]) the session has
// read an answer to.
func answeredCases(ss *pipelinedConn, ids []string, what func(i int) string) string {
	var got []string
	for i, id := range ids {
		if ss.answered(id) {
			got = append(got, what(i))
		}
	}
	if len(got) == 0 {
		return "none"
	}
	return strings.Join(got, "; ")
}
