package server_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/e2e-conform/toolkit/protocol/server"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

func TestBeforeInitialize(t *testing.T) {
	// LIFE-003: engine methods, shutdown and unknown names before initialize
	// get -32002 and have no effect.
	e := newProbe()
	p := servePeer(t, e, server.Options{})
	p.send(`{"jsonrpc":"2.0","id":1,"method":"engine/observe","params":{"operation":` + op(`{"id":1}`) + `}}`)
	p.wantCode("1", wire.CodeNotInitialized)
	p.send(`{"jsonrpc":"2.0","id":2,"method":"shutdown"}`)
	p.wantCode("2", wire.CodeNotInitialized)
	p.send(`{"jsonrpc":"2.0","id":"x","method":"foo/bar"}`)
	p.wantCode(`"x"`, wire.CodeNotInitialized)
	p.send(`{"jsonrpc":"2.0","method":"$/abort","params":{"id":1}}`) // ignored
	p.send(`{"jsonrpc":"2.0","method":"initialized"}`)               // ignored
	p.initialize()
	if n := e.count(wire.MethodObserve); n != 0 {
		t.Fatalf("observe reached the engine %d times before initialize", n)
	}
}

func TestInitializeRefusals(t *testing.T) {
	// LIFE-002: a bad protocolVersion, role or clientInfo gets -32602 and
	// the server stays uninitialized.
	cases := map[string]string{
		"version 2":     `{"protocolVersion":2,"clientInfo":{"name":"t"},"role":"run"}`,
		"version 0":     `{"protocolVersion":0,"clientInfo":{"name":"t"},"role":"run"}`,
		"version \"1\"": `{"protocolVersion":"1","clientInfo":{"name":"t"},"role":"run"}`,
		"role admin":    `{"protocolVersion":1,"clientInfo":{"name":"t"},"role":"admin"}`,
		"empty name":    `{"protocolVersion":1,"clientInfo":{"name":""},"role":"run"}`,
		"no clientInfo": `{"protocolVersion":1,"role":"run"}`,
		"array params":  `[1,"x"]`,
	}
	for name, params := range cases {
		t.Run(name, func(t *testing.T) {
			p := servePeer(t, newProbe(), server.Options{})
			p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":` + params + `}`)
			eo := p.wantCode("1", wire.CodeInvalidParams)
			if strings.HasPrefix(name, "version") && !strings.Contains(eo.Message, "protocolVersion 1") {
				t.Errorf("message %q does not name the supported version", eo.Message)
			}
			p.send(`{"jsonrpc":"2.0","id":2,"method":"engine/observe","params":{"operation":` + op(`{"id":1}`) + `}}`)
			p.wantCode("2", wire.CodeNotInitialized)
			p.initialize() // D7: a later initialize may succeed
		})
	}
}

func TestInitializeResultAndManifest(t *testing.T) {
	// LIFE-001, MAN-009: the result is {protocolVersion: 1, manifest} and the
	// manifest equals DescribeEngine, with both attempt methods always.
	e := newProbe()
	p := servePeer(t, e, server.Options{})
	p.send(fmt.Sprintf(initReq, "7"))
	res, _ := p.response("7")
	var r wire.InitializeResult
	if err := json.Unmarshal(res, &r); err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(server.DescribeEngine(e))
	got, _ := json.Marshal(r.Manifest)
	if r.ProtocolVersion != 1 || string(got) != string(want) {
		t.Fatalf("initialize result %s, want manifest %s", res, want)
	}
	if !r.Manifest.Lists(wire.MethodStartAttempt) || !r.Manifest.Lists(wire.MethodEndAttempt) {
		t.Fatal("manifest lacks the attempt methods")
	}
	wantOrder := "engine/observe,engine/locate,engine/perform,session/open,lifecycle/init,lifecycle/startAttempt,lifecycle/endAttempt,lifecycle/dispose"
	if strings.Join(r.Manifest.Methods, ",") != wantOrder {
		t.Fatalf("methods %v, want ENGINE_METHODS order %s", r.Manifest.Methods, wantOrder)
	}
	// LIFE-004: a second initialize gets -32600 and the connection works on.
	p.send(fmt.Sprintf(initReq, "8"))
	p.wantCode("8", wire.CodeInvalidRequest)
	p.send(`{"jsonrpc":"2.0","id":9,"method":"engine/observe","params":{"operation":` + op(`{"id":1}`) + `}}`)
	p.wantResult("9", "")
}

func TestShutdownAndExit(t *testing.T) {
	// LIFE-006: shutdown gets null; later requests, shutdown included, get
	// -32600; exit then ends the connection cleanly.
	p := servePeer(t, newProbe(), server.Options{})
	p.initialize()
	p.send(`{"jsonrpc":"2.0","id":1,"method":"shutdown"}`)
	p.wantResult("1", "null")
	p.send(`{"jsonrpc":"2.0","id":2,"method":"engine/observe","params":{"operation":` + op(`{"id":1}`) + `}}`)
	p.wantCode("2", wire.CodeInvalidRequest)
	p.send(`{"jsonrpc":"2.0","id":3,"method":"shutdown"}`)
	p.wantCode("3", wire.CodeInvalidRequest)
	p.send(`{"jsonrpc":"2.0","method":"exit"}`)
	p.closed(2 * time.Second)
	if err := <-p.done; err != nil {
		t.Fatalf("ServeEngine after shutdown and exit: %v", err)
	}
	p.done <- nil
}

func TestShutdownWaitsForEarlierRequests(t *testing.T) {
	// D9: shutdown is answered only after every earlier request.
	e := newProbe()
	p := servePeer(t, e, server.Options{})
	p.initialize()
	p.send(`{"jsonrpc":"2.0","id":1,"method":"session/open","params":{"url":"http://slow/","operation":` + op(`{"id":5}`) + `}}`)
	<-e.started
	p.send(`{"jsonrpc":"2.0","id":2,"method":"shutdown"}`)
	p.send(`{"jsonrpc":"2.0","method":"$/abort","params":{"id":5}}`) // still honored after shutdown
	p.wantCode("1", -32000)
	p.wantResult("2", "null")
}

func TestCloseWithoutShutdownAbortsEverySignal(t *testing.T) {
	// §2.6: the input ends with a request in flight: its signal aborts
	// without a reason and ServeEngine reports the unclean end.
	e := newProbe()
	p := servePeer(t, e, server.Options{})
	p.initialize()
	p.send(`{"jsonrpc":"2.0","id":1,"method":"session/open","params":{"url":"http://slow/","operation":` + op(`{"id":5}`) + `}}`)
	<-e.started
	p.rwc.Close()
	select {
	case cause := <-e.causes:
		if cause == nil || !strings.Contains(cause.Error(), "aborted") {
			t.Fatalf("engine saw cause %v", cause)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("in-flight call not aborted")
	}
	err := <-p.done
	if !errors.Is(err, server.ErrClosedWithoutShutdown) {
		t.Fatalf("ServeEngine returned %v", err)
	}
	p.done <- err
}

func TestNotificationsWaitForInitialized(t *testing.T) {
	// LIFE-005: nothing is sent before initialized; engine/log lines are
	// split at line breaks.
	e := newProbe()
	p := servePeer(t, e, server.Options{})
	p.send(fmt.Sprintf(initReq, "0"))
	p.wantResult("0", "")
	p.send(`{"jsonrpc":"2.0","id":1,"method":"lifecycle/init","params":{"runId":"r","targetName":"t","projectRoot":"/p","app":{},"env":{},"headed":false,"workerSlot":0,"signal":{"id":1}}}`)
	m := p.next()
	if _, isNote := m["method"]; isNote {
		t.Fatalf("notification before initialized: %v", m)
	}
	p.send(`{"jsonrpc":"2.0","method":"initialized"}`)
	var lines []string
	for i := 0; i < 2; i++ {
		m := p.next()
		var params wire.EngineLogParams
		_ = json.Unmarshal(m["params"], &params)
		if string(m["method"]) != `"engine/log"` {
			t.Fatalf("got %v", m)
		}
		lines = append(lines, params.Line)
	}
	if strings.Join(lines, "|") != "booting|ready" {
		t.Fatalf("log lines %q", lines)
	}
}

func TestAttemptBookkeeping(t *testing.T) {
	e := newProbe()
	p := servePeer(t, e, server.Options{})
	p.initialize()
	start := `{"jsonrpc":"2.0","id":%d,"method":"lifecycle/startAttempt","params":{"attemptId":"a%d","artifactsDir":"/tmp","signal":{"id":%d},"screens":false}}`
	end := `{"jsonrpc":"2.0","id":%d,"method":"lifecycle/endAttempt","params":{"signal":{"id":%d},"timeoutMs":1000}}`
	p.send(fmt.Sprintf(start, 1, 1, 100))
	nav := p.next()
	if string(nav["method"]) != `"attempt/navigation"` {
		t.Fatalf("want the attempt's navigation first, got %v", nav)
	}
	p.wantResult("1", "null")
	// LIFE-012 (SHOULD): an overlapping startAttempt gets INVALID_STATE.
	p.send(fmt.Sprintf(start, 2, 2, 101))
	eo := p.wantCode("2", -32000)
	wantEngineCode(t, eo, "INVALID_STATE", false)
	// LIFE-013: endAttempt twice, both null; the engine sees one.
	p.send(fmt.Sprintf(end, 3, 102))
	p.wantResult("3", "null")
	p.send(fmt.Sprintf(end, 4, 103))
	p.wantResult("4", "null")
	if n := e.count(wire.MethodEndAttempt); n != 1 {
		t.Fatalf("engine EndAttempt called %d times", n)
	}
	// After endAttempt the attempt sends nothing (drop rule, §6.7).
	e.mu.Lock()
	a := e.attempts[0]
	e.mu.Unlock()
	if !a.Ended() {
		t.Fatal("attempt not ended")
	}
	a.Navigation("late line")
	p.send(`{"jsonrpc":"2.0","id":5,"method":"engine/observe","params":{"operation":` + op(`{"id":104}`) + `}}`)
	if m := p.next(); string(m["id"]) != "5" {
		t.Fatalf("a message after endAttempt: %v", m)
	}
	// LIFE-010: dispose on a connection that never received init: null,
	// without reaching the engine.
	p.send(`{"jsonrpc":"2.0","id":6,"method":"lifecycle/dispose","params":{"signal":{"id":105},"timeoutMs":1000}}`)
	p.wantResult("6", "null")
	if n := e.count(wire.MethodDispose); n != 0 {
		t.Fatalf("cold dispose reached the engine")
	}
}
