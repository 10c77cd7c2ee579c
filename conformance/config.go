// Package conformance is the conformance suite of the e2e engine protocol:
// a ginkgo v2 suite that drives any engine server, started as a child
// process (spawn) or reached over TCP (socket), through the requirement
// catalog of spec §11 (package catalog). Every spec carries the IDs of the
// requirements it checks as ginkgo labels.
//
// Verdicts are per requirement: passed, failed, not applicable (the
// manifest does not declare what it needs, or it is checked by the
// toolkit's own tests), or not verified (a fixture screen the engine could
// not stage, or a check that could not run). Not applicable and not
// verified never count as passed, and a run that checks nothing is never
// conformant (D58).
//
// Run is what cmd/e2e-conform calls; Register lets a vendor run the same
// suite inside its own `go test` (see RunSpecs).
package conformance

import (
	"io"
	"time"

	"github.com/e2e-conform/toolkit/conformance/report"
)

// Profiles.
const (
	// ProfileCore checks the requirements that need no fixture screen.
	ProfileCore = report.ProfileCore
	// ProfileFull checks every requirement; a MUST left not verified makes
	// the run incomplete.
	ProfileFull = report.ProfileFull
)

// Config configures one run against one engine server.
type Config struct {
	// Spawn is the server's command and arguments (the spawn transport).
	Spawn []string
	// Connect is host:port of a listening server (the socket transport).
	Connect string
	// Env is the environment given to the spawned server and sent in
	// lifecycle params (nothing of the suite's own environment leaks in).
	Env map[string]string
	// AppURL is the base URL of an app for profiles that need one; the
	// fixture screens are served by the suite itself when it is empty.
	AppURL string
	// Profile is ProfileCore (default) or ProfileFull.
	Profile string
	// Only and Skip select specs by requirement ID (WIRE-003), area
	// (WIRE) or label; an empty Only selects everything.
	Only, Skip []string
	// SpecTimeout bounds each spec (default 30 s); RunTimeout the run
	// (default 10 min).
	SpecTimeout, RunTimeout time.Duration
	// Verbose, when set, receives every frame exchanged, secrets redacted.
	Verbose io.Writer
	// Trace, when set, receives every frame of every connection as JSON
	// Lines (trace.go: time in µs since the run started, connection id and
	// role, direction, method and id, the frame), secrets redacted, written
	// when the run ends; at most 256 MiB, then a final marker line.
	Trace io.Writer
	// Out receives the human summary (nil: discarded).
	Out io.Writer
	// Progress, when set, receives the run's console as it goes
	// (console.go): a line saying how many requirements the run checks,
	// then its progress counted in requirements (a requirement is done
	// when every spec of the run that checks it has ended), and each
	// failed requirement once, when its first failing spec ends, on one
	// line with its reason and where to read more. Secrets are redacted.
	// Nil: nothing (the summary still goes to Out).
	Progress io.Writer
	// ProgressLive makes Progress a terminal's: one line redrawn in place
	// ("[ 37/98] SIG    12.4 s  1 failed  <the spec running>", ANSI
	// erase-line sequences), failures printed above it. Otherwise Progress
	// gets one plain line per area as the run leaves it, and no escape
	// sequence.
	ProgressLive bool
	// JSONReport is the path the JSON report will be written to (the
	// CLI's --json), named in the console's pointers to
	// `e2e-conform --explain ID FILE`; "" when none is written.
	JSONReport string
	// GinkgoStream lets ginkgo's own per-spec stream (every spec, its
	// report entries, its failure at length) reach stderr, secrets
	// redacted (e2e-conform --verbose). Without it Run silences ginkgo.
	GinkgoStream bool
	// Name labels the engine configuration in reports (default: the
	// command or the address).
	Name string
	// FailFast stops the run after the first spec that fails a MUST
	// requirement ExpectedFailures does not list: the specs after it report not verified ("not run"), so
	// the verdict is non-conformant and says only that one failure for
	// certain. For quick red/green loops and mutation runs.
	FailFast bool
	// Strict makes RunTests fail the vendor's test for SHOULD misses and
	// incomplete runs too (by default they are logged).
	Strict bool
	// Shard runs one deterministic part of the specs (the run-wide checks
	// in every part); the zero Shard runs them all. Merge combines the
	// parts' reports into one verdict.
	Shard report.Shard
	// ShardClaims, with Shard, makes the shards share the specs through
	// this directory instead of the fixed rule: a shard runs a spec when
	// it claims it first (creating the spec's file there), so the shards
	// end together whatever each spec costs. `e2e-conform --parallel`
	// gives its shards one (they run at once, on one machine); shards on
	// separate machines use the fixed rule. Merge goes by the specs each
	// report says it held.
	ShardClaims string
	// ExpectedFailures is the run's baseline: requirement ID → why its
	// failure is expected (--expected-failures FILE, report/baseline.go). A listed
	// requirement that fails is reported ExpectedFailure and does not make
	// the run non-conformant; one that passes makes the run exit 1 ("stale
	// baseline entry"); one not checked (not selected, not applicable, not
	// verified) is reported as it is. Every ID must be in the catalog and
	// every reason given.
	ExpectedFailures map[string]string
}

func (c Config) specTimeout() time.Duration {
	if c.SpecTimeout > 0 {
		return c.SpecTimeout
	}
	return 30 * time.Second
}

func (c Config) runTimeout() time.Duration {
	if c.RunTimeout > 0 {
		return c.RunTimeout
	}
	return 10 * time.Minute
}

func (c Config) profile() string {
	if c.Profile == "" {
		return ProfileCore
	}
	return c.Profile
}
