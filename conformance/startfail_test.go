package conformance_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/e2e-conform/toolkit/conformance/report"
)

// TestEngineThatNeverStartedIsAHarnessError: an engine that exits before
// answering its first initialize, having written nothing (`python3
// engin.py`, a misspelt script), is a harness error (exit 4) naming its
// exit status and last stderr lines, and LIFE-001 is not failed. An engine
// that wrote bytes before exiting, or that exits mid-run after it was
// initialized (the saboteur's reuse-abort-exits), is judged as before.
func TestEngineThatNeverStartedIsAHarnessError(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "engin.py")
	code, res, out := conform(t, "--spawn", "python3 "+missing)
	if code != report.ExitHarness || res.Verdict != "harness error" ||
		!strings.Contains(res.Reason, "exited before answering its first initialize") ||
		!strings.Contains(res.Reason, "exited with status 2") || !strings.Contains(res.Reason, "engin.py") {
		t.Errorf("python3 %s: exit %d, verdict %q (%s); want exit 4 naming the exit status and stderr\n%s", missing, code, res.Verdict, res.Reason, out)
	}
	for _, r := range res.Requirements {
		if r.Status == report.Failed {
			t.Errorf("python3 %s: %s failed (%s); an engine that never started fails nothing", missing, r.ID, r.Reason)
		}
	}

	if code, res, out := conform(t, "--spawn", "sh -c 'printf garbage; exit 3'"); code != report.ExitNonConformant {
		t.Errorf("an engine that wrote garbage and exited: exit %d, verdict %q (%s); want non-conformant as before\n%s", code, res.Verdict, res.Reason, out)
	}

	sab := filepath.Join(bins(t), "saboteur") + " --fault reuse-abort-exits"
	code, res, out = conform(t, "--spawn", sab, "--only", "SIG-011")
	failed := false
	for _, r := range res.Requirements {
		failed = failed || r.ID == "SIG-011" && r.Status == report.Failed
	}
	if code != report.ExitNonConformant || !failed {
		t.Errorf("%s --only SIG-011 (exits mid-run): exit %d, SIG-011 failed %v; want exit 1 and SIG-011 failed as before\n%s", sab, code, failed, out)
	}
}
