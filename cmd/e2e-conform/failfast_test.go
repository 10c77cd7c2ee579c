package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/e2e-conform/toolkit/conformance/report"
)

// failFast runs e2e-conform --fail-fast against the saboteur with fault
// and returns the exit code and the report.
func failFast(t *testing.T, fault string, only string) (int, report.Result) {
	t.Helper()
	reportFile := filepath.Join(t.TempDir(), "report.json")
	spawn := filepath.Join(bins(t), "saboteur")
	if fault != "" {
		spawn += " --fault " + fault
	}
	cmd := exec.Command(filepath.Join(bins(t), "e2e-conform"), "--spawn", spawn, "--profile", "full", "--only", only, "--fail-fast", "--json", reportFile)
	out, _ := cmd.CombinedOutput()
	var res report.Result
	data, err := os.ReadFile(reportFile)
	if err == nil {
		err = json.Unmarshal(data, &res)
	}
	if err != nil {
		t.Fatalf("no report: %v\n%s", err, out)
	}
	return cmd.ProcessState.ExitCode(), res
}

func TestFailFastStopsAtTheFirstMustFailure(t *testing.T) {
	// ignore-abort fails SIG-003 (MUST); every SIG spec after it is not run.
	code, res := failFast(t, "ignore-abort", "SIG")
	if code != report.ExitNonConformant {
		t.Fatalf("exit %d, want %d", code, report.ExitNonConformant)
	}
	var failed, notRun int
	for _, s := range res.Specs {
		switch {
		case s.Status == report.Failed:
			failed++
		case s.Status == report.NotVerified && strings.HasPrefix(s.Message, "not run: the run stopped at its first MUST failure"):
			notRun++
		case s.Status == report.Passed && failed > 0:
			t.Errorf("the spec %q ran after the first failure", s.Text)
		}
	}
	if failed != 1 || notRun == 0 {
		t.Errorf("%d specs failed and %d were not run; want 1 and some", failed, notRun)
	}
}

func TestFailFastGoesOnAfterAShouldFailure(t *testing.T) {
	// observe-side-effect fails only OBS-013, a SHOULD: a warning does not
	// stop the run, so the MUST specs after it (LOC, in catalog order) run.
	code, res := failFast(t, "observe-side-effect", "OBS-013,LOC-001")
	if code != report.ExitConformant {
		t.Fatalf("exit %d, want %d (a SHOULD failure only warns)", code, report.ExitConformant)
	}
	shouldFailed, passedAfter := false, false
	for _, s := range res.Specs {
		if strings.HasPrefix(s.Message, "not run:") {
			t.Errorf("the spec %q was not run after a SHOULD failure", s.Text)
		}
		shouldFailed = shouldFailed || s.Status == report.Failed
		passedAfter = passedAfter || shouldFailed && s.Status == report.Passed
	}
	if !shouldFailed || !passedAfter {
		t.Errorf("OBS-013 failed: %v, a spec passed after it: %v; want both", shouldFailed, passedAfter)
	}
}

func TestJUnitShouldMissIsNoFailure(t *testing.T) {
	dir := t.TempDir()
	junit := filepath.Join(dir, "junit.xml")
	cmd := exec.Command(filepath.Join(bins(t), "e2e-conform"), "--spawn", filepath.Join(bins(t), "saboteur")+" --fault observe-side-effect",
		"--profile", "full", "--only", "OBS-013,OBS-001", "--junit", junit)
	out, _ := cmd.CombinedOutput()
	data, err := os.ReadFile(junit)
	if err != nil {
		t.Fatalf("no JUnit report: %v\n%s", err, out)
	}
	x := string(data)
	if !strings.Contains(x, `failures="0"`) || strings.Contains(x, "<failure") {
		t.Errorf("a SHOULD miss (OBS-013) is a JUnit failure:\n%s", x)
	}
	if !strings.Contains(x, "warning (SHOULD, not a failure)") {
		t.Errorf("the SHOULD miss is not reported as a warning:\n%s", x)
	}
}

func TestFailFastStopsAtARunWideViolationAndKeepsTheRunWideChecks(t *testing.T) {
	// null-error-data breaks WIRE-012 in every error without data: the
	// first such error (an early LIFE spec draws one) records the
	// violation, the LIFE specs after it are not run, and the run-wide
	// check still runs and fails.
	code, res := failFast(t, "null-error-data", "LIFE,WIRE-012")
	if code != report.ExitNonConformant {
		t.Fatalf("exit %d, want %d", code, report.ExitNonConformant)
	}
	notRun := 0
	for _, s := range res.Specs {
		if s.Status == report.NotVerified && strings.Contains(s.Message, "the run-wide check of WIRE-012, already violated") {
			notRun++
		}
	}
	var wire012 report.Status
	for _, r := range res.Requirements {
		if r.ID == "WIRE-012" {
			wire012 = r.Status
		}
	}
	if notRun == 0 || wire012 != report.Failed {
		t.Errorf("%d specs not run after the violation, WIRE-012 %s; want some, and failed", notRun, wire012)
	}
}
