package conformance

import (
	"context"
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/e2e-conform/toolkit/protocol/wire"
)

// runWideCheck is one run-wide requirement: every message the server sent
// during the run, through raw and client connections alike, was checked as
// it arrived (env.go, raw.go); the spec reports what was found.
type runWideCheck struct {
	text string
	id   string
	// needs says what the check must have observed, for the not-verified
	// message when it observed nothing.
	needs string
	// nothingToCheck reports whether an engine that behaved as the spec
	// allows may leave the check nothing to judge (an engine that never
	// sends an e2e error): then zero evidence is "not verified, nothing to
	// check", which does not make the run incomplete.
	nothingToCheck func(m wire.Manifest) bool
}

func never(wire.Manifest) bool  { return false }
func always(wire.Manifest) bool { return true }

// noOperationMethod: an engine without operation methods may never answer
// with an engine error (aborted-at-send operations draw one from every
// other engine, §7.5).
func noOperationMethod(m wire.Manifest) bool {
	for _, meth := range m.Methods {
		if wire.IsOperationMethod(meth) {
			return false
		}
	}
	return true
}

// runWideProvokers give a run-wide check traffic the run-wide workload
// does not: S2C-004 judges the server's requests, which only the secret
// scenario draws (a selection of S2C-004 alone, or an engine no other spec
// of the selection led to ask, would otherwise leave its id and params
// clauses unexercised).
var runWideProvokers = map[string]func(context.Context, *runEnv){
	"S2C-004": provokeServerRequests,
}

// provokeServerRequests runs the secret scenario once on a raw connection,
// holding the attempt/resolveSecret it draws while a request for an
// unknown method goes out and is answered: frames are read and checked in
// order, so whatever the server wrote before that answer (a second request
// with the held id) is judged while the held one is pending. Only then is
// the secret answered. It runs even when the run has read such requests
// already: a connection that answers at once (the client, the run-wide
// workload) can answer the first before the reader judged the second, and
// make test's kill matrix once passed secret-id-reused that way under load.
// The probe's own answer is not judged here (S2C-007 is).
func provokeServerRequests(ctx context.Context, e *runEnv) {
	ss := e.openPipelined(ctx)
	req, trigger := provokeSecret(ctx, e, ss)
	if req == nil {
		return
	}
	probe := ss.id()
	ss.write(probe, probeMethod, "")
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	for !ss.answered(probe) {
		if _, err := ss.next(pctx); err != nil {
			break
		}
	}
	cancel()
	ss.respondSecret(req)
	for len(ss.held) > 0 {
		ss.respondSecret(ss.held[0])
	}
	ss.awaitTrigger(ctx, trigger)
}

var runWideChecks = []runWideCheck{
	{"every message the server wrote framed correctly, with Content-Length equal to its UTF-8 JSON content", "WIRE-001", "a frame read from the server on a raw connection", never},
	{"the server wrote no header field but Content-Length and Content-Type (charset utf-8)", "WIRE-002", "a header part read from the server on a raw connection", never},
	{"every response the server wrote carried \"jsonrpc\": \"2.0\", its request's id in the same JSON type, exactly one of result and error, an integer code and a string message, and none came inside a batch", "WIRE-008", "a response read from the server", never},
	{"no message the server sent carried null for an optional member", "WIRE-012", "a result or server message checked", never},
	{"every result, error and server message validated against its schema", "WIRE-013", "a result, error or server message validated", never},
	{"every -32000 error had data.type engine or e2e", "ERR-001", "a -32000 error (the run-wide workload draws them with operations aborted at send)", noOperationMethod},
	{"engine error data had a known code and a boolean retryable", "ERR-002", "an engine error (the run-wide workload draws CANCELLED with an operation aborted at send)", noOperationMethod},
	{"retryable: true appeared only with NODE_STALE or FRAME_NOT_FOUND", "ERR-003", "an engine error other than NODE_STALE and FRAME_NOT_FOUND (CANCELLED for an operation aborted at send)", noOperationMethod},
	{"e2e error data had a known category, a code, a boolean retryable and object details", "ERR-004", "an e2e error: the engine sent none, not even for an abort whose reason was one (that round trip is the SHOULD SIG-002)", always},
	{"stack, errno and cause had their types and cause nested at most 8 levels", "ERR-005", "an error object", never},
	{"every error message was non-empty", "ERR-006", "an error object", never},
	{"attempt/appLog, engine/log, attempt/navigation and attempt/environment messages had valid shapes", "S2C-003", "an attempt/appLog, engine/log, attempt/navigation or attempt/environment message: the engine sent none", always},
	{"the only request the server sent was a valid attempt/resolveSecret", "S2C-004", "a message read from the server", never},
	{"every attempt/* message, on every connection, arrived inside the attempt it names: after the suite wrote that startAttempt and before it read a successful endAttempt response", "S2C-001", "an attempt/* message (the engine sent none)", always},
	{"every connection the suite opened while another of its connections was open had its initialize answered within 10 s", "TRN-003", "initialize answered on a connection opened while another was open", never},
}

// runsShared reports whether this run does the run-wide step what: always,
// unless the shards of --parallel share the run (Config.ShardClaims), when
// the first shard to reach it claims it and the others leave it out.
//
// The run-wide workload and provocations draw traffic for the run-wide
// checks once per run; each shard judges its own traffic, and Merge fails
// a check that failed in any shard and passes one that passed in any (the
// shards together observed what it checks). So the traffic judged across
// the shards is the unsharded run's, the workload's once, as in one run;
// run in every shard it cost each shard ~2.5 s of a 10 s end on the web
// engine (issue 30). The shard that reaches the run-wide checks first,
// the one with the least work left, takes it.
func (e *runEnv) runsShared(what string) bool {
	if e.runWideShared == nil {
		return true
	}
	won, err := e.runWideShared.claim("run-wide step: " + what)
	if err != nil {
		panic(fmt.Errorf("sharing %s through %s: %w", what, e.runWideShared.dir, err))
	}
	return won
}

// Run-wide checks: they run last. Each first runs the run-wide workload
// (exercise.go, once per run), so that a selection that sent little still
// gives them the traffic they judge; a check that then observed nothing is
// not verified.
func globalSpecs(s *suite) {
	for _, c := range runWideChecks {
		c := c
		s.spec(c.text, []string{c.id}, func(ctx context.Context, e *runEnv) {
			e.emptyPool() // its frames and stderr lines are the run's too
			AddReportEntry("note", e.exercise(ctx))
			if provoke := runWideProvokers[c.id]; provoke != nil && e.runsShared("the run-wide provocation of "+c.id) {
				provoke(ctx, e)
			}
			e.adoptRunEvidence(c.id)
			v := e.Violations(c.id)
			Expect(v).To(BeEmpty(), "during the run: %s", strings.Join(v, "; "))
			if note := e.uncheckedNote(c.id); note != "" {
				Skip(notVerified + note)
			}
			if e.specObserved(c.id) == 0 {
				if c.nothingToCheck(e.Manifest) {
					Skip(nothingToCheck + "the run observed no " + c.needs)
				}
				Skip(notVerified + "the run observed no " + c.needs)
			}
		})
	}
}
