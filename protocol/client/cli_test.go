package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/e2e-conform/toolkit/protocol/client"
	"github.com/e2e-conform/toolkit/protocol/engineerr"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

func smallManifest() wire.Manifest {
	return wire.Manifest{Name: "scripted", Version: "1.0.0", SPIVersion: 1,
		Methods: []string{wire.MethodObserve, wire.MethodPerform, wire.MethodOpen, wire.MethodInit,
			wire.MethodStartAttempt, wire.MethodEndAttempt, wire.MethodDispose},
		Actions: []string{"tap"}}
}

func isInfra(err error) bool {
	return errors.Is(err, engineerr.Infrastructure(""))
}

func isCode(err error, code engineerr.Code) bool { return errors.Is(err, engineerr.New(code, "")) }

const snapshot = `{"root":{"ref":{"id":"root","revision":""},"children":[{"ref":{"id":"n1","revision":""},"role":"button","name":"Save"}]},"viewport":{"width":10,"height":10}}`

func TestCLI001InvalidDeclaredConfig(t *testing.T) {
	never := newScripted(t, func(p *peer) { t.Error("a connection opened") })
	bad := smallManifest()
	bad.Actions = nil // M2: engine/perform without actions
	cases := map[string]client.Config{
		"manifest breaks M2": {Transport: never, Manifest: bad},
		"resolveLocators without engine/observe": {Transport: never, ResolveLocators: true,
			Manifest: wire.Manifest{Name: "x", Version: "1", SPIVersion: 1, Methods: []string{wire.MethodOpen}}},
		"resolveLocators with engine/locate": {Transport: never, ResolveLocators: true,
			Manifest: wire.Manifest{Name: "x", Version: "1", SPIVersion: 1, Methods: []string{wire.MethodObserve, wire.MethodLocate}}},
	}
	for name, cfg := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := client.ConnectEngine(cfg)
			if !errors.Is(err, engineerr.InvalidConfig("")) {
				t.Fatalf("got %v, want configuration INVALID_CONFIG", err)
			}
		})
	}
	_, err := client.ConnectEngine(client.Config{Transport: never, Manifest: bad})
	if !strings.Contains(err.Error(), "engine/perform without actions") {
		t.Errorf("message %q does not name the broken rule", err)
	}
	if never.opens.Load() != 0 {
		t.Fatal("a connection opened")
	}
}

func TestCLI002ManifestMismatchAndVersion(t *testing.T) {
	cases := []struct {
		name, result, want string
	}{
		{"manifest differs", func() string {
			m := smallManifest()
			m.Version = "1.0.1"
			m.Methods = append(m.Methods, wire.MethodBack)
			b, _ := json.Marshal(wire.InitializeResult{ProtocolVersion: 1, Manifest: m})
			return string(b)
		}(), `methods: server adds [session/back]; version: "1.0.1" declared "1.0.0"`},
		{"protocol version 2", `{"protocolVersion":2,"manifest":{}}`, "server speaks protocolVersion 2; this client speaks 1"},
		{"invalid manifest", `{"protocolVersion":1,"manifest":{"name":"x","version":"1","spiVersion":1,"methods":["engine/perform"]}}`, "manifest is invalid"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			after := make(chan map[string]json.RawMessage, 1)
			tr := newScripted(t, func(p *peer) {
				m := p.expect(wire.MethodInitialize)
				p.result(m, tc.result)
				after <- p.next() // nil: the client closed without sending anything else
			})
			m := smallManifest()
			_, err := client.Open(context.Background(), client.ConnConfig{Transport: tr, Manifest: &m, Schemas: schemas})
			if !isInfra(err) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want infrastructure ENGINE_FAILURE with %q", err, tc.want)
			}
			if m := <-after; m != nil {
				t.Fatalf("the client sent %v after the refused handshake", m)
			}
		})
	}
}

func TestCLI003LostConnection(t *testing.T) {
	// A spawned engine exits in the middle of engine/observe.
	tr := spawnSelf(t, "crash-on-observe")
	m := exampleManifest()
	c, err := client.Open(context.Background(), client.ConnConfig{Transport: tr, Manifest: &m, Schemas: schemas})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(time.Second)
	_, err = c.Observe(context.Background(), client.Op{RunID: "r", AttemptID: "a"}, nil)
	if !isInfra(err) {
		t.Fatalf("got %v, want infrastructure ENGINE_FAILURE", err)
	}
	for _, want := range []string{"engine/observe", "status 7", "about to crash in observe"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	_, err2 := c.Observe(context.Background(), client.Op{RunID: "r", AttemptID: "a"}, nil)
	if !isInfra(err2) || !strings.Contains(err2.Error(), "status 7") {
		t.Fatalf("later call: %v", err2)
	}
}

func TestCLI003GarbageServer(t *testing.T) {
	m := exampleManifest()
	_, err := client.Open(context.Background(), client.ConnConfig{Transport: spawnSelf(t, "garbage"), Manifest: &m, Schemas: schemas})
	if !isInfra(err) || !strings.Contains(err.Error(), "malformed header") || !strings.Contains(err.Error(), "garbage server writes garbage") {
		t.Fatalf("got %v", err)
	}
}

func TestCLI004ErrorClassification(t *testing.T) {
	errs := []struct {
		wire string
		ok   func(error) bool
	}{
		{`{"code":-32000,"message":"gone","data":{"type":"engine","code":"NODE_STALE","retryable":true}}`,
			func(e error) bool { return isCode(e, engineerr.NodeStale) && engineerr.IsRetryable(e) }},
		{`{"code":-32000,"message":"covered","data":{"type":"engine","code":"NOT_ACTIONABLE","retryable":true}}`,
			func(e error) bool {
				return isCode(e, engineerr.EngineFailure) && !engineerr.IsRetryable(e) && strings.Contains(e.Error(), "covered")
			}},
		{`{"code":-32000,"message":"x","data":{"type":"e2e","category":"test","code":"INVALID_ARGUMENT","retryable":false}}`,
			func(e error) bool {
				return errors.Is(e, engineerr.NewE2E(engineerr.CategoryTest, "INVALID_ARGUMENT", ""))
			}},
		{`{"code":-32000,"message":"no data"}`, isInfra},
		{`{"code":-32601,"message":"method not found"}`, func(e error) bool {
			return isInfra(e) && strings.Contains(e.Error(), "although its manifest lists it")
		}},
		{`{"code":-32603,"message":"boom"}`, func(e error) bool {
			var re *engineerr.RemoteError
			return errors.As(e, &re) && re.Code == -32603
		}},
	}
	tr := newScripted(t, func(p *peer) {
		p.handshake(smallManifest())
		for _, e := range errs {
			p.fail(p.expect(wire.MethodObserve), e.wire)
		}
	})
	c := open(t, tr, func(cc *client.ConnConfig) { m := smallManifest(); cc.Manifest = &m })
	for i, e := range errs {
		_, err := c.Observe(context.Background(), client.Op{RunID: "r", AttemptID: "a"}, nil)
		if !e.ok(err) {
			t.Errorf("case %d (%s): got %v (%T)", i, e.wire, err, err)
		}
	}
}

func TestCLI005HandleRefusesWithoutSending(t *testing.T) {
	tr, sent := recordingPeer(t)
	e, err := client.ConnectEngine(client.Config{Transport: tr, Manifest: smallManifest(), Schemas: schemas})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	w := e.NewWorker()
	if err := w.StartAttempt(ctx, "a", t.TempDir(), false); !isCode(err, engineerr.InvalidState) {
		t.Errorf("attempt hook before init: %v", err)
	}
	if _, err := w.Observe(ctx, "test", nil); !isCode(err, engineerr.InvalidState) {
		t.Errorf("operation before init: %v", err)
	}
	if err := w.Init(ctx, wire.InitParams{Env: map[string]string{}}); err != nil {
		t.Fatal(err)
	}
	if got := <-sent; got != wire.MethodInit {
		t.Fatalf("sent %s", got)
	}
	if err := w.Type(ctx, "test", "x", false); !isCode(err, engineerr.UnsupportedCapability) {
		t.Errorf("unlisted method: %v", err)
	}
	if err := w.Perform(ctx, "test", wire.NodeRef{ID: "n1"}, wire.LocatorAction{Kind: "hover"}); !isCode(err, engineerr.UnsupportedCapability) {
		t.Errorf("undeclared kind: %v", err)
	}
	if err := w.Perform(ctx, "test", wire.NodeRef{ID: "n1"}, wire.LocatorAction{Kind: "tap", Modifiers: []string{"Shift"}}); !isCode(err, engineerr.UnsupportedCapability) {
		t.Errorf("modifiers without tapModifiers: %v", err)
	}
	if err := w.Dispose(ctx, 2000); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Observe(ctx, "test", nil); !isCode(err, engineerr.InvalidState) {
		t.Errorf("operation after dispose: %v", err)
	}
	var rest []string
	for len(sent) > 0 {
		rest = append(rest, <-sent)
	}
	if strings.Join(rest, ",") != "lifecycle/dispose,shutdown,exit" {
		t.Fatalf("sent %v; refused calls must send nothing", rest)
	}
}

func TestCLI006NoNeedlessConnections(t *testing.T) {
	tr := newScripted(t, func(p *peer) { t.Error("a connection opened") })
	e, err := client.ConnectEngine(client.Config{Transport: tr, Manifest: smallManifest(), Schemas: schemas})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := e.Prepare(context.Background(), wire.PrepareParams{}); err != nil || res != nil {
		t.Fatalf("prepare: %v %v", res, err)
	}
	if err := e.Finish(context.Background(), wire.FinishParams{TimeoutMs: 1000}); err != nil {
		t.Fatal(err)
	}
	if err := e.NewWorker().Dispose(context.Background(), 1000); err != nil {
		t.Fatal(err)
	}
	if tr.opens.Load() != 0 {
		t.Fatal("a connection opened")
	}
}

func TestCLI007SignalsOnTheWire(t *testing.T) {
	type seen struct {
		ids     []string
		signals []wire.SignalRef
		aborts  []wire.AbortParams
	}
	got := make(chan seen, 1)
	three := make(chan struct{})
	answer := make(chan struct{})
	tr := newScripted(t, func(p *peer) {
		p.handshake(smallManifest())
		var s seen
		announced := false
		// 1: aborted at send; 2 and 3 share one signal, aborted mid-call.
		for len(s.ids) < 3 || len(s.aborts) < 1 {
			m := p.next()
			if m == nil {
				break
			}
			if str(m["method"]) == wire.MethodAbort {
				var a wire.AbortParams
				json.Unmarshal(m["params"], &a)
				s.aborts = append(s.aborts, a)
				continue
			}
			var params wire.OperationParams
			json.Unmarshal(m["params"], &params)
			s.ids = append(s.ids, string(m["id"]))
			s.signals = append(s.signals, params.Operation.Signal)
			if len(s.ids) == 3 && !announced {
				announced = true
				close(three)
			}
		}
		got <- s
		<-answer
		// Answer everything after the abort arrived.
		p.write(`{"jsonrpc":"2.0","id":` + s.ids[0] + `,"error":{"code":-32000,"message":"x","data":{"type":"engine","code":"CANCELLED","retryable":false}}}`)
		p.write(`{"jsonrpc":"2.0","id":` + s.ids[1] + `,"error":{"code":-32000,"message":"x","data":{"type":"engine","code":"CANCELLED","retryable":false}}}`)
		p.write(`{"jsonrpc":"2.0","id":` + s.ids[2] + `,"error":{"code":-32000,"message":"x","data":{"type":"engine","code":"CANCELLED","retryable":false}}}`)
	})
	c := open(t, tr, func(cc *client.ConnConfig) { m := smallManifest(); cc.Manifest = &m })
	reasonErr := engineerr.NewE2E(engineerr.CategoryTest, "TEST_TIMEOUT", "test timed out after 120000 ms")
	pre, cancelPre := context.WithCancelCause(context.Background())
	cancelPre(reasonErr)
	done := make(chan error, 3)
	go func() { _, err := c.Observe(pre, client.Op{RunID: "r", AttemptID: "a"}, nil); done <- err }()
	shared, cancelShared := context.WithCancelCause(context.Background())
	sig := c.NewSignal(shared)
	sctx := client.WithSignal(shared, sig)
	go func() { _, err := c.Observe(sctx, client.Op{RunID: "r", AttemptID: "a"}, nil); done <- err }()
	go func() { _, err := c.Observe(sctx, client.Op{RunID: "r", AttemptID: "a"}, nil); done <- err }()
	// Abort the shared signal once the peer has read all three requests.
	<-three
	cancelShared(nil)
	s := <-got
	close(answer)
	for i := 0; i < 3; i++ {
		<-done
	}
	// The pre-aborted request carries aborted: true and the reason.
	var pres *wire.SignalRef
	for i := range s.signals {
		if s.signals[i].Aborted {
			pres = &s.signals[i]
		}
	}
	if pres == nil || pres.Reason == nil || pres.Reason.Message != "test timed out after 120000 ms" {
		t.Fatalf("pre-aborted signal on the wire: %+v", s.signals)
	}
	// Exactly one $/abort for the shared id, and ids never reused.
	if len(s.aborts) != 1 || s.aborts[0].ID != sig.ID() || s.aborts[0].Reason != nil {
		t.Fatalf("aborts %+v, want one for %v without a reason", s.aborts, sig.ID())
	}
	ids := map[string]bool{}
	for _, id := range append(s.ids, "0") {
		if ids[id] {
			t.Fatalf("request id %s reused (or 0 used): %v", id, s.ids)
		}
		ids[id] = true
	}
}

func TestCLI008BudgetAndGrace(t *testing.T) {
	aborted := make(chan wire.AbortParams, 1)
	tr := newScripted(t, func(p *peer) {
		p.handshake(smallManifest())
		m := p.expect(wire.MethodObserve)
		a := p.expect(wire.MethodAbort)
		var ap wire.AbortParams
		json.Unmarshal(a["params"], &ap)
		aborted <- ap
		// Never answer within the grace; answer late, then serve the next call.
		n := p.expect(wire.MethodObserve)
		p.result(m, snapshot) // the late response: discarded
		p.result(n, snapshot)
	})
	c := open(t, tr, func(cc *client.ConnConfig) {
		m := smallManifest()
		cc.Manifest = &m
		cc.AbortGrace = 300 * time.Millisecond
	})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := c.Observe(ctx, client.Op{RunID: "r", AttemptID: "a"}, nil)
	if !isCode(err, engineerr.OperationTimeout) {
		t.Fatalf("got %v, want the OPERATION_TIMEOUT reason", err)
	}
	ap := <-aborted
	if ap.Reason == nil || !strings.Contains(ap.Reason.Message, "operation timed out after") || !strings.Contains(string(ap.Reason.Data), "OPERATION_TIMEOUT") {
		t.Fatalf("abort reason %+v", ap.Reason)
	}
	snap, err := c.Observe(context.Background(), client.Op{RunID: "r", AttemptID: "a"}, nil)
	if err != nil || snap.Root.Ref.ID != "root" {
		t.Fatalf("call after a discarded late response: %v", err)
	}
}

func TestCLI009And010Secrets(t *testing.T) {
	answers := make(chan string, 8)
	var rec recorder
	tr := newScripted(t, func(p *peer) {
		p.handshake(smallManifest())
		m := p.expect(wire.MethodStartAttempt)
		// Outside the attempt: dropped.
		p.write(`{"jsonrpc":"2.0","method":"attempt/navigation","params":{"attemptId":"other","line":"x"}}`)
		// Inside: delivered.
		p.write(`{"jsonrpc":"2.0","method":"attempt/navigation","params":{"attemptId":"a1","line":"navigated"}}`)
		// Malformed: dropped, connection kept.
		p.write(`{"jsonrpc":"2.0","method":"attempt/appLog","params":{"attemptId":"a1","entry":{"source":"bogus"}}}`)
		p.result(m, "null")
		// resolveSecret for an unknown attempt, an undeclared name, a
		// declared one with a derivation.
		p.write(`{"jsonrpc":"2.0","id":1,"method":"attempt/resolveSecret","params":{"attemptId":"zz","name":"PASSWORD"}}`)
		answers <- string(p.next()["error"])
		p.write(`{"jsonrpc":"2.0","id":2,"method":"attempt/resolveSecret","params":{"attemptId":"a1","name":"NOPE"}}`)
		answers <- string(p.next()["error"])
		p.write(`{"jsonrpc":"2.0","id":3,"method":"attempt/resolveSecret","params":{"attemptId":"a1","name":"PASSWORD","derivation":{"d":1}}}`)
		d := p.expect(wire.MethodDeriveSecret)
		answers <- string(d["params"])
		p.result(d, `{"values":["cGFzcw=="]}`)
		answers <- string(p.next()["result"])
		// A request other than resolveSecret gets -32601 (CLI-014).
		p.write(`{"jsonrpc":"2.0","id":4,"method":"workspace/configuration","params":{}}`)
		answers <- string(p.next()["error"])
		e := p.expect(wire.MethodEndAttempt)
		p.result(e, "null")
		p.write(`{"jsonrpc":"2.0","method":"attempt/navigation","params":{"attemptId":"a1","line":"after end"}}`)
		o := p.expect(wire.MethodObserve)
		p.result(o, snapshot)
	})
	c := open(t, tr, func(cc *client.ConnConfig) {
		m := smallManifest()
		cc.Manifest = &m
		cc.Handlers.Navigation = func(id, line string) { rec.add("nav %s %s", id, line) }
		cc.Handlers.AppLog = func(id string, e wire.AppLogEntry) { rec.add("applog %s", e.Text) }
		cc.Handlers.Secret = func(ctx context.Context, name string) (string, bool, error) {
			if name == "PASSWORD" {
				return "pass", true, nil
			}
			return "", false, nil
		}
		cc.Handlers.Redact = func(id, name string, values []string) { rec.add("redact %s %s %v", id, name, values) }
	})
	ctx := context.Background()
	if err := c.StartAttempt(ctx, wire.StartAttemptParams{AttemptID: "a1", ArtifactsDir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	if a := <-answers; !strings.Contains(a, "INVALID_STATE") {
		t.Errorf("unknown attempt answered %s", a)
	}
	if a := <-answers; !strings.Contains(a, "SECRET_UNAVAILABLE") || !strings.Contains(a, "configuration") {
		t.Errorf("undeclared secret answered %s", a)
	}
	if a := <-answers; a != `{"derivation":{"d":1},"plaintext":"pass"}` {
		t.Errorf("deriveSecret params %s", a)
	}
	if a := <-answers; a != `{"value":"pass"}` {
		t.Errorf("resolveSecret answered %s", a)
	}
	if a := <-answers; !strings.Contains(a, "-32601") {
		t.Errorf("unknown server request answered %s", a)
	}
	if err := c.EndAttempt(ctx, 1000); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Observe(ctx, client.Op{RunID: "r", AttemptID: "a"}, nil); err != nil {
		t.Fatal(err)
	}
	want := "nav a1 navigated|redact a1 PASSWORD [pass cGFzcw==]"
	if got := strings.Join(rec.all(), "|"); got != want {
		t.Fatalf("handlers saw %q, want %q", got, want)
	}
}

func TestCLI012ResolveLocators(t *testing.T) {
	m := wire.Manifest{Name: "r", Version: "1", SPIVersion: 1, Methods: []string{wire.MethodObserve, wire.MethodInit}}
	observes := make(chan string, 4)
	tr := newScripted(t, func(p *peer) {
		p.handshake(m)
		p.result(p.expect(wire.MethodInit), "null")
		o := p.expect(wire.MethodObserve)
		var params map[string]json.RawMessage
		json.Unmarshal(o["params"], &params)
		_, hasOptions := params["options"]
		observes <- map[bool]string{true: "with options", false: "without options"}[hasOptions]
		p.result(o, snapshot)
	})
	e, err := client.ConnectEngine(client.Config{Transport: tr, Manifest: m, ResolveLocators: true, Schemas: schemas})
	if err != nil {
		t.Fatal(err)
	}
	w := e.NewWorker()
	ctx := context.Background()
	if err := w.Init(ctx, wire.InitParams{RunID: "r", Env: map[string]string{}}); err != nil {
		t.Fatal(err)
	}
	if err := w.StartAttempt(ctx, "a", t.TempDir(), false); err != nil { // operations go inside an attempt (§4.3)
		t.Fatal(err)
	}
	defer w.Dispose(ctx, 1000)
	nodes, err := w.Locate(ctx, "test", wire.LocatorExpression{Kind: "query", Query: &wire.SemanticQuery{Kind: "role", Value: wire.StringPattern("button", true)}})
	if err != nil || len(nodes) != 1 || nodes[0].Ref.ID != "n1" {
		t.Fatalf("locate: %v %v", nodes, err)
	}
	if got := <-observes; got != "without options" {
		t.Fatalf("observe sent %s", got)
	}
}

func TestCLI013CloseSequence(t *testing.T) {
	order := make(chan string, 8)
	tr := newScripted(t, func(p *peer) {
		p.handshake(smallManifest())
		p.result(p.expect(wire.MethodInit), "null")
		for m := p.next(); m != nil; m = p.next() {
			order <- str(m["method"])
			if _, ok := m["id"]; ok {
				p.result(m, "null")
			}
		}
		order <- "closed"
	})
	e, _ := client.ConnectEngine(client.Config{Transport: tr, Manifest: smallManifest(), Schemas: schemas})
	w := e.NewWorker()
	ctx := context.Background()
	if err := w.Init(ctx, wire.InitParams{Env: map[string]string{}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Dispose(ctx, 1000); err != nil {
		t.Fatal(err)
	}
	var got []string
	for s := range order {
		got = append(got, s)
		if s == "closed" {
			break
		}
	}
	if strings.Join(got, ",") != "lifecycle/dispose,shutdown,exit,closed" {
		t.Fatalf("close sequence %v", got)
	}
}

func TestCLI014SessionHookAndMalformedServer(t *testing.T) {
	opened := ""
	tr := newScripted(t, func(p *peer) {
		p.handshake(smallManifest())
		p.result(p.expect(wire.MethodInit), "null")
		p.result(p.expect(wire.MethodStartAttempt), "null")
		o := p.expect(wire.MethodObserve) // session/open never reaches the server
		p.write(`{"jsonrpc":"2.0","id":` + string(o["id"]) + `,"result":{"root":null}}`)
	})
	e, _ := client.ConnectEngine(client.Config{Transport: tr, Manifest: smallManifest(), Schemas: schemas,
		Session: client.SessionHooks{Open: func(ctx context.Context, url string) error { opened = url; return nil }}})
	w := e.NewWorker()
	ctx := context.Background()
	if err := w.Init(ctx, wire.InitParams{RunID: "r", Env: map[string]string{}}); err != nil {
		t.Fatal(err)
	}
	if err := w.StartAttempt(ctx, "a", t.TempDir(), false); err != nil { // operations go inside an attempt (§4.3)
		t.Fatal(err)
	}
	defer w.Dispose(ctx, 1000)
	if err := w.Open(ctx, "test", "http://app/"); err != nil || opened != "http://app/" {
		t.Fatalf("hook: %v %q", err, opened)
	}
	_, err := w.Observe(ctx, "test", nil)
	if !isInfra(err) || !strings.Contains(err.Error(), "malformed engine/observe result") {
		t.Fatalf("malformed result: %v", err)
	}
	select {
	case <-w.Conn().Done():
	case <-time.After(5 * time.Second):
		t.Fatal("a malformed message did not fail the connection")
	}
}

// An operation method without a run id, or without an attempt id while no
// attempt is open, fails with ErrNoAttempt and sends nothing: "the client
// never sends one" outside an attempt (§4.3), and the Operation schema
// wants both ids non-empty (§5.13). It once went out with attemptId "".
func TestOperationOutsideAnAttemptIsNotSent(t *testing.T) {
	tr, sent := recordingPeer(t)
	c := open(t, tr, func(cc *client.ConnConfig) { m := smallManifest(); cc.Manifest = &m })
	ctx := context.Background()
	for _, op := range []client.Op{{}, {RunID: "r"}, {AttemptID: "a"}} {
		if _, err := c.Observe(ctx, op, nil); !errors.Is(err, client.ErrNoAttempt) {
			t.Errorf("Observe with %+v and no attempt open: %v, want ErrNoAttempt", op, err)
		}
	}
	if err := c.Close(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	for m := range sent {
		if m == wire.MethodObserve {
			t.Errorf("engine/observe was sent outside an attempt")
		}
	}
}

// recordingPeer is a scripted engine of smallManifest that answers every
// request with null and sends the method of each message the client wrote
// after the handshake on the channel, closed when the client closes.
func recordingPeer(t *testing.T) (*scripted, <-chan string) {
	sent := make(chan string, 16)
	return newScripted(t, func(p *peer) {
		p.handshake(smallManifest())
		for m := p.next(); m != nil; m = p.next() {
			sent <- str(m["method"])
			if _, ok := m["id"]; ok {
				p.result(m, "null")
			}
		}
		close(sent)
	}), sent
}
