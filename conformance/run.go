package conformance

import (
	"errors"
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	"github.com/onsi/gomega"
)

// ErrUsage wraps configuration errors of a run (exit code 2).
var ErrUsage = errors.New("usage")

func (c Config) validate() error {
	if (len(c.Spawn) == 0) == (c.Connect == "") {
		return fmt.Errorf("%w: give exactly one of a spawn command and a connect address", ErrUsage)
	}
	if p := c.profile(); p != ProfileCore && p != ProfileFull {
		return fmt.Errorf("%w: unknown profile %q (core or full)", ErrUsage, p)
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
	var report types.Report
	gomega.RegisterFailHandler(Fail)
	s.register()
	ReportAfterSuite("e2e-conform", func(r Report) { report = r })
	sc, rc := GinkgoConfiguration()
	sc.LabelFilter = labelFilter(cfg)
	sc.Timeout = cfg.runTimeout()
	sc.RandomizeAllSpecs = false
	sc.OutputInterceptorMode = "none"
	sc.GracePeriod = 5 * time.Second
	rc.Succinct = true
	rc.NoColor = true
	rc.SilenceSkips = true
	ginkgoToStderr(func() { RunSpecs(&failRecorder{}, "e2e-conform", sc, rc) })
	var harness error
	for _, sr := range report.SpecReports {
		if sr.LeafNodeType == types.NodeTypeBeforeAll && sr.Failed() {
			harness = errors.New(sr.Failure.Message)
		}
	}
	res := summarize(cfg, s.env, specsFrom(report), harness)
	if s.discovery != nil && harness == nil {
		res.markUnreachable(s.discovery, s.env)
	}
	explain(&res)
	if err := s.env.writeTrace(); err != nil {
		res.Warnings = append(res.Warnings, "--trace: "+err.Error())
	}
	res.Duration = time.Since(start)
	if cfg.Out != nil {
		res.WriteSummary(cfg.Out)
	}
	return &res, nil
}

// markUnreachable records an engine that could not be initialized: LIFE-001
// fails with the reason (the suite could not get a manifest). When what the
// server wrote did not frame (§1.1), WIRE-001 fails too, and over spawn so
// does TRN-001 (§9.1: "stdout carries only the protocol [...] Any byte on
// stdout that does not frame as §1.1 is a fatal framing fault"): the
// violation was observed, it is not a gap of the run.
func (r *Result) markUnreachable(err error, env *Env) {
	r.fail("LIFE-001", "the engine could not be initialized: "+err.Error())
	if env != nil {
		if v := env.Violations("WIRE-001"); len(v) > 0 {
			r.fail("WIRE-001", "while the suite initialized the engine: "+v[0])
			if env.Transport == "spawn" {
				r.fail("TRN-001", "while the suite initialized the engine, stdout carried bytes that do not frame: "+v[0])
			}
		}
	}
	r.Verdict, r.ExitCode, r.Reason = "non-conformant", ExitNonConformant, "the engine could not be initialized"
}

// fail marks requirement id failed with reason.
func (r *Result) fail(id, reason string) {
	for i := range r.Requirements {
		if r.Requirements[i].ID == id {
			if r.Requirements[i].Status != Failed {
				r.Counts[r.Requirements[i].Status]--
				r.Counts[Failed]++
			}
			r.Requirements[i].Status = Failed
			r.Requirements[i].Reason = reason
		}
	}
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
}

// List returns the suite's specs without running them (a ginkgo dry run).
// Like Run, it can be called once per process.
func List(cfg Config) ([]Listing, error) {
	if cfg.Spawn == nil && cfg.Connect == "" {
		cfg.Connect = "127.0.0.1:0" // nothing is contacted in a dry run
	}
	s := &suite{cfg: cfg}
	var report types.Report
	gomega.RegisterFailHandler(Fail)
	s.register()
	ReportAfterSuite("e2e-conform", func(r Report) { report = r })
	sc, rc := GinkgoConfiguration()
	sc.DryRun = true
	sc.LabelFilter = labelFilter(cfg)
	sc.OutputInterceptorMode = "none"
	rc.Succinct, rc.NoColor, rc.SilenceSkips = true, true, true
	ginkgoToStderr(func() { RunSpecs(&failRecorder{}, "e2e-conform", sc, rc) })
	var out []Listing
	for _, sr := range report.SpecReports {
		if sr.LeafNodeType != types.NodeTypeIt || sr.State == types.SpecStateSkipped {
			continue
		}
		l := Listing{Text: sr.LeafNodeText, Labels: sr.Labels()}
		for _, lb := range sr.Labels() {
			if len(lb) > 4 && strings.Contains(lb, "-") {
				l.Requirements = append(l.Requirements, lb)
			}
		}
		out = append(out, l)
	}
	return out, nil
}
