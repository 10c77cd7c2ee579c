package conformance_test

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/e2e-conform/toolkit/conformance/catalog"
	"github.com/e2e-conform/toolkit/conformance/report"
)

// kioskEngine is the independent engine of shared/ (issue 25 §1): written
// from the public protocol documents by others, in Python's standard
// library, with a kiosk's limits (it shows only its own app, so it stages
// no fixture screen). It is correct as far as anyone here knows.
const kioskEngine = "../../shared/engines/py-kiosk/engine.py"

// kioskKnownDefects lists, in one place, the requirements the kiosk fails
// because the kiosk is wrong, each with the sentence of the spec it
// breaks. The kiosk is not ours to change; an entry here is reported
// (t.Log) on every run; a listed requirement may fail (the run is then
// non-conformant for it alone) or pass (a racy defect need not show).
var kioskKnownDefects = map[string]string{
	// Seen in 1 of about 14 full runs (CI of 2026-12-04): the kiosk's
	// unlock_admin checks that the attempt is open, releases its lock, then
	// writes attempt/resolveSecret; an endAttempt answered in between makes
	// the request arrive after the endAttempt response.
	"S2C-001": "§6.6: attempt/resolveSecret is \"Allowed from the receipt of startAttempt to the endAttempt response\"; the kiosk can write it after its endAttempt response (a race in unlock_admin)",
}

// kioskSecretRaceIDs and kioskSecretRaceReason: the known race of
// S2C-001 (kioskKnownDefects) seen from the secret scenario of S2C-005…008,
// whose request the kiosk wrote after the endAttempt response.
var kioskSecretRaceIDs = []string{"S2C-005", "S2C-006", "S2C-007", "S2C-008"}

const kioskSecretRaceReason = "the server sent no attempt/resolveSecret in the suite's secret scenario"

// python3 returns the path of python3, failing the test when it is
// missing: `make test` installs it (the Makefile's python target).
func python3(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("python3")
	if err != nil {
		t.Fatalf("python3 is needed to run the independent kiosk engine (make test installs it): %v", err)
	}
	return p
}

// kioskListen starts the kiosk on a TCP port it picks and returns its
// address (read from its "listening on HOST:PORT" line, so nothing
// connects before the suite).
func kioskListen(t *testing.T, py, engine string) (string, func()) {
	t.Helper()
	cmd := exec.Command(py, engine, "--listen", "127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stop := func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }
	listening := regexp.MustCompile(`listening on (\S+:\d+)`)
	sc := bufio.NewScanner(stderr)
	addr := ""
	for sc.Scan() {
		if m := listening.FindStringSubmatch(sc.Text()); m != nil {
			addr = m[1]
			break
		}
	}
	if addr == "" {
		stop()
		t.Fatalf("the kiosk did not say where it listens (%v)", sc.Err())
	}
	go func() { _, _ = io.Copy(io.Discard, stderr) }()
	return addr, stop
}

// TestIndependentKioskEngine: the suite judges the kiosk conformant in
// core and never non-conformant in full (exit 0 or 3), over spawn and over
// TCP; no requirement is failed but a listed known defect of the kiosk.
func TestIndependentKioskEngine(t *testing.T) {
	t.Parallel() // a suite-driving test: it mostly waits on engines, so the heavy ones overlap (two at a time: go test -parallel defaults to GOMAXPROCS, and ginkgo refuses an explicit -parallel)
	py := python3(t)
	engine, err := filepath.Abs(kioskEngine)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(engine); err != nil {
		t.Fatalf("the kiosk engine must sit in shared/ beside the repository: %v", err)
	}
	bins(t)
	for id, why := range kioskKnownDefects {
		t.Logf("known defect of the kiosk (not of the suite): %s: %s", id, why)
	}
	runs := []struct {
		profile string
		tcp     bool
	}{{"core", false}, {"core", true}, {"full", false}, {"full", true}}
	for _, run := range runs {
		name := run.profile + "/spawn"
		if run.tcp {
			name = run.profile + "/tcp"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel() // two suite runs at a time (-parallel defaults to GOMAXPROCS)
			args := []string{"--profile", run.profile}
			if run.tcp {
				addr, stop := kioskListen(t, py, engine)
				defer stop()
				args = append(args, "--connect", addr)
			} else {
				args = append(args, "--spawn", py+" "+engine)
			}
			code, res, out := conform(t, args...)
			var failed []string
			for _, r := range res.Requirements {
				if r.Status != report.Failed {
					continue
				}
				if _, known := kioskKnownDefects[r.ID]; !known {
					failed = append(failed, r.ID+": "+r.Reason)
				}
			}
			sort.Strings(failed)
			if len(failed) > 0 {
				t.Errorf("the suite fails the kiosk on %d requirement(s); find the sentence of the spec that forbids what it did, or fix the suite:\n%s", len(failed), strings.Join(failed, "\n"))
			}
			st := statuses(res)
			known := false // a known defect showed: exit 1 is its doing
			for id := range kioskKnownDefects {
				if st[id] == report.Failed {
					known = true
					t.Logf("the known defect of the kiosk showed: %s failed", id)
				}
			}
			// The same race can leave the secret scenario of S2C-005…008
			// without the request (it came after the endAttempt
			// response): not verified, the run incomplete. Any other
			// requirement not verified is the suite's to explain.
			var unverified []string
			secretRace := 0 // requirements the race left not verified
			for _, r := range res.Requirements {
				if r.Status != report.NotVerified || r.Level != string(catalog.Must) {
					continue
				}
				if slices.Contains(kioskSecretRaceIDs, r.ID) && strings.Contains(r.Reason, kioskSecretRaceReason) {
					secretRace++
					t.Logf("the known defect of the kiosk showed: %s not verified: %s", r.ID, r.Reason)
					continue
				}
				unverified = append(unverified, r.ID+": "+r.Reason)
			}
			if len(unverified) > 0 {
				t.Logf("not verified: %s", strings.Join(unverified, "\n"))
			}
			switch {
			case len(res.Requirements) == 0:
				t.Fatalf("exit %d and no report\n%s", code, tail(out))
			case code == report.ExitNonConformant && known && len(failed) == 0:
			case code == report.ExitIncomplete && secretRace > 0 && len(failed) == 0 && incompleteBy(res.Reason) <= secretRace:
				// Incomplete only for the requirements the race left not
				// verified (the others logged above do not make a run
				// incomplete: the verdict's reason counts those that do).
			case run.profile == "core" && code != report.ExitConformant:
				t.Errorf("core: exit %d (%s), want conformant (0)\n%s", code, res.Reason, tail(out))
			case run.profile == "full" && code != report.ExitConformant && code != report.ExitIncomplete:
				t.Errorf("full: exit %d (%s), want 0 or 3, never non-conformant\n%s", code, res.Reason, tail(out))
			}
		})
	}
}

// incompleteRE reads how many applicable MUST requirements left a run
// incomplete from its verdict's reason.
var incompleteRE = regexp.MustCompile(`^(\d+) applicable MUST requirement\(s\) of the \w+ profile not verified`)

// incompleteBy is the number of applicable MUST requirements whose being
// not verified made the run incomplete, by its reason; a reason of
// another shape counts as more than any tolerance.
func incompleteBy(reason string) int {
	m := incompleteRE.FindStringSubmatch(reason)
	if m == nil {
		return int(^uint(0) >> 1)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// tail is the last lines of a run's output (its summary).
func tail(out string) string {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) > 40 {
		lines = lines[len(lines)-40:]
	}
	return strings.Join(lines, "\n")
}
