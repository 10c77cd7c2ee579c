package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/e2e-conform/toolkit/conformance/fixture"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// The app's console (S2C-001, S2C-003, TRN-001): the counter screen's
// console button writes fixture.ConsoleMessages() to the app's console. An
// engine MAY forward them as attempt/appLog entries (§6.2 says what an
// entry is, not which lines an engine forwards); those it forwards are
// judged, and none forwarded leaves the clause with nothing to check.

// consoleTap stages the counter screen on the session's open attempt with
// session/open, taps its console button with engine/perform and waits
// until the screen shows the tap (the page wrote its console messages). An
// engine that lacks a method, refuses the fixture URL, shows no console
// button or does not register the tap leaves the spec not verified.
func (s *pipelinedConn) consoleTap(ctx context.Context) {
	e := s.e
	e.fxNeed("to stage the counter screen and tap its console button", wire.MethodOpen, wire.MethodObserve, wire.MethodPerform)
	if !e.Manifest.HasAction(wire.ActionTap) {
		Skip(notVerified + "the engine does not declare the tap action, which the suite needs to tap the console button")
	}
	sc := fixture.Counter()
	u := sc.URL(e.FixtureURL)
	id := s.id()
	f := s.call(ctx, id, wire.MethodOpen, s.openParams(u, id, 30000))
	if eo := f.Error(); eo != nil {
		stagingRefused(u, eo)
	}
	snap := s.consoleObserve(ctx, actEffectWait, func(snap *wire.EngineSnapshot) bool { return sc.Shown(&snap.Root) })
	if snap == nil {
		Skip(notVerified + fmt.Sprintf("the counter screen did not show its marker %q within %d ms", sc.Marker, actEffectWait.Milliseconds()))
	}
	btn := fixture.CounterConsole().Find(&snap.Root)
	if btn == nil {
		Skip(notVerified + "the counter screen shows no console button (test id " + fixture.CounterConsole().TestID + ")")
	}
	ref, _ := json.Marshal(btn.Ref)
	id = s.id()
	f = s.call(ctx, id, wire.MethodPerform, fmt.Sprintf(`{"ref":%s,"action":{"kind":"tap"},"operation":%s}`, ref, s.operation(id, 30000)))
	if eo := f.Error(); eo != nil {
		Skip(notVerified + fmt.Sprintf("engine/perform tap on the console button answered %d %q", eo.Code, eo.Message))
	}
	writes := fixture.CounterConsoleWrites()
	if s.consoleObserve(ctx, actEffectWait, func(snap *wire.EngineSnapshot) bool {
		n, ok := writes.Count(&snap.Root)
		return ok && n > 0
	}) == nil {
		Skip(notVerified + fmt.Sprintf("the counter screen did not show the console button's tap (%q) within %d ms", writes.Label, actEffectWait.Milliseconds()))
	}
}

// consoleObserve observes every actPollEvery until done accepts a snapshot
// (returned) or d has passed (nil).
func (s *pipelinedConn) consoleObserve(ctx context.Context, d time.Duration, done func(*wire.EngineSnapshot) bool) *wire.EngineSnapshot {
	for deadline := time.Now().Add(d); ; actPause(ctx, actPollEvery) {
		id := s.id()
		f := s.call(ctx, id, wire.MethodObserve, `{"operation":`+s.operation(id, 30000)+`}`)
		if f.Error() == nil {
			if snap, err := wire.DecodeSnapshot(f.Result()); err == nil && done(snap) {
				return snap
			}
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return nil
		}
	}
}

// consoleEntries returns the attempt/appLog messages the session read whose
// text carries fixture.ConsolePrefix.
func (s *pipelinedConn) consoleEntries() []serverMsg {
	var out []serverMsg
	for _, m := range s.msgs {
		if m.f.Method() != wire.MethodAppLog {
			continue
		}
		var p struct {
			Entry struct {
				Text string `json:"text"`
			} `json:"entry"`
		}
		if json.Unmarshal(m.f.Msg["params"], &p) == nil && strings.Contains(p.Entry.Text, fixture.ConsolePrefix) {
			out = append(out, m)
		}
	}
	return out
}

// readFor reads and files frames for d, or until done reports true.
func (s *pipelinedConn) readFor(ctx context.Context, d time.Duration, done func() bool) {
	rctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	for !done() {
		if _, err := s.next(rctx); err != nil {
			return
		}
	}
}

// consoleScenario taps the console button in an attempt of a new session
// (consoleTap), waits up to actEffectWait for the first forwarded console
// message inside the attempt, ends the attempt (when listed) and reads for
// actQuietWait after the endAttempt response, so that a message forwarded
// late is read outside the window; it returns the console's
// attempt/appLog messages.
func consoleScenario(ctx context.Context, e *runEnv) []serverMsg {
	ss := e.openPipelined(ctx)
	ss.attempt(ctx, false)
	ss.consoleTap(ctx)
	ss.readFor(ctx, actEffectWait, func() bool { return len(ss.consoleEntries()) > 0 })
	if e.Manifest.Lists(wire.MethodEndAttempt) {
		ss.endAttempt(ctx)
		ss.readFor(ctx, actQuietWait, func() bool { return false })
	}
	return ss.consoleEntries()
}

// consoleProblems judges requirement id's clause on the console's
// attempt/appLog messages: S2C-001, each carries the attempt open when it
// was read (inside the window of the attempt the suite started); S2C-003,
// a valid source and level and a one-line text (§5.10).
func consoleProblems(e *runEnv, id string, msgs []serverMsg) []string {
	var bad []string
	for _, m := range msgs {
		var p struct {
			AttemptID string `json:"attemptId"`
			Entry     struct {
				Source string `json:"source"`
				Level  string `json:"level"`
				Text   string `json:"text"`
			} `json:"entry"`
		}
		_ = json.Unmarshal(m.f.Msg["params"], &p)
		if id == "S2C-003" {
			bad = append(bad, consoleShape(p.Entry.Source, p.Entry.Level, p.Entry.Text)...)
			e.observed(id, "console message's attempt/appLog checked")
			continue
		}
		switch {
		case m.open == "":
			bad = append(bad, fmt.Sprintf("S2C-001: attempt/appLog %q for %q read outside any attempt (after the endAttempt response)", clip(p.Entry.Text), p.AttemptID))
		case p.AttemptID != m.open:
			bad = append(bad, fmt.Sprintf("S2C-001: attempt/appLog %q for %q while attempt %q was open", clip(p.Entry.Text), p.AttemptID, m.open))
		}
		e.observed(id, "console message's attempt/appLog checked against its attempt")
	}
	return bad
}

// consoleShape says what is wrong with an attempt/appLog entry (§5.10).
func consoleShape(source, level, text string) []string {
	var bad []string
	if !map[string]bool{"console": true, "error": true, "network": true, "system": true}[source] {
		bad = append(bad, fmt.Sprintf("S2C-003: attempt/appLog %q: source %q is not console, error, network or system", clip(text), source))
	}
	if !map[string]bool{"error": true, "warning": true, "info": true}[level] {
		bad = append(bad, fmt.Sprintf("S2C-003: attempt/appLog %q: level %q is not error, warning or info", clip(text), level))
	}
	if strings.ContainsAny(text, "\r\n") {
		bad = append(bad, fmt.Sprintf("S2C-003: attempt/appLog text %q holds a line break (one line, §5.10)", clip(text)))
	}
	return bad
}

// expectConsoleForwarded fails on the problems of the console's
// attempt/appLog messages for requirement id, and ends the spec with nothing to check when the
// engine forwarded none.
func expectConsoleForwarded(e *runEnv, id string, msgs []serverMsg) {
	bad := consoleProblems(e, id, msgs)
	Expect(bad).To(BeEmpty(), "the app's console messages forwarded as attempt/appLog: %s", strings.Join(bad, "; "))
	if len(msgs) == 0 {
		skipNothingToCheck("the engine forwarded none of the console messages the counter screen wrote as attempt/appLog (§6.2 does not oblige it to)")
	}
}
