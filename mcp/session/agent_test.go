package session

import (
	"strings"
	"testing"

	"github.com/e2e-conform/toolkit/protocol/wire"
)

// TestDialogLines: the dialog lines of web-engine §2.11 and of the
// web/dialogs extension are read; a dismissed dialog under an accept
// policy says the engine does not take the policy (an engine without the
// extension); without a policy it says how to get dialogs accepted.
func TestDialogLines(t *testing.T) {
	dismissed := parseDialog(wire.AppLogEntry{Source: "system", Level: "warning", Text: "unhandled confirm dialog: Delete 1 completed item? (dismissed; the next operation fails)"})
	if dismissed == nil || dismissed.typ != "confirm" || dismissed.message != "Delete 1 completed item?" || dismissed.accepted {
		t.Fatalf("dismissed line read as %+v", dismissed)
	}
	accepted := parseDialog(wire.AppLogEntry{Source: "system", Level: "info", Text: "accepted prompt dialog: Your name?"})
	if accepted == nil || accepted.typ != "prompt" || !accepted.accepted {
		t.Fatalf("accepted line read as %+v", accepted)
	}
	if d := parseDialog(wire.AppLogEntry{Source: "console", Level: "error", Text: "unhandled confirm dialog: x"}); d != nil {
		t.Errorf("a console line read as a dialog: %+v", d)
	}
	s := &Session{manifest: wire.Manifest{Name: "kiosk"}}
	got := s.dialogSentence(dismissed)
	if !strings.Contains(got, `To accept dialogs instead, call {tool: "dialogs", args: {accept: true}}`) {
		t.Errorf("no policy: %s", got)
	}
	s.agent.accept = true
	got = s.dialogSentence(dismissed)
	want := `A native confirm dialog opened: "Delete 1 completed item?". It was dismissed: Cancel (the app got false), although this session's dialog policy is accept: engine kiosk does not take the dialog policy (the web/dialogs notification), so dialogs cannot be accepted on this target.`
	if got != want {
		t.Errorf("accept policy on an engine without it:\n got %s\nwant %s", got, want)
	}
}
