package server_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/e2e-conform/toolkit/protocol/server"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

func TestMethodAndParamsChecks(t *testing.T) {
	p := servePeer(t, newProbe(), server.Options{})
	p.initialize()
	cases := []struct {
		name, req string
		code      int64
	}{
		// WIRE-009: a method outside §1.7.
		{"unknown method", `{"jsonrpc":"2.0","id":1,"method":"foo/bar","params":{}}`, wire.CodeMethodNotFound},
		// MAN-003: an ENGINE_METHODS member the manifest does not list.
		{"unlisted engine method", `{"jsonrpc":"2.0","id":1,"method":"keyboard/type","params":{}}`, wire.CodeMethodNotFound},
		// WIRE-010: array params, missing member, wrong type, outside enum, null.
		{"array params", `{"jsonrpc":"2.0","id":1,"method":"engine/observe","params":[]}`, wire.CodeInvalidParams},
		{"missing operation", `{"jsonrpc":"2.0","id":1,"method":"engine/observe","params":{}}`, wire.CodeInvalidParams},
		{"wrong type", `{"jsonrpc":"2.0","id":1,"method":"engine/observe","params":{"operation":{"signal":{"id":1},"timeoutMs":"x","runId":"r","attemptId":"a"}}}`, wire.CodeInvalidParams},
		{"outside enum", `{"jsonrpc":"2.0","id":1,"method":"engine/perform","params":{"ref":{"id":"n","revision":""},"action":{"kind":"teleport"},"operation":` + op(`{"id":1}`) + `}}`, wire.CodeInvalidParams},
		{"null optional", `{"jsonrpc":"2.0","id":1,"method":"engine/observe","params":{"options":null,"operation":` + op(`{"id":1}`) + `}}`, wire.CodeInvalidParams},
		// KEY-005 / D64: a key outside the grammar.
		{"bad key", `{"jsonrpc":"2.0","id":1,"method":"engine/perform","params":{"ref":{"id":"n","revision":""},"action":{"kind":"press","key":"Ctrl+a"},"operation":` + op(`{"id":1}`) + `}}`, wire.CodeInvalidParams},
		// §5.6: non-canonical regexp flags.
		{"flags order", `{"jsonrpc":"2.0","id":1,"method":"engine/locate","params":{"expression":{"kind":"query","query":{"kind":"text","value":{"kind":"regexp","source":"a","flags":"ig"}}},"operation":` + op(`{"id":1}`) + `}}`, wire.CodeInvalidParams},
		// D47: a role query with a regexp value.
		{"role regexp", `{"jsonrpc":"2.0","id":1,"method":"engine/locate","params":{"expression":{"kind":"query","query":{"kind":"role","value":{"kind":"regexp","source":"b","flags":""}}},"operation":` + op(`{"id":1}`) + `}}`, wire.CodeInvalidParams},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p.send(tc.req)
			p.wantCode("1", tc.code)
		})
	}
	// Unknown notifications get nothing: the next response is the next
	// request's.
	p.send(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}`)
	p.send(`{"jsonrpc":"2.0","method":"foo/bar"}`)
	p.send(`{"jsonrpc":"2.0","id":2,"method":"engine/observe","params":{"operation":` + op(`{"id":1}`) + `}}`)
	p.wantResult("2", "")
}

func TestMalformedInputKeepsServing(t *testing.T) {
	// WIRE-004, WIRE-005, WIRE-006: content faults are answered and the
	// connection keeps working; a batch executes nothing.
	e := newProbe()
	p := servePeer(t, e, server.Options{})
	p.initialize()
	p.send(`{"jsonrpc":"2.0","id":1,`)
	p.wantCode("null", wire.CodeParseError)
	p.send(`[{"jsonrpc":"2.0","id":2,"method":"engine/observe","params":{"operation":` + op(`{"id":1}`) + `}}]`)
	p.wantCode("null", wire.CodeInvalidRequest)
	p.send(`{"jsonrpc":"1.0","id":3,"method":"engine/observe"}`)
	p.wantCode("3", wire.CodeInvalidRequest)
	p.send(`{"jsonrpc":"2.0","id":true,"method":"engine/observe"}`)
	p.wantCode("null", wire.CodeInvalidRequest)
	p.send(`{"jsonrpc":"2.0","id":4,"method":"engine/observe","params":{"operation":` + op(`{"id":1}`) + `}}`)
	p.wantResult("4", "")
	if n := e.count(wire.MethodObserve); n != 1 {
		t.Fatalf("engine observed %d times, want 1 (nothing from the batch)", n)
	}
}

func TestSplitAndCoalescedFrames(t *testing.T) {
	// WIRE-003: a frame split inside the header and the content, written
	// apart, and several frames in one write, with a Content-Type field.
	p := servePeer(t, newProbe(), server.Options{})
	p.initialize()
	req := frame(`{"jsonrpc":"2.0","id":1,"method":"engine/observe","params":{"operation":` + op(`{"id":1}`) + `}}`)
	p.write(req[:7])
	time.Sleep(20 * time.Millisecond) // the split must survive a pause (the point of the test, not synchronisation)
	p.write(req[7:40])
	p.write(req[40:])
	p.wantResult("1", "")
	two := "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n" +
		frame(`{"jsonrpc":"2.0","id":2,"method":"engine/observe","params":{"operation":`+op(`{"id":2}`)+`}}`) +
		frame(`{"jsonrpc":"2.0","id":3,"method":"engine/observe","params":{"operation":`+op(`{"id":3}`)+`}}`)
	p.write(two)
	got := map[string]bool{}
	for i := 0; i < 2; i++ { // responses may come in any order (§1.4)
		m := p.next()
		got[string(m["id"])] = m["result"] != nil
	}
	if !got["2"] || !got["3"] {
		t.Fatalf("responses %v", got)
	}
}

func TestOversizedHeaderClosesConnection(t *testing.T) {
	// WIRE-007, §1.2: the server closes without waiting for the content.
	p := servePeer(t, newProbe(), server.Options{})
	p.initialize()
	p.write(fmt.Sprintf("Content-Length: %d\r\n\r\n", wire.MaxMessageBytes+1))
	p.wantCode("null", wire.CodeInvalidRequest)
	p.closed(5 * time.Second)
}

func TestIDsEchoedExactly(t *testing.T) {
	// WIRE-008: ids come back with the same JSON type and value, negative
	// and zero included; a duplicate pending id is refused.
	p := servePeer(t, newProbe(), server.Options{})
	p.initialize()
	for _, id := range []string{`0`, `"0"`, `2147483647`, `-5`, `"abc"`} {
		p.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"engine/observe","params":{"operation":` + op(`{"id":1}`) + `}}`)
		p.wantResult(id, "")
	}
}

func TestDuplicatePendingID(t *testing.T) {
	e := newProbe()
	p := servePeer(t, e, server.Options{})
	p.initialize()
	p.send(`{"jsonrpc":"2.0","id":1,"method":"session/open","params":{"url":"http://slow/","operation":` + op(`{"id":9}`) + `}}`)
	<-e.started
	p.send(`{"jsonrpc":"2.0","id":1,"method":"engine/observe","params":{"operation":` + op(`{"id":2}`) + `}}`)
	eo := p.wantCode("1", wire.CodeInvalidRequest)
	if !strings.Contains(eo.Message, "already pending") {
		t.Fatalf("message %q", eo.Message)
	}
	p.send(`{"jsonrpc":"2.0","method":"$/abort","params":{"id":9}}`)
	p.wantCode("1", -32000)
}

func TestPanicBecomesEngineFailure(t *testing.T) {
	// A panic in engine code is an engine ENGINE_FAILURE with its stack,
	// never a crash.
	p := servePeer(t, newProbe(), server.Options{})
	p.initialize()
	p.send(`{"jsonrpc":"2.0","id":1,"method":"engine/locate","params":{"expression":{"kind":"selector","selector":"a"},"operation":` + op(`{"id":1}`) + `}}`)
	eo := p.wantCode("1", -32000)
	wantEngineCode(t, eo, "ENGINE_FAILURE", false)
	if !strings.Contains(eo.Message, "locate exploded") || !strings.Contains(string(eo.Data), "(*probe).Locate") {
		t.Fatalf("message %q, data %s", eo.Message, eo.Data)
	}
	p.send(`{"jsonrpc":"2.0","id":2,"method":"engine/observe","params":{"operation":` + op(`{"id":2}`) + `}}`)
	p.wantResult("2", "")
}

func TestCoercionAndUndeclaredKinds(t *testing.T) {
	p := servePeer(t, newProbe(), server.Options{})
	p.initialize()
	// ERR-003: a retryable NOT_ACTIONABLE is written as ENGINE_FAILURE.
	p.send(`{"jsonrpc":"2.0","id":1,"method":"engine/perform","params":{"ref":{"id":"n","revision":""},"action":{"kind":"press","key":"Enter"},"operation":` + op(`{"id":1}`) + `}}`)
	wantEngineCode(t, p.wantCode("1", -32000), "ENGINE_FAILURE", false)
	// ACT-015: a kind missing from actions.
	p.send(`{"jsonrpc":"2.0","id":2,"method":"engine/perform","params":{"ref":{"id":"n","revision":""},"action":{"kind":"hover"},"operation":` + op(`{"id":2}`) + `}}`)
	wantEngineCode(t, p.wantCode("2", -32000), "UNSUPPORTED_CAPABILITY", false)
	// ACT-018: modifiers without tapModifiers.
	p.send(`{"jsonrpc":"2.0","id":3,"method":"engine/perform","params":{"ref":{"id":"n","revision":""},"action":{"kind":"tap","modifiers":["Shift"]},"operation":` + op(`{"id":3}`) + `}}`)
	wantEngineCode(t, p.wantCode("3", -32000), "UNSUPPORTED_CAPABILITY", false)
}

func TestResultOverLimit(t *testing.T) {
	// §1.2: a result above the limit is ENGINE_FAILURE naming the size.
	p := servePeer(t, newProbe(), server.Options{MaxMessageBytes: 2000})
	p.initialize()
	p.send(`{"jsonrpc":"2.0","id":1,"method":"engine/observe","params":{"operation":{"signal":{"id":1},"timeoutMs":1,"runId":"big","attemptId":"a"}}}`)
	eo := p.wantCode("1", -32000)
	if !strings.Contains(eo.Message, "bytes exceeds") {
		t.Fatalf("message %q", eo.Message)
	}
	var d map[string]any
	_ = json.Unmarshal(eo.Data, &d)
	if d["code"] != "ENGINE_FAILURE" {
		t.Fatalf("data %s", eo.Data)
	}
}

// TestStrictParamsAnswerAsTheSchema: engine/observe's params go through
// the strict wire decoder; what it refuses is answered with the schema's
// words, as before it existed, and what it leaves to the schema (a signal
// reason, an integer id written 1.0) is decided as before.
func TestStrictParamsAnswerAsTheSchema(t *testing.T) {
	e := newProbe()
	p := servePeer(t, e, server.Options{})
	p.initialize()
	invalid := []string{
		`{"operation":{"signal":{"id":1},"timeoutMs":1,"runId":"r","attemptId":""}}`,
		`{"operation":{"signal":{"id":1},"timeoutMs":-1,"runId":"r","attemptId":"a"}}`,
		`{"operation":{"signal":{"id":1},"timeoutMs":1,"runId":"r","attemptId":"a","origin":"human"}}`,
		`{"operation":` + op(`{"id":1}`) + `,"options":{"pixels":"yes"}}`,
		`{"operation":{"timeoutMs":1,"runId":"r","attemptId":"a"}}`,
	}
	for i, params := range invalid {
		id := fmt.Sprint(i + 1)
		p.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"engine/observe","params":` + params + `}`)
		eo := p.wantCode(id, wire.CodeInvalidParams)
		want := "invalid params: " + schemas.ValidateParams(wire.MethodObserve, json.RawMessage(params)).Error()
		if eo.Message != want {
			t.Errorf("%s: answered %q, want the schema's %q", params, eo.Message, want)
		}
	}
	// Left to the schema: a valid reason is accepted; an id of 1.0, which
	// the schema accepts and a SignalID cannot hold, is refused by the
	// decode that follows the schema run, as before.
	p.send(`{"jsonrpc":"2.0","id":10,"method":"engine/observe","params":{"operation":` +
		op(`{"id":1,"aborted":false,"reason":{"code":-32603,"message":"x"}}`) + `}}`)
	p.wantResult("10", "")
	p.send(`{"jsonrpc":"2.0","id":11,"method":"engine/observe","params":{"operation":` + op(`{"id":1.0}`) + `}}`)
	if eo := p.wantCode("11", wire.CodeInvalidParams); !strings.Contains(eo.Message, "invalid params of engine/observe") {
		t.Errorf("id 1.0: answered %q, want the decode's refusal", eo.Message)
	}
	if n := e.count(wire.MethodObserve); n != 1 {
		t.Fatalf("engine observed %d times, want 1", n)
	}
}
