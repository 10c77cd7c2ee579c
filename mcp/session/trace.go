package session

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/e2e-conform/toolkit/mcp/config"
	"github.com/e2e-conform/toolkit/protocol/wire"

	"github.com/e2e-conform/toolkit/mcp/mcperr"
)

// TraceFile is the name of a session's trace in its artifact directory
// (<output>/artifacts/<target>/sessions/<id>/, spec mcp.md §4.7).
const TraceFile = "trace.jsonl"

// Kinds of the trace's records.
const (
	traceCall       = "call"       // a catalog tool started to run
	traceScreen     = "screen"     // a screen: an observation or an attempt/screen
	traceNavigation = "navigation" // an attempt/navigation line
)

// traceRecord is one line of a trace. Every text in it is redacted.
type traceRecord struct {
	At   string `json:"at"`
	Kind string `json:"kind"`
	// Tool is the catalog tool of a call.
	Tool string `json:"tool,omitempty"`
	// Source says where a screen came from: "observe" (the session
	// observed it) or "engine" (attempt/screen).
	Source string `json:"source,omitempty"`
	// Revision is the observation revision of a screen the session
	// observed.
	Revision string `json:"revision,omitempty"`
	// Text is the screen as the agent reads it, or the navigation line.
	Text string `json:"text,omitempty"`
}

// tracer records a session's trace (spec §3.8, engine protocol D54: a
// trace is built on the client from the screens of an attempt started with
// screens: true, and its attempt/navigation lines). Its zero value records
// nothing; safe for concurrent use (attempt/* notifications arrive on the
// connection's reader while a call runs).
type tracer struct {
	mu   sync.Mutex
	path string
	f    *os.File
	w    *bufio.Writer
	err  error // the first write error; the trace is then dropped
	now  func() time.Time
}

// start opens the trace file at path.
func (t *tracer) start(path string, now func() time.Time) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("open the session trace: %w", err)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.path, t.f, t.w, t.now = path, f, bufio.NewWriter(f), now
	return nil
}

// add writes one record; it does nothing when the trace is not recording.
func (t *tracer) add(r traceRecord) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.w == nil || t.err != nil {
		return
	}
	r.At = t.now().UTC().Format(time.RFC3339Nano)
	b, err := json.Marshal(r)
	if err == nil {
		b = append(b, '\n')
		_, err = t.w.Write(b)
	}
	t.err = err
}

// finish ends the recording: it keeps the file when keep is set and
// returns its path, and removes it otherwise ("" and nil). A trace that
// failed to write is removed and its error returned.
func (t *tracer) finish(keep bool) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.f == nil {
		return "", nil
	}
	err := t.err
	if err == nil {
		err = t.w.Flush()
	}
	err = errors.Join(err, t.f.Close())
	path := t.path
	t.f, t.w = nil, nil
	if keep && err == nil {
		return path, nil
	}
	if rerr := os.Remove(path); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
		err = errors.Join(err, rerr)
	}
	if err != nil {
		return "", fmt.Errorf("write the session trace: %w", err)
	}
	return "", nil
}

// canTrace reports whether an engine can record a trace: only through
// lifecycle/startAttempt can an attempt be started with screens: true
// (engine protocol §4.4, D54).
func canTrace(m wire.Manifest) bool { return m.Lists(wire.MethodStartAttempt) }

// startTrace decides the trace of the session's attempt from the config's
// trace mode (spec §3.8): the attempt is a first attempt, never a retry,
// so a retry mode records nothing. It reports whether the attempt starts
// with screens: true. An engine that cannot trace is logged once per
// target and engine for the host's life.
func (s *Session) startTrace() (bool, error) {
	mode := s.cfg.Trace
	if mode == "" {
		mode = config.DefaultTrace(s.h.opts.Getenv)
	}
	s.traceMode = mode
	if !mode.Records(false) {
		return false, nil
	}
	if !canTrace(s.manifest) {
		s.h.logOnce("trace\x00"+s.target+"\x00"+s.manifest.Name,
			fmt.Sprintf("%s: trace records only on targets whose engine can record it; target %q (engine %s) records no trace", s.target, s.target, s.manifest.Name))
		return false, nil
	}
	if err := s.trace.start(filepath.Join(s.artDir, TraceFile), s.h.clock.Now); err != nil {
		return false, err
	}
	return true, nil
}

// endTrace keeps or drops the trace once the attempt closed. A session's
// attempt closes as passed (spec §4.3), so only the on mode keeps it.
func (s *Session) endTrace() []string {
	path, err := s.trace.finish(s.traceMode.Keeps(true))
	if err != nil {
		return []string{"Cleanup: " + mcperr.Text(err)}
	}
	if path != "" {
		s.h.log.Info("session trace saved", "session", s.id, "path", path)
	}
	return nil
}
