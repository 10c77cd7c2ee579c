package server_test

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/e2e-conform/toolkit/conformance/fixture/web"
	"github.com/e2e-conform/toolkit/protocol/client"
	"github.com/e2e-conform/toolkit/protocol/transport"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// The benchmarks come in pairs: the host through MCP (in-memory
// transports) and, as the baseline of the same run, the same work done
// straight through protocol/client. On the saboteur (no browser) they
// measure the host's own cost; the Web variants run the reference web
// engine (Chromium) on the fixture page /counter.

func benchOpen(b *testing.B, e *env) {
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := e.cs.CallTool(ctx, &mcp.CallToolParams{Name: "open_session", Arguments: map[string]any{}})
		if err != nil || res.IsError {
			b.Fatal(err, res)
		}
		b.StopTimer()
		if res, err := e.cs.CallTool(ctx, &mcp.CallToolParams{Name: "close_session", Arguments: map[string]any{}}); err != nil || res.IsError {
			b.Fatal(err, res)
		}
		b.StartTimer()
	}
}

func benchObserve(b *testing.B, e *env) {
	ctx := context.Background()
	if res, err := e.cs.CallTool(ctx, &mcp.CallToolParams{Name: "open_session", Arguments: map[string]any{}}); err != nil || res.IsError {
		b.Fatal(err, res)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := e.cs.CallTool(ctx, &mcp.CallToolParams{Name: "call", Arguments: map[string]any{"tool": "observe"}})
		if err != nil || res.IsError {
			b.Fatal(err, res)
		}
	}
}

// BenchmarkOpenToFirstObservation measures open_session (config load,
// engine connection, init, attempt, navigate, first observe) on the
// saboteur; close is not timed.
func BenchmarkOpenToFirstObservation(b *testing.B) {
	benchOpen(b, newEnv(b, envOpts{config: oneTarget}))
}

// BenchmarkCallObserve measures `call observe` on an open saboteur session.
func BenchmarkCallObserve(b *testing.B) { benchObserve(b, newEnv(b, envOpts{config: oneTarget})) }

// BenchmarkWebOpenToFirstObservation is open_session to the first
// observation on the reference web engine, fixture page /counter.
func BenchmarkWebOpenToFirstObservation(b *testing.B) {
	benchOpen(b, newWebEnv(b, envOpts{config: oneTarget}))
}

// BenchmarkWebCallObserve is `call observe` on the web engine, /counter.
func BenchmarkWebCallObserve(b *testing.B) { benchObserve(b, newWebEnv(b, envOpts{config: oneTarget})) }

// rawSession is the baseline: the engine driven straight through
// protocol/client, as open_session does, without the host or MCP.
type rawSession struct {
	conn *client.Conn
	op   client.Op
}

func rawOpen(ctx context.Context, b *testing.B, tr transport.Transport, url string) *rawSession {
	conn, err := client.Open(ctx, client.ConnConfig{Transport: tr, Context: transport.Context{Role: wire.RoleWorker, Cwd: b.TempDir()},
		ClientInfo: wire.ClientInfo{Name: "bench", Version: "1"}})
	if err != nil {
		b.Fatal(err)
	}
	r := &rawSession{conn: conn, op: client.Op{RunID: "bench", AttemptID: "a", Origin: wire.OriginAgent}}
	m := conn.Manifest()
	if m.Lists(wire.MethodInit) {
		if err := conn.Init(ctx, wire.InitParams{RunID: "bench", TargetName: "web", ProjectRoot: b.TempDir()}); err != nil {
			b.Fatal(err)
		}
	}
	if err := conn.StartAttempt(ctx, wire.StartAttemptParams{AttemptID: "a", ArtifactsDir: b.TempDir()}); err != nil {
		b.Fatal(err)
	}
	if err := conn.Open(ctx, r.op, url); err != nil {
		b.Fatal(err)
	}
	if _, err := conn.Observe(ctx, r.op, nil); err != nil {
		b.Fatal(err)
	}
	return r
}

func (r *rawSession) close(ctx context.Context, b *testing.B) {
	if err := r.conn.EndAttempt(ctx, 10_000); err != nil {
		b.Fatal(err)
	}
	if m := r.conn.Manifest(); m.Lists(wire.MethodDispose) {
		if err := r.conn.Dispose(ctx, 10_000, nil); err != nil {
			b.Fatal(err)
		}
	}
	if err := r.conn.Close(5 * time.Second); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkWebRawOpenToFirstObservation is the baseline of
// BenchmarkWebOpenToFirstObservation: connect, init, start an attempt,
// open /counter and observe through protocol/client; teardown not timed.
func BenchmarkWebRawOpenToFirstObservation(b *testing.B) {
	app := httptest.NewServer(web.Handler())
	defer app.Close()
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := rawOpen(ctx, b, webTransport(false), app.URL+"/counter")
		b.StopTimer()
		r.close(ctx, b)
		b.StartTimer()
	}
}

// BenchmarkWebRawObserve is the baseline of BenchmarkWebCallObserve:
// engine/observe of /counter through protocol/client.
func BenchmarkWebRawObserve(b *testing.B) {
	app := httptest.NewServer(web.Handler())
	defer app.Close()
	ctx := context.Background()
	r := rawOpen(ctx, b, webTransport(false), app.URL+"/counter")
	defer r.close(ctx, b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := r.conn.Observe(ctx, r.op, nil); err != nil {
			b.Fatal(err)
		}
	}
}
