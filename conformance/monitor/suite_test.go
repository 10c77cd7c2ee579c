package monitor_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSuiteThroughMonitor: the conformance suite (--only one requirement)
// spawns `e2e-conform monitor --judge engine -- saboteur --fault F` as its
// engine. The suite's verdict is unchanged by the monitor in between (the
// healthy saboteur stays conformant, the fault fails its requirement), and
// the monitor names the engine at fault for the same requirement, or
// nothing on the healthy saboteur.
func TestSuiteThroughMonitor(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the suite")
	}
	conform, sab := bins.Path(t, "e2e-conform"), bins.Path(t, "saboteur")
	cases := []struct {
		name, only, fault string
		want              string // "" for no violation
		code              int
	}{
		{"healthy", "WIRE-008,ERR-006", "", "", 0},
		{"error-code-string", "WIRE-008", "error-code-string", "WIRE-008", 1},
		{"empty-error-message", "ERR-006", "empty-error-message", "ERR-006", 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			engine := conform + " monitor --judge engine --json " + filepath.Join(dir, "m-%p.json") + " -- " + sab
			if c.fault != "" {
				engine += " --fault " + c.fault
			}
			cmd := exec.Command(conform, "--only", c.only, "--spawn", engine)
			out, _ := cmd.CombinedOutput()
			if got := cmd.ProcessState.ExitCode(); got != c.code {
				t.Errorf("the suite exited %d through the monitor, want %d:\n%s", got, c.code, out)
			}
			paths, _ := filepath.Glob(filepath.Join(dir, "m-*.json"))
			if len(paths) == 0 {
				t.Fatalf("no monitor report:\n%s", out)
			}
			seen := map[string]bool{}
			for _, p := range paths {
				r := readMonitorReport(t, p)
				for _, v := range r.Monitor.Violations {
					seen[string(v.Side)+" "+v.Requirement] = true
					if c.want == "" {
						t.Errorf("%s: violation on the healthy saboteur: %s %s: %s", filepath.Base(p), v.Side, v.Requirement, v.Message)
					}
				}
				if strings.Contains(r.Verdict, "conformant") {
					t.Errorf("verdict %q", r.Verdict)
				}
			}
			if c.want != "" && !seen["engine "+c.want] {
				t.Errorf("the monitor did not name the engine at fault for %s: %v", c.want, seen)
			}
		})
	}
}
