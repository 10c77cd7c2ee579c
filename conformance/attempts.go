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
// response. It is lenient where the spec leaves room: a startAttempt
// answered with an error closes only its own attempt, an endAttempt
// answered with an error closes nothing.
type attemptWindow struct {
	mu     sync.Mutex
	open   map[string]int    // attemptId -> startAttempt requests written and not refused
	starts map[string]string // pending startAttempt request id -> attemptId
	ends   map[string]bool   // pending endAttempt request ids
}

// attemptWindowBound bounds the pending requests a window remembers.
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
		w.open, w.starts, w.ends = map[string]int{}, map[string]string{}, map[string]bool{}
	}
	switch m.Method {
	case wire.MethodStartAttempt:
		id, _ := m.Params.AttemptID.(string)
		if len(w.starts) < attemptWindowBound {
			w.open[id]++
			w.starts[string(m.ID)] = id
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
	failed := f.Msg["error"] != nil
	w.mu.Lock()
	defer w.mu.Unlock()
	if a, ok := w.starts[id]; ok {
		delete(w.starts, id)
		if failed {
			if w.open[a]--; w.open[a] <= 0 {
				delete(w.open, a)
			}
		}
	}
	if w.ends[id] {
		delete(w.ends, id)
		if !failed {
			clear(w.open)
		}
	}
}

// admits reports whether an attempt/* message for attemptID may arrive now.
func (w *attemptWindow) admits(attemptID string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.open[attemptID] > 0
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
