package conformance

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/e2e-conform/toolkit/conformance/report"
	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/formatter"
	"github.com/onsi/ginkgo/v2/types"
	"github.com/onsi/gomega"
)

// errEngineUnreachable marks an engine that could not be started or
// connected to (a harness error, exit 4, not a verdict on the engine).
var errEngineUnreachable = errors.New("the engine could not be started or reached")

func (c Config) validate() error {
	if (len(c.Spawn) == 0) == (c.Connect == "") {
		return fmt.Errorf("%w: give exactly one of a spawn command and a connect address", report.ErrUsage)
	}
	if p := c.profile(); p != ProfileCore && p != ProfileFull {
		return fmt.Errorf("%w: unknown profile %q (core or full)", report.ErrUsage, p)
	}
	if err := report.ValidateExpectedFailures(c.ExpectedFailures); err != nil {
		return err
	}
	if err := c.Shard.Validate(); err != nil {
		return fmt.Errorf("%w: %v", report.ErrUsage, err)
	}
	if err := checkSelection(c); err != nil {
		return err
	}
	if f := labelFilter(c); f != "" {
		if _, err := types.ParseLabelFilter(f); err != nil {
			return fmt.Errorf("%w: the selection (Only %q, Skip %q) is not valid: %v", report.ErrUsage, c.Only, c.Skip, err)
		}
	}
	return nil
}

// failRecorder is the GinkgoTestingT of a run outside `go test`.
type failRecorder struct{ failed bool }

func (f *failRecorder) Fail() { f.failed = true }

// Run runs the suite once against the engine cfg names and returns the
// result. It drives ginkgo itself, so it can be called once per process
// (cmd/e2e-conform); inside `go test` use Register.
func Run(cfg Config) (*Result, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	start := time.Now()
	s := &suite{cfg: cfg}
	s.progress = newProgress(s)
	var rep types.Report
	gomega.RegisterFailHandler(Fail)
	s.register()
	ReportAfterSuite("e2e-conform", func(r Report) { rep = r })
	if s.progress != nil {
		ReportBeforeEach(s.progress.before)
		ReportAfterEach(s.progress.after)
	}
	sc, rc := GinkgoConfiguration()
	sc.LabelFilter = labelFilter(cfg)
	sc.Timeout = cfg.runTimeout()
	sc.RandomizeAllSpecs = false
	sc.OutputInterceptorMode = "none"
	sc.GracePeriod = 5 * time.Second
	rc.Succinct = true
	rc.NoColor = true
	rc.SilenceSkips = true
	ginkgoToStderr(s.redact, func() { runSpecsQuiet(!cfg.GinkgoStream, sc, rc) })
	s.progress.finish()
	res := s.result(rep, sc.LabelFilter)
	if s.env != nil {
		if err := s.env.writeTrace(); err != nil {
			res.Warnings = append(res.Warnings, "--trace: "+err.Error())
		}
	}
	res.Duration = time.Since(start)
	if cfg.Out != nil {
		// The console told each failure; the report holds the rest. With
		// no report, the summary is the only place for the details.
		res.WriteSummaryOf(cfg.Out, cfg.JSONReport, cfg.Progress != nil && cfg.JSONReport != "")
	}
	return &res, nil
}

// runSpecsQuiet runs ginkgo's specs, its reporter's stream (every spec,
// its report entries, its failure at length) discarded when quiet: the
// console (console.go) and the summary say what a person reads.
func runSpecsQuiet(quiet bool, sc types.SuiteConfig, rc types.ReporterConfig) {
	if quiet {
		stdout := formatter.ColorableStdOut
		defer func() { formatter.ColorableStdOut = stdout }()
		formatter.ColorableStdOut = io.Discard
	}
	RunSpecs(&failRecorder{}, "e2e-conform", sc, rc)
}

// result turns the ginkgo report of a run into the suite's result for s:
// its specs (the It nodes under s's container), interruption, discovery
// and the verdict. filter is the run's label filter.
func (s *suite) result(rep types.Report, filter string) Result {
	if s.env != nil {
		s.env.close() // again: a run cut by its timeout skips AfterAll
	}
	var harness error
	mine := rep
	mine.SpecReports = nil
	for _, sr := range rep.SpecReports {
		if len(sr.ContainerHierarchyTexts) > 0 && sr.ContainerHierarchyTexts[0] != s.name() {
			continue // another configuration's spec (RunTests)
		}
		mine.SpecReports = append(mine.SpecReports, sr)
		if sr.LeafNodeType == types.NodeTypeBeforeAll && sr.Failed() {
			harness = errors.New(sr.Failure.Message)
		}
	}
	specs := specsFrom(mine)
	why := interruption(rep, s.cfg)
	if why != "" {
		markInterrupted(mine, specs, filter, why)
		failRecordedViolations(specs, s.env)
	}
	res := summarize(s.cfg, s.env, specs, harness)
	res.Provenance = provenance(s.cfg, s.started)
	res.Selection = selectionOf(s.cfg, specs, s.heldBy)
	switch {
	case harness != nil:
	case errors.Is(s.discovery, errEngineUnreachable):
		// Not started (not found, not executable) or not reached
		// (--connect refused): nothing of the engine was seen, so it is
		// the run that failed, not the engine (exit 4).
		res.Verdict, res.ExitCode, res.Reason = "harness error", report.ExitHarness, s.discovery.Error()
	case s.discovery != nil && why != "":
		// The cut came while the suite was reaching the engine (a signal
		// during the init probe): the probe's failure is the cut's doing,
		// not a finding about the engine; the run is incomplete.
	case s.discovery != nil:
		markUnreachable(&res, s.discovery, s.env)
	}
	if why != "" && harness == nil {
		res.MarkIncomplete(why)
	}
	res.Explain()
	if s.env != nil {
		res.Redact(s.env.Redact)
	}
	return res
}

// interruption says why the run ended before its last spec (a signal, the
// run timeout), or "" when it ran to its end.
func interruption(rep types.Report, cfg Config) string {
	for _, r := range rep.SpecialSuiteFailureReasons {
		switch {
		case strings.Contains(r, "Interrupted"):
			return "the run was interrupted by a signal (SIGINT or SIGTERM) before its last spec"
		case strings.Contains(r, "Timeout"):
			return fmt.Sprintf("the run timeout (%s) elapsed before its last spec", cfg.runTimeout())
		}
	}
	return ""
}

// markInterrupted turns what an interruption did to the specs into what it
// means: the spec it cut off checked nothing to the end (not verified, not
// failed: the engine did nothing wrong), and the selected specs it kept
// from running are not verified, not "not selected". specs holds one
// result per It node of report, in order.
func markInterrupted(rep types.Report, specs []report.SpecResult, filter, why string) {
	selected := func([]string) bool { return true }
	if f, err := types.ParseLabelFilter(filter); err == nil && filter != "" {
		selected = f
	}
	i := 0
	for _, sr := range rep.SpecReports {
		if sr.LeafNodeType != types.NodeTypeIt {
			continue
		}
		sp := &specs[i]
		i++
		switch {
		case sr.State == types.SpecStateInterrupted,
			sr.State == types.SpecStateTimedout && strings.Contains(sr.Failure.Message, "suite timeout"):
			sp.Status, sp.Message = report.NotVerified, "interrupted: "+why
		case sp.Status == report.NotSelected && sp.Message == "" && selected(sr.Labels()):
			sp.Status, sp.Message = report.NotVerified, "not run: "+why
		}
	}
}

// failRecordedViolations fails the run-wide checks an interruption kept
// from running (or cut) whose requirement has violations recorded during
// the run: each is an observation of the engine, a fact whatever was left
// unrun (the check would have failed on it at the end, global_specs.go).
func failRecordedViolations(specs []report.SpecResult, env *runEnv) {
	if env == nil {
		return
	}
	for i := range specs {
		sp := &specs[i]
		if !isRunWide(sp.Text) || sp.Status != report.NotVerified || len(sp.Requirements) == 0 {
			continue
		}
		if v := env.Violations(sp.Requirements[0]); len(v) > 0 {
			sp.Status, sp.Message = report.Failed, "during the run, before it was cut: "+strings.Join(v, "; ")
		}
	}
}

// markUnreachable records in r an engine that could not be initialized: LIFE-001
// fails with the reason (the suite could not get a manifest). When what the
// server wrote did not frame (§1.1), WIRE-001 fails too, and over spawn so
// does TRN-001 (§9.1: "stdout carries only the protocol [...] Any byte on
// stdout that does not frame as §1.1 is a fatal framing fault"): the
// violation was observed, it is not a gap of the run.
//
// An initialize answered under another id (initIDError) breaks WIRE-008,
// which fails with the exchange; LIFE-001 is then not verified, not
// failed: the answer the engine wrote may well hold {protocolVersion: 1,
// manifest}, but §1.4 has a client ignore a response "whose id matches no
// pending request", so the suite has no answer to initialize to judge by
// LIFE-001's sentence, and the run/worker comparison never ran.
func markUnreachable(r *Result, err error, env *runEnv) {
	var ide *initIDError
	if errors.As(err, &ide) {
		r.MarkFailed("WIRE-008", ide.Error())
		r.MarkNotVerified("LIFE-001", "initialize got no answer with its own id, so its result could not be judged (WIRE-008 is the requirement broken; §1.4 has a client ignore a response whose id matches no pending request): "+ide.Error())
	} else {
		r.MarkFailed("LIFE-001", "the engine could not be initialized: "+err.Error())
	}
	if env != nil {
		if v := env.Violations("WIRE-001"); len(v) > 0 {
			r.MarkFailed("WIRE-001", "while the suite initialized the engine: "+v[0])
			if env.Transport == "spawn" {
				r.MarkFailed("TRN-001", "while the suite initialized the engine, stdout carried bytes that do not frame: "+v[0])
			}
		}
	}
	r.Verdict, r.ExitCode, r.Reason = "non-conformant", report.ExitNonConformant, "the engine could not be initialized"
}

// initIDError is discovery's initialize (id 0) answered under another
// id: a string "0", or an id the suite never wrote.
type initIDError struct {
	got     string // the id the answer carried, as JSON
	content string // the answer, clipped and redacted
}

func (e *initIDError) Error() string {
	return fmt.Sprintf("initialize, sent with id 0 (an integer) and valid params: want its answer with id 0 (§1.4: \"A receiver echoes an id unchanged, with the same JSON type and value\"), got one with id %s: %s", e.got, e.content)
}

// Register adds the suite for one engine configuration to the ginkgo tree
// of the calling test package, for vendors running it inside their own
// `go test`: call it once per configuration from a package-level var or
// init, then ginkgo's RunSpecs from a Test function. Each configuration's
// specs fail the test as usual; verdict reporting (exit codes, JSON) is
// e2e-conform's.
func Register(cfg Config) bool {
	if err := cfg.validate(); err != nil {
		panic(err)
	}
	s := &suite{cfg: cfg}
	s.register()
	return true
}

// Listing is one spec of the suite and the requirements it checks.
type Listing struct {
	Text         string   `json:"text"`
	Requirements []string `json:"requirements"`
	Labels       []string `json:"labels"`
	// Fixture marks a spec that stages fixture screens: only the full
	// profile runs it.
	Fixture bool `json:"fixture,omitempty"`
}

// List returns the suite's specs without running them (a ginkgo dry run).
// Like Run, it can be called once per process.
func List(cfg Config) ([]Listing, error) {
	if err := checkSelection(cfg); err != nil {
		return nil, err
	}
	if cfg.Spawn == nil && cfg.Connect == "" {
		cfg.Connect = "127.0.0.1:0" // nothing is contacted in a dry run
	}
	s := &suite{cfg: cfg}
	var rep types.Report
	gomega.RegisterFailHandler(Fail)
	s.register()
	ReportAfterSuite("e2e-conform", func(r Report) { rep = r })
	sc, rc := GinkgoConfiguration()
	sc.DryRun = true
	// Every profile lists the fixture specs too (labelled "fixture"): a
	// core listing says what the full profile adds.
	full := cfg
	full.Profile = ProfileFull
	sc.LabelFilter = labelFilter(full)
	sc.OutputInterceptorMode = "none"
	rc.Succinct, rc.NoColor, rc.SilenceSkips = true, true, true
	// ginkgo's dots of a dry run say nothing the list does not.
	ginkgoToStderr(s.redact, func() { runSpecsQuiet(true, sc, rc) })
	var out []Listing
	for _, sr := range rep.SpecReports {
		if sr.LeafNodeType != types.NodeTypeIt || sr.State == types.SpecStateSkipped {
			continue
		}
		l := Listing{Text: sr.LeafNodeText, Labels: sr.Labels(), Fixture: slices.Contains(sr.Labels(), "fixture")}
		for _, lb := range sr.Labels() {
			if len(lb) > 4 && strings.Contains(lb, "-") {
				l.Requirements = append(l.Requirements, lb)
			}
		}
		out = append(out, l)
	}
	return out, nil
}
