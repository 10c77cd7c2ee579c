//go:build linux

package chaos

import (
	"context"
	"net"
	"runtime"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/e2e-conform/toolkit/fixtures/example"
	"github.com/e2e-conform/toolkit/protocol/server"
)

// inProcess serves the example engine with the toolkit's server library
// (protocol/server.ServeListener) in this process, on a loopback port, so
// that a case can count the server's goroutines; stop ends it and returns
// ServeListener's error.
func inProcess(t *testing.T) (addr string, stop func() error) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- server.ServeListener(ctx, l, example.New(), nil, server.Options{}) }()
	stopped := false
	stop = func() error {
		if stopped {
			return nil
		}
		stopped = true
		cancel()
		return <-served
	}
	t.Cleanup(func() { _ = stop() })
	return l.Addr().String(), stop
}

// goroutinesBack waits until this process runs at most want goroutines and
// reports how many it runs.
func goroutinesBack(want int) (int, bool) {
	n := 0
	ok := eventually(20*time.Second, func() bool { n = runtime.NumGoroutine(); return n <= want })
	return n, ok
}

// TestServerConnectionsClosedMidFrame: 200 connections to the toolkit
// server each stop mid-frame (inside a header, inside initialize's
// content, inside a request after the handshake, a few bytes into an
// announced 64 MiB part) and close. The server answers a fresh client, its
// goroutines come back to where they were, every goroutine ends with
// ServeListener (goleak), and the Go heap in use grows within a bound.
func TestServerConnectionsClosedMidFrame(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	const conns = 200
	const heapMB = 64
	addr, stop := inProcess(t)
	if err := answersFreshClient(addr); err != nil {
		t.Fatal(err)
	}
	base := runtime.NumGoroutine() // the listener's, and maybe a few of the fresh client's connection still ending
	// The bound is on what the connections added: another test of this
	// process may have left heap behind (TestPeakIsTheChildsOwn holds 300 MB
	// while it runs), so the baseline is measured after a collection.
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	closedMidFrame(t, addr, conns)
	runtime.ReadMemStats(&after)
	grew := max(int64(after.HeapInuse)-int64(before.HeapInuse), 0)
	if err := answersFreshClient(addr); err != nil {
		t.Errorf("a fresh client after %d connections closed mid-frame: %v", conns, err)
	}
	if n, ok := goroutinesBack(base); !ok {
		t.Errorf("%d goroutines after %d connections closed mid-frame, %d before", n, conns, base)
	}
	t.Logf("goroutines back to %d; heap in use grew by %d MB", base, grew>>20)
	if grew>>20 > heapMB {
		t.Errorf("heap in use grew by %d MB after %d connections closed mid-frame, want at most %d MB", grew>>20, conns, heapMB)
	}
	if err := stop(); err != nil {
		t.Errorf("ServeListener: %v", err)
	}
}

// TestServerSlowloris: 100 connections dribble one byte every 20 ms (half
// of them into a part that announced 64 MiB) while a fresh client is
// served. Each costs the server a bounded number of goroutines and of heap
// bytes (what arrived, not what was announced); once they close, the
// goroutines come back and none outlives ServeListener.
func TestServerSlowloris(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	const conns = 100
	const perConnGoroutines = 4
	const perConnHeapKB = 256
	addr, stop := inProcess(t)
	if err := answersFreshClient(addr); err != nil {
		t.Fatal(err)
	}
	base := runtime.NumGoroutine() // the listener's, and maybe a few of the fresh client's connection still ending
	runtime.GC()
	var before, held runtime.MemStats
	runtime.ReadMemStats(&before)
	dribbled, closeAll := slowloris(t, addr, conns, 50, 20*time.Millisecond)
	if err := answersFreshClient(addr); err != nil {
		t.Errorf("a fresh client while %d slowloris connections are held: %v", conns, err)
	}
	dribbled()
	runtime.ReadMemStats(&held)
	// The clients' own goroutines ended with dribbled: what is above the
	// base is the server's.
	serverSide := runtime.NumGoroutine() - base
	closeAll()
	grew := int64(held.HeapInuse) - int64(before.HeapInuse)
	t.Logf("%d server goroutines and %d KB of heap for %d slowloris connections", serverSide, grew>>10, conns)
	if serverSide > conns*perConnGoroutines {
		t.Errorf("%d server goroutines for %d slowloris connections, want at most %d each", serverSide, conns, perConnGoroutines)
	}
	if grew > conns*perConnHeapKB<<10 {
		t.Errorf("heap grew by %d KB for %d slowloris connections, want at most %d KB each", grew>>10, conns, perConnHeapKB)
	}
	if n, ok := goroutinesBack(base); !ok {
		t.Errorf("%d goroutines after the slowloris connections closed, %d before", n, base)
	}
	if err := stop(); err != nil {
		t.Errorf("ServeListener: %v", err)
	}
}
