package main

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/e2e-conform/toolkit/conformance/report"
)

// TestRunTimeoutLeavesNothing: the engine leaves a grandchild behind that
// calls setsid (a session and process group of its own: no group kill
// reaches it) and goes on writing into the run's e2e-conform-* directory
// after the suite removed it, and the run is cut by its run timeout. Once
// e2e-conform has exited (incomplete), no process of the engine's tree is
// left (e2e-conform is a child subreaper and ends what it adopted) and
// TMPDIR holds nothing.
func TestRunTimeoutLeavesNothing(t *testing.T) {
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		t.Skip("needs /proc")
	}
	setsid, err := exec.LookPath("setsid")
	if err != nil {
		t.Skip("no setsid command")
	}
	var b [8]byte
	rand.Read(b[:])
	marker := "E2E_LEFTOVER_MARKER=" + hex.EncodeToString(b[:])
	tmp, env := privateTmp(t)
	t.Cleanup(func() { // when the test fails: the writers are this test's
		for _, p := range marked(marker) {
			if pid, err := strconv.Atoi(strings.Fields(p)[0]); err == nil {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	// The engine: a writer (setsid, orphaned at once: its subshell exits)
	// that waits for the run's directory and recreates a directory in it
	// every 20 ms; then the saboteur.
	script := filepath.Join(t.TempDir(), "engine.sh")
	body := `#!/bin/sh
( ` + setsid + ` sh -c 'while :; do for d in "$E2E_RUN_TMP"/e2e-conform-* "$E2E_RUN_TMP"/*/e2e-conform-*; do [ -d "$d" ] && break; done; [ -d "$d" ] && break; sleep 0.02; done; while :; do mkdir -p "$d/late"; sleep 0.02; done' </dev/null >/dev/null 2>&1 & )
exec "$SABOTEUR"
`
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(bins(t), "e2e-conform"), "--spawn", script, "--profile", "full", "--run-timeout", "3s",
		"--env", marker, "--env", "E2E_RUN_TMP="+tmp, "--env", "SABOTEUR="+filepath.Join(bins(t), "saboteur"))
	cmd.Env = append(os.Environ(), env...)
	out, exited := startCmd(t, cmd)
	if !waitFor(30*time.Second, func() bool {
		for _, p := range marked(marker) {
			if strings.HasSuffix(p, " sh") {
				return true
			}
		}
		return false
	}) {
		t.Fatalf("the engine's writer did not start\n%s", out.String())
	}
	select {
	case <-exited:
	case <-time.After(killGrace + 60*time.Second):
		t.Fatalf("e2e-conform did not exit\n%s", out.String())
	}
	if code := cmd.ProcessState.ExitCode(); code != report.ExitIncomplete {
		t.Errorf("exit %d, want %d (incomplete)\n%s", code, report.ExitIncomplete, out.String())
	}
	// e2e-conform killed and reaped what it adopted before it exited.
	if left := marked(marker); len(left) != 0 {
		t.Errorf("left running after e2e-conform exited: %v", left)
	}
	emptyDir(t, tmp)
}
