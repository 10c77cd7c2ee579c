package server_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/e2e-conform/toolkit/mcp/session"

	"github.com/e2e-conform/toolkit/mcp/mcperr"
)

// hold is a fixture app whose /hold answers only once the test lets it, or
// when the engine gives up the request (its abort).
type hold struct {
	arrived chan struct{} // a request reached /hold
	aborted chan struct{} // the engine gave up the request
	release chan struct{}
}

func newHold() *hold {
	return &hold{arrived: make(chan struct{}, 8), aborted: make(chan struct{}, 8), release: make(chan struct{})}
}

func (h *hold) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/hold" {
		w.Write([]byte("ok"))
		return
	}
	h.arrived <- struct{}{}
	select {
	case <-h.release:
		w.Write([]byte("released"))
	case <-r.Context().Done():
		h.aborted <- struct{}{}
	}
}

// steps records the host's step events and reports a wanted one.
type steps struct {
	mu     sync.Mutex
	events []string
	want   string
	seen   chan struct{}
}

func (s *steps) on(event, _, tool string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := event + " " + tool
	s.events = append(s.events, e)
	if e == s.want {
		close(s.seen)
		s.want = ""
	}
}

// expect arms the channel closed when event happens next.
func (s *steps) expect(event string) <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.want, s.seen = event, make(chan struct{})
	return s.seen
}

func (s *steps) runs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, e := range s.events {
		if t, ok := strings.CutPrefix(e, session.StepRun+" "); ok {
			out = append(out, t)
		}
	}
	return out
}

const holdTarget = `{"targets":[{"name":"web","engine":{"builtin":"web"},"app":{"url":"$APP/counter"}}]}`

// TestCancelledCalls: a call cancelled while it waits for the session's
// previous call never runs; the running call cancelled is aborted through
// its engine operation's signal. Both answer CANCELLED (host answers), and
// both are logged, which the client receives as log notifications once it
// set a level (MCP, protocol 2025-11-25: the Go SDK sends none before
// logging/setLevel).
func TestCancelledCalls(t *testing.T) {
	t.Run("host answers", func(t *testing.T) {
		app, st := newHold(), &steps{}
		e := newEnv(t, envOpts{config: holdTarget, handler: app, onStep: st.on})
		id, _ := e.open(nil)
		type answer struct {
			res *session.Result
			err error
		}
		call := func(ctx context.Context, tool string, args string) <-chan answer {
			c := make(chan answer, 1)
			go func() {
				r, err := e.host.Call(ctx, id, tool, []byte(args))
				c <- answer{r, err}
			}()
			return c
		}
		ctx1, cancel1 := context.WithCancel(context.Background())
		defer cancel1()
		first := call(ctx1, "navigate", `{"url":"`+e.app+`/hold"}`)
		<-app.arrived
		queued := st.expect(session.StepQueued + " observe")
		ctx2, cancel2 := context.WithCancel(context.Background())
		second := call(ctx2, "observe", "")
		<-queued
		cancel2()
		a := <-second
		if me := mcperr.Of(a.err); me.Code != mcperr.Cancelled || !strings.Contains(me.Message, "call observe was cancelled while it waited for the session's previous call; it did not run") {
			t.Errorf("queued call: %v %+v", a.err, a.res)
		}
		cancel1()
		<-app.aborted // the engine operation's signal reached the engine
		a = <-first
		if me := mcperr.Of(a.err); me.Code != mcperr.Cancelled || !strings.Contains(me.Message, "call navigate was cancelled while it ran") {
			t.Errorf("running call: %v %+v", a.err, a.res)
		}
		obs, isErr, _ := e.call("call", map[string]any{"tool": "observe"})
		// b1 was the first screen: neither cancelled call observed.
		if isErr || !strings.HasPrefix(obs, "Current screen (revision b2, path /counter,") {
			t.Errorf("observe after the cancelled calls:\n%s", obs)
		}
		if got := strings.Join(st.runs(), ","); got != "navigate,observe" {
			t.Errorf("calls that ran: %s, want navigate,observe (the cancelled queued observe never runs)", got)
		}
	})
	t.Run("over MCP", func(t *testing.T) {
		app, st := newHold(), &steps{}
		logs := make(chan *mcp.LoggingMessageParams, 64)
		e := newEnv(t, envOpts{config: holdTarget, handler: app, onStep: st.on, protocol: "2025-11-25",
			client: &mcp.ClientOptions{LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
				select {
				case logs <- r.Params:
				default:
				}
			}}})
		if err := e.cs.SetLoggingLevel(context.Background(), &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
			t.Fatal(err)
		}
		// waitLog reads log notifications until one contains sub.
		waitLog := func(sub string) *mcp.LoggingMessageParams {
			t.Helper()
			for l := range logs {
				if s, _ := l.Data.(string); strings.Contains(s, sub) {
					return l
				}
			}
			return nil
		}
		e.open(nil)
		if l := waitLog("session opened"); l.Logger != "e2e" || l.Level != "info" {
			t.Errorf("log notification: %+v", l)
		}
		ctx1, cancel1 := context.WithCancel(context.Background())
		defer cancel1()
		done1 := make(chan struct{})
		go func() {
			defer close(done1)
			_, _ = e.cs.CallTool(ctx1, &mcp.CallToolParams{Name: "call", Arguments: map[string]any{"tool": "navigate", "args": map[string]any{"url": e.app + "/hold"}}})
		}()
		<-app.arrived
		queued := st.expect(session.StepQueued + " observe")
		ctx2, cancel2 := context.WithCancel(context.Background())
		done2 := make(chan struct{})
		go func() {
			defer close(done2)
			_, _ = e.cs.CallTool(ctx2, &mcp.CallToolParams{Name: "call", Arguments: map[string]any{"tool": "observe"}})
		}()
		<-queued
		cancel2() // notifications/cancelled
		<-done2
		waitLog("call observe was cancelled while it waited for the session's previous call; it did not run")
		cancel1()
		<-done1
		<-app.aborted
		waitLog("call navigate was cancelled while it ran")
		obs, isErr, _ := e.call("call", map[string]any{"tool": "observe"})
		if isErr || !strings.HasPrefix(obs, "Current screen (revision b2, path /counter,") {
			t.Errorf("observe after the cancelled calls:\n%s", obs)
		}
		if got := strings.Join(st.runs(), ","); got != "navigate,observe" {
			t.Errorf("calls that ran: %s, want navigate,observe", got)
		}
	})
}
