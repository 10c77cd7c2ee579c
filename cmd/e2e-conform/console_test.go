package main

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/e2e-conform/toolkit/conformance/report"
)

// consoleRun runs e2e-conform with args and returns its exit code, stdout
// and stderr apart.
func consoleRun(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(filepath.Join(bins(t), "e2e-conform"), args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	_ = cmd.Run()
	return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
}

// ginkgoStream are marks of ginkgo's own per-spec stream.
var ginkgoStream = []string{"Report Entries", "------------------------------", "[FAILED]", "SUCCESS!", "FAIL!", "specs"}

// areaLine is a line of the console for an area the run left.
var areaLine = regexp.MustCompile(`^\[ *\d+/\d+\] (\S+) +\d+\.\d s  \d+ failed$`)

// TestConsoleWithoutATerminal: the saboteur's manifest-perform-without-
// actions fault fails MAN-001, MAN-005 and the run-wide WIRE-013 on the
// answer to initialize. Without a terminal, stderr holds what the run
// checks, one line per area and each failure once, pointing at --explain,
// and none of ginkgo's stream nor an escape sequence; the summary names
// the failures and groups them as one bug; --explain reads one from the
// report.
func TestConsoleWithoutATerminal(t *testing.T) {
	reportFile := filepath.Join(t.TempDir(), "report.json")
	code, stdout, stderr := consoleRun(t, "--spawn", saboteurWith(t, "manifest-perform-without-actions"),
		"--only", "MAN-001,MAN-005,WIRE-013", "--json", reportFile)
	if code != report.ExitNonConformant {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	if len(lines) == 0 || !strings.HasPrefix(lines[0], "checking 3 requirement(s) of engine ") {
		t.Errorf("stderr does not begin with what the run checks:\n%s", stderr)
	}
	var areas []string
	fails := map[string]int{}
	for _, l := range lines[1:] {
		if m := areaLine.FindStringSubmatch(l); m != nil {
			areas = append(areas, m[1])
			continue
		}
		if id, rest, ok := strings.Cut(strings.TrimPrefix(l, "FAIL "), " "); ok && strings.HasPrefix(l, "FAIL ") {
			fails[id]++
			if !strings.HasSuffix(rest, "(e2e-conform --explain "+id+" "+reportFile+")") {
				t.Errorf("the failure line does not point at --explain: %q", l)
			}
			continue
		}
		t.Errorf("stderr holds a line that is neither an area's nor a failure's: %q", l)
	}
	if strings.Join(areas, ",") != "MAN,run-wide,done" {
		t.Errorf("area lines %v, want MAN, run-wide, done:\n%s", areas, stderr)
	}
	for _, id := range []string{"MAN-001", "MAN-005", "WIRE-013"} {
		if fails[id] != 1 {
			t.Errorf("%s told %d times on stderr, want once:\n%s", id, fails[id], stderr)
		}
	}
	for _, w := range ginkgoStream {
		if strings.Contains(stderr, w) || strings.Contains(stdout, w) {
			t.Errorf("the output holds ginkgo's stream (%q) without --verbose:\n%s%s", w, stderr, stdout)
		}
	}
	if strings.Contains(stderr+stdout, "\x1b") {
		t.Error("an escape sequence without a terminal")
	}
	for _, w := range []string{
		"failed: WIRE-013, MAN-001, MAN-005 (each told on stderr when it failed)",
		"one cause likely: WIRE-013, MAN-001, MAN-005 fail on the same exchange (conn ",
		"e2e-conform --explain ID " + reportFile,
		"verdict: non-conformant",
	} {
		if !strings.Contains(stdout, w) {
			t.Errorf("the summary lacks %q:\n%s", w, stdout)
		}
	}
	if strings.Contains(stdout, "FAILED ") {
		t.Errorf("the summary tells the failures again:\n%s", stdout)
	}

	// --explain on the saved report.
	code, out, errs := consoleRun(t, "--explain", "MAN-005", reportFile)
	if code != 0 {
		t.Fatalf("--explain MAN-005: exit %d: %s", code, errs)
	}
	for _, w := range []string{"MAN-005 (MUST): failed\n", "section:      §3.3\n", "requirement:  ", "likely cause: ", "wanted:       ", "came:         ",
		"one cause:    WIRE-013, MAN-001, MAN-005 fail on the same exchange", "exchange of the spec ", "(raw) recv {"} {
		if !strings.Contains(out, w) {
			t.Errorf("--explain MAN-005 lacks %q:\n%s", w, out)
		}
	}
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"an ID the report lacks", []string{"--explain", "MAN-099", reportFile}, "MAN-099: not in the report"},
		{"no report", []string{"--explain", "MAN-005"}, "--explain takes a requirement ID and one JSON report"},
		{"a report that is not there", []string{"--explain", "MAN-005", reportFile + ".missing"}, "reading the report"},
	} {
		code, _, errs := consoleRun(t, c.args...)
		if code != report.ExitUsage || !strings.Contains(errs, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 naming %q", c.name, code, errs, c.want)
		}
	}
}

// TestConsoleVerboseAndOff: --verbose adds ginkgo's per-spec stream (and
// the frames) to the console; --progress off leaves the summary alone, the
// failures told in it at length, as without --json; an unknown mode is a
// usage error.
func TestConsoleVerboseAndOff(t *testing.T) {
	code, stdout, stderr := consoleRun(t, "--spawn", saboteurWith(t, ""), "--only", "LIFE-001", "--verbose")
	if code != report.ExitConformant {
		t.Fatalf("--verbose: exit %d\n%s%s", code, stdout, stderr)
	}
	for _, w := range []string{"Report Entries", "SUCCESS!", "(raw) send {", "[1/1] done "} {
		if !strings.Contains(stderr, w) {
			t.Errorf("--verbose: stderr lacks %q:\n%s", w, stderr)
		}
	}

	code, stdout, stderr = consoleRun(t, "--spawn", saboteurWith(t, "wrong-uninitialized-code"), "--only", "LIFE-003", "--progress", "off")
	if code != report.ExitNonConformant {
		t.Fatalf("--progress off: exit %d\n%s%s", code, stdout, stderr)
	}
	if stderr != "" {
		t.Errorf("--progress off: stderr %q", stderr)
	}
	for _, w := range []string{"FAILED LIFE-003 (MUST) §2.4: ", "likely cause: ", "came: -32600", "write the JSON report (--json FILE), then e2e-conform --explain ID FILE"} {
		if !strings.Contains(stdout, w) {
			t.Errorf("--progress off: the summary lacks %q:\n%s", w, stdout)
		}
	}

	// Without a JSON report the summary is the only place for the details.
	code, stdout, stderr = consoleRun(t, "--spawn", saboteurWith(t, "wrong-uninitialized-code"), "--only", "LIFE-003")
	if code != report.ExitNonConformant || strings.Count(stderr, "FAIL LIFE-003 ") != 1 || !strings.Contains(stderr, "(more in the summary below)") ||
		!strings.Contains(stdout, "FAILED LIFE-003 (MUST) §2.4: ") || !strings.Contains(stdout, "likely cause: ") {
		t.Errorf("no --json: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}

	code, _, stderr = consoleRun(t, "--spawn", saboteurWith(t, ""), "--progress", "fancy")
	if code != report.ExitUsage || !strings.Contains(stderr, `--progress "fancy"`) {
		t.Errorf("--progress fancy: exit %d, %s", code, stderr)
	}
}

// TestRepeatConsole: the runs of --repeat keep their consoles to
// themselves (e2e-conform prints one line per run), and an engine command
// given after -- reaches each run as its argv (the run's own flags come
// before it).
func TestRepeatConsole(t *testing.T) {
	reportFile := filepath.Join(t.TempDir(), "repeat.json")
	code, stdout, stderr := consoleRun(t, "--repeat", "2", "--only", "LIFE-001", "--json", reportFile, "--", filepath.Join(bins(t), "saboteur"))
	out := stdout + stderr
	if code != report.ExitConformant {
		t.Fatalf("exit %d\n%s", code, out)
	}
	for _, no := range []string{"checking ", "] done ", "Report Entries"} {
		if strings.Contains(out, no) {
			t.Errorf("a run's console (%q) reached the output:\n%s", no, out)
		}
	}
	for _, w := range []string{"run 1/2: verdict: conformant", "run 2/2: verdict: conformant"} {
		if !strings.Contains(out, w) {
			t.Errorf("the output lacks %q:\n%s", w, out)
		}
	}
}
