package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/e2e-conform/toolkit/conformance/report"
)

// The saboteur's fault reinitialize-accepted fails LIFE-004 (MUST), and
// nothing else under --only LIFE-004 (docs/kill-matrix.md); the healthy
// saboteur passes it.
const (
	baselineFault = "reinitialize-accepted"
	baselineID    = "LIFE-004"
)

// conformRun runs e2e-conform with args (a --json report added when
// report is true) and returns the exit code, the output and the report
// (zero when none was written).
func conformRun(t *testing.T, withReport bool, args ...string) (int, string, report.Result) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "report.json")
	if withReport {
		args = append(args, "--json", path)
	}
	cmd := exec.Command(filepath.Join(bins(t), "e2e-conform"), args...)
	out, _ := cmd.CombinedOutput()
	var res report.Result
	if data, err := os.ReadFile(path); err == nil {
		if err := json.Unmarshal(data, &res); err != nil {
			t.Fatalf("the report: %v", err)
		}
	}
	return cmd.ProcessState.ExitCode(), string(out), res
}

// saboteurWith is the saboteur's spawn command with fault ("" for none).
func saboteurWith(t *testing.T, fault string) string {
	s := filepath.Join(bins(t), "saboteur")
	if fault != "" {
		s += " --fault " + fault
	}
	return s
}

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func requirement(res report.Result, id string) report.RequirementResult {
	for _, rr := range res.Requirements {
		if rr.ID == id {
			return rr
		}
	}
	return report.RequirementResult{}
}

// TestExpectedFailuresVerdicts: each verdict case of --expected-failures,
// end to end against the saboteur.
func TestExpectedFailuresVerdicts(t *testing.T) {
	for _, c := range []struct {
		name       string
		fault      string
		baseline   string
		wantExit   int
		wantStatus report.Status // LIFE-004's, when a report is written
		outHas     []string
	}{
		{name: "listed and failing: expected failure, exit 0", fault: baselineFault, baseline: "# known\nLIFE-004: bug 12, fixed in 2.1\n",
			wantExit: 0, wantStatus: report.ExpectedFailure,
			outHas: []string{"EXPECTED FAILURE LIFE-004 (MUST)", "baseline: bug 12, fixed in 2.1", "verdict: conformant (", "with 1 expected failure(s) listed in the baseline), exit 0"}},
		{name: "failing, not listed: exit 1", fault: baselineFault, baseline: "WIRE-005: not yet\n",
			wantExit: 1, wantStatus: report.Failed,
			outHas: []string{"FAIL LIFE-004 ", "failed: LIFE-004 ", "baseline entry WIRE-005 kept: not checked in this run (not selected", "verdict: non-conformant"}},
		{name: "listed and passing: stale, exit 1", baseline: "LIFE-004: bug 12\n",
			wantExit: 1, wantStatus: report.Passed,
			outHas: []string{"STALE BASELINE ENTRY LIFE-004 (MUST): it now passes", "verdict: stale baseline (stale baseline entry: LIFE-004 now passes; remove it), exit 1"}},
		{name: "an ID not in the catalog: exit 2", fault: baselineFault, baseline: "LIFE-004: bug 12\nLIFE-999: typo\n",
			wantExit: 2, outHas: []string{"--expected-failures", "line 2: LIFE-999 is not a requirement of the catalog"}},
		{name: "a malformed line: exit 2", fault: baselineFault, baseline: "\n# c\nLIFE-004 bug 12\n",
			wantExit: 2, outHas: []string{"line 3 \"LIFE-004 bug 12\" is not \"ID: reason\""}},
	} {
		t.Run(c.name, func(t *testing.T) {
			base := writeFile(t, "baseline.txt", c.baseline)
			code, out, res := conformRun(t, true, "--spawn", saboteurWith(t, c.fault), "--only", baselineID, "--expected-failures", base)
			if code != c.wantExit {
				t.Errorf("exit %d, want %d:\n%s", code, c.wantExit, out)
			}
			for _, w := range c.outHas {
				if !strings.Contains(out, w) {
					t.Errorf("the output lacks %q:\n%s", w, out)
				}
			}
			if c.wantExit == report.ExitUsage {
				if res.Suite != "" {
					t.Error("a usage error wrote a report")
				}
				return
			}
			if rr := requirement(res, baselineID); rr.Status != c.wantStatus {
				t.Errorf("%s is %q, want %q", baselineID, rr.Status, c.wantStatus)
			}
		})
	}
	code, out, _ := conformRun(t, false, "--spawn", saboteurWith(t, ""), "--expected-failures", filepath.Join(t.TempDir(), "none.txt"))
	if code != report.ExitUsage || !strings.Contains(out, "none.txt") {
		t.Errorf("a missing baseline: exit %d, %s", code, out)
	}
}

// TestWriteBaselineRoundTrip: a run with a fault writes a baseline of its
// failure; the same run with it exits 0 with the requirement an expected
// failure, and its JUnit report has no <failure>.
func TestWriteBaselineRoundTrip(t *testing.T) {
	dir := t.TempDir()
	base := filepath.Join(dir, "baseline.txt")
	code, out, _ := conformRun(t, false, "--spawn", saboteurWith(t, baselineFault), "--only", baselineID, "--write-baseline", base)
	if code != report.ExitNonConformant {
		t.Fatalf("exit %d, want 1:\n%s", code, out)
	}
	data, err := os.ReadFile(base)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "\nLIFE-004: failed: a second initialize") {
		t.Errorf("the baseline does not list LIFE-004 with its reason:\n%s", data)
	}
	junit := filepath.Join(dir, "junit.xml")
	code, out, res := conformRun(t, true, "--spawn", saboteurWith(t, baselineFault), "--only", baselineID, "--expected-failures", base, "--junit", junit)
	if code != report.ExitConformant || res.Counts[report.ExpectedFailure] != 1 {
		t.Fatalf("with the baseline: exit %d, counts %v, want 0 and one expected failure:\n%s", code, res.Counts, out)
	}
	if rr := requirement(res, baselineID); rr.Status != report.ExpectedFailure || rr.Baseline == "" || rr.Explanation == nil {
		t.Errorf("%s: %+v, want an expected failure with its baseline reason and explanation", baselineID, rr)
	}
	x, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(x, []byte("<failure")) || !bytes.Contains(x, []byte(`<skipped message="expected failure: LIFE-004: failed: a second initialize`)) {
		t.Errorf("JUnit of an expected failure:\n%s", x)
	}
}

// TestWriteBaselineRedactsSecrets: the reasons a baseline is written with
// are the reports' (secrets redacted), and so is the engine command it
// names.
func TestWriteBaselineRedactsSecrets(t *testing.T) {
	base := filepath.Join(t.TempDir(), "baseline.txt")
	spawn := "env E2E_POOL_TOKEN=tok-in-command-77 " + saboteurWith(t, "secret-in-error")
	code, out, _ := conformRun(t, false, "--spawn", spawn, "--profile", "full", "--only", "ERR-007", "--write-baseline", base)
	data, err := os.ReadFile(base)
	if err != nil {
		t.Fatalf("exit %d, no baseline: %v\n%s", code, err, out)
	}
	if !strings.Contains(string(data), "\nERR-007: ") {
		t.Fatalf("the fault did not fail ERR-007, so this proves nothing:\n%s", data)
	}
	for _, secret := range []string{"s3cr3t-canary", "tok-in-command-77"} {
		if strings.Contains(string(data), secret) {
			t.Errorf("the baseline shows %q:\n%s", secret, data)
		}
	}
}

// TestMergeHonoursTheBaseline: merge judges by --expected-failures, else
// by the baseline the shards ran with, refuses shards that ran with
// different ones, and calls a passing entry stale.
func TestMergeHonoursTheBaseline(t *testing.T) {
	base := writeFile(t, "baseline.txt", "LIFE-004: bug 12\n")
	shards := func(fault string, baselines ...string) []string {
		var paths []string
		for i, b := range baselines {
			args := []string{"--spawn", saboteurWith(t, fault), "--only", baselineID, "--shard", []string{"1/2", "2/2"}[i]}
			if b != "" {
				args = append(args, "--expected-failures", b)
			}
			code, out, res := conformRun(t, true, args...)
			if code == report.ExitUsage || res.Suite == "" {
				t.Fatalf("shard %d: exit %d:\n%s", i+1, code, out)
			}
			path := filepath.Join(t.TempDir(), "shard.json")
			if err := res.WriteJSON(path); err != nil {
				t.Fatal(err)
			}
			paths = append(paths, path)
		}
		return paths
	}
	failing, failingWith, healthyWith := shards(baselineFault, "", ""), shards(baselineFault, base, base), shards("", base, base)
	mixed := []string{failingWith[0], failing[1]}
	for _, c := range []struct {
		name     string
		args     []string
		wantExit int
		outHas   string
	}{
		{"no baseline anywhere", failing, 1, "verdict: non-conformant"},
		{"merge --expected-failures", append([]string{"--expected-failures", base}, failing...), 0, "EXPECTED FAILURE LIFE-004"},
		{"the shards' own baseline", failingWith, 0, "EXPECTED FAILURE LIFE-004"},
		{"shards with different baselines", mixed, 2, "ran with different baselines"},
		{"different shard baselines, merge's own decides", append(mixed, "--expected-failures", base), 0, "EXPECTED FAILURE LIFE-004"},
		{"an empty baseline given to merge replaces the shards'", append([]string{"--expected-failures", writeFile(t, "empty.txt", "# none\n")}, failingWith...), 1, "FAILED LIFE-004"},
		{"a passing entry is stale in the merged run", healthyWith, 1, "stale baseline entry: LIFE-004 now passes; remove it"},
		{"an unknown ID given to merge", append([]string{"--expected-failures", writeFile(t, "bad.txt", "NOPE-1: x\n")}, failing...), 2, "NOPE-1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(append([]string{"merge"}, c.args...), &stdout, &stderr)
			out := stdout.String() + stderr.String()
			if code != c.wantExit || !strings.Contains(out, c.outHas) {
				t.Errorf("exit %d, want %d with %q:\n%s", code, c.wantExit, c.outHas, out)
			}
		})
	}
}

func TestWriteBaselineRefusedWithRepeat(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run([]string{"--repeat", "2", "--spawn", "x", "--write-baseline", filepath.Join(t.TempDir(), "b.txt")}, &stdout, &stderr)
	if code != report.ExitUsage || !strings.Contains(stderr.String(), "--write-baseline does not go with --repeat") {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
}

// TestDiffNoLatency: e2e-conform diff --no-latency (before or after the
// reports) lists a regressed p90 without failing on it, and still fails a
// requirement that got worse.
func TestDiffNoLatency(t *testing.T) {
	dir := t.TempDir()
	passed := writeReport(t, dir, "passed.json", report.Passed, 2)
	slow := writeReport(t, dir, "slow.json", report.Passed, 9)
	slowFailed := writeReport(t, dir, "slow-failed.json", report.Failed, 9)
	for _, c := range []struct {
		args   []string
		code   int
		stdout []string
	}{
		{[]string{passed, slow}, 1, []string{"SLOWER engine/observe", "1 method(s) slower\n"}},
		{[]string{"--no-latency", passed, slow}, 0, []string{"SLOWER engine/observe", "not counted as worse (--no-latency)", "1 method(s) slower (latency not gating: --no-latency)"}},
		{[]string{passed, slow, "--no-latency"}, 0, []string{"(latency not gating: --no-latency)"}},
		{[]string{"--no-latency", passed, slowFailed}, 1, []string{"WORSE WIRE-001 (MUST): passed → failed"}},
		{[]string{"--no-latency", passed}, 2, nil},
		{[]string{"--latency", passed, slow}, 2, nil},
	} {
		var stdout, stderr bytes.Buffer
		code := run(append([]string{"diff"}, c.args...), &stdout, &stderr)
		if code != c.code {
			t.Errorf("diff %q: exit %d, want %d\n%s%s", c.args, code, c.code, stdout.String(), stderr.String())
		}
		for _, w := range c.stdout {
			if !strings.Contains(stdout.String(), w) {
				t.Errorf("diff %q: stdout lacks %q:\n%s", c.args, w, stdout.String())
			}
		}
	}
}

// TestFailFastGoesOnAfterAnExpectedFailure: --fail-fast stops at a MUST
// failure the baseline does not expect, not at an expected one.
func TestFailFastGoesOnAfterAnExpectedFailure(t *testing.T) {
	base := writeFile(t, "baseline.txt", "LIFE-004: bug 12\n")
	code, out, res := conformRun(t, true, "--spawn", saboteurWith(t, baselineFault), "--only", "LIFE", "--fail-fast", "--expected-failures", base)
	if code != report.ExitConformant || requirement(res, baselineID).Status != report.ExpectedFailure {
		t.Errorf("exit %d, %s %q; want 0 and an expected failure:\n%s", code, baselineID, requirement(res, baselineID).Status, out)
	}
	for _, s := range res.Specs {
		if strings.HasPrefix(s.Message, "not run:") {
			t.Errorf("the spec %q was not run after an expected failure: %s", s.Text, s.Message)
		}
	}
}
