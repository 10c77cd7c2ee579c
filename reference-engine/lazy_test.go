package webengine

import (
	"context"
	"testing"

	"github.com/e2e-conform/toolkit/protocol/server"
)

// started reports whether the engine has a browser, started or starting,
// and whether it made its Chromium directory.
func started(e *Engine) (browser, dir bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.launch != nil, e.dir != nil
}

// TestChromiumStartsOnlyForAPage: init, attempts without operations,
// endAttempt and dispose start no Chromium and create no directory (the
// lifecycle, wire and manifest checks of a conformance run never pay for a
// browser); the first operation that needs a page starts it, and it stays
// warm across attempts until dispose.
func TestChromiumStartsOnlyForAPage(t *testing.T) {
	srv := pageServer(t)
	e := newEngine(Options{NoVideo: true}.withDefaults())
	t.Cleanup(func() { e.Close() })
	ctx := context.Background()
	var lines []string
	if err := e.Init(ctx, server.InitInfo{Log: func(l string) { lines = append(lines, l) }}); err != nil {
		t.Fatalf("init: %v", err)
	}
	if len(lines) != 1 {
		t.Fatalf("init logged %q: want one line", lines)
	}
	check := func(when string, wantBrowser, wantDir bool) {
		t.Helper()
		b, d := started(e)
		if b != wantBrowser || d != wantDir {
			t.Fatalf("%s: browser %v, directory %v; want %v, %v", when, b, d, wantBrowser, wantDir)
		}
	}
	check("after init", false, false)
	if err := e.StartAttempt(ctx, nil); err != nil {
		t.Fatal(err)
	}
	check("after startAttempt", false, false)
	if err := e.EndAttempt(ctx, server.Cleanup{TimeoutMs: 5000}); err != nil {
		t.Fatal(err)
	}
	if err := e.Dispose(ctx, server.DisposeInfo{TimeoutMs: 5000}); err != nil {
		t.Fatal(err)
	}
	check("after endAttempt and dispose", false, false)

	if err := e.Init(ctx, server.InitInfo{Log: func(string) {}}); err != nil {
		t.Fatalf("second init: %v", err)
	}
	if err := e.StartAttempt(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if err := e.Open(ctx, testOp, srv.URL+"/"); err != nil {
		t.Fatalf("open: %v", err)
	}
	check("after session/open", true, true)
	first, err := e.browser(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.EndAttempt(ctx, server.Cleanup{TimeoutMs: 5000}); err != nil {
		t.Fatal(err)
	}
	if err := e.StartAttempt(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if err := e.Open(ctx, testOp, srv.URL+"/"); err != nil {
		t.Fatalf("open in the second attempt: %v", err)
	}
	again, err := e.browser(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if again != first {
		t.Fatal("the second attempt got another Chromium: the warm one was not reused")
	}
	if err := e.Dispose(ctx, server.DisposeInfo{TimeoutMs: 5000}); err != nil {
		t.Fatal(err)
	}
	check("after the second dispose", false, true)
	if first.actx.Err() == nil {
		t.Fatal("dispose left Chromium running")
	}
}
