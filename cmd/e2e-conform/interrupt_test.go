package main

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/e2e-conform/toolkit/conformance/report"
)

// An interrupted run (a signal, the run timeout) did not end: its verdict
// is incomplete (exit 3), never conformant or non-conformant; its partial
// report is written; its engines and temp directory are gone.
func TestInterruptedRunIsIncomplete(t *testing.T) {
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		t.Skip("needs /proc")
	}
	cases := []struct {
		name   string
		signal syscall.Signal // 0: the run timeout ends the run
		args   []string
		reason string
	}{
		// SIGINT takes ginkgo's same interrupt path as SIGTERM.
		{"SIGTERM", syscall.SIGTERM, nil, "interrupted by a signal"},
		{"run timeout", 0, []string{"--run-timeout", "3s"}, "the run timeout (3s) elapsed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var b [8]byte
			rand.Read(b[:])
			marker := "E2E_INTERRUPT_MARKER=" + hex.EncodeToString(b[:])
			tmp, env := privateTmp(t)
			reportFile := filepath.Join(t.TempDir(), "r.json")
			args := append([]string{"--spawn", filepath.Join(bins(t), "saboteur"), "--profile", "full", "--env", marker, "--json", reportFile}, c.args...)
			cmd := exec.Command(filepath.Join(bins(t), "e2e-conform"), args...)
			cmd.Env = append(os.Environ(), env...)
			out, exited := startCmd(t, cmd)
			if c.signal != 0 {
				signalWhen(t, cmd, c.signal, 30*time.Second, func() bool { return len(marked(marker)) > 0 }, "the run started no engine", out)
			}
			awaitExit(t, exited, out)
			if code := cmd.ProcessState.ExitCode(); code != report.ExitIncomplete {
				t.Errorf("exit %d, want %d (incomplete)\n%s", code, report.ExitIncomplete, out.String())
			}
			var res report.Result
			data, err := os.ReadFile(reportFile)
			if err == nil {
				err = json.Unmarshal(data, &res)
			}
			if err != nil {
				t.Fatalf("no partial report: %v\n%s", err, out.String())
			}
			if res.Verdict != "incomplete" || !strings.Contains(res.Reason, c.reason) {
				t.Errorf("verdict %q (%s), want incomplete naming %q", res.Verdict, res.Reason, c.reason)
			}
			notRun := 0
			for _, s := range res.Specs {
				if s.Status == report.NotSelected {
					t.Errorf("the spec %q is reported not selected; the run selected it and did not run it", s.Text)
				}
				if s.Status == report.NotVerified && strings.HasPrefix(s.Message, "not run: ") {
					notRun++
				}
			}
			if notRun == 0 {
				t.Errorf("no spec is reported not run")
			}
			if !waitFor(10*time.Second, func() bool { return len(marked(marker)) == 0 }) {
				t.Errorf("left running: %v", marked(marker))
			}
			emptyDir(t, tmp)
		})
	}
}

// A run cut by a signal or its run timeout after a MUST had failed is
// non-conformant (exit 1), not incomplete: the failure is a fact whatever
// was left unrun. The saboteur fails LIFE-001 in the first spec
// (manifest-by-role) and never answers lifecycle/prepare, so LIFE-017's
// spec hangs until the cut (its budget is far longer).
func TestCutRunWithAFailedMustIsNonConformant(t *testing.T) {
	cases := []struct {
		name   string
		signal syscall.Signal // 0: the run timeout ends the run
		args   []string
		reason string
	}{
		{"SIGTERM", syscall.SIGTERM, nil, "interrupted by a signal"},
		{"SIGINT", syscall.SIGINT, nil, "interrupted by a signal"},
		{"run timeout", 0, []string{"--run-timeout", "20s"}, "the run timeout (20s) elapsed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			reportFile := filepath.Join(t.TempDir(), "r.json")
			engine := filepath.Join(bins(t), "saboteur") + " --fault manifest-by-role --fault prepare-never-answered"
			args := append([]string{"--spawn", engine, "--only", "LIFE-001,LIFE-017", "--timeout", "10m", "--json", reportFile}, c.args...)
			cmd := exec.Command(filepath.Join(bins(t), "e2e-conform"), args...)
			out, exited := startCmd(t, cmd)
			if c.signal != 0 {
				// LIFE-001's spec ends before LIFE-017's, which hangs.
				signalWhen(t, cmd, c.signal, 60*time.Second, func() bool { return strings.Contains(out.String(), "FAIL LIFE-001 ") }, "LIFE-001's spec did not fail", out)
			}
			awaitExit(t, exited, out)
			if code := cmd.ProcessState.ExitCode(); code != report.ExitNonConformant {
				t.Errorf("exit %d, want %d (non-conformant)\n%s", code, report.ExitNonConformant, out.String())
			}
			res, err := report.ReadResult(reportFile)
			if err != nil {
				t.Fatalf("no report: %v\n%s", err, out.String())
			}
			if res.Verdict != "non-conformant" || !strings.Contains(res.Reason, c.reason) {
				t.Errorf("verdict %q (%s), want non-conformant naming %q", res.Verdict, res.Reason, c.reason)
			}
			for _, r := range res.Requirements {
				switch {
				case r.ID == "LIFE-001" && r.Status != report.Failed:
					t.Errorf("LIFE-001 is %s (%s), want failed (manifest-by-role)", r.Status, r.Reason)
				case r.ID == "LIFE-017" && (r.Status != report.NotVerified || !cutReason(r.Reason, c.signal != 0)):
					t.Errorf("LIFE-017 is %s (%s), want not verified, interrupted", r.Status, r.Reason)
				}
			}
		})
	}
}

// cutReason reports whether reason says a spec was cut by the end of the
// run: "interrupted: …" when its spec was running. A signal may also land
// between LIFE-001's spec and LIFE-017's (nothing outside the run shows
// when the next spec starts), which leaves LIFE-017 "not run: the run was
// interrupted …" — as true a verdict; the run timeout (20 s, LIFE-017 hangs
// far longer) always cuts the spec while it runs.
func cutReason(reason string, bySignal bool) bool {
	if strings.HasPrefix(reason, "interrupted: ") {
		return true
	}
	return bySignal && strings.HasPrefix(reason, "not run: the run was interrupted by a signal")
}

// signalWhen sends sig to cmd once ready holds, failing the test with
// what (and the output so far) when it does not within d.
func signalWhen(t *testing.T, cmd *exec.Cmd, sig syscall.Signal, d time.Duration, ready func() bool, what string, out *syncBuffer) {
	t.Helper()
	if !waitFor(d, ready) {
		t.Fatalf("%s\n%s", what, out.String())
	}
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
}

// awaitExit waits for e2e-conform to exit after a signal or its run
// timeout (its kill grace and a minute of margin).
func awaitExit(t *testing.T, exited <-chan struct{}, out *syncBuffer) {
	t.Helper()
	select {
	case <-exited:
	case <-time.After(killGrace + 60*time.Second):
		t.Fatalf("e2e-conform did not exit\n%s", out.String())
	}
}

// syncBuffer is a bytes.Buffer safe for a process's output written while
// the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
