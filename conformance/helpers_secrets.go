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

// Helpers of the S2C-008 specs: attempt/deriveSecret sent by the suite at
// the moments "no pending request" can hold.

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

// respondSecretThenDerive answers the held attempt/resolveSecret req with a
// canary value and, in the same write, sends attempt/deriveSecret with
// derivation: the boundary right after the answer. It returns the
// deriveSecret request's id.
func (s *pipelinedConn) respondSecretThenDerive(req *frame, derivation, plaintext string) string {
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
