//go:build linux

package webengine

import (
	"context"
	"errors"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/e2e-conform/toolkit/internal/procs"
	"github.com/e2e-conform/toolkit/protocol/server"
)

// disposeMargin is how much later than its timeoutMs (or its signal's
// abort) dispose may answer in TestDisposeKillsAStoppedChromium: the
// engine aims at timeoutMs less up to 200 ms; the suite allows 2000 ms.
const disposeMargin = 1000 * time.Millisecond

// procState is the state letter of pid's /proc/<pid>/stat ("" when pid
// is gone).
func procState(pid int) string {
	p, ok := procs.Read(pid)
	if !ok {
		return ""
	}
	return string(p.State)
}

// TestDisposeKillsAStoppedChromium: lifecycle/dispose is bounded by its
// timeoutMs and by its signal even when Chromium never exits (SIGSTOPped:
// it answers no CDP call, its orderly close cannot finish). The answer
// arrives before a deadline derived from the bound, Chromium has been
// killed by then (its allocator is cancelled, which SIGKILLs it), and
// Close reaps it.
func TestDisposeKillsAStoppedChromium(t *testing.T) {
	srv := pageServer(t)
	for _, tc := range []struct {
		name      string
		timeoutMs float64
		abort     time.Duration // the signal aborts this long after the call (0: never)
	}{
		{"timeoutMs 300", 300, 0},
		{"timeoutMs 1500", 1500, 0},
		{"signal aborted", 60000, 300 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEngine(Options{NoVideo: true}.withDefaults())
			t.Cleanup(func() { e.Close() })
			ctx := context.Background()
			if err := e.Init(ctx, server.InitInfo{Log: func(string) {}}); err != nil {
				t.Fatalf("init: %v", err)
			}
			if err := e.Open(ctx, testOp, srv.URL+"/"); err != nil {
				t.Fatalf("open: %v", err)
			}
			br, err := e.browser(ctx)
			if err != nil {
				t.Fatal(err)
			}
			pid := chromedp.FromContext(br.bctx).Browser.Process().Pid
			if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGCONT) }) // ESRCH once it is gone
			// SIGSTOP takes effect asynchronously: wait until the kernel
			// reports the process stopped.
			for procState(pid) != "T" {
				if s := procState(pid); s == "" || s == "Z" {
					t.Fatalf("Chromium (pid %d) exited instead of stopping", pid)
				}
				time.Sleep(5 * time.Millisecond) // polling the process table
			}

			bound := time.Duration(tc.timeoutMs) * time.Millisecond
			sig, abort := context.WithCancel(ctx)
			defer abort()
			if tc.abort > 0 {
				stop := time.AfterFunc(tc.abort, abort) // the client's $/abort
				defer stop.Stop()
				bound = tc.abort
			}
			deadline, cancel := context.WithTimeout(ctx, bound+disposeMargin)
			defer cancel()
			answered := make(chan error, 1)
			go func() { answered <- e.Dispose(sig, server.DisposeInfo{TimeoutMs: tc.timeoutMs}) }()
			select {
			case err := <-answered:
				if err != nil {
					t.Fatalf("dispose: %v", err)
				}
			case <-deadline.Done():
				t.Fatalf("dispose (timeoutMs %v) did not answer within its bound + %s while Chromium was stopped", tc.timeoutMs, disposeMargin)
			}
			if !errors.Is(br.actx.Err(), context.Canceled) {
				t.Fatal("dispose answered without killing the stopped Chromium (its allocator still runs)")
			}
			e.mu.Lock()
			left := e.launch != nil || e.sess != nil
			e.mu.Unlock()
			if left {
				t.Fatal("dispose left the browser or the session attached to the engine")
			}
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
			if !gone(pid) {
				t.Fatalf("Chromium (pid %d) outlived Close (state %q)", pid, procState(pid))
			}
		})
	}
}
