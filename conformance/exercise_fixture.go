package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/e2e-conform/toolkit/conformance/fixture"
	"github.com/e2e-conform/toolkit/protocol/client"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// The fixture part of the run-wide workload (exercise.go), in the full
// profile only: the traffic a conformant engine sends only on a fixture
// screen, so that a selection of run-wide requirements alone (`--only
// ERR-003 --profile full`, `--only WIRE-013`) judges what the fixture
// specs of a full run draw: the engine errors (ACT-016's NOT_ACTIONABLE,
// LOC-015's FRAME_AMBIGUOUS, LOC-013's FRAME_NOT_FOUND), the observations
// of the form screen's password field (WIRE-013's schema holds every
// node: ids, inputPurpose, no value or selection on a secure node) and the
// app's console forwarded as attempt/appLog (WIRE-001, WIRE-013). Like the
// core part it fails nothing by itself: what comes is judged by the
// run-wide checks only, and a screen the engine does not stage (or a
// method it lacks) leaves its step out, noted in the summary.
//
// Each screen is staged once: the counter on the core part's raw
// connection inside its attempt (counterScene: framing is judged on raw
// connections only, and the console's lines must frame), the form and
// frames screens on a client connection of their own (fixtureSteps),
// which ends with a request holding non-ASCII content (a client
// connection writes only well-formed frames, so an answer with id null
// there answers no request: WIRE-008).

// fixtureStep is one request of the fixture part, on the screen it needs.
type fixtureStep struct {
	what   string
	screen func() fixture.Screen
	// needs says whether the engine can take the step.
	needs func(m wire.Manifest) bool
	// send makes the request; snap is the staged screen's observation.
	send func(ctx context.Context, c *client.Conn, op client.Op, snap *wire.EngineSnapshot)
}

// fixtureSteps are the fixture part's requests on its client connection,
// each quoting the sentence that makes the engine answer as it does.
func fixtureSteps(e *runEnv) []fixtureStep {
	locates := func(m wire.Manifest) bool { return m.Lists(wire.MethodLocate) }
	observes := func(m wire.Manifest) bool { return m.Lists(wire.MethodObserve) }
	frame := func(ctx context.Context, c *client.Conn, op client.Op, selector string) {
		src := wire.LocatorExpression{Kind: wire.ExprQuery, Query: &wire.SemanticQuery{Kind: wire.QueryTestID, Value: wire.StringPattern(fixture.FrameOneButton().TestID, true)}}
		_, _ = c.Locate(ctx, op, wire.LocatorExpression{Kind: wire.ExprFrame, Selector: selector, Source: &src})
	}
	return []fixtureStep{
		// The staging's observation of the form screen: "interface NodeRef
		// { id: string; revision: string }   // id non-empty" and
		// "inputPurpose?: 'username' | 'password' | 'one-time-code' |
		// 'generic-secret' | 'none'" (§5.5), judged by WIRE-013's schema
		// on every node, the password field's inputPurpose included.
		{"an observation of the form screen", fixture.Form, observes, func(context.Context, *client.Conn, client.Op, *wire.EngineSnapshot) {}},
		// §5.5: "A node with states.secure: true MUST NOT carry value or
		// selection" (the schema's rule, WIRE-013): the password field
		// observed after a sensitive fill (the caret at its end) and
		// after ControlOrMeta+a in it (its whole content selected). An
		// engine without fill, press or the key leaves that part out.
		{"a sensitive fill of the form's password field, then ControlOrMeta+a in it, each observed", fixture.Form, func(m wire.Manifest) bool {
			return m.Lists(wire.MethodPerform) && m.HasAction(wire.ActionFill)
		}, func(ctx context.Context, c *client.Conn, op client.Op, snap *wire.EngineSnapshot) {
			pw := fixture.FormPassword().Find(&snap.Root)
			if pw == nil {
				return
			}
			v := fxCanary("e2e-conform-password-")
			e.Secret(v)
			if c.Perform(ctx, op, pw.Ref, wire.LocatorAction{Kind: wire.ActionFill, Value: v, Sensitive: true}) != nil {
				return
			}
			_, _ = c.Observe(ctx, op, nil)
			if !e.Manifest.HasAction(wire.ActionPress) {
				return
			}
			if c.Perform(ctx, op, pw.Ref, wire.LocatorAction{Kind: wire.ActionPress, Key: "ControlOrMeta+a"}) == nil {
				_, _ = c.Observe(ctx, op, nil)
			}
		}},
		// §4.9: "frame: zero matching nested documents → FRAME_NOT_FOUND
		// …; more than one → FRAME_AMBIGUOUS, retryable: false."
		{"a frame expression matching both nested documents", fixture.Frames, locates, func(ctx context.Context, c *client.Conn, op client.Op, _ *wire.EngineSnapshot) {
			frame(ctx, c, op, fixture.FramesSelector)
		}},
		{"a frame expression matching no nested document", fixture.Frames, locates, func(ctx context.Context, c *client.Conn, op client.Op, _ *wire.EngineSnapshot) {
			frame(ctx, c, op, fixture.NoFrameSelector)
		}},
	}
}

// exerciseNonASCII is the non-ASCII content of the fixture part's last
// request: accented, punctuation, CJK and non-BMP characters, each more
// bytes than characters in UTF-8.
const exerciseNonASCII = "é–漢😀"

// nonASCIIRequest sends, last on the fixture part's client connection, an
// engine/locate whose name pattern holds non-ASCII characters: "The
// content part is exactly Content-Length bytes of UTF-8 JSON" (§1.1), and
// "Every request gets exactly one response" (§5, WIRE-008). A server that
// reads Content-Length characters waits for more and then reads into the
// next frame; its -32700 with id null answers no request the client wrote
// (each of its frames is well formed), which the client connection's
// trace files under WIRE-008. A conformant engine answers an array or an
// error at once; 5 s bound the wait of one that does not.
func nonASCIIRequest(ctx context.Context, c *client.Conn, op client.Op) {
	lctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	name := wire.StringPattern("e2e-conform "+exerciseNonASCII, true)
	_, _ = c.Locate(lctx, op, wire.LocatorExpression{Kind: wire.ExprQuery, Query: &wire.SemanticQuery{
		Kind: "role", Value: wire.StringPattern("button", true), Name: &name}})
}

// runFixtureWorkload runs the fixture part once on a client connection of
// its own and says what it did.
func (e *runEnv) runFixtureWorkload(ctx context.Context) string {
	if !e.Manifest.Lists(wire.MethodOpen) || !e.Manifest.Lists(wire.MethodObserve) {
		return "the fixture part of the run-wide workload did not run: the engine lacks session/open or engine/observe"
	}
	c, _, err := e.Open(ctx, wire.RoleWorker)
	if err != nil {
		if c != nil {
			_ = c.Close(5 * time.Second)
		}
		return "the fixture part of the run-wide workload could not connect: " + err.Error()
	}
	op, err := e.Attempt(ctx, c)
	if err != nil {
		_ = c.Close(5 * time.Second)
		return "the fixture part of the run-wide workload could not start an attempt: " + err.Error()
	}
	defer e.fxEnd(ctx, c)
	var done, left []string
	staged := map[string]*wire.EngineSnapshot{}
	for _, st := range fixtureSteps(e) {
		if !st.needs(e.Manifest) {
			left = append(left, st.what+" (not declared)")
			continue
		}
		sc := st.screen()
		snap, ok := staged[sc.Path]
		if !ok {
			var why string
			snap, why = e.stageQuietly(ctx, c, op, sc)
			staged[sc.Path] = snap
			if snap == nil {
				left = append(left, "the "+sc.Name+" screen: "+why)
			}
		}
		if snap == nil {
			left = append(left, st.what)
			continue
		}
		st.send(ctx, c, op, snap)
		done = append(done, st.what)
	}
	if e.Manifest.Lists(wire.MethodLocate) {
		nonASCIIRequest(ctx, c, op)
		done = append(done, "an engine/locate with non-ASCII content")
	}
	s := fmt.Sprintf("the fixture part of the run-wide workload sent: %s", orDefault(strings.Join(done, "; "), "nothing"))
	if len(left) > 0 {
		s += "; left out: " + strings.Join(left, "; ")
	}
	return s
}

// stageQuietly is stage without a verdict: the observation of screen s
// once it shows its marker (within 5 s); nil and why when the engine
// refused to open it, an observation failed or the marker never showed.
func (e *runEnv) stageQuietly(ctx context.Context, c *client.Conn, op client.Op, s fixture.Screen) (*wire.EngineSnapshot, string) {
	octx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := c.Open(octx, op, e.FixtureURL+s.Path); err != nil {
		return nil, "session/open failed: " + fxDescribeError(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		snap, err := c.Observe(octx, op, nil)
		if err != nil {
			return nil, "engine/observe failed: " + fxDescribeError(err)
		}
		if findText(&snap.Root, s.Marker) != nil {
			return snap, ""
		}
		if time.Now().After(deadline) {
			return nil, "its marker did not show within 5 s"
		}
		select {
		case <-octx.Done():
			return nil, "the spec's budget ran out"
		case <-time.After(100 * time.Millisecond): // polling an observation, the harness's own way
		}
	}
}

// counterScene is the counter screen's part of the workload, on the core
// part's raw connection inside its attempt, in the full profile only: the
// screen staged with session/open (its marker awaited, at most 5 s), its
// console button tapped and the tap awaited (5 s), then its disabled
// button tapped with a 1 s budget. Each step needs the one before; a
// refusal or an absent node ends the scene, noted, never judged here.
//
// The console tap: fixture.ConsoleMessages() reach the app's console; an
// engine MAY forward them as attempt/appLog, whose entry is "{ source,
// level: 'error' | 'warning' | 'info', text }" (§6.2, WIRE-013's schema)
// and which is "Allowed from the receipt of startAttempt to the endAttempt
// response" (S2C-001); on spawn "stdout carries only the protocol. The
// server MUST write nothing else to it" (§3, WIRE-001 on this raw
// connection). The disabled tap: "A node that cannot take the action
// (disabled, obscured, not editable) fails with NOT_ACTIONABLE; the engine
// MAY wait for actionability within operation.timeoutMs and then fails
// with NOT_ACTIONABLE or OPERATION_TIMEOUT" (§4.10), never retryable
// (ERR-003).
func (w *workload) counterScene(ctx context.Context) {
	e, m := w.e, w.e.Manifest
	if e.cfg.profile() != ProfileFull {
		return
	}
	if !m.Lists(wire.MethodOpen) || !m.Lists(wire.MethodObserve) || !m.Lists(wire.MethodPerform) || !m.HasAction(wire.ActionTap) {
		w.scene = "the counter scene did not run: the engine lacks session/open, engine/observe, engine/perform or the tap action"
		return
	}
	sc := fixture.Counter()
	f, ok := w.request(ctx, wire.MethodOpen, func(id string) string {
		return fmt.Sprintf(`{"url":%q,"operation":%s}`, sc.URL(e.FixtureURL), w.opWithin(id, 10000))
	})
	if !ok || f.Error() != nil {
		w.scene = "the counter scene did not run: session/open of the counter screen failed"
		return
	}
	snap := w.observeUntil(ctx, func(s *wire.EngineSnapshot) bool { return sc.Shown(&s.Root) })
	if snap == nil {
		w.scene = "the counter scene did not run: the counter screen did not show its marker within 5 s"
		return
	}
	var did []string
	if btn := fixture.CounterConsole().Find(&snap.Root); btn != nil && w.tap(ctx, btn.Ref, 10000) {
		writes := fixture.CounterConsoleWrites()
		if w.observeUntil(ctx, func(s *wire.EngineSnapshot) bool { n, ok := writes.Count(&s.Root); return ok && n > 0 }) != nil {
			did = append(did, "its console button tapped")
		}
	}
	if dis := fixture.CounterDisabled().Find(&snap.Root); dis != nil && !w.closed {
		w.tap(ctx, dis.Ref, 1000)
		did = append(did, "its disabled button tapped")
	}
	w.scene = "the counter scene: " + orDefault(strings.Join(did, ", "), "nothing tapped")
}

// request is call with the params params builds from the request's id.
func (w *workload) request(ctx context.Context, method string, params func(id string) string) (*frame, bool) {
	return w.call(ctx, method, params(strconv.Itoa(w.n+1)))
}

// opWithin is an Operation inside the workload's attempt with a budget of
// ms milliseconds.
func (w *workload) opWithin(sig string, ms int) string {
	return fmt.Sprintf(`{"signal":{"id":%s},"timeoutMs":%d,"runId":%q,"attemptId":%q,"origin":"test"}`, sig, ms, w.run, w.attempt)
}

// tap performs a tap on ref with a budget of ms milliseconds; it reports
// whether the engine answered null.
func (w *workload) tap(ctx context.Context, ref wire.NodeRef, ms int) bool {
	b, err := json.Marshal(ref)
	if err != nil {
		return false
	}
	f, ok := w.request(ctx, wire.MethodPerform, func(id string) string {
		return `{"ref":` + string(b) + `,"action":{"kind":"tap"},"operation":` + w.opWithin(id, ms) + `}`
	})
	return ok && f.Error() == nil
}

// observeUntil observes every actPollEvery until done accepts an
// observation (returned) or 5 s have passed (nil).
func (w *workload) observeUntil(ctx context.Context, done func(*wire.EngineSnapshot) bool) *wire.EngineSnapshot {
	for deadline := time.Now().Add(5 * time.Second); ; actPause(ctx, actPollEvery) {
		f, ok := w.request(ctx, wire.MethodObserve, func(id string) string { return `{"operation":` + w.opWithin(id, 5000) + `}` })
		if !ok {
			return nil
		}
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
