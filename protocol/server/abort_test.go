package server_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/e2e-conform/toolkit/protocol/server"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

const timeoutReason = `{"code":-32000,"message":"test timed out after 120000 ms","data":{"type":"e2e","category":"test","code":"TEST_TIMEOUT","retryable":false}}`

func openSlow(id, sig string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"session/open","params":{"url":"http://slow/","operation":` + op(sig) + `}}`
}

func TestAbortedAtSend(t *testing.T) {
	// SIG-001/SIG-002, D24: answered at once without calling the engine,
	// with the reason verbatim, or CANCELLED without one.
	e := newProbe()
	p := servePeer(t, e, server.Options{})
	p.initialize()
	p.send(openSlow("1", `{"id":1,"aborted":true,"reason":`+timeoutReason+`}`))
	eo := p.wantCode("1", -32000)
	got, _ := json.Marshal(eo)
	if !jsonEqual(t, got, []byte(timeoutReason)) {
		t.Fatalf("reason not verbatim:\n got %s\nwant %s", got, timeoutReason)
	}
	p.send(openSlow("2", `{"id":2,"aborted":true}`))
	wantEngineCode(t, p.wantCode("2", -32000), "CANCELLED", false)
	if n := e.count(wire.MethodOpen); n != 0 {
		t.Fatalf("engine called %d times for aborted requests", n)
	}
}

func TestAbortMidCall(t *testing.T) {
	cases := []struct {
		name, abort string
		check       func(t *testing.T, eo *wire.ErrorObject)
	}{
		// SIG-004: with a reason, the error equals the reason.
		{"with reason", `{"jsonrpc":"2.0","method":"$/abort","params":{"id":5,"reason":` + timeoutReason + `}}`, func(t *testing.T, eo *wire.ErrorObject) {
			got, _ := json.Marshal(eo)
			if !jsonEqual(t, got, []byte(timeoutReason)) {
				t.Fatalf("got %s", got)
			}
		}},
		// SIG-006: without a reason, CANCELLED.
		{"without reason", `{"jsonrpc":"2.0","method":"$/abort","params":{"id":5}}`, func(t *testing.T, eo *wire.ErrorObject) {
			wantEngineCode(t, eo, "CANCELLED", false)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newProbe()
			p := servePeer(t, e, server.Options{})
			p.initialize()
			p.send(openSlow("1", `{"id":5}`))
			<-e.started
			start := time.Now()
			p.send(tc.abort)
			_, eo := p.response("1")
			if eo == nil {
				t.Fatal("aborted request succeeded")
			}
			tc.check(t, eo)
			if d := time.Since(start); d > 2*time.Second {
				t.Fatalf("answered %s after the abort (§7.7 allows 2000 ms)", d)
			}
		})
	}
}

func TestAbortInSameWrite(t *testing.T) {
	// SIG-008: a request and its $/abort in one write: the abort applies.
	e := newProbe()
	p := servePeer(t, e, server.Options{})
	p.initialize()
	p.write(frame(openSlow("1", `{"id":5}`)) + frame(`{"jsonrpc":"2.0","method":"$/abort","params":{"id":5}}`))
	wantEngineCode(t, p.wantCode("1", -32000), "CANCELLED", false)
}

func TestSharedSignal(t *testing.T) {
	// SIG-009: one abort answers both requests sharing the id.
	e := newProbe()
	p := servePeer(t, e, server.Options{})
	p.initialize()
	p.send(openSlow("1", `{"id":"s"}`))
	p.send(`{"jsonrpc":"2.0","id":2,"method":"engine/perform","params":{"ref":{"id":"n","revision":""},"action":{"kind":"tap"},"operation":` + op(`{"id":"s"}`) + `}}`)
	<-e.started
	<-e.started
	p.send(`{"jsonrpc":"2.0","method":"$/abort","params":{"id":"s"}}`)
	got := map[string]bool{}
	for i := 0; i < 2; i++ {
		m := p.next()
		got[string(m["id"])] = m["error"] != nil
	}
	if !got["1"] || !got["2"] {
		t.Fatalf("responses %v", got)
	}
}

func TestUnknownAbortAndIDReuse(t *testing.T) {
	// SIG-007: an abort for an unknown id gets nothing and disturbs nothing.
	// SIG-010: a forgotten id reused is a new live signal.
	e := newProbe()
	p := servePeer(t, e, server.Options{})
	p.initialize()
	p.send(`{"jsonrpc":"2.0","method":"$/abort","params":{"id":424242}}`)
	p.send(openSlow("1", `{"id":7}`))
	<-e.started
	p.send(`{"jsonrpc":"2.0","method":"$/abort","params":{"id":7}}`)
	p.wantCode("1", -32000)
	p.send(`{"jsonrpc":"2.0","id":2,"method":"session/open","params":{"url":"http://fast/","operation":` + op(`{"id":7}`) + `}}`)
	p.wantResult("2", "null") // the reused id is live, not aborted
	p.send(openSlow("3", `{"id":7}`))
	<-e.started
	<-e.started
	p.send(`{"jsonrpc":"2.0","method":"$/abort","params":{"id":7}}`)
	p.wantCode("3", -32000)
}

func TestErrorAfterAbortIsNotRetryable(t *testing.T) {
	// SIG-005: an engine answering a retryable error after the abort is
	// written non-retryable.
	e := newProbe()
	p := servePeer(t, e, server.Options{})
	p.initialize()
	p.send(`{"jsonrpc":"2.0","id":1,"method":"session/open","params":{"url":"http://stale/","operation":` + op(`{"id":3}`) + `}}`)
	<-e.started
	p.send(`{"jsonrpc":"2.0","method":"$/abort","params":{"id":3}}`)
	wantEngineCode(t, p.wantCode("1", -32000), "NODE_STALE", false)
}
