package conformance

import (
	"encoding/json"
	"strings"

	"github.com/e2e-conform/toolkit/conformance/traffic"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// attemptWindow is one connection's view of its open attempts, for the
// run-wide check of S2C-001: traffic.AttemptWindow (shared with
// `e2e-conform monitor`), fed the suite's frames.
type attemptWindow struct{ traffic.AttemptWindow }

// attemptWindowBound bounds the attempts and pending requests a window
// remembers.
const attemptWindowBound = traffic.AttemptWindowBound

// sent files a message the suite writes on the connection.
func (w *attemptWindow) sent(content []byte) { w.Sent(content) }

// response files a response read on the connection.
func (w *attemptWindow) response(f *frame) {
	_, isError := f.Msg["error"]
	w.Response(f.ID(), isError)
}

// admits reports whether an attempt/* message for attemptID may arrive now.
func (w *attemptWindow) admits(attemptID string) bool { return w.Admits(attemptID) }

// checkAttemptWindow files f, read on mc's connection, against the
// connection's attempt window (S2C-001). Engines whose manifest lists no
// lifecycle/startAttempt are not judged here: where the suite would have
// written one is the scenario spec's business.
func (e *runEnv) checkAttemptWindow(f *frame, mc msgCtx) {
	if mc.conn == nil || f.Msg == nil {
		return
	}
	if f.IsResponse() {
		mc.conn.attempts.response(f)
		return
	}
	method := f.Method()
	if !strings.HasPrefix(method, "attempt/") || !e.Manifest.Lists(wire.MethodStartAttempt) {
		return
	}
	var p struct {
		AttemptID any `json:"attemptId"`
	}
	_ = json.Unmarshal(f.Msg["params"], &p)
	id, _ := p.AttemptID.(string)
	e.observed("S2C-001", "attempt/* message read against its connection's attempt window")
	if !mc.conn.attempts.admits(id) {
		traffic.OutsideAttempt(e.sink(mc), method, id, "the suite")
	}
}

// serverRequests is one connection's pending server requests, for
// S2C-004: traffic.ServerRequests (shared with `e2e-conform monitor`).
type serverRequests struct{ traffic.ServerRequests }

// read files the request id read and reports whether it was already
// pending.
func (r *serverRequests) read(id string) (reused bool) { return r.Read(id) }

// sent files a message the suite writes: a response ends its request.
func (r *serverRequests) sent(content []byte) { r.Sent(content) }
