package traffic

import (
	"bytes"
	"encoding/json"
	"sync"

	"github.com/e2e-conform/toolkit/protocol/wire"
)

// AttemptWindow is one connection's view of its open attempts, for S2C-001
// ("Every attempt/* message carries the attemptId of an attempt the suite
// started and arrives after the suite wrote its startAttempt and, when
// lifecycle/endAttempt is listed, before the suite read its endAttempt
// response"). Each connection's frames are read in the order the server
// wrote them, so the window is exact: an attempt opens when the client
// writes its startAttempt (before the bytes leave) and closes when the
// client reads a successful endAttempt response. A startAttempt answered
// with an error closes nothing: the attempt is open "from its receipt
// until the lifecycle/endAttempt response" and "lifecycle/endAttempt still
// follows" a failure (§4.4, §7.4). An endAttempt answered with an error
// closes nothing either. Safe for concurrent use; the zero value is an
// empty window. The suite's run-wide check (conformance/attempts.go) and
// the monitor's Conn both use it.
type AttemptWindow struct {
	mu   sync.Mutex
	open map[string]bool // attemptIds whose startAttempt was written since the last successful endAttempt
	ends map[string]bool // pending endAttempt request ids
	// unbounded: more attempts were started than the window remembers, so
	// it admits every attempt until the next successful endAttempt (a
	// window that forgot an attempt must not fail its messages).
	unbounded bool
}

// AttemptWindowBound bounds the attempts and pending requests a window
// remembers.
const AttemptWindowBound = 1024

// Sent files a message the client writes on the connection.
func (w *AttemptWindow) Sent(content []byte) {
	// Every frame the client writes passes here: decode only those that
	// can open or close an attempt.
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
		if id, _ := m.Params.AttemptID.(string); len(w.open) < AttemptWindowBound {
			w.open[id] = true
		} else {
			w.unbounded = true
		}
	case wire.MethodEndAttempt:
		if len(w.ends) < AttemptWindowBound {
			w.ends[string(m.ID)] = true
		}
	}
}

// Response files a response read on the connection: its id as written,
// and whether it carries error.
func (w *AttemptWindow) Response(id string, isError bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ends[id] {
		delete(w.ends, id)
		if !isError {
			clear(w.open)
			w.unbounded = false
		}
	}
}

// Admits reports whether an attempt/* message for attemptID may arrive now.
func (w *AttemptWindow) Admits(attemptID string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.open[attemptID] || w.unbounded
}

// OutsideAttempt reports an attempt/* message for attemptID that the window
// did not admit (S2C-001); client names the client in the message ("the
// suite").
func OutsideAttempt(s Sink, method, attemptID, client string) {
	engineViolation(s, "S2C-001", "%s for attempt %q arrived when no attempt of that id was open on the connection (before its startAttempt was written, after a successful endAttempt response was read, or an attempt %s never started)", method, attemptID, client)
}

// ServerRequests is one connection's pending server requests, for S2C-004
// ("The only request the server sends is attempt/resolveSecret, with valid
// params and an id unique among its pending requests"): a request id is
// pending from the moment the client reads the request until it writes the
// response with that id. Safe for concurrent use; the zero value is empty.
type ServerRequests struct {
	mu      sync.Mutex
	pending map[string]bool // ids read and not yet answered, compact JSON
	full    bool            // an id was not remembered (ServerRequestsBound)
}

// ServerRequestsBound bounds the ids a connection remembers; past it new
// ids are not remembered (and never reported as reused).
const ServerRequestsBound = 1024

// Read files the request id read (CompactJSON) and reports whether it was
// already pending.
func (r *ServerRequests) Read(id string) (reused bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.pending[id] {
		return true
	}
	if r.pending == nil {
		r.pending = map[string]bool{}
	}
	if len(r.pending) < ServerRequestsBound {
		r.pending[id] = true
	} else {
		r.full = true
	}
	return false
}

// Sent files a message the client writes: a response ends its request.
func (r *ServerRequests) Sent(content []byte) {
	r.mu.Lock()
	empty := len(r.pending) == 0
	r.mu.Unlock()
	if empty || bytes.Contains(content, []byte(`"method"`)) {
		return
	}
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(content, &m) == nil && len(m.ID) > 0 {
		r.Answered(CompactJSON(m.ID))
	}
}

// Answered ends the request id (CompactJSON) and reports whether it was
// pending, or may have been (an id past the bound was not remembered).
func (r *ServerRequests) Answered(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	was := r.pending[id]
	delete(r.pending, id)
	return was || r.full
}

// CompactJSON is raw re-encoded (numbers and strings as Go writes them),
// so two spellings of one id compare equal; raw itself when it is not
// JSON.
func CompactJSON(raw []byte) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}
