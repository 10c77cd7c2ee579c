package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/e2e-conform/toolkit/protocol/wire"
)

// The run-wide checks (global_specs.go) judge every message the server
// wrote during the run. A run whose selection sent little (`--only
// WIRE-001`) would judge almost nothing and could look conformant while the
// engine mis-frames every response (D58: a vacuous run must not look
// conformant). So before reporting, the run-wide specs run this workload
// once per run: one raw connection that draws every kind of message the
// run-wide requirements judge, in the core profile's terms (no fixture
// screen), its frames checked like every other frame of the run.
//
// It never fails a spec by itself: what it draws is judged by the run-wide
// checks, and when the connection breaks (a framing fault ends a raw
// connection) it stops, the break recorded as the violation it is.

// exerciseIDs are the non-ASCII identities of the workload: run and attempt
// ids and the unknown method's name carry accented, CJK and non-BMP
// characters, so that Content-Length is exercised in bytes both ways (a
// server echoes attemptId in every attempt/* message and request ids in
// every response).
const (
	exerciseTag     = "ünï-码-𝄞"
	exerciseUnknown = "e2e-conform/ünknown-方法-𝄞"
)

// workloadStep is one request of the workload.
type workloadStep struct {
	method string
	// when reports whether the step applies to the engine.
	when func(m wire.Manifest) bool
	// params builds the request's params from the workload's state and the
	// request id (also used as the operation's signal id).
	params func(w *workload, id string) string
}

// counterSceneStep is the method of the step that runs the counter scene
// (exercise_fixture.go), several requests, instead of one request.
const counterSceneStep = "\x00counter scene"

// workload is the state of one run of the workload.
type workload struct {
	e       *runEnv
	r       *rawConn
	n       int
	run     string
	attempt string
	dir     string
	closed  bool
	// sent counts the requests written and answered counts those answered.
	sent, answered int
	// disabled is the ref (JSON) of a disabled node the first observation
	// showed, "" when none.
	disabled string
	// scene says what the counter scene did (exercise_fixture.go), "" when
	// it did not run (the core profile).
	scene string
}

// skipStep is what a step's params say when the step does not apply after
// all (what it needs was not observed).
const skipStep = "\x00skip"

// noteObservation remembers a disabled node of an observation result.
func (w *workload) noteObservation(result []byte) {
	if w.disabled != "" {
		return
	}
	snap, err := wire.DecodeSnapshot(result)
	if err != nil {
		return
	}
	snap.Root.Walk(func(n *wire.SemanticNode) bool {
		if n.States != nil && n.States.Disabled != nil && *n.States.Disabled {
			if b, err := json.Marshal(n.Ref); err == nil {
				w.disabled = string(b)
			}
			return false
		}
		return true
	})
}

func (w *workload) id() string { w.n++; return strconv.Itoa(w.n) }

// op is an Operation inside the workload's attempt; aborted marks its
// signal aborted at send, reason (when not "") adds the abort reason.
func (w *workload) op(sig string, aborted bool, reason string) string {
	s := `{"id":` + sig
	if aborted {
		s += `,"aborted":true`
		if reason != "" {
			s += `,"reason":` + reason
		}
	}
	s += "}"
	return fmt.Sprintf(`{"signal":%s,"timeoutMs":5000,"runId":%q,"attemptId":%q,"origin":"test"}`, s, w.run, w.attempt)
}

// call writes one request and reads until it is answered (at most 10 s),
// answering the server's requests as the client would. It reports false
// once the connection is gone.
func (w *workload) call(ctx context.Context, method, params string) (*frame, bool) {
	if w.closed {
		return nil, false
	}
	id := w.id()
	msg := `{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `"`
	if params != "" {
		msg += `,"params":` + params
	}
	if err := w.r.Send(msg + "}"); err != nil {
		w.closed = true
		return nil, false
	}
	w.sent++
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	for {
		f, err := w.r.Next(ctx)
		if err != nil {
			if w.r.endErr() != nil {
				w.closed = true
			}
			return nil, false
		}
		if !f.IsResponse() {
			if _, isRequest := f.Msg["id"]; isRequest && f.Msg != nil {
				w.answerServer(f)
			}
			continue
		}
		if f.ID() != id {
			continue // a late answer to an earlier step
		}
		w.answered++
		if f.Error() == nil && wire.IsEngineMethod(method) {
			w.e.checkResult(method, f.Result(), f.answerCtx(method))
		}
		return f, true
	}
}

// answerServer answers a server request as the suite's client does.
func (w *workload) answerServer(f *frame) {
	msg := `{"jsonrpc":"2.0","id":` + string(f.Msg["id"])
	if f.Method() == wire.MethodResolveSecret {
		v := "s3cr3t-canary-exercise"
		w.e.Secret(v)
		msg += `,"result":{"value":"` + v + `"}}`
	} else {
		msg += `,"error":{"code":-32601,"message":"e2e-conform answers no such request"}}`
	}
	_ = w.r.Send(msg)
}

// exerciseSteps are the workload's requests in order, each where the
// manifest lists its method. Errors are drawn on purpose, each where the
// spec says the engine answers with one (or may): an unknown method and an
// unlisted ENGINE_METHODS member (-32601), invalid params (-32602),
// operations before and after the attempt (INVALID_STATE allowed, §4.0), a
// startAttempt while the attempt is open (INVALID_STATE, §4.4), operations
// aborted at send with and without a reason (§7.5: an error, CANCELLED
// without a reason), a ref that names no node (NODE_STALE), an undeclared
// action kind (UNSUPPORTED_CAPABILITY, §4.10), a lookbehind and a selector
// (UNSUPPORTED_CAPABILITY where the surface cannot, §4.9), an invalid
// regexp (e2e INVALID_ARGUMENT, §4.9), a key outside the grammar, an open
// of a closed port, a foreign state format. A selection of run-wide
// requirements alone (`--only ERR`) then judges every engine error the
// rest of the suite can draw without a fixture screen.
func exerciseSteps(closedURL string) []workloadStep {
	always := func(wire.Manifest) bool { return true }
	lists := func(m string) func(wire.Manifest) bool {
		return func(man wire.Manifest) bool { return man.Lists(m) }
	}
	return []workloadStep{
		{exerciseUnknown, always, func(*workload, string) string { return `{"note":"` + exerciseTag + `"}` }},
		{wire.MethodInit, lists(wire.MethodInit), func(w *workload, id string) string {
			return fmt.Sprintf(`{"runId":%q,"targetName":"conformance-%s","projectRoot":%q,"app":{},"env":{},"headed":false,"workerSlot":0,"signal":{"id":%s}}`,
				w.run, exerciseTag, w.e.Artifacts, id)
		}},
		// An operation while no attempt is open: "A server MAY answer an
		// operation method that arrives while no attempt is open with
		// INVALID_STATE" (§4.0, D57). Allowed either way; drawn so that a
		// selection of the run-wide checks alone judges that error too
		// (LIFE-019's first request is such an operation).
		{wire.MethodObserve, lists(wire.MethodObserve), func(w *workload, id string) string {
			return `{"operation":` + w.op(id, false, "") + `}`
		}},
		// A startAttempt whose valid params are wrapped in a one-element
		// array, after lifecycle/init: "Params that break the method's
		// schema are answered with -32602 and have no effect" (§4.0,
		// WIRE-010), so no attempt opens and no attempt/* message names it.
		// An engine that serves it as if by name opens an attempt the suite
		// never started, and its attempt/* messages for it are S2C-001's
		// violations (the attempt window opens only on object params).
		{wire.MethodStartAttempt, lists(wire.MethodStartAttempt), func(w *workload, id string) string {
			return fmt.Sprintf(`[{"attemptId":%q,"artifactsDir":%q,"signal":{"id":%s},"screens":false}]`, w.e.nextID("e2e-conform-wrapped-"+exerciseTag), w.dir, id)
		}},
		{wire.MethodStartAttempt, lists(wire.MethodStartAttempt), func(w *workload, id string) string {
			return fmt.Sprintf(`{"attemptId":%q,"artifactsDir":%q,"signal":{"id":%s},"screens":true}`, w.attempt, w.dir, id)
		}},
		{wire.MethodObserve, lists(wire.MethodObserve), func(w *workload, id string) string {
			return `{"operation":` + w.op(id, false, "") + `}`
		}},
		{wire.MethodObserve, lists(wire.MethodObserve), func(w *workload, id string) string {
			return `{"operation":` + w.op(id, false, "") + `,"options":{"pixels":true}}`
		}},
		// In the full profile, the counter screen inside the attempt: its
		// console button tapped (the app's console forwarded as
		// attempt/appLog, on this raw connection where framing is judged)
		// and its disabled button tapped (NOT_ACTIONABLE).
		{counterSceneStep, always, nil},
		// Invalid params: array params, string params and a null member
		// for a listed method: "Params that break the method's schema are
		// answered with -32602 and have no effect" (§4.0); an engine that
		// serves them anyway answers a result the run-wide checks judge
		// (WIRE-012, WIRE-013), as the WIRE-010 spec's traffic shows it.
		{wire.MethodObserve, lists(wire.MethodObserve), func(*workload, string) string { return `[]` }},
		{wire.MethodObserve, lists(wire.MethodObserve), func(*workload, string) string { return `"e2e-conform ` + exerciseTag + `"` }},
		{wire.MethodObserve, lists(wire.MethodObserve), func(w *workload, id string) string {
			return `{"operation":` + w.op(id, false, "") + `,"options":null}`
		}},
		{wire.MethodLocate, lists(wire.MethodLocate), func(w *workload, id string) string {
			return w.locateName(id, wire.StringPattern("e2e-conform "+exerciseTag, true))
		}},
		// §4.9: "A regexp the engine cannot evaluate with ECMAScript
		// semantics → UNSUPPORTED_CAPABILITY; one that is not a valid
		// ECMAScript pattern → -32000 e2e {category: 'test', code:
		// 'INVALID_ARGUMENT'}". A lookbehind (an array of nodes or the
		// refusal), then an unterminated group (the e2e error).
		{wire.MethodLocate, lists(wire.MethodLocate), func(w *workload, id string) string {
			return w.locateName(id, wire.RegexpPattern(`(?<=e2e-conform )`+exerciseTag, ""))
		}},
		{wire.MethodLocate, lists(wire.MethodLocate), func(w *workload, id string) string {
			return w.locateName(id, wire.RegexpPattern(`(e2e-conform `+exerciseTag, ""))
		}},
		// §4.9: "selector on a surface without a selector language →
		// UNSUPPORTED_CAPABILITY"; a surface with one answers an array.
		{wire.MethodLocate, lists(wire.MethodLocate), func(w *workload, id string) string {
			expr, _ := json.Marshal(wire.LocatorExpression{Kind: wire.ExprSelector, Selector: "#e2e-conform-no-such-node"})
			return `{"expression":` + string(expr) + `,"operation":` + w.op(id, false, "") + `}`
		}},
		// Aborted at send, without a reason: -32000 engine CANCELLED (D20, D24).
		{wire.MethodObserve, lists(wire.MethodObserve), func(w *workload, id string) string {
			return `{"operation":` + w.op(id, true, "") + `}`
		}},
		// Aborted at send with an e2e reason: the reason back (SIG-002).
		{wire.MethodObserve, lists(wire.MethodObserve), func(w *workload, id string) string {
			return `{"operation":` + w.op(id, true, reasonE2E("exercise "+exerciseTag, false)) + `}`
		}},
		{wire.MethodPerform, lists(wire.MethodPerform), func(w *workload, id string) string {
			return `{"ref":{"id":"e2e-conform-no-such-node-` + exerciseTag + `","revision":""},"action":{"kind":"` + firstKind(w.e.Manifest.Actions, "tap", "hover", "focus", "doubleTap", "scrollIntoView") + `"},"operation":` + w.op(id, false, "") + `}`
		}},
		{wire.MethodPerform, func(m wire.Manifest) bool { return m.Lists(wire.MethodPerform) && undeclaredKind(m) != "" }, func(w *workload, id string) string {
			return `{"ref":{"id":"e2e-conform-no-such-node","revision":""},"action":{"kind":"` + undeclaredKind(w.e.Manifest) + `"},"operation":` + w.op(id, false, "") + `}`
		}},
		// A disabled node on the start surface, where the engine shows one:
		// NOT_ACTIONABLE (§4.10), never retryable (ERR-003).
		{wire.MethodPerform, lists(wire.MethodPerform), func(w *workload, id string) string {
			if w.disabled == "" {
				return skipStep
			}
			return `{"ref":` + w.disabled + `,"action":{"kind":"` + firstKind(w.e.Manifest.Actions, "tap", "doubleTap", "hover") + `"},"operation":` + w.op(id, false, "") + `}`
		}},
		{wire.MethodPress, lists(wire.MethodPress), func(w *workload, id string) string {
			return `{"key":"Ctrl+a","operation":` + w.op(id, false, "") + `}`
		}},
		{wire.MethodOpen, lists(wire.MethodOpen), func(w *workload, id string) string {
			return `{"url":"` + closedURL + `","operation":` + w.op(id, false, "") + `}`
		}},
		{wire.MethodScreenshot, lists(wire.MethodScreenshot), func(w *workload, id string) string {
			return `{"label":"exercise ` + exerciseTag + `","operation":` + w.op(id, false, "") + `}`
		}},
		{wire.MethodCapture, lists(wire.MethodCapture), func(w *workload, id string) string {
			return `{"operation":` + w.op(id, false, "") + `}`
		}},
		{wire.MethodRestore, lists(wire.MethodRestore), func(w *workload, id string) string {
			return `{"state":{"format":"e2e-conform/foreign-` + exerciseTag + `","version":1,"data":{}},"operation":` + w.op(id, false, "") + `}`
		}},
		{wire.MethodStopVideo, lists(wire.MethodStopVideo), func(w *workload, id string) string {
			return `{"operation":` + w.op(id, false, "") + `}`
		}},
		// A startAttempt while the attempt is open: a server that lists
		// lifecycle/endAttempt "SHOULD answer a startAttempt that arrives
		// while another attempt is open … with -32000 {type: 'engine',
		// code: 'INVALID_STATE', retryable: false}" (§4.4, D27, D62); one
		// that accepts it harms nothing here (the endAttempt below ends
		// whichever attempt is open).
		{wire.MethodStartAttempt, func(m wire.Manifest) bool {
			return m.Lists(wire.MethodStartAttempt) && m.Lists(wire.MethodEndAttempt)
		}, func(w *workload, id string) string {
			return fmt.Sprintf(`{"attemptId":%q,"artifactsDir":%q,"signal":{"id":%s},"screens":false}`, w.e.nextID("attempt-overlap-"+exerciseTag), w.dir, id)
		}},
		{wire.MethodSettleAttempt, lists(wire.MethodSettleAttempt), func(w *workload, id string) string {
			return `{"signal":{"id":` + id + `},"timeoutMs":5000}`
		}},
		{wire.MethodEndAttempt, lists(wire.MethodEndAttempt), func(w *workload, id string) string {
			return `{"signal":{"id":` + id + `},"timeoutMs":5000}`
		}},
		// An operation after the attempt ended: no attempt is open (§4.0,
		// D57), as above.
		{wire.MethodObserve, func(m wire.Manifest) bool {
			return m.Lists(wire.MethodObserve) && m.Lists(wire.MethodEndAttempt)
		}, func(w *workload, id string) string {
			return `{"operation":` + w.op(id, false, "") + `}`
		}},
		// An ENGINE_METHODS member the manifest does not list: "A method
		// the manifest does not list is answered with -32601" (§4.0).
		{"", func(m wire.Manifest) bool { return unlistedMethod(m) != "" }, func(*workload, string) string { return "{}" }},
		{wire.MethodDispose, lists(wire.MethodDispose), func(w *workload, id string) string {
			return `{"signal":{"id":` + id + `},"timeoutMs":5000}`
		}},
		{wire.MethodShutdown, always, func(*workload, string) string { return "" }},
		// A request after shutdown: "every request after it … gets
		// -32600" (§2.7, LIFE-006); an engine that serves it answers a
		// result the run-wide checks judge, as LIFE-006's traffic shows it.
		{wire.MethodObserve, lists(wire.MethodObserve), func(w *workload, id string) string {
			return `{"operation":` + w.op(id, false, "") + `}`
		}},
	}
}

// locateName is the params of an engine/locate of a button named name.
func (w *workload) locateName(id string, name wire.TextPattern) string {
	expr, _ := json.Marshal(wire.LocatorExpression{Kind: wire.ExprQuery, Query: &wire.SemanticQuery{
		Kind: "role", Value: wire.StringPattern("button", true), Name: &name}})
	return `{"expression":` + string(expr) + `,"operation":` + w.op(id, false, "") + `}`
}

// unlistedMethod returns the first ENGINE_METHODS member the manifest does
// not list, "" when it lists them all.
func unlistedMethod(m wire.Manifest) string {
	for _, meth := range wire.EngineMethods() {
		if !m.Lists(meth) {
			return meth
		}
	}
	return ""
}

// firstKind returns the first of prefer that declared lists, else the first
// declared kind.
func firstKind(declared []string, prefer ...string) string {
	for _, p := range prefer {
		for _, d := range declared {
			if d == p {
				return p
			}
		}
	}
	if len(declared) > 0 {
		return declared[0]
	}
	return "tap"
}

// undeclaredKind returns a LOCATOR_ACTION_KINDS member the manifest does not
// declare, "" when it declares them all.
func undeclaredKind(m wire.Manifest) string {
	for _, k := range wire.LocatorActionKinds() {
		if !m.HasAction(k) {
			return k
		}
	}
	return ""
}

// exercise runs the workload once per run (later calls return at once) and
// reports what it did, for the run-wide specs' notes.
func (e *runEnv) exercise(ctx context.Context) string {
	e.mu.Lock()
	if e.exercised != "" {
		s := e.exercised
		e.mu.Unlock()
		return s
	}
	e.mu.Unlock()
	summary := "the run-wide workload ran in another shard of this run (--parallel): its traffic was judged there"
	if e.runsShared("the run-wide workload") {
		summary = e.runWorkload(ctx)
		if e.cfg.profile() == ProfileFull {
			summary += "; " + e.runFixtureWorkload(ctx)
		}
	}
	e.mu.Lock()
	e.exercised = summary
	e.mu.Unlock()
	return summary
}

func (e *runEnv) runWorkload(ctx context.Context) string {
	r, err := e.openRaw(ctx)
	if err != nil {
		return "the run-wide workload could not connect: " + err.Error()
	}
	defer r.Close(5 * time.Second)
	w := &workload{e: e, r: r, run: e.nextID("run-" + exerciseTag), attempt: e.nextID("attempt-" + exerciseTag)}
	w.dir, err = os.MkdirTemp(e.Artifacts, "exercise-")
	if err != nil {
		return "the run-wide workload could not create an artifacts directory: " + err.Error()
	}
	if f, ok := w.call(ctx, wire.MethodInitialize, `{"protocolVersion":1,"clientInfo":{"name":"e2e-conform `+exerciseTag+`"},"role":"worker"}`); !ok || f.Error() != nil {
		return "the run-wide workload's initialize was not answered with a result"
	}
	_ = r.Notify(wire.MethodInitialized, "{}")
	closed := strings.TrimSuffix(closedLoopbackURL(), "/") + "/e2e-conform-closed-" + exerciseTag
	for _, st := range exerciseSteps(closed) {
		if st.method == counterSceneStep {
			w.counterScene(ctx)
			if w.closed {
				break
			}
			continue
		}
		if !st.when(e.Manifest) {
			continue
		}
		id := strconv.Itoa(w.n + 1)
		params := st.params(w, id)
		if params == skipStep {
			continue
		}
		method := st.method
		if method == "" {
			method = unlistedMethod(e.Manifest)
		}
		f, ok := w.call(ctx, method, params)
		if !ok && w.closed {
			break
		}
		if ok && method == wire.MethodObserve && f.Error() == nil {
			w.noteObservation(f.Result())
		}
	}
	if !w.closed {
		_ = r.Notify(wire.MethodExit, "")
	}
	s := fmt.Sprintf("the run-wide workload wrote %d requests, %d answered", w.sent, w.answered)
	if w.scene != "" {
		s += "; " + w.scene
	}
	return s
}
