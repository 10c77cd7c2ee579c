package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	. "github.com/onsi/gomega"

	"github.com/e2e-conform/toolkit/protocol/wire"
)

// The secret scenario of the server-to-client, errors and run-wide specs
// (an attempt whose fill makes the engine ask attempt/resolveSecret, and
// the suite's answers), and the S2C-008 steps: attempt/deriveSecret sent
// by the suite at the moments "no pending request" can hold.

// derivationOf returns the derivation a held attempt/resolveSecret
// carries, compact, or "" when it carries none.
func derivationOf(req *frame) string {
	var p struct {
		Derivation json.RawMessage `json:"derivation"`
	}
	_ = json.Unmarshal(req.Msg["params"], &p)
	if len(p.Derivation) == 0 || string(p.Derivation) == "null" {
		return ""
	}
	return compactJSON(p.Derivation)
}

// compactJSON is raw without insignificant whitespace (raw itself when it
// is not JSON).
func compactJSON(raw []byte) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// deriveParams are attempt/deriveSecret params for derivation and
// plaintext.
func deriveParams(derivation, plaintext string) string {
	b, _ := json.Marshal(plaintext)
	return `{"derivation":` + derivation + `,"plaintext":` + string(b) + `}`
}

// endHold stops holding server requests: once the suite answers the one
// it held, every later request is answered as it comes. A scenario holds
// only its first attempt/resolveSecret; one asked after that answer (§6.6:
// "The provider runs again on every request", any time until the
// endAttempt response) was held in turn while the spec waited for the
// operation it blocked, which then never ended: S2C-005 failed an engine
// asking its second secret after the first's answer (quirk
// secret-pair-after; at random in CI with secret-pair).
func (s *pipelinedConn) endHold() { s.hold = false }

// respondSecretThenDerive answers the held attempt/resolveSecret req with a
// canary value and, in the same write, sends attempt/deriveSecret with
// derivation: the boundary right after the answer. It returns the
// deriveSecret request's id.
func (s *pipelinedConn) respondSecretThenDerive(req *frame, derivation, plaintext string) string {
	s.endHold()
	for i, h := range s.held {
		if h == req {
			s.held = append(s.held[:i], s.held[i+1:]...)
			break
		}
	}
	var p struct {
		Name string `json:"name"`
	}
	_ = json.Unmarshal(req.Msg["params"], &p)
	v := "s3cr3t-canary-" + p.Name
	s.e.Secret(v)
	b, _ := json.Marshal(v)
	answer := `{"jsonrpc":"2.0","id":` + string(req.Msg["id"]) + `,"result":{"value":` + string(b) + `}}`
	id := s.id()
	s.sent[id] = wire.MethodDeriveSecret
	derive := `{"jsonrpc":"2.0","id":` + id + `,"method":"` + wire.MethodDeriveSecret + `","params":` + deriveParams(derivation, plaintext) + `}`
	Expect(s.r.Write(append(framed(answer), framed(derive)...))).To(Succeed(), "writing the attempt/resolveSecret answer and an attempt/deriveSecret in one write")
	return id
}

// provokeSecretAgain provokes an attempt/resolveSecret in a new attempt on
// a session whose previous attempt provokeSecret ran: endAttempt (when
// listed), startAttempt, session/open of the form screen, engine/observe
// the secret fill and endAttempt, as provokeSecret does them. It returns the held
// request (nil when none came) and the id of the request pending behind it.
func provokeSecretAgain(ctx context.Context, e *runEnv, ss *pipelinedConn) (*frame, string) {
	ss.hold = true
	ss.endAttempt(ctx)
	return ss.secretScenario(ctx, e, false)
}

// derivationRequested reports whether an attempt/resolveSecret carrying
// derivation arrived among the server messages read from index since on.
// Such a request may be pending at the server when the suite's
// attempt/deriveSecret of the same value arrives, and §6.6 matches a
// derivation against the pending requests by value, so the server may
// answer it: -32602 cannot be required then.
func (s *pipelinedConn) derivationRequested(since int, derivation string) bool {
	want := compactJSON([]byte(derivation))
	for _, m := range s.msgs[min(since, len(s.msgs)):] {
		if m.f.Method() == wire.MethodResolveSecret && derivationOf(m.f) == want {
			return true
		}
	}
	return false
}

// awaitTrigger waits for the request that was pending behind an answered
// attempt/resolveSecret.
func (s *pipelinedConn) awaitTrigger(ctx context.Context, trigger string) {
	if trigger == "" {
		return
	}
	_, err := s.await(ctx, trigger, triggerWait)
	Expect(err).NotTo(HaveOccurred(), "request %s, pending during attempt/resolveSecret: want an answer once the secret was answered, got none within %d ms", trigger, triggerWait.Milliseconds())
}

// triggerWait bounds the wait for the request that was pending behind an
// answered attempt/resolveSecret: the largest timeoutMs the secret
// scenario gives a request (30000, the fill's) plus the 2000 ms LIFE-016
// allows an answer past it. A fill that types slowly after its secret
// came is within its budget; 10 s once failed it.
const triggerWait = 32 * time.Second

// expectUnknownDerivation checks that the attempt/deriveSecret answered in
// f got -32602, and records it (S2C-008).
func expectUnknownDerivation(e *runEnv, f *frame, derivation, what string) {
	if eo := f.Error(); eo == nil || eo.Code != wire.CodeInvalidParams {
		got := "a result " + clip(string(f.Result()))
		if eo != nil {
			got = fmt.Sprintf("error %d %q", eo.Code, eo.Message)
		}
		failf("attempt/deriveSecret with %s (derivation %s): want -32602, got %s", what, clip(derivation), got)
	}
	e.observed("S2C-008", what)
}

// minEncodedSecret is the shortest secret whose encoded forms (base64
// cores, escapes) are redacted too: shorter ones would match ordinary text.
const minEncodedSecret = 8

// redactSecrets replaces each of secrets in s: raw, and for secrets of
// minEncodedSecret bytes or more in every form leakForms knows.
func redactSecrets(s string, secrets []string) string {
	// Longest first: a derived value holding a canary goes whole.
	secrets = append([]string(nil), secrets...)
	sort.Slice(secrets, func(i, j int) bool { return len(secrets[i]) > len(secrets[j]) })
	for _, v := range secrets {
		if v == "" {
			continue
		}
		if len(v) < minEncodedSecret {
			s = strings.ReplaceAll(s, v, "[redacted]")
			continue
		}
		for _, f := range leakForms(v) {
			s = strings.ReplaceAll(s, f.text, "[redacted]")
		}
	}
	return s
}

// registerDerived registers the values of an attempt/deriveSecret result
// (the only result with a "values" member) as secrets before the frame
// that carries them is recorded, shown or traced.
func (e *runEnv) registerDerived(content []byte) {
	if !bytes.Contains(content, []byte(`"values"`)) {
		return
	}
	var resp struct {
		Result *struct {
			Values []string `json:"values"`
		} `json:"result"`
	}
	if json.Unmarshal(content, &resp) != nil || resp.Result == nil {
		return
	}
	for _, v := range resp.Result.Values {
		e.Secret(v)
	}
}

// attemptScenario runs one attempt on a new raw connection: init,
// startAttempt with screens, session/open of the form screen, engine/observe,
// the secret fill of its password field, and settleAttempt (those listed),
// endAttempt, and a
// request for an unknown method after it, to read what the server wrote
// after the endAttempt response.
func attemptScenario(ctx context.Context, e *runEnv, screens bool) *pipelinedConn {
	ss := e.openPipelined(ctx)
	ss.attempt(ctx, screens)
	if e.Manifest.Lists(wire.MethodOpen) {
		id := ss.id()
		ss.call(ctx, id, wire.MethodOpen, ss.openParams(e.FixtureURL+secretPath, id, 30000))
	}
	if e.Manifest.Lists(wire.MethodObserve) {
		id := ss.id()
		ss.call(ctx, id, wire.MethodObserve, `{"operation":`+ss.operation(id, 30000)+`}`)
		if fill, ok := ss.fillSecret(id); ok {
			_, err := ss.await(ctx, fill, 0)
			Expect(err).NotTo(HaveOccurred(), "waiting for the answer to engine/perform fill of the password field")
		}
	}
	if rootID, ok := ss.observedRoot(); ok && e.Manifest.Lists(wire.MethodPerform) {
		// An action, not only reads: an engine that sends attempt/screen
		// after actions shows it here (S2C-002).
		id := ss.id()
		ss.call(ctx, id, wire.MethodPerform, fmt.Sprintf(`{"ref":{"id":%q,"revision":""},"action":{"kind":%q},"operation":%s}`,
			rootID, firstKind(e.Manifest.Actions, "hover", "scrollIntoView", "focus", "tap"), ss.operation(id, 30000)))
	}
	if e.Manifest.Lists(wire.MethodSettleAttempt) {
		id := ss.id()
		ss.call(ctx, id, wire.MethodSettleAttempt, `{"signal":{"id":`+id+`},"timeoutMs":5000}`)
	}
	for _, rep := range ss.replies {
		if rep.method != "" && wire.IsOperationMethod(rep.method) && !screens {
			e.observed("S2C-002", "operation answered in a screens: false attempt")
		}
	}
	ss.endAttempt(ctx)
	ss.probe(ctx, "after the attempt")
	return ss
}

// provokeSecretRequest runs the suite's secret scenario once on a fresh raw
// connection, so that an engine that asks for secrets asks (the run-wide
// checks record what it sent), answers the request it held and waits for
// the request then pending, without judging either: S2C-005..008 judge
// their own runs of the scenario.
func provokeSecretRequest(ctx context.Context, e *runEnv) {
	ss := e.openPipelined(ctx)
	req, trigger := ss.secretScenario(ctx, e, true)
	if req == nil {
		return
	}
	ss.respondSecret(req)
	if trigger != "" {
		_, _ = ss.await(ctx, trigger, triggerWait)
	}
}

// provokeSecret runs the suite's secret scenario on ss and holds the first
// attempt/resolveSecret the server sends: lifecycle/init,
// lifecycle/startAttempt, session/open of the form screen (secretPath),
// engine/observe and engine/perform fill of its password field with
// secretFill, and lifecycle/endAttempt, those listed, each until it is
// answered or the request arrives. It returns the request and the id of the suite's request then
// pending ("" when none), or nil when the scenario ends without one. Later
// server requests are held too until ss.hold is cleared. attemptScenario
// runs the same steps first (S2C-001), so that an engine asking for a
// secret in them has done so during the run and S2C-005..008 apply.
func provokeSecret(ctx context.Context, e *runEnv, ss *pipelinedConn) (*frame, string) {
	return ss.secretScenario(ctx, e, true)
}

// secretScenario runs the secret scenario's steps on s, holding server
// requests: lifecycle/init (when withInit and listed), startAttempt,
// session/open of the form screen, engine/observe, the secret fill, and
// endAttempt, those listed, each until it is answered or a request arrives.
func (s *pipelinedConn) secretScenario(ctx context.Context, e *runEnv, withInit bool) (*frame, string) {
	s.hold = true
	// step writes a request (none when params is "", the request already
	// written) and reads until it is answered or a secret is requested.
	step := func(id, method, params string) (*frame, string) {
		if params != "" {
			s.write(id, method, params)
		}
		for !s.answered(id) && len(s.held) == 0 {
			_, err := s.next(ctx)
			Expect(err).NotTo(HaveOccurred(), "waiting for the answer to %s", method)
		}
		if len(s.held) == 0 {
			return nil, ""
		}
		if s.answered(id) {
			return s.held[0], ""
		}
		return s.held[0], id
	}
	if withInit && e.Manifest.Lists(wire.MethodInit) {
		id := s.id()
		if f, t := step(id, wire.MethodInit, s.initParams(id)); f != nil {
			return f, t
		}
	}
	id := s.id()
	params := s.startParams(false, id)
	if e.Manifest.Lists(wire.MethodStartAttempt) {
		if f, t := step(id, wire.MethodStartAttempt, params); f != nil {
			return f, t
		}
	}
	if e.Manifest.Lists(wire.MethodOpen) {
		id := s.id()
		if f, t := step(id, wire.MethodOpen, s.openParams(e.FixtureURL+secretPath, id, 30000)); f != nil {
			return f, t
		}
	}
	if e.Manifest.Lists(wire.MethodObserve) {
		id := s.id()
		if f, t := step(id, wire.MethodObserve, `{"operation":`+s.operation(id, 30000)+`}`); f != nil {
			return f, t
		}
		if fill, ok := s.fillSecret(id); ok {
			if f, t := step(fill, "engine/perform fill of the password field", ""); f != nil {
				return f, t
			}
		}
	}
	// The request is allowed until the endAttempt response (§6.6), from
	// any thread of the engine: the scenario ends with endAttempt (when
	// listed), read until its response, so that a request sent after the
	// last step's answer, or while endAttempt runs, is held too. No timing
	// guess: what arrives after the endAttempt response is outside the
	// window (S2C-001 reports it).
	if e.Manifest.Lists(wire.MethodEndAttempt) {
		id := s.id()
		s.endID = id
		if f, t := step(id, wire.MethodEndAttempt, `{"signal":{"id":`+id+`},"timeoutMs":5000}`); f != nil {
			return f, t
		}
	}
	return nil, ""
}

// respondSecret answers a held attempt/resolveSecret with a canary value,
// and ends the hold (endHold).
func (s *pipelinedConn) respondSecret(f *frame) {
	s.endHold()
	for i, h := range s.held {
		if h == f {
			s.held = append(s.held[:i], s.held[i+1:]...)
			break
		}
	}
	s.answer(f)
}
