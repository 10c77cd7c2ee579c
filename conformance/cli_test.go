package conformance_test

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/e2e-conform/toolkit/conformance/report"
	"github.com/e2e-conform/toolkit/internal/testbin"
)

// The suite drives ginkgo, which runs once per process: these tests run the
// e2e-conform binary against engine binaries, all built once per test run.

// testBins are the binaries the tests run, built once.
var testBins = testbin.New("../cmd/e2e-conform", "../fixtures/example/cmd/example-engine", "../fixtures/saboteur/cmd/saboteur")

// bins builds the binaries once and returns their directory.
func bins(t *testing.T) string {
	t.Helper()
	return testBins.Dir(t)
}

// TestMain removes the built binaries and fails the package when a
// goroutine outlives its tests (goleakIgnores lists the ones that may).
func TestMain(m *testing.M) {
	code := m.Run()
	testBins.Remove()
	if code == 0 {
		if err := goleak.Find(goleakIgnores...); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// goleakIgnores are the goroutines that outlive the tests by design:
//
//   - ginkgo's interrupt handler: every RunSpecs (each in-process
//     conformance.Run) makes one with interrupt_handler.NewInterruptHandler
//     and never stops it (ginkgo v2.34.0 core_dsl.go RunSpecs), so its
//     signal goroutine waits for SIGINT until the process ends. It holds
//     nothing of the suite's.
var goleakIgnores = []goleak.Option{
	goleak.IgnoreTopFunction("github.com/onsi/ginkgo/v2/internal/interrupt_handler.(*InterruptHandler).registerForInterrupts.func2"),
}

// conform runs e2e-conform with args and returns its exit code and JSON
// report.
func conform(t *testing.T, args ...string) (int, report.Result, string) {
	t.Helper()
	dir := bins(t)
	reportFile := filepath.Join(t.TempDir(), "report.json")
	cmd := exec.Command(filepath.Join(dir, "e2e-conform"), append(args, "--json", reportFile)...)
	out, _ := cmd.CombinedOutput()
	code := cmd.ProcessState.ExitCode()
	var res report.Result
	if data, err := os.ReadFile(reportFile); err == nil {
		if err := json.Unmarshal(data, &res); err != nil {
			t.Fatalf("report: %v", err)
		}
	}
	return code, res, string(out)
}

// healthyFull is one run of the full profile against the healthy
// saboteur over spawn, shared by the tests that need it (the kill
// matrix's baseline, the unsharded run the shards are compared with): it
// runs once per test binary.
func healthyFull(t *testing.T) (int, report.Result, string) {
	t.Helper()
	healthyOnce.Do(func() {
		healthyCode, healthyRes, healthyOut = conform(t, "--spawn", filepath.Join(bins(t), "saboteur"), "--profile", "full")
	})
	return healthyCode, healthyRes, healthyOut
}

var (
	healthyOnce sync.Once
	healthyCode int
	healthyRes  report.Result
	healthyOut  string
)

func statuses(res report.Result) map[string]report.Status {
	out := map[string]report.Status{}
	for _, r := range res.Requirements {
		out[r.ID] = r.Status
	}
	return out
}

func TestExampleEngineIsConformantOverSpawnAndConnect(t *testing.T) {
	dir := bins(t)
	code, spawned, out := conform(t, "--spawn", filepath.Join(dir, "example-engine"))
	healthy(t, "spawn", code, spawned, out)
	if spawned.Counts[report.Passed] == 0 {
		t.Fatal("nothing passed")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	srv := exec.Command(filepath.Join(dir, "example-engine"), "--listen", addr)
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { srv.Process.Kill(); srv.Wait() }()
	waitListening(t, addr)
	code, connected, out := conform(t, "--connect", addr)
	healthy(t, "connect", code, connected, out)
	// The same verdicts, but for the requirements bound to one transport.
	a, b := statuses(spawned), statuses(connected)
	for id, st := range a {
		if strings.HasPrefix(id, "TRN-") || id == "LIFE-007" || id == "LIFE-008" || id == "LIFE-009" || id == "SIG-011" || id == "MAN-004" {
			continue
		}
		if b[id] != st {
			t.Errorf("%s: %s over spawn, %s over connect", id, st, b[id])
		}
	}
}

// healthy checks the verdict on a healthy engine: nothing failed, and the
// run is conformant, or incomplete only because requirements are not
// verified yet (the suite does not cover the whole catalog yet; this turns
// into "conformant" when it does).
func healthy(t *testing.T, how string, code int, res report.Result, out string) {
	t.Helper()
	if res.Counts[report.Failed] != 0 || res.Counts[report.Passed] == 0 {
		t.Fatalf("%s: %d failed, %d passed\n%s", how, res.Counts[report.Failed], res.Counts[report.Passed], out)
	}
	if code != report.ExitConformant && !(code == report.ExitIncomplete && strings.Contains(res.Reason, "not verified")) {
		t.Fatalf("%s: exit %d (%s)\n%s", how, code, res.Reason, out)
	}
}

func waitListening(t *testing.T, addr string) {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return
		}
		time.Sleep(20 * time.Millisecond) // polling a port the child opens
	}
	t.Fatalf("nothing listens on %s", addr)
}

func TestZeroSpecSelectionIsIncomplete(t *testing.T) {
	dir := bins(t)
	code, res, out := conform(t, "--spawn", filepath.Join(dir, "example-engine"), "--only", "/NO-SUCH-LABEL/") // an expression: a plain unknown name is a usage error (TestUnknownSelectionIsAUsageError)
	if code != report.ExitIncomplete || res.Verdict != "incomplete" {
		t.Fatalf("exit %d, verdict %q\n%s", code, res.Verdict, out)
	}
}

func TestHangingEngineYieldsAFinishedReport(t *testing.T) {
	// sleep never answers initialize.
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Fatalf("sleep: %v", err)
	}
	start := time.Now()
	code, res, out := conform(t, "--spawn", sleep+" 600", "--timeout", "2s")
	if code != report.ExitNonConformant {
		t.Fatalf("exit %d\n%s", code, out)
	}
	if statuses(res)["LIFE-001"] != report.Failed {
		t.Fatalf("LIFE-001 is %s", statuses(res)["LIFE-001"])
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Fatalf("the run took %s", d)
	}
}

func TestEchoingEngineFails(t *testing.T) {
	// cat echoes every request back: never a valid answer.
	cat, err := exec.LookPath("cat")
	if err != nil {
		t.Fatalf("cat: %v", err)
	}
	code, _, out := conform(t, "--spawn", cat, "--timeout", "3s")
	if code != report.ExitNonConformant {
		t.Fatalf("exit %d\n%s", code, out)
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{{}, {"--spawn", "x", "--connect", "h:1"}, {"--profile", "nope", "--spawn", "x"}, {"--bogus"}} {
		code, _, out := conform(t, args...)
		if code != report.ExitUsage {
			t.Errorf("%q: exit %d\n%s", args, code, out)
		}
	}
}
