package session

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/e2e-conform/toolkit/fixtures/example"
	"github.com/e2e-conform/toolkit/protocol/server"
	"github.com/e2e-conform/toolkit/protocol/transport"
	"github.com/e2e-conform/toolkit/protocol/wire"

	"github.com/e2e-conform/toolkit/mcp/mcperr"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fakeClock is a Clock whose time moves only by Advance, which runs the
// timers that came due, in their order, before it returns.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
}

type fakeTimer struct {
	c             *fakeClock
	at            time.Time
	f             func()
	stopped, done bool
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) AfterFunc(d time.Duration, f func()) Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{c: c, at: c.now.Add(d), f: f}
	c.timers = append(c.timers, t)
	return t
}

func (t *fakeTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := !t.stopped && !t.done
	t.stopped = true
	return was
}

// Advance moves the time by d and runs every timer due by then.
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	var due []*fakeTimer
	for _, t := range c.timers {
		if !t.stopped && !t.done && !t.at.After(c.now) {
			t.done = true
			due = append(due, t)
		}
	}
	c.mu.Unlock()
	sort.SliceStable(due, func(i, j int) bool { return due[i].at.Before(due[j].at) })
	for _, t := range due {
		t.f()
	}
}

// logBuf collects the host's operator lines.
type logBuf struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// count is how many lines of the log contain s.
func (l *logBuf) count(s string) int {
	n := 0
	for _, line := range strings.Split(l.String(), "\n") {
		if strings.Contains(line, s) {
			n++
		}
	}
	return n
}

// tracingEngine is the example engine that also sends an
// attempt/navigation line when its attempt keeps a trace.
type tracingEngine struct{ *example.Engine }

func (e tracingEngine) StartAttempt(ctx context.Context, a *server.Attempt) error {
	if err := e.Engine.StartAttempt(ctx, a); err != nil {
		return err
	}
	if a.Screens {
		a.Navigation("navigated to about:trace")
	}
	return nil
}

// observeOnly is an engine that lists engine/observe and nothing else.
// Served through unlisted, its manifest lacks lifecycle/startAttempt: it
// cannot be asked to keep a trace.
type observeOnly struct{ e *example.Engine }

func (o observeOnly) Info() server.Info {
	return server.Info{Name: "observe-only", Version: "1.0.0"}
}

func (o observeOnly) Observe(ctx context.Context, op server.Operation, opts wire.EngineObserveOptions) (*wire.EngineSnapshot, error) {
	return o.e.Observe(ctx, op, opts)
}

// unlisted is the server side of a connection that drops the lifecycle
// attempt methods from every "methods" list the server writes (the
// toolkit's server always lists them).
type unlisted struct {
	io.ReadWriteCloser
	buf []byte
}

func (u *unlisted) Write(p []byte) (int, error) {
	u.buf = append(u.buf, p...)
	for {
		head, rest, ok := bytes.Cut(u.buf, []byte("\r\n\r\n"))
		if !ok {
			return len(p), nil
		}
		n, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(string(head), "Content-Length:")))
		if err != nil {
			return 0, fmt.Errorf("frame header %q: %w", head, err)
		}
		if len(rest) < n {
			return len(p), nil
		}
		body := rest[:n]
		u.buf = slices.Clone(rest[n:])
		var msg map[string]any
		if err := json.Unmarshal(body, &msg); err != nil {
			return 0, err
		}
		dropAttemptMethods(msg)
		out, err := json.Marshal(msg)
		if err != nil {
			return 0, err
		}
		if _, err := fmt.Fprintf(u.ReadWriteCloser, "Content-Length: %d\r\n\r\n%s", len(out), out); err != nil {
			return 0, err
		}
	}
}

func dropAttemptMethods(v any) {
	switch v := v.(type) {
	case map[string]any:
		for k, c := range v {
			if list, ok := c.([]any); ok && k == "methods" {
				v[k] = slices.DeleteFunc(list, func(m any) bool { return m == wire.MethodStartAttempt || m == wire.MethodEndAttempt })
				continue
			}
			dropAttemptMethods(c)
		}
	case []any:
		for _, c := range v {
			dropAttemptMethods(c)
		}
	}
}

type hostOpts struct {
	config      string // e2e.config.json; "" writes none
	engine      func() server.Engine
	unlisted    bool // the engine's manifest lists no attempt methods
	maxSessions int
	getenv      func(string) string
}

type testHost struct {
	*Host
	dir   string
	clock *fakeClock
	logs  *logBuf
	ended chan [2]string // id, reason
}

func newHost(t *testing.T, o hostOpts) *testHost {
	t.Helper()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if o.config != "" {
		if err := os.WriteFile(filepath.Join(dir, "e2e.config.json"), []byte(o.config), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if o.engine == nil {
		o.engine = func() server.Engine { return example.New() }
	}
	if o.getenv == nil {
		o.getenv = func(string) string { return "" } // not under CI
	}
	th := &testHost{dir: dir, clock: newFakeClock(), logs: &logBuf{}, ended: make(chan [2]string, 64)}
	h, err := New(Options{Cwd: dir, MaxSessions: o.maxSessions, Clock: th.clock, Getenv: o.getenv,
		Logger: slog.New(slog.NewTextHandler(th.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		BuiltinWeb: func(bool) transport.Transport {
			e := o.engine()
			return transport.Loopback(e.Info().Name, func(ctx context.Context, rwc io.ReadWriteCloser) error {
				if o.unlisted {
					rwc = &unlisted{ReadWriteCloser: rwc}
				}
				if err := server.ServeEngine(ctx, e, rwc, server.Options{}); !errors.Is(err, server.ErrClosedWithoutShutdown) {
					return err
				}
				return nil
			})
		},
		OnEnded: func(id, reason string) { th.ended <- [2]string{id, reason} }})
	if err != nil {
		t.Fatal(err)
	}
	th.Host = h
	t.Cleanup(func() { h.CloseAll(ReasonShutdown) })
	return th
}

// open opens a session and returns its id.
func (th *testHost) open(t *testing.T, req OpenRequest) string {
	t.Helper()
	if req.Engine == nil && req.Config == "" {
		req.Engine = &EngineArg{Builtin: "web"}
	}
	if _, err := th.Open(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	live := th.Live()
	return live[len(live)-1]
}

// endedReason reads the next OnEnded call; it must be id's.
func (th *testHost) endedReason(t *testing.T, id string) string {
	t.Helper()
	select {
	case e := <-th.ended:
		if e[0] != id {
			t.Fatalf("session %s ended, want %s", e[0], id)
		}
		return e[1]
	default:
		t.Fatalf("session %s has not ended", id)
	}
	return ""
}

func (th *testHost) noneEnded(t *testing.T) {
	t.Helper()
	select {
	case e := <-th.ended:
		t.Fatalf("session %s ended: %s", e[0], e[1])
	default:
	}
}

func TestAdmission(t *testing.T) {
	for _, max := range []int{1, 2, 4} {
		t.Run(strings.Repeat("slot", max), func(t *testing.T) {
			th := newHost(t, hostOpts{maxSessions: max})
			var ids []string
			for range max {
				ids = append(ids, th.open(t, OpenRequest{}))
			}
			_, err := th.Open(context.Background(), OpenRequest{Engine: &EngineArg{Builtin: "web"}})
			slots := make([]string, len(ids))
			for i, id := range ids {
				slots[i] = id + ` on "web"`
			}
			want := "SESSION_OPEN: no session slot is free (e2e mcp --max-sessions " + string(rune('0'+max)) + "): " + strings.Join(slots, ", ") + "; close_session one first"
			if err == nil || mcperr.Text(err) != want {
				t.Fatalf("open past the slots: %v\nwant %s", err, want)
			}
			if _, err := th.Close(context.Background(), ids[0]); err != nil {
				t.Fatal(err)
			}
			if r := th.endedReason(t, ids[0]); r != ReasonAgent {
				t.Errorf("reason %q", r)
			}
			th.open(t, OpenRequest{}) // the freed slot admits one
		})
	}
	if _, err := New(Options{MaxSessions: MaxMaxSessions + 1}); err == nil {
		t.Error("max sessions 17 accepted")
	}
}

func TestSessionTimers(t *testing.T) {
	const idle, ttl = DefaultIdleTimeout, DefaultTTL
	tests := []struct {
		name string
		// steps run in order; a positive step advances the clock, call and
		// tools use the session.
		steps  []any
		reason string // "" the session is still live at the end
	}{
		{name: "idle just before the timeout", steps: []any{idle - time.Nanosecond}},
		{name: "idle timeout", steps: []any{idle}, reason: "idle for 30 minutes"},
		{name: "a call resets the idle timer", steps: []any{20 * time.Minute, "call", 20 * time.Minute}},
		{name: "idle after the last call", steps: []any{20 * time.Minute, "call", idle}, reason: "idle for 30 minutes"},
		{name: "tools does not reset the idle timer", steps: []any{20 * time.Minute, "tools", 10 * time.Minute}, reason: "idle for 30 minutes"},
		{name: "TTL although busy", steps: slices.Repeat([]any{"call", 20 * time.Minute}, int(ttl/(20*time.Minute))), reason: "the session exceeded its 4 hours limit"},
		{name: "before the TTL", steps: append(slices.Repeat([]any{"call", 20 * time.Minute}, int(ttl/(20*time.Minute))-1), "call", 20*time.Minute-time.Nanosecond)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			th := newHost(t, hostOpts{})
			id := th.open(t, OpenRequest{})
			for _, st := range tt.steps {
				switch st := st.(type) {
				case time.Duration:
					th.clock.Advance(st)
				case string:
					var err error
					if st == "call" {
						_, err = th.Call(context.Background(), id, "observe", nil)
					} else {
						_, err = th.Tools(context.Background(), id, "")
					}
					if err != nil {
						t.Fatalf("%s: %v", st, err)
					}
				}
			}
			if tt.reason == "" {
				th.noneEnded(t)
				if !slices.Equal(th.Live(), []string{id}) {
					t.Fatalf("live %v", th.Live())
				}
				return
			}
			if r := th.endedReason(t, id); r != tt.reason {
				t.Fatalf("reason %q, want %q", r, tt.reason)
			}
			if n := th.logs.count("session " + id + " ended: " + tt.reason); n != 1 {
				t.Errorf("%d warning lines for the end:\n%s", n, th.logs)
			}
			_, err := th.Call(context.Background(), id, "observe", nil)
			if want := `NO_SESSION: session "` + id + `" ended: ` + tt.reason + `; call open_session for a new one`; err == nil || mcperr.Text(err) != want {
				t.Errorf("call after the end: %v", err)
			}
		})
	}
}

// TestCloseAll: a client disconnect and a shutdown (SIGTERM) both drain the
// host through CloseAll: every session closes with the reason, in
// parallel, without a warning line, and no session opens afterwards.
func TestCloseAll(t *testing.T) {
	for _, reason := range []string{ReasonDisconnect, ReasonShutdown} {
		t.Run(reason, func(t *testing.T) {
			th := newHost(t, hostOpts{maxSessions: 3})
			a, b := th.open(t, OpenRequest{}), th.open(t, OpenRequest{})
			if _, err := th.Call(context.Background(), b, "observe", nil); err != nil {
				t.Fatal(err)
			}
			texts := th.CloseAll(reason)
			want := []string{"Session " + a + " closed (" + reason + "); 0 tool calls ran.", "Session " + b + " closed (" + reason + "); 1 tool calls ran."}
			if !slices.Equal(texts, want) {
				t.Errorf("close texts %q, want %q", texts, want)
			}
			got := map[string]string{}
			for range 2 {
				e := <-th.ended
				got[e[0]] = e[1]
			}
			if got[a] != reason || got[b] != reason {
				t.Errorf("ended %v", got)
			}
			if strings.Contains(th.logs.String(), "ended: "+reason) {
				t.Errorf("a warning for a drain:\n%s", th.logs)
			}
			_, err := th.Open(context.Background(), OpenRequest{Engine: &EngineArg{Builtin: "web"}})
			if err == nil || mcperr.Text(err) != "SESSION_OPEN: the server is shutting down; no session can open" {
				t.Errorf("open after the drain: %v", err)
			}
			if len(th.Live()) != 0 {
				t.Errorf("live %v", th.Live())
			}
		})
	}
}

// blockingOpen is an engine whose session/open waits for its context: an
// open_session on it stays in flight until cancelled.
type blockingOpen struct {
	*example.Engine
	entered chan struct{}
	left    chan struct{} // closed when the open returns; nil: not watched
}

func (b blockingOpen) Open(ctx context.Context, op server.Operation, url string) error {
	close(b.entered)
	<-ctx.Done()
	if b.left != nil {
		close(b.left)
	}
	return ctx.Err()
}

// TestCloseAllCancelsOpens: an open in flight when the drain starts answers
// CANCELLED, and CloseAll returns only after it did.
func TestCloseAllCancelsOpens(t *testing.T) {
	entered, left := make(chan struct{}), make(chan struct{})
	th := newHost(t, hostOpts{engine: func() server.Engine {
		return blockingOpen{Engine: example.New(), entered: entered, left: left}
	}})
	errc := make(chan error, 1)
	go func() {
		_, err := th.Open(context.Background(), OpenRequest{Engine: &EngineArg{Builtin: "web"}, AppURL: "http://127.0.0.1:9/"})
		errc <- err
	}()
	<-entered
	th.CloseAll(ReasonShutdown)
	// The engine's open has returned (its cancellation was answered)
	// before CloseAll did; the caller's Open returns right after (the
	// test's goroutine may not have sent its result yet: not a check).
	select {
	case <-left:
	default:
		t.Fatal("CloseAll returned before the open in flight ended")
	}
	err := <-errc
	var he *mcperr.Error
	if !errors.As(err, &he) || he.Code != mcperr.Cancelled || !strings.HasSuffix(he.Message, " was cancelled") {
		t.Fatalf("open: %v", err)
	}
	th.noneEnded(t) // it never went live
}

// readTrace reads a trace file's records.
func readTrace(t *testing.T, path string) []traceRecord {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []traceRecord
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var r traceRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("trace line %q: %v", sc.Text(), err)
		}
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestTraceModes(t *testing.T) {
	tracing := func() server.Engine { return tracingEngine{example.New()} }
	ci := func(k string) string {
		if k == "CI" {
			return "true"
		}
		return ""
	}
	tests := []struct {
		name   string
		trace  string // the config's trace member; "" sets none
		getenv func(string) string
		kept   bool
	}{
		{name: "on", trace: "on", kept: true},
		{name: "local default", kept: true},
		{name: "CI default", getenv: ci},
		{name: "retain-on-failure", trace: "retain-on-failure"},
		{name: "retain-on-first-failure", trace: "retain-on-first-failure"},
		{name: "on-first-retry", trace: "on-first-retry"},
		{name: "on-all-retries", trace: "on-all-retries"},
		{name: "off", trace: "off"},
		{name: "on under CI", trace: "on", getenv: ci, kept: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := `{"targets":[{"name":"web","engine":{"builtin":"web"}}]`
			if tt.trace != "" {
				cfg += `,"trace":"` + tt.trace + `"`
			}
			th := newHost(t, hostOpts{config: cfg + "}", engine: tracing, getenv: tt.getenv})
			if _, err := th.Open(context.Background(), OpenRequest{}); err != nil {
				t.Fatal(err)
			}
			id := th.Live()[0]
			if _, err := th.Call(context.Background(), id, "tap", json.RawMessage(`{"target":"n2"}`)); err != nil {
				t.Fatal(err)
			}
			if _, err := th.Close(context.Background(), id); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(th.dir, ".e2e", "artifacts", "web", "sessions", id, TraceFile)
			_, err := os.Stat(path)
			if !tt.kept {
				if !errors.Is(err, os.ErrNotExist) {
					t.Fatalf("a trace under %s: %v", tt.name, err)
				}
				if strings.Contains(th.logs.String(), "session trace saved") {
					t.Errorf("trace logged as saved:\n%s", th.logs)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var kinds []string
			for _, r := range readTrace(t, path) {
				k := r.Kind
				if r.Source != "" {
					k += "/" + r.Source
				}
				if r.Tool != "" {
					k += " " + r.Tool
				}
				if r.Kind == traceNavigation {
					k += " " + r.Text
				}
				kinds = append(kinds, k)
				if _, err := time.Parse(time.RFC3339Nano, r.At); err != nil {
					t.Errorf("record time %q: %v", r.At, err)
				}
			}
			want := []string{"navigation navigated to about:trace", "screen/observe", "call tap", "screen/observe"}
			if !slices.Equal(kinds, want) {
				t.Errorf("trace records %q, want %q", kinds, want)
			}
			if n := th.logs.count("session trace saved"); n != 1 {
				t.Errorf("%d saved lines:\n%s", n, th.logs)
			}
		})
	}
}

// TestTraceUnsupported: an engine that cannot be asked for a trace records
// none, and the host says so once, however many sessions open on it.
func TestTraceUnsupported(t *testing.T) {
	const line = `web: trace records only on targets whose engine can record it; target "web" (engine observe-only) records no trace`
	for _, tt := range []struct {
		trace string
		lines int
	}{{trace: "on", lines: 1}, {trace: "retain-on-failure", lines: 1}, {trace: "on-first-retry"}, {trace: "off"}} {
		t.Run(tt.trace, func(t *testing.T) {
			cfg := `{"targets":[{"name":"web","engine":{"builtin":"web"}}],"trace":"` + tt.trace + `"}`
			th := newHost(t, hostOpts{config: cfg, maxSessions: 2, unlisted: true,
				engine: func() server.Engine { return observeOnly{example.New()} }})
			var ids []string
			for range 3 {
				if _, err := th.Open(context.Background(), OpenRequest{}); err != nil {
					t.Fatal(err)
				}
				id := th.Live()[len(th.Live())-1]
				ids = append(ids, id)
				if len(ids) == 2 {
					if _, err := th.Close(context.Background(), ids[0]); err != nil {
						t.Fatal(err)
					}
				}
			}
			if n := th.logs.count("msg=" + strconv.Quote(line)); n != tt.lines {
				t.Errorf("%d lines %q, want %d:\n%s", n, line, tt.lines, th.logs)
			}
			th.CloseAll(ReasonShutdown)
			for _, id := range ids {
				if _, err := os.Stat(filepath.Join(th.dir, ".e2e", "artifacts", "web", "sessions", id, TraceFile)); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("session %s: a trace: %v", id, err)
				}
			}
		})
	}
}
