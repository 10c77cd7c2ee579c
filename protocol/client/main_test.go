package client_test

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/e2e-conform/toolkit/fixtures/example"
	"github.com/e2e-conform/toolkit/protocol/client"
	"github.com/e2e-conform/toolkit/protocol/schema"
	"github.com/e2e-conform/toolkit/protocol/server"
	"github.com/e2e-conform/toolkit/protocol/transport"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// serveEnv selects a server mode when the test binary is re-executed as a
// spawned engine.
const serveEnv = "E2E_CLIENT_TEST_SERVE"

func TestMain(m *testing.M) {
	switch os.Getenv(serveEnv) {
	case "":
	case "example":
		os.Exit(server.ServeStdio(example.New(), server.Options{Logger: slog.New(slog.NewTextHandler(os.Stderr, nil))}))
	case "crash-on-observe":
		os.Exit(server.ServeStdio(crashing{example.New()}, server.Options{}))
	case "garbage":
		// Answers initialize with bytes that do not frame.
		buf := make([]byte, 1)
		os.Stdin.Read(buf)
		fmt.Fprintln(os.Stderr, "garbage server writes garbage")
		os.Stderr.Sync()
		os.Stdout.WriteString("hello, this is not a frame\r\n\r\n")
		os.Exit(3)
	default:
		if !serveNoopOrEcho(os.Getenv(serveEnv)) {
			panic("unknown mode")
		}
	}
	goleak.VerifyTestMain(m)
}

// crashing exits the process in the middle of engine/observe, after writing
// to stderr: a peer closing mid-call.
type crashing struct{ *example.Engine }

func (c crashing) Observe(ctx context.Context, op server.Operation, opts wire.EngineObserveOptions) (*wire.EngineSnapshot, error) {
	fmt.Fprintln(os.Stderr, "about to crash in observe")
	os.Exit(7)
	return nil, nil
}

// appURL serves an app on a loopback port for the test's lifetime: the
// example engine dials http URLs in session/open, as a browser would.
func appURL(t testing.TB) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// spawnSelf is a spawn transport running this test binary in mode.
func spawnSelf(t testing.TB, mode string) transport.Transport {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return transport.Spawn(transport.SpawnOptions{Command: exe, Env: map[string]string{serveEnv: mode}})
}

// socketExample serves the example engine on a loopback TCP port for the
// test's lifetime.
func socketExample(t testing.TB) transport.Transport {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- server.ServeListener(ctx, l, example.New(), nil, server.Options{}) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("ServeListener: %v", err)
		}
	})
	addr := l.Addr().(*net.TCPAddr)
	return transport.Socket(transport.SocketOptions{Host: "127.0.0.1", Port: addr.Port})
}

func loopbackExample() transport.Transport {
	return server.LoopbackTransport(example.New(), server.Options{})
}

func exampleManifest() wire.Manifest { return server.DescribeEngine(example.New()) }

var schemas = schema.MustLoad()

// open opens a connection and closes it at the end of the test.
func open(t testing.TB, tr transport.Transport, mutate func(*client.ConnConfig)) *client.Conn {
	t.Helper()
	m := exampleManifest()
	cfg := client.ConnConfig{Transport: tr, Manifest: &m, Schemas: schemas, AbortGrace: 2 * time.Second}
	if mutate != nil {
		mutate(&cfg)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := client.Open(ctx, cfg)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = c.Close(5 * time.Second) })
	return c
}
