package webengine

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"

	"github.com/e2e-conform/toolkit/conformance/fixture/web"
	"github.com/e2e-conform/toolkit/protocol/client"
	"github.com/e2e-conform/toolkit/protocol/engineerr"
	"github.com/e2e-conform/toolkit/protocol/transport"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// TestUnhandledDialogs (web-engine §2.11) on /web/dialogs, over the
// protocol: a tap opening an alert, a confirm, a prompt or (by leaving
// the page) a beforeunload dialog succeeds; the dialog is dismissed (a
// confirm answers false, a prompt null, the page is not left); the next
// operation fails with INVALID_STATE "unhandled <type> dialog: <message>",
// the one after it succeeds; each dialog is one attempt/appLog entry that
// arrived before the tap's answer.
func TestUnhandledDialogs(t *testing.T) {
	s := newAppLogSession(t)
	ctx, c, o, srv, byTest := s.ctx, s.c, s.o, s.srv, s.byTest
	for _, k := range []struct {
		button, typ, message, answer string
	}{
		{"alert", "alert", "Heads up", "answer: alert closed"},
		{"confirm", "confirm", "Delete everything?", "answer: confirm false"},
		{"prompt", "prompt", "Your name?", "answer: prompt null"},
		{"leave", "beforeunload", "", "answer: none"},
	} {
		t.Run(k.typ, func(t *testing.T) {
			if err := c.Open(ctx, o, srv.URL+"/web/dialogs"); err != nil {
				t.Fatal(err)
			}
			b := byTest(k.button)
			before := s.logCount()
			if err := c.Perform(ctx, o, b.Ref, wire.LocatorAction{Kind: wire.ActionTap}); err != nil {
				t.Fatalf("the tap opening the %s dialog: %v", k.typ, err)
			}
			got := s.logsSince(before)
			want := "unhandled " + k.typ + " dialog: " + k.message
			if len(got) != 1 || got[0].Source != "system" || got[0].Level != "warning" || !strings.HasPrefix(got[0].Text, strings.TrimSpace(want)) {
				t.Errorf("app log after the tap: %+v; want one system warning starting %q", got, want)
			}
			_, err := c.Observe(ctx, o, nil)
			var ee *engineerr.EngineError
			if !errors.As(err, &ee) || ee.Code != engineerr.InvalidState || !strings.HasPrefix(ee.Message, strings.TrimSpace(want)) || ee.Retryable {
				t.Fatalf("the operation after the %s dialog: %v; want INVALID_STATE %q", k.typ, err, want)
			}
			if k.message != "" && ee.Message != want {
				t.Errorf("message %q, want %q", ee.Message, want)
			}
			snap, err := c.Observe(ctx, o, nil)
			if err != nil {
				t.Fatalf("the second operation after the dialog: %v", err)
			}
			if strings.Contains(snap.Location, "?left") {
				t.Errorf("the page was left: %s", snap.Location)
			}
			if a := byTest("answer"); a.Text == nil || *a.Text != k.answer {
				t.Errorf("answer %v, want %q (dismissed)", a.Text, k.answer)
			}
		})
	}
}

// TestDialogOfUnknownType: a dialog of a type §2.11 does not name fails
// the next operation with ENGINE_FAILURE naming it, and only the next.
func TestDialogOfUnknownType(t *testing.T) {
	srv := pageServer(t)
	e := newTestEngine(t)
	ctx := context.Background()
	if err := e.Open(ctx, testOp, srv.URL+"/"); err != nil {
		t.Fatal(err)
	}
	tb, err := e.page(ctx, testOp)
	if err != nil {
		t.Fatal(err)
	}
	tb.dismiss(&page.EventJavascriptDialogOpening{Type: "fancy", Message: "Pick a colour"})
	_, err = e.Observe(ctx, testOp, wire.EngineObserveOptions{})
	wantCode(t, err, engineerr.EngineFailure, `dialog of unknown type "fancy": Pick a colour`)
	if _, err := e.Observe(ctx, testOp, wire.EngineObserveOptions{}); err != nil {
		t.Fatalf("the operation after: %v", err)
	}
}

// TestDialogError: the four types of §2.11 are INVALID_STATE "unhandled
// <type> dialog: <message>", any other type ENGINE_FAILURE; a long
// message is bounded.
func TestDialogError(t *testing.T) {
	for _, c := range []struct {
		typ   page.DialogType
		code  engineerr.Code
		msg   string
		level string
	}{
		{page.DialogTypeAlert, engineerr.InvalidState, "unhandled alert dialog: hi", "warning"},
		{page.DialogTypeConfirm, engineerr.InvalidState, "unhandled confirm dialog: hi", "warning"},
		{page.DialogTypePrompt, engineerr.InvalidState, "unhandled prompt dialog: hi", "warning"},
		{page.DialogTypeBeforeunload, engineerr.InvalidState, "unhandled beforeunload dialog: hi", "warning"},
		{"print", engineerr.EngineFailure, `dialog of unknown type "print": hi`, "error"},
	} {
		err, level := dialogError(c.typ, "hi")
		if err.Code != c.code || err.Message != c.msg || level != c.level || err.Retryable {
			t.Errorf("%s: %s %q %s, want %s %q %s", c.typ, err.Code, err.Message, level, c.code, c.msg, c.level)
		}
	}
	err, _ := dialogError(page.DialogTypeAlert, strings.Repeat("é", 5000))
	if len(err.Message) > dialogMessageLimit+100 {
		t.Errorf("a 10,000-byte message gives a %d-byte error", len(err.Message))
	}
}

// appLogSession is a worker connection to the web engine (no video) with
// attempt a1 of run r open and a fixture server (web.Handler) to open
// pages of, recording the attempt/appLog entries it receives.
type appLogSession struct {
	t   *testing.T
	ctx context.Context
	srv *httptest.Server
	c   *client.Conn
	o   client.Op

	mu   sync.Mutex
	logs []wire.AppLogEntry
}

// newAppLogSession opens the session; the test's cleanup closes it.
func newAppLogSession(t *testing.T) *appLogSession {
	t.Helper()
	s := &appLogSession{t: t, srv: httptest.NewServer(web.Handler()), o: client.Op{RunID: "r", AttemptID: "a1"}}
	t.Cleanup(s.srv.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	t.Cleanup(cancel)
	s.ctx = ctx
	c, err := client.Open(ctx, client.ConnConfig{Transport: Transport(Options{NoVideo: true}), Context: transport.Context{Role: wire.RoleWorker, Env: map[string]string{}},
		Handlers: client.Handlers{AppLog: func(_ string, e wire.AppLogEntry) {
			s.mu.Lock()
			s.logs = append(s.logs, e)
			s.mu.Unlock()
		}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(10 * time.Second) })
	s.c = c
	if err := c.Init(ctx, wire.InitParams{RunID: "r", TargetName: "web", Env: map[string]string{}}); err != nil {
		t.Fatal(err)
	}
	if err := c.StartAttempt(ctx, wire.StartAttemptParams{AttemptID: "a1", ArtifactsDir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	return s
}

// byTest locates the one node of test id tid.
func (s *appLogSession) byTest(tid string) wire.SemanticNode {
	s.t.Helper()
	got, err := s.c.Locate(s.ctx, s.o, *q(wire.QueryTestID, wire.StringPattern(tid, true)))
	if err != nil || len(got) != 1 {
		s.t.Fatalf("locate %s: %v (%d found)", tid, err, len(got))
	}
	return got[0]
}

// logCount is how many app log entries arrived so far.
func (s *appLogSession) logCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.logs)
}

// logsSince returns the app log entries after the first n.
func (s *appLogSession) logsSince(n int) []wire.AppLogEntry {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]wire.AppLogEntry(nil), s.logs[n:]...)
}
