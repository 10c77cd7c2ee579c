package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/e2e-conform/toolkit/protocol/engineerr"
	"github.com/e2e-conform/toolkit/protocol/schema"
	"github.com/e2e-conform/toolkit/protocol/server"
	"github.com/e2e-conform/toolkit/protocol/transport"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

func TestMain(m *testing.M) {
	serveChild()
	goleak.VerifyTestMain(m)
}

var schemas = schema.MustLoad()

// probe is a test engine whose behaviour each method makes observable.
type probe struct {
	mu       sync.Mutex
	calls    map[string]int
	causes   chan error // causes of cancelled blocking calls
	started  chan string
	attempts []*server.Attempt
}

func newProbe() *probe {
	return &probe{calls: map[string]int{}, causes: make(chan error, 16), started: make(chan string, 16)}
}

func (p *probe) count(m string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.calls[m]
}

func (p *probe) hit(m string) {
	p.mu.Lock()
	p.calls[m]++
	p.mu.Unlock()
	p.started <- m
}

func (p *probe) Info() server.Info {
	return server.Info{Name: "probe", Version: "0.1.0", Platform: "test", Actions: []string{"tap", "press"}}
}

// Observe returns a one-node snapshot.
func (p *probe) Observe(ctx context.Context, op server.Operation, o wire.EngineObserveOptions) (*wire.EngineSnapshot, error) {
	p.hit(wire.MethodObserve)
	s := &wire.EngineSnapshot{Root: wire.SemanticNode{Ref: wire.NodeRef{ID: "root"}}, Viewport: wire.ViewportSize{Width: 1, Height: 1}}
	if op.RunID == "big" {
		s.Root.Name = wire.Str(strings.Repeat("x", 4000))
	}
	return s, nil
}

// Locate panics.
func (p *probe) Locate(ctx context.Context, op server.Operation, e *wire.LocatorExpression) ([]wire.SemanticNode, error) {
	p.hit(wire.MethodLocate)
	panic("locate exploded")
}

// Perform returns a retryable NOT_ACTIONABLE (coerced) for "press", and
// blocks until aborted for "tap".
func (p *probe) Perform(ctx context.Context, op server.Operation, ref wire.NodeRef, a wire.LocatorAction) error {
	p.hit(wire.MethodPerform)
	if a.Kind == "press" {
		return &engineerr.EngineError{Code: engineerr.NotActionable, Message: "covered", Retryable: true}
	}
	<-ctx.Done()
	p.causes <- context.Cause(ctx)
	return ctx.Err()
}

// Open blocks until aborted and returns the cause (an engine that rethrows
// its signal's reason).
func (p *probe) Open(ctx context.Context, op server.Operation, url string) error {
	p.hit(wire.MethodOpen)
	if url == "http://fast/" {
		return nil
	}
	if url == "http://stale/" {
		<-ctx.Done()
		return engineerr.Retryable(engineerr.NodeStale, "stale after abort")
	}
	<-ctx.Done()
	p.causes <- context.Cause(ctx)
	return context.Cause(ctx)
}

// Init logs a line.
func (p *probe) Init(ctx context.Context, info server.InitInfo) error {
	p.hit(wire.MethodInit)
	info.Log("booting\nready")
	return nil
}

func (p *probe) StartAttempt(ctx context.Context, a *server.Attempt) error {
	p.hit(wire.MethodStartAttempt)
	p.mu.Lock()
	p.attempts = append(p.attempts, a)
	p.mu.Unlock()
	a.Navigation("navigated to http://x/")
	return nil
}

func (p *probe) EndAttempt(ctx context.Context, c server.Cleanup) error {
	p.hit(wire.MethodEndAttempt)
	return nil
}

func (p *probe) Dispose(ctx context.Context, info server.DisposeInfo) error {
	p.hit(wire.MethodDispose)
	return nil
}

// peer is the client side of a raw connection to a served engine.
type peer struct {
	t    *testing.T
	rwc  io.ReadWriteCloser
	r    *bufio.Reader
	msgs chan map[string]json.RawMessage
	done chan error
}

func servePeer(t *testing.T, e server.Engine, opts server.Options) *peer {
	t.Helper()
	c, s := transport.Pipe()
	if opts.Schemas == nil {
		opts.Schemas = schemas
	}
	p := &peer{t: t, rwc: c, r: bufio.NewReader(c), msgs: make(chan map[string]json.RawMessage, 64), done: make(chan error, 1)}
	go func() { p.done <- server.ServeEngine(context.Background(), e, s, opts) }()
	go p.readLoop()
	t.Cleanup(func() {
		p.rwc.Close()
		select {
		case <-p.done:
		case <-time.After(10 * time.Second):
			t.Error("ServeEngine did not return after the connection closed")
		}
	})
	return p
}

func (p *peer) readLoop() {
	defer close(p.msgs)
	for {
		line, err := p.r.ReadString('\n')
		if err != nil {
			return
		}
		n, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "Content-Length: ")))
		if err != nil {
			p.t.Errorf("bad header %q", line)
			return
		}
		if blank, _ := p.r.ReadString('\n'); blank != "\r\n" {
			p.t.Errorf("header not ended by CRLFCRLF")
			return
		}
		buf := make([]byte, n)
		if _, err := io.ReadFull(p.r, buf); err != nil {
			return
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(buf, &m); err != nil {
			p.t.Errorf("server wrote invalid JSON: %s", buf)
			return
		}
		if string(m["jsonrpc"]) != `"2.0"` {
			p.t.Errorf("message without jsonrpc 2.0: %s", buf)
		}
		p.msgs <- m
	}
}

func frame(content string) string {
	return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(content), content)
}

func (p *peer) write(raw string) {
	p.t.Helper()
	if _, err := io.WriteString(p.rwc, raw); err != nil {
		p.t.Fatalf("write: %v", err)
	}
}

func (p *peer) send(content string) { p.t.Helper(); p.write(frame(content)) }

// next returns the next message, failing after 5 s.
func (p *peer) next() map[string]json.RawMessage {
	p.t.Helper()
	select {
	case m, ok := <-p.msgs:
		if !ok {
			p.t.Fatal("connection closed while a message was expected")
		}
		return m
	case <-time.After(5 * time.Second):
		p.t.Fatal("no message within 5 s")
	}
	return nil
}

// closed waits for the server to close the connection.
func (p *peer) closed(within time.Duration) {
	p.t.Helper()
	deadline := time.After(within)
	for {
		select {
		case m, ok := <-p.msgs:
			if !ok {
				return
			}
			_ = m
		case <-deadline:
			p.t.Fatalf("connection not closed within %s", within)
		}
	}
}

// response waits for the response with id, failing on any other message
// except notifications, which are returned in notes.
func (p *peer) response(id string) (result json.RawMessage, eo *wire.ErrorObject) {
	p.t.Helper()
	for {
		m := p.next()
		if _, isNote := m["method"]; isNote {
			continue
		}
		if string(m["id"]) != id {
			p.t.Fatalf("got response id %s, want %s: %v", m["id"], id, m)
		}
		if e, ok := m["error"]; ok {
			var o wire.ErrorObject
			if err := json.Unmarshal(e, &o); err != nil {
				p.t.Fatal(err)
			}
			return nil, &o
		}
		return m["result"], nil
	}
}

func (p *peer) wantCode(id string, code int64) *wire.ErrorObject {
	p.t.Helper()
	res, eo := p.response(id)
	if eo == nil || eo.Code != code {
		p.t.Fatalf("response %s: result %s error %+v, want code %d", id, res, eo, code)
	}
	return eo
}

func (p *peer) wantResult(id, want string) {
	p.t.Helper()
	res, eo := p.response(id)
	if eo != nil || (want != "" && string(res) != want) {
		p.t.Fatalf("response %s: result %s error %+v, want %s", id, res, eo, want)
	}
}

const initReq = `{"jsonrpc":"2.0","id":%s,"method":"initialize","params":{"protocolVersion":1,"clientInfo":{"name":"test"},"role":"worker"}}`

func (p *peer) initialize() {
	p.t.Helper()
	p.send(fmt.Sprintf(initReq, "0"))
	p.wantResult("0", "")
	p.send(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)
}

func op(signal string) string {
	return `{"signal":` + signal + `,"timeoutMs":30000,"runId":"r","attemptId":"a"}`
}

// jsonEqual reports whether a and b hold equal JSON values.
func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("%s: %v", a, err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return reflect.DeepEqual(x, y)
}

func engineData(t *testing.T, eo *wire.ErrorObject) map[string]any {
	t.Helper()
	var d map[string]any
	if err := json.Unmarshal(eo.Data, &d); err != nil {
		t.Fatalf("error data %s: %v", eo.Data, err)
	}
	return d
}

func wantEngineCode(t *testing.T, eo *wire.ErrorObject, code string, retryable bool) {
	t.Helper()
	d := engineData(t, eo)
	if eo.Code != -32000 || d["type"] != "engine" || d["code"] != code || d["retryable"] != retryable {
		t.Fatalf("error %d %s %s, want engine %s retryable %v", eo.Code, eo.Message, eo.Data, code, retryable)
	}
}

var errNothing = errors.New("nothing")
