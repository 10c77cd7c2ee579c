package webengine

import (
	"context"
	"encoding/json"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// DialogsMethod is this engine's extension notification (client to server)
// that sets how the attempt's JavaScript dialogs are answered. The engine
// protocol defines no dialog handler (web-engine §2.11: an unhandled dialog
// is dismissed and fails the next operation); a client that wants dialogs
// accepted sends it, and an engine that does not know it ignores it (engine
// protocol §1.4), so it is safe to send to any engine. It holds for the
// attempt it names until another one arrives or the attempt ends.
const DialogsMethod = "web/dialogs"

// DialogsParams are the params of DialogsMethod.
type DialogsParams struct {
	// AttemptID is the open attempt the policy is for; a policy for any
	// other attempt is dropped.
	AttemptID string `json:"attemptId"`
	// Accept true accepts every dialog (OK; a beforeunload leaves the
	// page); false dismisses them, the default.
	Accept bool `json:"accept"`
	// PromptText answers an accepted prompt; "" answers the prompt's own
	// default text.
	PromptText string `json:"promptText,omitempty"`
}

// dialogPolicy is the DialogsParams of the attempt it names.
type dialogPolicy = DialogsParams

// HandleNotification implements server.NotificationHandler: DialogsMethod
// sets the dialog policy of the open attempt; anything else is ignored.
func (e *Engine) HandleNotification(method string, params json.RawMessage) {
	if method != DialogsMethod {
		return
	}
	var p DialogsParams
	if json.Unmarshal(params, &p) != nil || p.AttemptID == "" {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.attempt == nil || e.attempt.ID != p.AttemptID {
		return
	}
	e.dialogs = p
}

// acceptsDialogs returns the prompt text and true when the policy of
// attempt id accepts dialogs.
func (e *Engine) acceptsDialogs(id string) (string, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.dialogs.AttemptID != id || id == "" || !e.dialogs.Accept {
		return "", false
	}
	return e.dialogs.PromptText, true
}

// answerDialog answers a JavaScript dialog as the attempt's policy says:
// accepted (one attempt/appLog line, system info, "accepted <type>
// dialog: <message>"; nothing fails), or dismissed as an unhandled one
// (dismiss). A dialog of an unknown type is never accepted. It runs on its
// own goroutine.
func (t *tab) answerDialog(ev *page.EventJavascriptDialogOpening) {
	id := ""
	if a := t.s.a; a != nil {
		id = a.ID
	}
	text, accept := t.s.e.acceptsDialogs(id)
	if !accept || !dialogTypes[ev.Type] {
		t.dismiss(ev)
		return
	}
	if ev.Type == page.DialogTypePrompt && text == "" {
		text = ev.DefaultPrompt
	}
	err, _ := dialogError(ev.Type, ev.Message)
	// The same message cut as an unhandled one's, without its prefix.
	t.appLog("system", "info", "accepted "+err.Message[len("unhandled "):])
	ctx, cancel := context.WithTimeout(t.ctx, closeBudget)
	defer cancel()
	_, _ = chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: true, PromptText: text})
}

// pumpBarrier is queued behind the tab's events: the pump closes it once
// every event queued before it was handled.
type pumpBarrier chan struct{}

// flush waits until the pump has handled every event queued so far (the
// app log of a navigation's response, say), or ctx ends.
func (t *tab) flush(ctx context.Context) {
	b := make(pumpBarrier)
	select {
	case t.events <- b:
	case <-ctx.Done():
		return
	case <-t.done:
		return
	}
	select {
	case <-b:
	case <-ctx.Done():
	case <-t.done:
	}
}
