package main

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/e2e-conform/toolkit/conformance/report"
)

// An engine that cannot be started or reached is a harness error (exit
// 4) naming why, not a non-conformant engine: nothing of it was seen.
func TestUnreachableEngineIsAHarnessError(t *testing.T) {
	dir := t.TempDir()
	notExec := filepath.Join(dir, "engine")
	if err := os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close() // nothing listens there any more
	cases := []struct {
		name string
		args []string
		why  string
	}{
		{"not found", []string{"--spawn", filepath.Join(dir, "no-such-engine")}, "not found"},
		{"not executable", []string{"--spawn", notExec}, "not executable"},
		{"connection refused", []string{"--connect", closed}, "refused"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(filepath.Join(bins(t), "e2e-conform"), c.args...)
			out, _ := cmd.CombinedOutput()
			if code := cmd.ProcessState.ExitCode(); code != report.ExitHarness {
				t.Errorf("exit %d, want %d (harness error)\n%s", code, report.ExitHarness, out)
			}
			if !strings.Contains(string(out), "verdict: harness error (the engine could not be started or reached: ") || !strings.Contains(string(out), c.why) {
				t.Errorf("the verdict does not name why (%q):\n%s", c.why, out)
			}
		})
	}
}
