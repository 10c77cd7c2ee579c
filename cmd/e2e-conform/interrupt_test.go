package main

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/e2e-conform/toolkit/conformance"
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
			report := filepath.Join(t.TempDir(), "r.json")
			args := append([]string{"--spawn", filepath.Join(bins(t), "saboteur"), "--profile", "full", "--env", marker, "--json", report}, c.args...)
			cmd := exec.Command(filepath.Join(bins(t), "e2e-conform"), args...)
			cmd.Env = append(os.Environ(), env...)
			out, exited := startCmd(t, cmd)
			if c.signal != 0 {
				if !waitFor(30*time.Second, func() bool { return len(marked(marker)) > 0 }) {
					t.Fatalf("the run started no engine\n%s", out.String())
				}
				if err := cmd.Process.Signal(c.signal); err != nil {
					t.Fatal(err)
				}
			}
			select {
			case <-exited:
			case <-time.After(killGrace + 60*time.Second):
				t.Fatalf("e2e-conform did not exit\n%s", out.String())
			}
			if code := cmd.ProcessState.ExitCode(); code != conformance.ExitIncomplete {
				t.Errorf("exit %d, want %d (incomplete)\n%s", code, conformance.ExitIncomplete, out.String())
			}
			var res conformance.Result
			data, err := os.ReadFile(report)
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
				if s.Status == conformance.NotSelected {
					t.Errorf("the spec %q is reported not selected; the run selected it and did not run it", s.Text)
				}
				if s.Status == conformance.NotVerified && strings.HasPrefix(s.Message, "not run: ") {
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
