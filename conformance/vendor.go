package conformance

import (
	"bytes"
	"fmt"
	"os"
	"sync/atomic"
	"testing"

	"github.com/e2e-conform/toolkit/conformance/report"
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/formatter"
	"github.com/onsi/ginkgo/v2/types"
	"github.com/onsi/gomega"
)

// RunTests runs the suite inside a vendor's own `go test`, once for each
// engine configuration (a spawn command, a listening address, several
// builds of one engine…), and returns one Result per configuration, in
// order (the same verdict, counts and writers as e2e-conform's):
//
//	func TestConformance(t *testing.T) {
//		results := conformance.RunTests(t,
//			conformance.Config{Name: "stdio", Spawn: []string{"./bin/my-engine"}},
//			conformance.Config{Name: "tcp", Connect: "127.0.0.1:7000", Only: []string{"WIRE", "LIFE"}})
//		_ = results[0].WriteJUnit("junit.xml")
//	}
//
// Each configuration's Profile, Only and Skip select its specs. The test
// fails for every MUST requirement that failed (but those its
// ExpectedFailures lists: they are logged), for every ExpectedFailures
// entry that passed (a stale baseline entry), and when an engine cannot
// be started or reached; a SHOULD miss and an incomplete run are logged,
// and fail the test only with Config.Strict. The test's output names the
// failing requirements only; ginkgo's per-spec stream is printed with
// `go test -v` (without colours unless stdout is a terminal).
//
// Like every ginkgo suite, it runs once per test binary: a second call
// fails its test with an error that says so (pass every configuration to
// one call) and returns nil. (It is the equivalent of ginkgo's RunSpecs,
// named apart from it.)
func RunTests(t *testing.T, cfgs ...Config) []*Result {
	t.Helper()
	if !runTestsOnce.CompareAndSwap(false, true) {
		t.Fatalf("%v", errRunTestsTwice)
		return nil
	}
	gomega.RegisterFailHandler(ginkgo.Fail)
	names := map[string]bool{}
	var suites []*suite
	for _, cfg := range cfgs {
		if err := cfg.validate(); err != nil {
			t.Fatalf("conformance: %v", err)
		}
		s := &suite{cfg: cfg}
		if names[s.name()] {
			t.Fatalf("conformance: two configurations are named %q: give each its own Config.Name", s.name())
		}
		names[s.name()] = true
		s.register()
		suites = append(suites, s)
	}
	var rep types.Report
	ginkgo.ReportAfterSuite("e2e-conform", func(r ginkgo.Report) { rep = r })
	sc, rc := ginkgo.GinkgoConfiguration()
	sc.RandomizeAllSpecs = false
	rc.SilenceSkips = true
	rc.NoColor = rc.NoColor || !isTerminal(os.Stdout)
	// ginkgo's own verdict (any failed spec, SHOULD ones included) is not
	// the suite's: the results below decide what fails the test.
	if testing.Verbose() {
		ginkgo.RunSpecs(&failRecorder{}, "e2e-conform", sc, rc)
	} else {
		// ginkgo's stream (every spec, its failures at length) goes
		// to a buffer: judge names each failing requirement.
		func() {
			stdout := formatter.ColorableStdOut
			defer func() { formatter.ColorableStdOut = stdout }()
			formatter.ColorableStdOut = &bytes.Buffer{}
			ginkgo.RunSpecs(&failRecorder{}, "e2e-conform", sc, rc)
		}()
	}
	var out []*Result
	for _, s := range suites {
		res := s.result(rep, sc.LabelFilter)
		res.Duration = rep.RunTime
		judge(t, s.name(), &res, s.cfg.Strict)
		out = append(out, &res)
	}
	return out
}

// runTestsOnce records that RunTests ran in this process. It is
// process-wide state because ginkgo's "the suite ran" is: a second
// ginkgo.RunSpecs would exit the test binary with ginkgo's own message.
var runTestsOnce atomic.Bool

// errRunTestsTwice is a second RunTests call's error.
var errRunTestsTwice = fmt.Errorf("conformance: RunTests was already called in this test binary, and the suite " +
	"(a ginkgo suite) runs once per binary: to check several configurations, pass them all to one call, " +
	"conformance.RunTests(t, cfgA, cfgB, ...), which returns one Result each; or put the other call in another package's tests")

// judgeT is what judge needs of a *testing.T.
type judgeT interface {
	Helper()
	Errorf(format string, args ...any)
	Logf(format string, args ...any)
}

// judge fails t for what res says fails a vendor's test: a failed MUST (or
// any failure with strict), a stale baseline entry, a harness error. An
// expected failure (Config.ExpectedFailures) is logged.
func judge(t judgeT, name string, res *Result, strict bool) {
	t.Helper()
	for _, id := range res.StaleBaseline {
		t.Errorf("%s: stale baseline entry: %s now passes; remove it from Config.ExpectedFailures", name, id)
	}
	for _, rr := range res.Requirements {
		if rr.Status == report.ExpectedFailure {
			t.Logf("%s: %s (%s) failed, as Config.ExpectedFailures expects (%s): %s", name, rr.ID, rr.Level, rr.Baseline, report.FirstLine(rr.Reason))
		}
		if rr.Status != report.Failed {
			continue
		}
		if rr.Level == "MUST" || strict {
			t.Errorf("%s: %s (%s) failed: %s", name, rr.ID, rr.Level, rr.Reason)
		} else {
			t.Logf("%s: warning: %s (%s) failed: %s", name, rr.ID, rr.Level, rr.Reason)
		}
	}
	switch {
	case res.ExitCode == report.ExitHarness:
		t.Errorf("%s: %s: %s", name, res.Verdict, res.Reason)
	case res.ExitCode == report.ExitIncomplete && strict:
		t.Errorf("%s: verdict %s (%s)", name, res.Verdict, res.Reason)
	default:
		t.Logf("%s: verdict %s%s, exit %d", name, res.Verdict, parenthesized(res.Reason), res.ExitCode)
	}
}

func parenthesized(s string) string {
	if s == "" {
		return ""
	}
	return fmt.Sprintf(" (%s)", s)
}
