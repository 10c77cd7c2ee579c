package webengine

import (
	"context"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/e2e-conform/toolkit/protocol/server"
)

// gone reports whether the process pid has exited and been reaped (or is a
// zombie about to be).
func gone(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && i+2 < len(s) && s[i+2] == 'Z'
}

// waitGone polls the process table until pid is gone, or fails after d.
func waitGone(t *testing.T, pid int, d time.Duration, what string) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !gone(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: Chromium (pid %d) still runs after %s", what, pid, d)
		}
		time.Sleep(20 * time.Millisecond) // polling the process table
	}
}

// TestCleanupAnswersWithinBudgetWhileChromiumIsSlowToClose: LIFE-016 under
// load. Every close is held up (beforeClose blocks until the test lets it
// go, as a loaded machine holds up Chromium's exit), and dispose and
// endAttempt still answer within timeoutMs (the suite allows 2000 ms
// more), or soon after their signal aborts. Dispose has killed Chromium by
// then, although its orderly close has not even begun; endAttempt leaves a
// browser that serves the next session. Nothing outlives Close.
func TestCleanupAnswersWithinBudgetWhileChromiumIsSlowToClose(t *testing.T) {
	srv := pageServer(t)
	for _, tc := range []struct {
		method    string
		timeoutMs float64
		abort     time.Duration // the signal aborts this long after the call (0: never)
	}{
		{"dispose", 300, 0},
		{"dispose", 1000, 0},
		{"endAttempt", 300, 0},
		{"endAttempt", 1000, 0},
		{"dispose", 60000, 200 * time.Millisecond},
		{"endAttempt", 60000, 200 * time.Millisecond},
	} {
		name := tc.method + "/" + strconv.Itoa(int(tc.timeoutMs)) + "ms"
		if tc.abort > 0 {
			name += "/aborted"
		}
		t.Run(name, func(t *testing.T) {
			e := newEngine(Options{NoVideo: true}.withDefaults())
			release := make(chan struct{})
			var once sync.Once
			letGo := func() { once.Do(func() { close(release) }) }
			e.beforeClose = func() { <-release }
			t.Cleanup(func() { letGo(); e.Close() })
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

			sig, abort := context.WithCancel(ctx)
			defer abort()
			bound := time.Duration(tc.timeoutMs) * time.Millisecond
			if tc.abort > 0 {
				stop := time.AfterFunc(tc.abort, abort) // the client's $/abort
				defer stop.Stop()
				bound = tc.abort
			}
			start := time.Now()
			switch tc.method {
			case "dispose":
				err = e.Dispose(sig, server.DisposeInfo{TimeoutMs: tc.timeoutMs})
			case "endAttempt":
				err = e.EndAttempt(sig, server.Cleanup{TimeoutMs: tc.timeoutMs})
			}
			took := time.Since(start)
			if err != nil {
				t.Fatalf("%s: %v", tc.method, err)
			}
			if limit := bound + 2000*time.Millisecond; took > limit {
				t.Fatalf("%s answered after %s, beyond %s (LIFE-016)", tc.method, took, limit)
			}
			t.Logf("%s (timeoutMs %v) answered after %s while the close was held up", tc.method, tc.timeoutMs, took.Round(time.Millisecond))

			switch tc.method {
			case "dispose":
				// Released although the orderly close is still held up.
				waitGone(t, pid, 10*time.Second, "after dispose")
				e.mu.Lock()
				left := e.launch != nil || e.sess != nil
				e.mu.Unlock()
				if left {
					t.Fatal("dispose left the browser or the session attached to the engine")
				}
			case "endAttempt":
				if err := e.Open(ctx, testOp, srv.URL+"/"); err != nil {
					t.Fatalf("open after endAttempt, the old close still held up: %v", err)
				}
				if gone(pid) {
					t.Fatal("endAttempt stopped Chromium")
				}
			}
			letGo()
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
			if !gone(pid) {
				t.Fatalf("Chromium (pid %d) outlived Close", pid)
			}
		})
	}
}

// TestCleanupWithinBudgetClosesInOrder: a close that is not held up
// finishes before the answer (dispose releases everything before it
// answers when it can).
func TestCleanupWithinBudgetClosesInOrder(t *testing.T) {
	srv := pageServer(t)
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
	if err := e.Dispose(ctx, server.DisposeInfo{TimeoutMs: 30000}); err != nil {
		t.Fatal(err)
	}
	if !gone(pid) {
		t.Fatalf("Chromium (pid %d) still runs when dispose answers within its budget", pid)
	}
}
