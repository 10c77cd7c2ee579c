package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/e2e-conform/toolkit/protocol/wire"
)

// Server-to-client messages: spec §6; catalog S2C (S2C-003 and S2C-004 are
// checked on every message by the run-wide checks).
//
// S2C-005..008 apply once the server sent attempt/resolveSecret during the
// run. What makes an engine ask for a secret is its own business, so these
// specs replay the suite's secret scenario (provokeSecret) on a raw
// connection and answer the request themselves; an engine that asks only
// elsewhere leaves them not verified.
func messageSpecs(s *suite) {
	// The window opens when the suite writes startAttempt (when the
	// manifest does not list it, where it would have written it) and closes
	// when it reads the endAttempt response; without lifecycle/endAttempt
	// listed it never closes, as the statement says. attempt/resolveSecret
	// is an attempt/* message too.
	s.spec("every attempt/* message carries the attemptId of the attempt the suite opened, after its startAttempt was written and before its endAttempt response was read",
		[]string{"S2C-001"}, func(ctx context.Context, e *runEnv) {
			var bad []string
			for _, screens := range []bool{false, true} {
				ss := attemptScenario(ctx, e, screens)
				for _, m := range ss.msgs {
					if !strings.HasPrefix(m.f.Method(), "attempt/") {
						continue
					}
					var p struct {
						AttemptID string `json:"attemptId"`
					}
					_ = json.Unmarshal(m.f.Msg["params"], &p)
					e.observed("S2C-001", "attempt/* message of the scenario checked against its attempt")
					switch {
					case m.open == "":
						bad = append(bad, fmt.Sprintf("%s for %q outside any attempt (before startAttempt was written or after the endAttempt response)", m.f.Method(), p.AttemptID))
					case p.AttemptID != m.open:
						bad = append(bad, fmt.Sprintf("%s for %q while attempt %q was open", m.f.Method(), p.AttemptID, m.open))
					}
				}
			}
			Expect(bad).To(BeEmpty(), "attempt/* messages outside their attempt: %s", strings.Join(bad, "; "))
			e.requireEvidence("S2C-001", "the engine sent no attempt/* message in the scenario's two attempts (init, startAttempt, session/open of the form screen, engine/observe, the secret fill, endAttempt)")
		})

	s.spec("attempt/screen is sent only in attempts started with screens: true, and carries a valid EngineSnapshot",
		[]string{"S2C-002"}, func(ctx context.Context, e *runEnv) {
			var bad []string
			for _, screens := range []bool{false, true} {
				ss := attemptScenario(ctx, e, screens)
				for _, m := range ss.msgs {
					if m.f.Method() == wire.MethodScreen && m.open != "" && !m.screens {
						bad = append(bad, "attempt/screen in an attempt started with screens: false")
					}
				}
			}
			// Validity was checked on every attempt/screen of the run.
			bad = append(bad, e.Violations("S2C-002")...)
			Expect(bad).To(BeEmpty(), "attempt/screen: %s", strings.Join(bad, "; "))
			// The absence of attempt/screen in the screens: false attempt
			// means something only when the engine acted in it.
			if e.specObserved("S2C-002") == 0 || e.specObservedWhat("S2C-002", "operation answered in a screens: false attempt") == 0 {
				if !e.Manifest.Lists(wire.MethodObserve) && !e.Manifest.Lists(wire.MethodPerform) && !e.Manifest.Lists(wire.MethodOpen) {
					Skip(nothingToCheck + "the engine lists none of session/open, engine/observe and engine/perform, so no operation ran in the attempt started with screens: false")
				}
				Skip(notVerified + "no operation was answered in the attempt started with screens: false, so the absence of attempt/screen there shows nothing")
			}
		})

	s.spec("the server answers attempt/deriveSecret for the derivation of its pending attempt/resolveSecret with {values: string[]}",
		[]string{"S2C-005"}, func(ctx context.Context, e *runEnv) {
			ss := e.openPipelined(ctx)
			req, trigger := provokeSecret(ctx, e, ss)
			if req == nil {
				Skip(notVerified + "the server sent no attempt/resolveSecret in the suite's secret scenario")
			}
			derivation := req.Msg["params"]
			var p struct {
				Name       string          `json:"name"`
				Derivation json.RawMessage `json:"derivation"`
			}
			_ = json.Unmarshal(derivation, &p)
			if p.Derivation == nil {
				ss.respondSecret(req)
				Skip(notVerified + "the attempt/resolveSecret of the suite's secret scenario carries no derivation")
			}
			plain := "s3cr3t-canary-" + p.Name
			e.Secret(plain)
			pb, _ := json.Marshal(plain)
			id := ss.id()
			ss.write(id, wire.MethodDeriveSecret, `{"derivation":`+string(p.Derivation)+`,"plaintext":`+string(pb)+`}`)
			rep, err := ss.await(ctx, id, 10*time.Second)
			Expect(err).NotTo(HaveOccurred(), "attempt/deriveSecret while its attempt/resolveSecret is pending: want an answer, got none within 10 s")
			res := expectResult(rep.f, "attempt/deriveSecret for the pending derivation")
			Expect(e.Schemas.ValidateType("DeriveSecretResult", res)).To(Succeed(), "the attempt/deriveSecret result: want {values: string[]}, got %s", clip(string(res)))
			var v struct {
				Values []string `json:"values"`
			}
			_ = json.Unmarshal(res, &v)
			for _, x := range v.Values {
				e.Secret(x)
			}
			ss.respondSecret(req)
			if trigger != "" {
				_, err := ss.await(ctx, trigger, triggerWait)
				Expect(err).NotTo(HaveOccurred(), "the request pending during attempt/resolveSecret: want an answer once the secret was answered")
			}
		})

	s.spec("an error answer (SECRET_UNAVAILABLE) to attempt/resolveSecret leaves the connection working",
		[]string{"S2C-006"}, func(ctx context.Context, e *runEnv) {
			ss := e.openPipelined(ctx)
			req, trigger := provokeSecret(ctx, e, ss)
			if req == nil {
				Skip(notVerified + "the server sent no attempt/resolveSecret in the suite's secret scenario")
			}
			ss.hold = false
			ss.respond(req, "", secretUnavailable)
			if trigger != "" {
				_, err := ss.await(ctx, trigger, triggerWait)
				Expect(err).NotTo(HaveOccurred(), "the request pending during attempt/resolveSecret: want an answer after SECRET_UNAVAILABLE, got none within %d ms", triggerWait.Milliseconds())
			}
			ss.probe(ctx, "after a SECRET_UNAVAILABLE answer")
			if ss.open != "" && e.Manifest.Lists(wire.MethodObserve) {
				id := ss.id()
				expectResult(ss.call(ctx, id, wire.MethodObserve, `{"operation":`+ss.operation(id, 30000)+`}`), "engine/observe after a SECRET_UNAVAILABLE answer")
			}
		})

	s.spec("while the suite delays its attempt/resolveSecret answer by 2000 ms, the server answers a request for an unknown method and honors $/abort",
		[]string{"S2C-007"}, func(ctx context.Context, e *runEnv) {
			ss := e.openPipelined(ctx)
			req, trigger := provokeSecret(ctx, e, ss)
			if req == nil {
				Skip(notVerified + "the server sent no attempt/resolveSecret in the suite's secret scenario")
			}
			// The probe and the $/abort are written together, so each has
			// the whole 2000 ms delay to be answered in.
			t0 := time.Now()
			answerAt := t0.Add(2000 * time.Millisecond)
			probe := ss.id()
			t := ss.write(probe, probeMethod, "")
			aborted := trigger != "" && !ss.answered(trigger)
			if aborted {
				ss.abort(trigger, "") // every request's signal id is its request id
			}
			rep, err := ss.await(ctx, probe, time.Until(answerAt))
			Expect(err).NotTo(HaveOccurred(), "a request for an unknown method while attempt/resolveSecret is pending: want an answer within the suite's 2000 ms delay, got none")
			expectCode(rep.f, wire.CodeMethodNotFound, "a request for an unknown method while attempt/resolveSecret is pending")
			By(fmt.Sprintf("the unknown method was answered after %d ms", rep.at.Sub(t).Milliseconds()))
			if aborted {
				_, err := ss.await(ctx, trigger, time.Until(answerAt))
				Expect(err).NotTo(HaveOccurred(), "the request pending during attempt/resolveSecret, aborted with the probe: want an answer before the suite answers the secret 2000 ms later, got none")
				e.observed("S2C-007", "$/abort honored while attempt/resolveSecret was pending")
			}
			time.Sleep(time.Until(answerAt)) // the delay is the requirement
			ss.respondSecret(req)
			ss.probe(ctx, "after the delayed secret answer")
			if !aborted {
				skipNotVerified("no request of the suite was pending while attempt/resolveSecret was (the request that asked for the secret was already answered): the $/abort clause was not exercised")
			}
		})

	s.spec("attempt/deriveSecret with a derivation the server has no pending request for gets -32602",
		[]string{"S2C-008"}, func(ctx context.Context, e *runEnv) {
			plain := "s3cr3t-canary-unknown-derivation"
			e.Secret(plain)
			unknown := func(ss *pipelinedConn, derivation string, what string) {
				since := len(ss.msgs)
				f := ss.call(ctx, ss.id(), wire.MethodDeriveSecret, `{"derivation":`+derivation+`,"plaintext":"`+plain+`"}`)
				if ss.derivationRequested(since, derivation) {
					By("attempt/deriveSecret with " + what + ": the server asked a secret with this derivation meanwhile, so it may match: not checked")
					return
				}
				expectCode(f, wire.CodeInvalidParams, "attempt/deriveSecret with "+what)
			}
			s1 := e.openPipelined(ctx)
			s1.attempt(ctx, false)
			unknown(s1, `{"e2e-conform":"no such derivation"}`, "a derivation the server never sent")
			// A derivation is forgotten once its resolveSecret is answered.
			ss := e.openPipelined(ctx)
			req, trigger := provokeSecret(ctx, e, ss)
			if req == nil {
				return
			}
			var p struct {
				Derivation json.RawMessage `json:"derivation"`
			}
			_ = json.Unmarshal(req.Msg["params"], &p)
			ss.respondSecret(req)
			if p.Derivation == nil {
				return
			}
			if trigger != "" {
				_, err := ss.await(ctx, trigger, triggerWait)
				Expect(err).NotTo(HaveOccurred(), "the request pending during attempt/resolveSecret: want an answer once the secret was answered")
			}
			if len(ss.held) == 0 {
				unknown(ss, string(p.Derivation), "the derivation of an attempt/resolveSecret already answered")
			}
		})

	// "No pending request" holds in more ways than a derivation never sent
	// (§6.6: "A derivation that matches none of its pending
	// attempt/resolveSecret requests is answered with -32602. A derivation
	// is forgotten once its attempt/resolveSecret is answered."):
	//
	//   - while a request with derivation d is pending: a derivation never
	//     sent, and d retyped ([d], and d's JSON text as a JSON string),
	//     which are other JSON values than d; the derivation is an opaque
	//     value echoed verbatim (D31), so a structurally equal object with
	//     its members in another order is left unjudged: the client never
	//     sends one, and §6.6 does not say whether it "matches";
	//   - d itself in the same write as the answer to its request: the
	//     server reads the answer first, so d is forgotten by then (a
	//     server forgetting it when the engine's call returns, not when the
	//     answer is read, accepts it);
	//   - d after the request behind it was answered;
	//   - d again in a second attempt of the connection while that
	//     attempt's request (another derivation) is pending.
	//
	// d itself while pending must be accepted first, or the server answers
	// -32602 to everything and the checks prove nothing.
	s.spec("attempt/deriveSecret gets -32602 for every derivation without a pending request: one never sent or a pending one retyped, the pending one written with its answer, after its answer, and in a later attempt while another is pending",
		[]string{"S2C-008"}, func(ctx context.Context, e *runEnv) {
			plain := fxCanary("s3cr3t-canary-derive-")
			e.Secret(plain)
			ss := e.openPipelined(ctx)
			req, trigger := provokeSecret(ctx, e, ss)
			if req == nil {
				Skip(notVerified + "the server sent no attempt/resolveSecret in the suite's secret scenario")
			}
			d := derivationOf(req)
			if d == "" {
				Skip(notVerified + "the server's attempt/resolveSecret carries no derivation")
			}
			derive := func(derivation, what string) {
				since := len(ss.msgs)
				f := ss.call(ctx, ss.id(), wire.MethodDeriveSecret, deriveParams(derivation, plain))
				if ss.derivationRequested(since, derivation) {
					By(what + ": the server asked a secret with this derivation meanwhile, so it may match: not checked")
					return
				}
				expectUnknownDerivation(e, f, derivation, what)
			}
			ok := ss.call(ctx, ss.id(), wire.MethodDeriveSecret, deriveParams(d, plain))
			if ok.Error() != nil {
				Skip(notVerified + fmt.Sprintf("attempt/deriveSecret with the pending request's own derivation %s got an error (S2C-005), so -32602 answers prove nothing", clip(d)))
			}
			var v struct{ Values []string }
			_ = json.Unmarshal(ok.Result(), &v)
			for _, x := range v.Values {
				e.Secret(x)
			}
			derive(`{"e2e-conform":"never sent"}`, "a derivation never sent, while another is pending")
			derive("["+d+"]", "the pending derivation wrapped in an array")
			str, _ := json.Marshal(d)
			derive(string(str), "the pending derivation's JSON text as a JSON string")
			since := len(ss.msgs)
			id := ss.respondSecretThenDerive(req, d, plain)
			rep, err := ss.await(ctx, id, 10*time.Second)
			Expect(err).NotTo(HaveOccurred(), "attempt/deriveSecret written with the attempt/resolveSecret answer: want -32602, got no answer within 10 s")
			if ss.derivationRequested(since, d) {
				By("the derivation written with its request's answer: the server asked a secret with this derivation meanwhile, so it may match: not checked")
			} else {
				expectUnknownDerivation(e, rep.f, d, "the derivation written in the same write as, right after, its request's answer")
			}
			ss.awaitTrigger(ctx, trigger)
			derive(d, "the derivation of a request already answered")
			if !e.Manifest.Lists(wire.MethodStartAttempt) {
				return
			}
			req2, trigger2 := provokeSecretAgain(ctx, e, ss)
			if req2 == nil {
				By("the second attempt sent no attempt/resolveSecret: the later-attempt case is not checked")
				return
			}
			if d2 := derivationOf(req2); d2 != "" && d2 != d {
				derive(d, "the first attempt's derivation while the second attempt's request (derivation "+clip(d2)+") is pending")
			} else {
				By("the second attempt's request carries the same derivation or none: the later-attempt case is not checked")
			}
			ss.respondSecret(req2)
			ss.awaitTrigger(ctx, trigger2)
			e.requireEvidence("S2C-008", "no attempt/deriveSecret without a pending request was sent")
		})

	// The app's console (consolescenario.go): the counter screen's console
	// button writes a message at every console level, one on two lines.
	// An entry the engine forwards must come in the attempt's window
	// (S2C-001) and be one line with a valid source and level (S2C-003);
	// each spec judges its own clause on the same scenario (consoleScenario).
	s.specFixture("the app's console messages an engine forwards come as attempt/appLog entries of their attempt, inside its window",
		[]string{"S2C-001"}, func(ctx context.Context, e *runEnv) {
			expectConsoleForwarded(e, "S2C-001", consoleScenario(ctx, e))
		})

	s.specFixture("the app's console messages an engine forwards come as attempt/appLog entries of one line each, with a valid source and level",
		[]string{"S2C-003"}, func(ctx context.Context, e *runEnv) {
			expectConsoleForwarded(e, "S2C-003", consoleScenario(ctx, e))
		})
}
