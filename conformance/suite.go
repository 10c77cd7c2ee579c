package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"

	"github.com/e2e-conform/toolkit/conformance/catalog"
	"github.com/e2e-conform/toolkit/conformance/report"
)

// Prefixes of skip messages: they become the requirement's status.
const (
	notApplicable = "not applicable: "
	notVerified   = "not verified: "
	// nothingToCheck is not verified because the engine gave the spec
	// nothing to judge although it behaved as the spec allows (an engine
	// that never sends an e2e error leaves ERR-004 nothing to check): the
	// requirement is reported not verified, never passed, but does not make
	// the run incomplete.
	nothingToCheck = "not verified, nothing to check: "
)

// suite is one registered engine configuration.
type suite struct {
	cfg Config
	// started is when the run began (its BeforeAll).
	started time.Time
	env     *runEnv
	// discovery is why the engine could not be reached, if it could not.
	discovery error
	// selected is the configuration's selection (profile, Only, Skip) as
	// a label filter; nil selects everything. Run also hands it to ginkgo;
	// RunTests, with several configurations in one tree, relies on it.
	selected func(labels []string) bool
	// live is env once BeforeAll made it, for readers on other goroutines
	// (the redacting copy of ginkgo's output).
	live atomic.Pointer[runEnv]
	// stoppedBy is the text of the spec that failed a MUST requirement
	// first, when Config.FailFast stops the run there.
	stoppedBy string
	// progress is the run's console (Config.Progress, console.go); nil
	// when there is none.
	progress *progress
	// claims shares the specs among --parallel's shards (shardclaims.go);
	// nil when the shards follow the fixed rule. Made once (claimsOnce).
	claims     *shardClaims
	claimsOnce sync.Once
	// registrations are the specs the areas declared, in their order,
	// registered with ginkgo once all are known (runOrder).
	registrations []registration
}

// spec registers one spec checking the requirements ids. The body runs only
// when at least one of them applies to the engine; it is skipped as not
// applicable otherwise, with the reason.
func (s *suite) spec(text string, ids []string, body func(ctx context.Context, e *runEnv)) {
	s.register1(text, ids, fixtureOfCatalog, body)
}

// specFixture registers a spec that stages a fixture screen to check a
// clause of requirements the catalog does not mark Fixture (the rule binds
// every engine; the suite can watch this clause only on a fixture screen,
// e.g. WIRE-010's "no effect" of an engine/perform). It is labelled
// fixture, so the core profile does not run it, as any fixture spec.
func (s *suite) specFixture(text string, ids []string, body func(ctx context.Context, e *runEnv)) {
	s.register1(text, ids, fixtureAlways, body)
}

// specNoFixture registers a spec whose body stages no fixture screen,
// although a requirement it checks is marked Fixture in the catalog (the
// row's fixture serves one clause; the rule binds more, e.g. ERR-007's
// env and attempt/resolveSecret canaries, SIG-001 for other methods). It
// is not labelled fixture, so the core profile runs it.
func (s *suite) specNoFixture(text string, ids []string, body func(ctx context.Context, e *runEnv)) {
	s.register1(text, ids, fixtureNever, body)
}

// fixtureLabel says whether a spec carries the fixture label.
type fixtureLabel int

const (
	fixtureOfCatalog fixtureLabel = iota // when a requirement it checks is marked Fixture
	fixtureNever                         // never (specNoFixture)
	fixtureAlways                        // always (specFixture)
)

// register1 registers one spec, labelled fixture as mode says.
func (s *suite) register1(text string, ids []string, mode fixtureLabel, body func(ctx context.Context, e *runEnv)) {
	labels := Label(ids...)
	areas := map[string]bool{}
	fixture := false
	for _, id := range ids {
		r, ok := catalog.Lookup(id)
		if !ok {
			panic("conformance: unknown requirement " + id)
		}
		areas[r.Area] = true
		fixture = fixture || r.Fixture
	}
	switch mode {
	case fixtureNever:
		fixture = false
	case fixtureAlways:
		fixture = true
	}
	for a := range areas {
		labels = append(labels, a)
	}
	if fixture {
		labels = append(labels, "fixture")
	}
	s.progress.plan(text, ids, labels)
	s.registrations = append(s.registrations, registration{text: text, ids: ids, do: func() { s.it(text, ids, labels, fixture, body) }})
}

// it registers the spec with ginkgo (register1 says what it is).
func (s *suite) it(text string, ids []string, labels Labels, fixture bool, body func(ctx context.Context, e *runEnv)) {
	It(text, labels, SpecTimeout(s.cfg.specTimeout()), func(ctx SpecContext) {
		if s.discovery != nil {
			Skip(notVerified + "the engine could not be reached: " + s.discovery.Error())
		}
		if fixture && s.cfg.profile() == ProfileCore {
			Skip("not selected: the core profile checks no fixture requirement")
		}
		if !s.selects(labels) {
			Skip("not selected: outside the configuration's Only and Skip")
		}
		if run, why := s.takeSpec(text); !run {
			Skip(why)
		}
		if s.cfg.FailFast && s.stoppedBy == "" {
			// A run-wide MUST already broken fails at the end whatever
			// runs in between: stop now, keep the run-wide checks.
			for _, c := range runWideChecks {
				if v := s.env.Violations(c.id); len(v) > 0 && report.ChecksMust(s.unexpected([]string{c.id})) {
					s.stoppedBy = fmt.Sprintf("the run-wide check of %s, already violated: %s", c.id, clip(v[0]))
					break
				}
			}
		}
		if s.stoppedBy != "" && !isRunWide(text) {
			Skip(notVerified + fmt.Sprintf("not run: the run stopped at its first MUST failure (fail-fast), %s", s.stoppedBy))
		}
		s.env.prepareSpec(ids)
		DeferCleanup(func() {
			if ev := s.env.endSpec(); len(ev) > 0 {
				data, _ := json.Marshal(ev)
				AddReportEntry("evidence", string(data))
			}
			rep := CurrentSpecReport()
			// A run-wide check judges violations recorded frame by frame
			// on every connection: a client stream broken at a malformed
			// envelope (the workload's) leaves them standing; a framing
			// break may not (issue 25: --only ERR-005 was not verified
			// where the full run failed it).
			if b := s.env.brokenStream(); b != "" && rep.Failed() && !checksBreak(ids, b) && !(isRunWide(text) && envelopeBreak(b)) {
				AddReportEntry("stream broken", b)
			}
			if cut := s.env.guard.takeCut(); rep.Failed() && cut.excuses(ids, rep.FailureMessage()) {
				AddReportEntry("connection unserved", cut.why)
			}
			if rep.Failed() || unverifiedSkip(rep.Failure.Message) {
				// The spec's own exchange, failing or not verified.
				if x := s.env.LastFrames(); x != "" {
					AddReportEntry("last frames", x)
					if t := s.env.LastFrameTimes(); len(t) > 0 {
						data, _ := json.Marshal(t)
						AddReportEntry("frame times", string(data))
					}
				}
			}
			if rep.Failed() && s.cfg.FailFast && report.ChecksMust(s.unexpected(ids)) && s.stoppedBy == "" {
				s.stoppedBy = fmt.Sprintf("the spec %q", text)
			}
		})
		s.provoke(ctx, ids)
		s.gate(ids)
		s.env.beginSpec(ids)
		body(ctx, s.env)
	})
}

// redact removes every secret the run registered so far from s.
func (s *suite) redact(text string) string {
	if e := s.live.Load(); e != nil {
		return e.Redact(text)
	}
	return text
}

// selects reports whether the configuration selects a spec of labels.
func (s *suite) selects(labels []string) bool {
	return s.selected == nil || s.selected(labels)
}

// isRunWide reports whether the spec of text is a run-wide check.
func isRunWide(text string) bool {
	for _, c := range runWideChecks {
		if c.text == text {
			return true
		}
	}
	return false
}

// provoke gives the engine, once per run, the chance to send what the
// applicability of ids depends on ("when it sends attempt/resolveSecret"):
// a selection holding only such requirements (`--only S2C-005`) would
// otherwise find them not applicable without ever having asked. It runs the
// suite's secret scenario (provokeSecretRequest), the one S2C-005..008 run
// themselves, which reads answers without demanding results: a response
// shape that breaks WIRE-008 does not stop it before the engine could ask
// (issue 25: --only S2C-005 found response-neither not applicable).
func (s *suite) provoke(ctx context.Context, ids []string) {
	for _, id := range ids {
		r, _ := catalog.Lookup(id)
		if !strings.HasPrefix(r.AppliesWhen, "when it sends ") {
			continue
		}
		s.env.mu.Lock()
		done := s.env.provoked
		s.env.provoked = true
		s.env.mu.Unlock()
		if !done {
			provokeSecretRequest(ctx, s.env)
		}
		return
	}
}

// gate skips the running spec unless one of ids applies.
func (s *suite) gate(ids []string) {
	var why []string
	for _, id := range ids {
		r, _ := catalog.Lookup(id)
		ok, reason := r.Applies(s.facts())
		if ok {
			return
		}
		why = append(why, id+": "+reason)
	}
	Skip(notApplicable + strings.Join(why, "; "))
}

func (s *suite) facts() catalog.Facts {
	return catalog.Facts{Manifest: s.env.Manifest, Transport: s.env.Transport, Sent: s.env.Sent, TapModifiersPresent: s.env.tapModifiersPresent}
}

// applies reports whether requirement id applies (for specs that check
// several requirements part by part).
func (s *suite) applies(id string) bool {
	r, _ := catalog.Lookup(id)
	ok, _ := r.Applies(s.facts())
	return ok
}

// register builds the ginkgo tree for one engine configuration: discovery
// first, then every area in order, the run-wide checks last.
func (s *suite) register() {
	if f := labelFilter(s.cfg); f != "" {
		s.selected, _ = types.ParseLabelFilter(f) // validate checked it
	}
	Describe(s.name(), Ordered, ContinueOnFailure, func() {
		BeforeAll(func(ctx SpecContext) {
			s.started = time.Now()
			env, err := newEnv(s.cfg)
			if err != nil {
				Fail("harness: " + err.Error())
			}
			s.env = env
			if c := s.shardClaims(); c != nil {
				env.runWideShared = c
			}
			s.live.Store(env)
			dctx, cancel := context.WithTimeout(ctx, s.cfg.specTimeout())
			defer cancel()
			m, err := env.discover(dctx)
			if err != nil {
				s.discovery = err
				if ctx.Err() != nil {
					// Discovery used up the first spec's budget (which
					// covers this setup): say what it was left waiting for.
					Fail("discovering the engine before the spec: " + err.Error())
				}
				return
			}
			env.Manifest = m
			if err := env.probeInit(dctx); err != nil {
				if ctx.Err() != nil {
					// The first spec's budget (which covers this setup)
					// ran out in the probe: the failure recorded after
					// the timeout says what the engine left unanswered.
					Fail("probing lifecycle/init before the spec: " + err.Error())
				}
			}
		}, NodeTimeout(s.cfg.specTimeout()+10*time.Second))
		AfterAll(func() {
			if s.env != nil {
				s.env.close()
			}
		})
		for _, area := range areas {
			area.register(s)
		}
		for _, r := range s.runOrder() {
			r.do()
		}
	})
}

func (s *suite) name() string {
	if s.cfg.Name != "" {
		return s.cfg.Name
	}
	if len(s.cfg.Spawn) > 0 {
		return "engine " + strings.Join(maskCommand(s.cfg.Spawn), " ")
	}
	return "engine at " + s.cfg.Connect
}

// area is one spec file's registration.
type area struct {
	name     string
	register func(s *suite)
}

// areas lists the spec areas in run order; each *_specs.go file adds its
// own. The run-wide checks (global_specs.go) come last.
var areas = []area{
	{"handshake and lifecycle", lifecycleSpecs},
	{"wire and framing", wireSpecs},
	{"manifest", manifestSpecs},
	{"observe", observeSpecs},
	{"locate", locateSpecs},
	{"perform", performSpecs},
	{"performAt", pointerSpecs},
	{"keyboard", keyboardSpecs},
	{"state", stateSpecs},
	{"artifacts", artifactSpecs},
	{"session", sessionSpecs},
	{"signals and abort", signalSpecs},
	{"transports", transportSpecs},
	{"errors", errorSpecs},
	{"server-to-client messages", messageSpecs},
	{"run-wide checks", globalSpecs},
}

// labelFilter builds the ginkgo label filter of a configuration.
func labelFilter(cfg Config) string {
	var parts []string
	if cfg.profile() == ProfileCore {
		parts = append(parts, "!fixture")
	}
	if len(cfg.Only) > 0 {
		parts = append(parts, "("+strings.Join(quoteLabels(cfg.Only), " || ")+")")
	}
	if len(cfg.Skip) > 0 {
		parts = append(parts, "!("+strings.Join(quoteLabels(cfg.Skip), " || ")+")")
	}
	return strings.Join(parts, " && ")
}

func quoteLabels(ls []string) []string {
	out := selectionLabels(ls)
	sort.Strings(out)
	return out
}

func failf(format string, args ...any) { Fail(fmt.Sprintf(format, args...), 1) }

// notInShard is the skip message of a spec another shard holds.
const notInShard = "not selected: held by shard "
