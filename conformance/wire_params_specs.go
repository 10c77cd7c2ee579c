package conformance

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/gomega"

	"github.com/e2e-conform/toolkit/protocol/wire"
)

// wireParamsShapeSpecs registers the WIRE-010 spec of params that are not
// an object (issue 25): §1.4 "params is a JSON object (parameters by
// name). [...] Array params are answered with -32602", and §2.7 "Params
// not an object, a required member missing, [...] a null where not
// allowed: -32602". Every ENGINE_METHODS member has required members
// (§4.1–§4.18), so absent and null params are "a required member
// missing" for each of them.
func wireParamsShapeSpecs(s *suite) {
	s.spec("every listed method gets -32602 for params that are not an object: [], its valid params wrapped in a one-element array, arrays of a string, a number and null, a string, a number, a boolean, null and absent params; a wrapped valid startAttempt opens no attempt, and a wrapped session/open of a watched URL does not reach it where a valid one does",
		[]string{"WIRE-010"}, func(ctx context.Context, e *runEnv) {
			const rule = `§1.4: "Array params are answered with -32602"; §2.7: "Params not an object, a required member missing [...]: -32602"; §4.0: "[...] answered with -32602 and have no effect"`
			ss := e.openPipelined(ctx)
			var watched *urlWatch
			if e.Manifest.Lists(wire.MethodOpen) {
				watched = e.watchURL(ctx)
			}
			check := func(method, what, params string) {
				id := ss.id()
				ss.write(id, method, params)
				rep, err := ss.await(ctx, id, within)
				shown := "absent"
				if params != "" {
					shown = clip(params)
				}
				Expect(err).NotTo(HaveOccurred(), "%s with %s (params %s): want -32602 within %d ms, got no answer", method, what, shown, within.Milliseconds())
				if eo := rep.f.Error(); eo == nil || eo.Code != wire.CodeInvalidParams {
					got := "result " + clip(string(rep.f.Result()))
					if eo != nil {
						got = fmt.Sprintf("error %d %q", eo.Code, eo.Message)
					}
					failf("%s with %s (params %s): want -32602 and no effect (%s), got %s", method, what, shown, rule, got)
				}
			}
			// lifecycle/init first, then the wrapped startAttempt before any
			// attempt is open: a valid startAttempt after it must not find
			// one open (§4.4: a server that lists endAttempt SHOULD answer
			// an overlapping startAttempt INVALID_STATE; one that does not
			// leaves this part unseen, never failed).
			if e.Manifest.Lists(wire.MethodInit) {
				Expect(string(expectResult(ss.init(ctx), "lifecycle/init"))).To(Equal("null"))
			}
			inAttempt := !e.Manifest.Lists(wire.MethodStartAttempt)
			if e.Manifest.Lists(wire.MethodStartAttempt) {
				id := ss.id()
				check(wire.MethodStartAttempt, "its valid params wrapped in a one-element array", "["+validParamsFor(ss, wire.MethodStartAttempt, id, "")+"]")
				id = ss.id()
				f := ss.call(ctx, id, wire.MethodStartAttempt, ss.startParams(false, id))
				if eo := f.Error(); eo != nil {
					Expect(dataOf(eo).Code).NotTo(Equal("INVALID_STATE"), "a valid lifecycle/startAttempt after one whose params were wrapped in an array got INVALID_STATE %q: the wrapped startAttempt opened an attempt; want no effect (%s)", eo.Message, rule)
				} else {
					inAttempt = true
				}
			}
			for _, m := range e.Manifest.Methods {
				if !wire.IsEngineMethod(m) {
					continue
				}
				for _, c := range nonObjectParams() {
					params := c.params
					if params == wrappedValid {
						params = "[" + validParamsFor(ss, m, ss.peekID(), watchedURL(watched)) + "]"
					}
					check(m, c.what, params)
				}
			}
			// "No effect" of the wrapped session/open: the watched URL is not
			// reached within actQuietWait of the answers; a valid open of it,
			// last, shows whether an open's effect can be seen at all here.
			if watched != nil && inAttempt {
				Expect(watched.reachedBy(ctx, time.Now().Add(actQuietWait))).To(BeZero(), "session/open of %s with its params wrapped in a one-element array got -32602, but the engine reached the URL (%d connection(s)): want no effect (%s)", watched.url, watched.connections(), rule)
				id := ss.id()
				ss.write(id, wire.MethodOpen, ss.openParams(watched.url, id, 30000))
				if rep, err := ss.awaitOp(ctx, id, 30000); err == nil && rep.f.Error() == nil && watched.connections() > 0 {
					e.observed("WIRE-010", "a wrapped session/open did not reach a URL a valid one reached")
				}
			}
			if inAttempt && e.Manifest.Lists(wire.MethodStartAttempt) {
				ss.endAttempt(ctx)
			}
		})
}

// wrappedValid stands, in nonObjectParams, for the method's valid params
// wrapped in a one-element array.
const wrappedValid = "[valid]"

// nonObjectParams are the params shapes that are not an object (params ""
// is absent params).
func nonObjectParams() []paramsCase {
	return []paramsCase{
		{"empty array params", `[]`},
		{"its valid params wrapped in a one-element array", wrappedValid},
		{"params an array of a string", `["params"]`},
		{"params an array of a number", `[7]`},
		{"params an array holding null", `[null]`},
		{"string params", `"params"`},
		{"number params", `7`},
		{"boolean params", `true`},
		{"null params (the method has required members)", `null`},
		{"absent params (the method has required members)", ``},
	}
}

// watchedURL is w's URL, about:blank without a watcher.
func watchedURL(w *urlWatch) string {
	if w == nil {
		return "about:blank"
	}
	return w.url
}

// peekID is the id the next request of the session will carry.
func (s *pipelinedConn) peekID() string { return fmt.Sprint(s.n + 1) }

// validParamsFor returns params of method its schema accepts, with signal
// id sig inside the session's attempt; url is session/open's. Each names
// nothing the engine holds (a ref no screen has, a state format no engine
// writes), so even a served one changes little.
func validParamsFor(s *pipelinedConn, method, sig, url string) string {
	op := s.operation(sig, 30000)
	cleanup := `{"signal":{"id":` + sig + `},"timeoutMs":5000}`
	run := orDefault(s.op.RunID, "run-x")
	switch method {
	case wire.MethodLocate:
		return `{"expression":{"kind":"query","query":{"kind":"text","value":{"kind":"string","value":"e2e-conform-none","exact":false}}},"operation":` + op + `}`
	case wire.MethodPerform:
		return `{"ref":{"id":"e2e-conform-none","revision":""},"action":{"kind":"tap"},"operation":` + op + `}`
	case wire.MethodPerformAt:
		return `{"point":{"x":1,"y":1},"action":{"kind":"hover"},"operation":` + op + `}`
	case wire.MethodType:
		return `{"text":"e2e-conform","options":{"replace":false},"operation":` + op + `}`
	case wire.MethodPress:
		return `{"key":"Shift","operation":` + op + `}`
	case wire.MethodRestore:
		return `{"state":{"format":"e2e-conform-none","version":1,"data":{}},"operation":` + op + `}`
	case wire.MethodOpen:
		return fmt.Sprintf(`{"url":%q,"operation":%s}`, url, op)
	case wire.MethodPrepare:
		return fmt.Sprintf(`{"runId":%q,"targetName":"conformance","projectRoot":%q,"app":{},"slots":0,"env":{},"signal":{"id":%s}}`, run, s.e.Artifacts, sig)
	case wire.MethodFinish:
		return fmt.Sprintf(`{"runId":%q,"targetName":"conformance","env":{},"signal":{"id":%s},"timeoutMs":5000}`, run, sig)
	case wire.MethodInit:
		return fmt.Sprintf(`{"runId":%q,"targetName":"conformance","projectRoot":%q,"app":{},"env":{},"headed":false,"workerSlot":0,"signal":{"id":%s}}`, run, s.e.Artifacts, sig)
	case wire.MethodStartAttempt:
		return fmt.Sprintf(`{"attemptId":"e2e-conform-wrapped","artifactsDir":%q,"signal":{"id":%s},"screens":false}`, s.e.Artifacts, sig)
	case wire.MethodSettleAttempt, wire.MethodEndAttempt, wire.MethodDispose:
		return cleanup
	}
	if wire.IsOperationMethod(method) {
		return `{"operation":` + op + `}`
	}
	return "{}"
}
