package webengine

import (
	"strings"
	"testing"

	"github.com/e2e-conform/toolkit/protocol/wire"
)

// TestDialogPolicy: the web/dialogs notification (DialogsMethod) for the
// open attempt makes dialogs accepted — a confirm answers true, a prompt
// the policy's text, one system info app log line, nothing fails after —;
// one for another attempt is dropped; accept false dismisses again. And
// session/open answers after the app log line of a 404 document.
func TestDialogPolicy(t *testing.T) {
	s := newAppLogSession(t)
	ctx, c, o, srv, byTest := s.ctx, s.c, s.o, s.srv, s.byTest
	count, since := s.logCount, s.logsSince
	tap := func(button, wantAnswer, wantLog string) {
		t.Helper()
		if err := c.Open(ctx, o, srv.URL+"/web/dialogs"); err != nil {
			t.Fatal(err)
		}
		n := count()
		if err := c.Perform(ctx, o, byTest(button).Ref, wire.LocatorAction{Kind: wire.ActionTap}); err != nil {
			t.Fatalf("tap %s: %v", button, err)
		}
		got := since(n)
		if len(got) != 1 || !strings.HasPrefix(got[0].Level+" "+got[0].Text, wantLog) {
			t.Errorf("app log after tapping %s: %+v, want one line starting %q", button, got, wantLog)
		}
		if _, err := c.Observe(ctx, o, nil); (err != nil) != strings.HasPrefix(wantLog, "warning unhandled") {
			t.Errorf("the operation after the dialog: %v", err)
		}
		if a := byTest("answer"); a.Text == nil || *a.Text != wantAnswer {
			t.Errorf("after tapping %s: %v, want %q", button, a.Text, wantAnswer)
		}
	}
	notify := func(p DialogsParams) {
		t.Helper()
		if err := c.Notify(DialogsMethod, p); err != nil {
			t.Fatal(err)
		}
	}
	notify(DialogsParams{AttemptID: "a1", Accept: true})
	tap("confirm", "answer: confirm true", "info accepted confirm dialog: Delete everything?")
	tap("prompt", "answer: prompt Ada", "info accepted prompt dialog: Your name?")
	notify(DialogsParams{AttemptID: "a1", Accept: true, PromptText: "Grace"})
	tap("prompt", "answer: prompt Grace", "info accepted prompt dialog: Your name?")
	notify(DialogsParams{AttemptID: "another", Accept: false})
	tap("confirm", "answer: confirm true", "info accepted confirm dialog")
	notify(DialogsParams{AttemptID: "a1", Accept: false})
	tap("confirm", "answer: confirm false", "warning unhandled confirm dialog: Delete everything?")

	n := count()
	if err := c.Open(ctx, o, srv.URL+"/no/such/page?x=1"); err != nil {
		t.Fatal(err)
	}
	want := "404 Not Found " + srv.URL + "/no/such/page?…"
	found := false
	for _, e := range since(n) {
		found = found || (e.Source == "network" && e.Text == want)
	}
	if !found {
		t.Errorf("app log when session/open answered: %+v, want %q", since(n), want)
	}
}
