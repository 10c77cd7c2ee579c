package conformance

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"

	"github.com/e2e-conform/toolkit/protocol/wire"
)

// attemptWindow is one connection's view of its open attempts, for the
// run-wide check of S2C-001 ("Every attempt/* message carries the
// attemptId of an attempt the suite started and arrives after the suite
// wrote its startAttempt and, when lifecycle/endAttempt is listed, before
// the suite read its endAttempt response"). Each connection's frames are
// read in the order the server wrote them, so the window is exact: an
// attempt opens when the suite writes its startAttempt (before the bytes
// leave) and closes when the suite reads a successful endAttempt
// response. A startAttempt answered with an error closes nothing: the
// attempt is open "from its receipt until the lifecycle/endAttempt
// response" and "lifecycle/endAttempt still follows" a failure (§4.4,
// §7.4). An endAttempt answered with an error closes nothing either.
type attemptWindow struct {
	mu   sync.Mutex
	open map[string]bool // attemptIds whose startAttempt was written since the last successful endAttempt
	ends map[string]bool // pending endAttempt request ids
	// unbounded: more attempts were started than the window remembers, so
	// it admits every attempt until the next successful endAttempt (a
	// window that forgot an attempt must not fail its messages).
	unbounded bool
}

// attemptWindowBound bounds the attempts and pending requests a window
// remembers.
const attemptWindowBound = 1024

// sent files a message the suite writes on the connection.
func (w *attemptWindow) sent(content []byte) {
	// Every frame the suite writes passes here: decode only those that can
	// open or close an attempt.
	if !bytes.Contains(content, []byte(`"lifecycle/startAttempt"`)) && !bytes.Contains(content, []byte(`"lifecycle/endAttempt"`)) {
		return
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			AttemptID any `json:"attemptId"`
		} `json:"params"`
	}
	if json.Unmarshal(content, &m) != nil || len(m.ID) == 0 {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.open == nil {
		w.open, w.ends = map[string]bool{}, map[string]bool{}
	}
	switch m.Method {
	case wire.MethodStartAttempt:
		if id, _ := m.Params.AttemptID.(string); len(w.open) < attemptWindowBound {
			w.open[id] = true
		} else {
			w.unbounded = true
		}
	case wire.MethodEndAttempt:
		if len(w.ends) < attemptWindowBound {
			w.ends[string(m.ID)] = true
		}
	}
}

// response files a response read on the connection.
func (w *attemptWindow) response(f *frame) {
	id := f.ID()
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ends[id] {
		delete(w.ends, id)
		if f.Msg["error"] == nil {
			clear(w.open)
			w.unbounded = false
		}
	}
}

// admits reports whether an attempt/* message for attemptID may arrive now.
func (w *attemptWindow) admits(attemptID string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.open[attemptID] || w.unbounded
}

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
		e.violationIn(mc, "S2C-001", "%s for attempt %q arrived when no attempt of that id was open on the connection (before its startAttempt was written, after a successful endAttempt response was read, or an attempt the suite never started)", method, id)
	}
}

// serverRequests is one connection's pending server requests, for S2C-004
// ("The only request the server sends is attempt/resolveSecret, with valid
// params and an id unique among its pending requests"): a request id is
// pending from the moment the suite reads the request until it writes the
// response with that id.
type serverRequests struct {
	mu      sync.Mutex
	pending map[string]bool // ids read and not yet answered, compact JSON
}

// serverRequestsBound bounds the ids a connection remembers; past it new
// ids are not remembered (and never reported as reused).
const serverRequestsBound = 1024

// read files the request id read and reports whether it was already
// pending.
func (r *serverRequests) read(id string) (reused bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.pending[id] {
		return true
	}
	if r.pending == nil {
		r.pending = map[string]bool{}
	}
	if len(r.pending) < serverRequestsBound {
		r.pending[id] = true
	}
	return false
}

// sent files a message the suite writes: a response ends its request.
func (r *serverRequests) sent(content []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.pending) == 0 || bytes.Contains(content, []byte(`"method"`)) {
		return
	}
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(content, &m) == nil && len(m.ID) > 0 {
		delete(r.pending, compactJSON(m.ID))
	}
}
