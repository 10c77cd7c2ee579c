package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/e2e-conform/toolkit/conformance/report"
)

// writeReport writes a one-requirement run report with an engine/observe
// p90 of p90 ms.
func writeReport(t *testing.T, dir, name string, st report.Status, p90 float64) string {
	t.Helper()
	r := &report.Result{Suite: "e2e-conform", Verdict: "conformant",
		Requirements: []report.RequirementResult{{ID: "WIRE-001", Level: "MUST", Status: st, Reason: "reason of " + name}},
		Latency:      []report.MethodLatency{{Method: "engine/observe", Count: 50, P90Ms: p90}}}
	path := filepath.Join(dir, name)
	if err := r.WriteJSON(path); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestDiffCommand(t *testing.T) {
	dir := t.TempDir()
	passed := writeReport(t, dir, "passed.json", report.Passed, 2)
	failed := writeReport(t, dir, "failed.json", report.Failed, 2)
	slow := writeReport(t, dir, "slow.json", report.Passed, 9)
	garbage := filepath.Join(dir, "garbage.json")
	if err := os.WriteFile(garbage, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name       string
		args       []string
		code       int
		stdout     []string
		stderrHas  string
		stdoutNone bool
	}{
		{name: "no change", args: []string{passed, passed}, code: 0, stdout: []string{"0 requirement(s) changed, 0 for the worse; 0 method(s) slower"}},
		{name: "got worse", args: []string{passed, failed}, code: 1, stdout: []string{"WORSE WIRE-001 (MUST): passed → failed", "reason of failed.json"}},
		{name: "got better", args: []string{failed, passed}, code: 0, stdout: []string{"WIRE-001 (MUST): failed → passed"}},
		{name: "p90 regressed", args: []string{passed, slow}, code: 1, stdout: []string{"SLOWER engine/observe: p90 2.0 ms → 9.0 ms"}},
		{name: "one argument", args: []string{passed}, code: 2, stderrHas: "want two reports", stdoutNone: true},
		{name: "three arguments", args: []string{passed, passed, passed}, code: 2, stderrHas: "want two reports", stdoutNone: true},
		{name: "missing file", args: []string{passed, filepath.Join(dir, "nope.json")}, code: 2, stderrHas: "nope.json", stdoutNone: true},
		{name: "not JSON", args: []string{garbage, passed}, code: 2, stderrHas: "garbage.json", stdoutNone: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(append([]string{"diff"}, tc.args...), &stdout, &stderr)
			if code != tc.code {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, stdout.String(), stderr.String())
			}
			for _, want := range tc.stdout {
				if !strings.Contains(stdout.String(), want) {
					t.Errorf("stdout lacks %q:\n%s", want, stdout.String())
				}
			}
			if !strings.Contains(stderr.String(), tc.stderrHas) {
				t.Errorf("stderr lacks %q:\n%s", tc.stderrHas, stderr.String())
			}
			if tc.stdoutNone && stdout.Len() > 0 {
				t.Errorf("stdout on a usage error:\n%s", stdout.String())
			}
		})
	}
}
