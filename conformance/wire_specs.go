package conformance

import (
	"context"
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/e2e-conform/toolkit/protocol/wire"
)

// Wire and framing: spec §1; catalog WIRE (WIRE-001, -002, -012 and -013
// are checked on every message by the run-wide checks).
func wireSpecs(s *suite) {
	s.spec("a message split across writes, 50 ms apart, several messages in one write, and a Content-Type field are handled",
		[]string{"WIRE-003"}, func(ctx context.Context, e *Env) {
			r := e.initialized(ctx)
			msg := Framed(`{"jsonrpc":"2.0","id":1,"method":"foo/bar","params":{}}`)
			for _, part := range [][]byte{msg[:9], msg[9:30], msg[30:]} {
				Expect(r.Write(part)).To(Succeed())
				time.Sleep(50 * time.Millisecond) // the split the requirement names, not synchronisation
			}
			f, err := r.Response(ctx, "1")
			Expect(err).NotTo(HaveOccurred())
			expectCode(f, wire.CodeMethodNotFound, "a split request")
			two := append(append([]byte("Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n"), Framed(`{"jsonrpc":"2.0","id":2,"method":"foo/bar"}`)...),
				Framed(`{"jsonrpc":"2.0","id":3,"method":"foo/bar"}`)...)
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
		[]string{"WIRE-004"}, func(ctx context.Context, e *Env) {
			for _, bad := range []string{`{"jsonrpc":"2.0","id":1,"method":`, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"foo/\xff\"}"} {
				r := e.initialized(ctx)
				Expect(r.Send(bad)).To(Succeed())
				expectSurvivesOrCloses(ctx, r, "2", "content that is not UTF-8 JSON")
			}
		})

	s.spec("a JSON object that is not a JSON-RPC 2.0 message gets -32600 and the connection keeps working",
		[]string{"WIRE-005"}, func(ctx context.Context, e *Env) {
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
		[]string{"WIRE-006"}, func(ctx context.Context, e *Env) {
			r := e.initialized(ctx)
			batch := `[{"jsonrpc":"2.0","id":1,"method":"shutdown"},{"jsonrpc":"2.0","id":2,"method":"foo/bar"}]`
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
					Expect(answers).To(Equal(1), "the batch got more than one response")
					Expect(f.ID()).To(Equal("null"), "the batch was answered with an id other than null")
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
		[]string{"WIRE-007"}, func(ctx context.Context, e *Env) {
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
		[]string{"WIRE-008"}, func(ctx context.Context, e *Env) {
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
		[]string{"WIRE-009"}, func(ctx context.Context, e *Env) {
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
		[]string{"WIRE-010"}, func(ctx context.Context, e *Env) {
			var method string
			for _, m := range []string{wire.MethodObserve, wire.MethodOpen, wire.MethodInit, wire.MethodDispose} {
				if e.Manifest.Lists(m) {
					method = m
					break
				}
			}
			if method == "" {
				method = e.Manifest.Methods[0]
			}
			// Sent inside init and an attempt, as every operation check (§11):
			// the params are what is wrong, nothing else.
			ss := e.session(ctx)
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
		[]string{"WIRE-011"}, func(ctx context.Context, e *Env) {
			ss := e.session(ctx)
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
func expectSurvivesOrCloses(ctx context.Context, r *Raw, id, what string) {
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
			Fail(fmt.Sprintf("after %s the server neither answered the next request nor closed within 5000 ms: %v", what, err))
		}
		if f.ID() == "null" {
			expectCode(f, wire.CodeParseError, "the answer to "+what)
			continue
		}
		Expect(f.ID()).To(Equal(id), "after %s", what)
		expectCode(f, wire.CodeMethodNotFound, "the request after "+what)
		return
	}
}
