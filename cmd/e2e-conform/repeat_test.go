package main

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/e2e-conform/toolkit/conformance/report"
	"github.com/e2e-conform/toolkit/internal/testbin"
)

// The suite runs once per process, so these tests run the e2e-conform
// binary, built once per test run with the saboteur.

// testBins are e2e-conform and the saboteur, built once.
var testBins = testbin.New(".", "../../fixtures/saboteur/cmd/saboteur")

// bins builds the binaries once and returns their directory.
func bins(t *testing.T) string {
	t.Helper()
	return testBins.Dir(t)
}

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		testBins.Remove()
		webBins.Remove()
		os.Exit(code)
	}))
}

func TestChildArgs(t *testing.T) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.String("spawn", "", "")
	fs.String("json", "", "")
	fs.String("junit", "", "")
	fs.Int("repeat", 0, "")
	fs.Int("repeat-parallel", 1, "")
	fs.Bool("verbose", false, "")
	drop := []string{"repeat", "repeat-parallel", "json", "junit"}
	for _, tc := range []struct{ in, want []string }{
		{[]string{"--repeat", "3", "--spawn", "x --fault y"}, []string{"--spawn", "x --fault y"}},
		{[]string{"-repeat=3", "--spawn=x", "--json", "out.json", "--verbose"}, []string{"--spawn=x", "--verbose"}},
		{[]string{"--verbose", "--repeat-parallel", "2", "--junit=j.xml", "--repeat", "20"}, []string{"--verbose"}},
		// a value that looks like a flag is still the flag's value
		{[]string{"--spawn", "--repeat", "--repeat", "2"}, []string{"--spawn", "--repeat"}},
		{[]string{"--verbose=true", "--repeat", "2", "--", "rest"}, []string{"--verbose=true", "--", "rest"}},
	} {
		if got := childArgs(fs, tc.in, drop...); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("childArgs(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// repeat runs e2e-conform --repeat with args and --json, and returns the
// exit code, the combined report and the output.
func repeat(t *testing.T, env []string, args ...string) (int, report.Stability, string) {
	t.Helper()
	reportFile := filepath.Join(t.TempDir(), "repeat.json")
	cmd := exec.Command(filepath.Join(bins(t), "e2e-conform"), append(args, "--json", reportFile)...)
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	_ = cmd.Run()
	var st report.Stability
	if data, err := os.ReadFile(reportFile); err == nil {
		if err := json.Unmarshal(data, &st); err != nil {
			t.Fatalf("the combined report: %v\n%s", err, data)
		}
	}
	return cmd.ProcessState.ExitCode(), st, out.String()
}

// privateTmp gives the e2e-conform under test a TMPDIR of its own, so that
// the test can check it leaves nothing there.
func privateTmp(t *testing.T) (string, []string) {
	dir := filepath.Join(t.TempDir(), "tmp")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir, []string{"TMPDIR=" + dir}
}

func emptyDir(t *testing.T, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) > 0 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("left in TMPDIR: %v", names)
	}
}

func TestRepeatStableSaboteur(t *testing.T) {
	sab := filepath.Join(bins(t), "saboteur")
	tmp, env := privateTmp(t)
	code, st, out := repeat(t, env, "--repeat", "3", "--repeat-parallel", "2", "--spawn", sab, "--profile", "core")
	// Healthy: conformant, or incomplete only because requirements have no
	// spec yet (as conformance's healthy check), and the same every time.
	if code != report.ExitConformant && code != report.ExitIncomplete {
		t.Fatalf("exit %d\n%s", code, out)
	}
	if len(st.Runs) != 3 || len(st.Varied) != 0 || st.ExitCode != code {
		t.Fatalf("%d runs, %d varied, exit %d in the report, %d\n%s", len(st.Runs), len(st.Varied), st.ExitCode, code, out)
	}
	for _, r := range st.Runs {
		if r.ExitCode != code || r.Counts[report.Failed] != 0 || r.Counts[report.Passed] == 0 {
			t.Errorf("run %d: exit %d, %d failed, %d passed\n%s", r.Run, r.ExitCode, r.Counts[report.Failed], r.Counts[report.Passed], out)
		}
		if r.ExitCode == report.ExitIncomplete && !strings.Contains(r.Reason, "not verified") {
			t.Errorf("run %d incomplete: %s", r.Run, r.Reason)
		}
	}
	for i := 1; i <= 3; i++ {
		if !strings.Contains(out, "run "+strconv.Itoa(i)+"/3: verdict: ") {
			t.Errorf("no verdict line for run %d:\n%s", i, out)
		}
	}
	if !strings.HasSuffix(out, "3 runs, 0 requirements varied\n") {
		t.Errorf("the output does not end with the count:\n%s", out)
	}
	emptyDir(t, tmp)
}

// flipper writes a spawn command that serves the saboteur with fault on
// only for the second e2e-conform run that spawns it (runs are told apart
// by the pid of the process that spawns the engine, recorded in order of
// first appearance), so that a --repeat run sees a requirement vary.
func flipper(t *testing.T, fault string) string {
	flock, err := exec.LookPath("flock")
	if err != nil {
		t.Skipf("flock: %v", err)
	}
	dir := t.TempDir()
	script := filepath.Join(dir, "flip.sh")
	body := `#!/bin/sh
# flip.sh STATE SABOTEUR FAULT
state=$1 sab=$2 fault=$3
exec 9>>"$state/lock"
` + flock + ` 9
grep -qx "$PPID" "$state/runs" 2>/dev/null || echo "$PPID" >>"$state/runs"
n=$(grep -nx "$PPID" "$state/runs" | cut -d: -f1)
exec 9>&-
if [ "$n" = 2 ]; then exec "$sab" --fault "$fault"; fi
exec "$sab"
`
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return strings.Join([]string{script, dir, filepath.Join(bins(t), "saboteur"), fault}, " ")
}

func varied(st report.Stability, id string) *report.Variation {
	for i := range st.Varied {
		if st.Varied[i].ID == id {
			return &st.Varied[i]
		}
	}
	return nil
}

func TestRepeatReportsAMustThatFlips(t *testing.T) {
	tmp, env := privateTmp(t)
	code, st, out := repeat(t, env, "--repeat", "3", "--spawn", flipper(t, "tap-double-counts"), "--profile", "full", "--only", "ACT-001", "--env", "PATH="+os.Getenv("PATH"))
	if code != report.ExitNonConformant || st.ExitCode != code {
		t.Fatalf("exit %d (report %d), want %d\n%s", code, st.ExitCode, report.ExitNonConformant, out)
	}
	v := varied(st, "ACT-001")
	if v == nil || len(st.Varied) != 1 {
		t.Fatalf("varied %+v, want ACT-001 alone\n%s", st.Varied, out)
	}
	want := []report.StatusRuns{{Status: report.Passed, Count: 2, Runs: []int{1, 3}}, {Status: report.Failed, Count: 1, Runs: []int{2}}}
	if len(v.Statuses) != 2 || v.Statuses[1].Reason == "" || v.Level != "MUST" {
		t.Fatalf("ACT-001: %+v\n%s", v, out)
	}
	v.Statuses[1].Reason = ""
	if !reflect.DeepEqual(v.Statuses, want) {
		t.Errorf("ACT-001 statuses %+v, want %+v", v.Statuses, want)
	}
	for _, line := range []string{"VARIED ACT-001 (MUST): passed in 2, failed in 1", "  failed (run 2): ", "run 2/3: verdict: non-conformant"} {
		if !strings.Contains(out, line) {
			t.Errorf("the output lacks %q:\n%s", line, out)
		}
	}
	if !strings.HasSuffix(out, "3 runs, 1 requirements varied\n") {
		t.Errorf("the output does not end with the count:\n%s", out)
	}
	emptyDir(t, tmp)
}

func TestRepeatShouldThatFlipsIsUnstable(t *testing.T) {
	// OBS-013 is a SHOULD: its failure only warns, so no run is
	// non-conformant and the repetition is unstable.
	code, st, out := repeat(t, nil, "--repeat", "3", "--spawn", flipper(t, "observe-side-effect"), "--profile", "full", "--only", "OBS-013", "--env", "PATH="+os.Getenv("PATH"))
	if code != report.ExitUnstable || st.Verdict != "unstable" {
		t.Fatalf("exit %d, verdict %q, want %d unstable\n%s", code, st.Verdict, report.ExitUnstable, out)
	}
	if v := varied(st, "OBS-013"); v == nil || v.Level != "SHOULD" || len(v.Statuses) != 2 {
		t.Fatalf("varied %+v\n%s", st.Varied, out)
	}
}

func TestRepeatUsageErrors(t *testing.T) {
	sab := filepath.Join(bins(t), "saboteur")
	for _, args := range [][]string{
		{"--repeat", "0", "--spawn", sab},
		{"--repeat", "2", "--repeat-parallel", "0", "--spawn", sab},
		{"--repeat", "2", "--junit", "x.xml", "--spawn", sab},
		{"--repeat", "2", "--list"},
		{"--repeat", "2"},                                   // no engine: the first child's usage error
		{"--repeat", "2", "--spawn", sab, "--profile", "x"}, // likewise
	} {
		code, _, out := repeat(t, nil, args...)
		if code != report.ExitUsage {
			t.Errorf("%q: exit %d, want %d\n%s", args, code, report.ExitUsage, out)
		}
	}
}

// marked returns the live processes whose environment holds marker.
func marked(marker string) []string {
	var out []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !bytes.Contains(env, []byte(marker)) {
			continue
		}
		stat, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if s := string(stat); strings.Contains(s, ") Z ") {
			continue // a zombie, reaped soon
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		out = append(out, e.Name()+" "+filepath.Base(strings.SplitN(string(cmdline), "\x00", 2)[0]))
	}
	return out
}

// waitFor polls the process table until cond holds or d passes.
func waitFor(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(50 * time.Millisecond) // polling the process table
	}
	return true
}

// TestRepeatInterruptedStopsItsChildren: SIGTERM or SIGINT stops every
// child of --repeat and of --parallel (they share childRuns), and their
// engines, leaving no temporary entry; the run is incomplete.
func TestRepeatInterruptedStopsItsChildren(t *testing.T) {
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		t.Skip("needs /proc")
	}
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Fatalf("sleep: %v", err)
	}
	modes := []struct {
		name string
		args []string
	}{
		{"repeat", []string{"--repeat", "4", "--repeat-parallel", "2"}},
		// The shards start once the manifest probe gave up on sleep
		// (probeBound).
		{"parallel", []string{"--parallel", "2"}},
	}
	for _, mode := range modes {
		for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
			t.Run(mode.name+"/"+sig.String(), func(t *testing.T) {
				var b [8]byte
				rand.Read(b[:])
				marker := "E2E_REPEAT_MARKER=" + hex.EncodeToString(b[:])
				tmp, env := privateTmp(t)
				// sleep never answers initialize: every run hangs in its
				// first spec. The marker reaches the children (inherited) and
				// the engines (--env).
				cmd := exec.Command(filepath.Join(bins(t), "e2e-conform"), append(mode.args,
					"--spawn", sleep+" 600", "--env", marker, "--timeout", "60s", "--json", filepath.Join(t.TempDir(), "r.json"))...)
				cmd.Env = append(append(os.Environ(), env...), marker)
				out, exited := startCmd(t, cmd)
				engines := func() int {
					n := 0
					for _, p := range marked(marker) {
						if strings.HasSuffix(p, " sleep") {
							n++
						}
					}
					return n
				}
				if !waitFor(30*time.Second, func() bool { return engines() >= 2 }) {
					t.Fatalf("the two runs did not start their engines: %v\n%s", marked(marker), out.String())
				}
				if err := cmd.Process.Signal(sig); err != nil {
					t.Fatal(err)
				}
				select {
				case <-exited:
				case <-time.After(killGrace + 30*time.Second):
					t.Fatalf("e2e-conform did not exit after %v\n%s", sig, out.String())
				}
				if code := cmd.ProcessState.ExitCode(); code != report.ExitIncomplete {
					t.Errorf("exit %d, want %d\n%s", code, report.ExitIncomplete, out.String())
				}
				if !strings.Contains(out.String(), "interrupted by") {
					t.Errorf("the output does not say it was interrupted:\n%s", out.String())
				}
				if !waitFor(10*time.Second, func() bool { return len(marked(marker)) == 0 }) {
					t.Errorf("left running after %v: %v", sig, marked(marker))
				}
				emptyDir(t, tmp)
			})
		}
	}
}

// startCmd starts cmd with its output in the returned buffer and a channel
// closed when it has exited; the test's cleanup kills and reaps it.
func startCmd(t *testing.T, cmd *exec.Cmd) (*syncBuffer, chan struct{}) {
	t.Helper()
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
	})
	return out, exited
}
