package conformance

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/e2e-conform/toolkit/conformance/fixture"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// errorSpecs registers the ERR specs (catalog ERR). ERR-001…006 are checked
// on every error the run provokes (env.go) and reported by the run-wide
// specs (global_specs.go).
func errorSpecs(s *suite) {
	// ERR-007 is run-wide as well: every error object and server message
	// of the run is searched for the canaries registered with e.Secret as
	// it arrives (env.go records ERR-007 violations). This spec provokes
	// the three canary paths and then reads those violations and every
	// stderr line of the run (spawned servers only; over a socket the
	// server's stderr is not visible):
	//
	//   - an E2E_SECRET_* value in the env of lifecycle/prepare and
	//     lifecycle/finish (on a run connection, when listed) and of
	//     lifecycle/init, on a first connection whose attempt does nothing
	//     else, so that this path is judged even when the engine cannot
	//     stage the form fixture;
	//   - on a second connection (the same env), the form fixture's password
	//     field filled with a sensitive canary, and with the value
	//     "secret:<name>": the saboteur (and any engine adopting its
	//     convention) resolves it with attempt/resolveSecret, which the
	//     suite's client answers with a canary (env.go); for another engine
	//     it is one more sensitive fill value. The catalog gives no portable
	//     way to make an engine ask for a secret, so an engine that never
	//     asks leaves that path unexercised, noted, not failed;
	//   - errors that could echo a sensitive value: a sensitive fill of the
	//     checkbox (not editable) and of a ref that names no node.
	//
	// Both connections are closed before the check, so that a spawned
	// server's stderr has been read to its end. Without the fill action the
	// fill paths cannot be provoked and the spec ends not verified after the
	// env path was judged.
	s.spec("no error, engine/log line, attempt/* notification or stderr line contains the suite's canaries: E2E_SECRET_* env values, values answered to attempt/resolveSecret, sensitive fill values",
		[]string{"ERR-007"}, func(ctx context.Context, e *runEnv) {
			envCanary := fxCanary("e2e-conform-env-canary-")
			e.Secret(envCanary)
			for k, v := range e.cfg.Env {
				if strings.HasPrefix(k, "E2E_SECRET_") {
					e.Secret(v)
				}
			}
			env := map[string]string{"E2E_SECRET_CONFORMANCE_CANARY": envCanary}
			check := func(after string) {
				var found []string
				for _, v := range e.Violations("ERR-007") {
					found = append(found, "on the wire: "+v)
				}
				found = append(found, fxLeaks("stderr line", e.StderrLines(), e.fxSecrets())...)
				Expect(found).To(BeEmpty(), "%s: want no canary in any error, engine/log line, attempt/* notification or stderr line of the run, got %d: %s",
					after, len(found), strings.Join(firstFew(found, 8), "; "))
			}
			// The env canary: run connection, then a worker connection.
			if e.Manifest.Lists(wire.MethodPrepare) || e.Manifest.Lists(wire.MethodFinish) {
				e.fxRunWithEnv(ctx, env)
			}
			c1, _ := e.open(ctx)
			e.fxAttemptWithEnv(ctx, c1, env)
			e.fxEnd(ctx, c1)
			check("after lifecycle calls whose env held an E2E_SECRET_* canary")

			// The fill canaries, with the same env.
			c, _ := e.open(ctx)
			op := e.fxAttemptWithEnv(ctx, c, env)
			sc := fixture.Form()
			snap := e.fxStage(ctx, c, op, sc, "")
			if !e.fxCanPerform(wire.ActionFill) {
				e.fxEnd(ctx, c)
				check("after the form fixture was staged")
				Skip(notVerified + "the engine does not declare the fill action: the sensitive-fill and attempt/resolveSecret canaries could not be provoked (the env canary was checked)")
			}
			pw := fxNode(snap, sc, fixture.FormPassword())
			fill := func(ref wire.NodeRef, value string) error {
				e.Secret(value)
				return c.Perform(ctx, op, ref, wire.LocatorAction{Kind: wire.ActionFill, Value: value, Sensitive: true})
			}
			err := fill(pw.Ref, fxCanary("e2e-conform-fill-canary-"))
			Expect(err).NotTo(HaveOccurred(), "engine/perform fill (sensitive) of the password field: want null, got %s", fxDescribeError(err))
			askedBefore := e.Sent("attempt/resolveSecret")
			secretFill := "secret:" + fxCanary("E2E_CONFORMANCE_SECRET_")
			err = fill(pw.Ref, secretFill)
			Expect(err).NotTo(HaveOccurred(), "engine/perform fill (sensitive) of the password field with %q: want null, got %s", "secret:<name>", fxDescribeError(err))
			asked := e.Sent("attempt/resolveSecret") && !askedBefore
			_ = fill(fxNode(snap, sc, fixture.FormSubscribe()).Ref, fxCanary("e2e-conform-fill-canary-"))
			_ = fill(wire.NodeRef{ID: "e2e-conform-no-such-node", Revision: ""}, fxCanary("e2e-conform-fill-canary-"))
			e.fxEnd(ctx, c)
			check("after sensitive fills of canaries (and the errors they provoked)")
			if e.Transport != "spawn" {
				noteEntry("the suite reaches the server over a socket: its stderr is not visible, only errors and messages were searched")
			}
			if !asked {
				noteEntry("the server sent no attempt/resolveSecret for the fill of %q: the path of a value answered to attempt/resolveSecret was not exercised by this spec", "secret:<name>")
			}
		})

	// ERR-007's catalog row is marked Fixture for its sensitive-fill
	// canary; the env and attempt/resolveSecret canaries need no fixture
	// screen, so this spec checks them in the core profile too (§6.1: "the
	// engine MUST keep tokens, env values and secrets out of" engine/log;
	// §6.6: the value "MUST NOT appear in any log line, notification or
	// error the server writes, nor on its stderr"). The canaries carry
	// non-ASCII, non-BMP and HTML-special characters, so that a leak
	// through a JSON encoder (which escapes them) is still found; leaks.go
	// says which encoded forms count as "contains" (raw, JSON-escaped,
	// base64, percent-encoded) and why others do not.
	//
	//   - an E2E_SECRET_* canary in the env of lifecycle/prepare and
	//     lifecycle/finish (a run connection) and of lifecycle/init;
	//   - the secret scenario of the S2C specs (the form screen's password
	//     filled with the saboteur's secret convention, which needs no
	//     staging), its attempt/resolveSecret answered with a canary, and
	//     the requests after it run to their end (an error quoting the
	//     value is one of the paths);
	//
	// then every error, engine/log line and attempt/* notification of the
	// run, and every stderr line of a spawned server, after the
	// connections closed.
	s.specNoFixture("no error, engine/log line, attempt/* notification or stderr line contains, raw or encoded, an E2E_SECRET_* env canary or a value answered to attempt/resolveSecret, without a fixture screen",
		[]string{"ERR-007"}, func(ctx context.Context, e *runEnv) {
			envCanary := fxCanary("e2e-conform-env-canary-") + canaryTail
			e.Secret(envCanary)
			env := map[string]string{"E2E_SECRET_CONFORMANCE_CORE_CANARY": envCanary}
			if e.Manifest.Lists(wire.MethodPrepare) || e.Manifest.Lists(wire.MethodFinish) {
				e.fxRunWithEnv(ctx, env)
				e.observed("ERR-007", "env canary in lifecycle/prepare or lifecycle/finish")
			}
			if e.Manifest.Lists(wire.MethodInit) {
				c, _ := e.open(ctx)
				e.fxAttemptWithEnv(ctx, c, env)
				e.fxEnd(ctx, c)
				e.observed("ERR-007", "env canary in lifecycle/init")
			}
			secretCanary := fxCanary("e2e-conform-resolved-canary-") + canaryTail
			e.Secret(secretCanary)
			ss := e.openPipelined(ctx)
			req, trigger := provokeSecret(ctx, e, ss)
			if req != nil {
				ss.hold = false
				for i, h := range ss.held {
					if h == req {
						ss.held = append(ss.held[:i], ss.held[i+1:]...)
						break
					}
				}
				b, _ := json.Marshal(secretCanary)
				ss.respond(req, `{"value":`+string(b)+`}`, "")
				e.observed("ERR-007", "canary answered to attempt/resolveSecret")
				ss.awaitTrigger(ctx, trigger)
				ss.endAttempt(ctx)
				ss.probe(ctx, "after the secret scenario")
			}
			Expect(ss.r.Close(5*time.Second)).To(Succeed(), "closing the secret scenario's connection")
			var found []string
			for _, v := range e.Violations("ERR-007") {
				found = append(found, "on the wire: "+v)
			}
			found = append(found, fxLeaks("stderr line", e.StderrLines(), e.fxSecrets())...)
			Expect(found).To(BeEmpty(), "after lifecycle calls whose env held an E2E_SECRET_* canary and an attempt/resolveSecret answered with a canary: want no canary, raw or encoded, in any error, engine/log line, attempt/* notification or stderr line of the run, got %d: %s",
				len(found), strings.Join(firstFew(found, 8), "; "))
			if e.Transport != "spawn" {
				noteEntry("the suite reaches the server over a socket: its stderr is not visible, only errors and messages were searched")
			}
			if req == nil {
				noteEntry("the server sent no attempt/resolveSecret in the suite's secret scenario: the path of a value answered to attempt/resolveSecret was not exercised")
			}
			e.requireEvidence("ERR-007", "no canary could be given to the engine: it lists neither lifecycle/prepare, lifecycle/finish nor lifecycle/init, and sent no attempt/resolveSecret")
		})
}

// canaryTail ends the no-fixture ERR-007 canaries: ü (non-ASCII), 😀
// (non-BMP), the HTML-special < & >, a quote, and characters that
// percent-encoding escapes, so that every escaped form differs from the
// raw one.
const canaryTail = "-\u00fc\U0001F600<&>\"%/+="
