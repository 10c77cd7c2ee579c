package conformance

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/e2e-conform/toolkit/conformance/report"
)

// fakeT records what judge says.
type fakeT struct{ errs, logs []string }

func (f *fakeT) Helper() {}
func (f *fakeT) Errorf(format string, args ...any) {
	f.errs = append(f.errs, fmt.Sprintf(format, args...))
}
func (f *fakeT) Logf(format string, args ...any) {
	f.logs = append(f.logs, fmt.Sprintf(format, args...))
}

// TestVendorKitJudgesByTheBaseline: RunTests (judge) logs an expected
// failure and fails the test for a stale entry, strict or not.
func TestVendorKitJudgesByTheBaseline(t *testing.T) {
	for _, strict := range []bool{false, true} {
		var ft fakeT
		res := Result{Verdict: "conformant", Requirements: []report.RequirementResult{
			{ID: "LIFE-004", Level: "MUST", Status: report.ExpectedFailure, Baseline: "bug 12 <b>", Reason: "failed: want this, got that"},
			{ID: "WIRE-009", Level: "MUST", Status: report.Passed}}}
		judge(&ft, "cfg", &res, strict)
		if len(ft.errs) > 0 || !slices.ContainsFunc(ft.logs, func(s string) bool {
			return strings.Contains(s, "LIFE-004 (MUST) failed, as Config.ExpectedFailures expects (bug 12 <b>)")
		}) {
			t.Errorf("strict=%v, an expected failure: errors %q, logs %q", strict, ft.errs, ft.logs)
		}
		ft = fakeT{}
		stale := Result{Verdict: "stale baseline", ExitCode: report.ExitNonConformant, StaleBaseline: []string{"LIFE-004"},
			Requirements: []report.RequirementResult{{ID: "LIFE-004", Level: "MUST", Status: report.Passed, Baseline: "bug 12"}}}
		judge(&ft, "cfg", &stale, strict)
		if len(ft.errs) != 1 || !strings.Contains(ft.errs[0], "stale baseline entry: LIFE-004 now passes; remove it from Config.ExpectedFailures") {
			t.Errorf("strict=%v, a stale entry: errors %q", strict, ft.errs)
		}
	}
}

func TestConfigBaselineIsValidated(t *testing.T) {
	for _, c := range []struct {
		baseline map[string]string
		errHas   string
	}{
		{map[string]string{"LIFE-004": "ok"}, ""},
		{map[string]string{"LIFE-004": "ok", "NOPE-001": "x"}, "NOPE-001"},
		{map[string]string{"LIFE-004": " "}, "LIFE-004 without a reason"},
	} {
		err := Config{Spawn: []string{"x"}, ExpectedFailures: c.baseline}.validate()
		switch {
		case c.errHas == "" && err != nil:
			t.Errorf("%q: %v", c.baseline, err)
		case c.errHas != "" && (!errors.Is(err, report.ErrUsage) || !strings.Contains(err.Error(), c.errHas)):
			t.Errorf("%q: %v, want a usage error saying %q", c.baseline, err, c.errHas)
		}
	}
}
