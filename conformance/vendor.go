package conformance

import (
	"fmt"
	"os"
	"testing"

	"github.com/onsi/ginkgo/v2"
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
// and fail the test only with Config.Strict. Ginkgo's own output has no
// colours unless stdout is a terminal. Like every ginkgo suite, it runs
// once per test binary. (It is the equivalent of ginkgo's RunSpecs, named
// apart from it.)
func RunTests(t *testing.T, cfgs ...Config) []*Result {
	t.Helper()
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
	var report types.Report
	ginkgo.ReportAfterSuite("e2e-conform", func(r ginkgo.Report) { report = r })
	sc, rc := ginkgo.GinkgoConfiguration()
	sc.RandomizeAllSpecs = false
	rc.SilenceSkips = true
	rc.NoColor = rc.NoColor || !isTerminal(os.Stdout)
	// ginkgo's own verdict (any failed spec, SHOULD ones included) is not
	// the suite's: the results below decide what fails the test.
	ginkgo.RunSpecs(&failRecorder{}, "e2e-conform", sc, rc)
	var out []*Result
	for _, s := range suites {
		res := s.result(report, sc.LabelFilter)
		res.Duration = report.RunTime
		judge(t, s.name(), &res, s.cfg.Strict)
		out = append(out, &res)
	}
	return out
}

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
		if rr.Status == ExpectedFailure {
			t.Logf("%s: %s (%s) failed, as Config.ExpectedFailures expects (%s): %s", name, rr.ID, rr.Level, rr.Baseline, firstLine(rr.Reason))
		}
		if rr.Status != Failed {
			continue
		}
		if rr.Level == "MUST" || strict {
			t.Errorf("%s: %s (%s) failed: %s", name, rr.ID, rr.Level, rr.Reason)
		} else {
			t.Logf("%s: warning: %s (%s) failed: %s", name, rr.ID, rr.Level, rr.Reason)
		}
	}
	switch {
	case res.ExitCode == ExitHarness:
		t.Errorf("%s: %s: %s", name, res.Verdict, res.Reason)
	case res.ExitCode == ExitIncomplete && strict:
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
