package vendorkit_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/e2e-conform/toolkit/conformance"
)

// helperEnv selects TestRunTestsHelper's case in a child test binary.
const helperEnv = "VENDORKIT_HELPER"

// TestRunTestsHelper is run by the tests below in a child test binary (a
// RunTests call is once per binary); it does nothing otherwise.
func TestRunTestsHelper(t *testing.T) {
	engine := strings.Fields(os.Getenv("VENDORKIT_ENGINE"))
	switch os.Getenv(helperEnv) {
	case "":
		t.Skip("a child test binary's helper")
	case "twice":
		t.Run("first", func(t *testing.T) {
			conformance.RunTests(t, conformance.Config{Name: "first", Spawn: engine, Only: []string{"WIRE-001"}})
		})
		t.Run("second", func(t *testing.T) {
			if res := conformance.RunTests(t, conformance.Config{Name: "second", Spawn: engine, Only: []string{"WIRE-001"}}); res != nil {
				t.Errorf("a second RunTests returned %v", res)
			}
		})
	case "fault":
		conformance.RunTests(t, conformance.Config{Name: "faulty", Spawn: engine, Only: []string{"LIFE-004"}})
	}
}

// child runs TestRunTestsHelper's case in a child test binary with the
// saboteur (and its args) as the engine, and returns its output.
func child(t *testing.T, helper string, verbose bool, engineArgs ...string) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("go", "build", "-o", dir+"/", "../../fixtures/saboteur/cmd/saboteur").CombinedOutput(); err != nil {
		t.Fatalf("building the saboteur: %v\n%s", err, out)
	}
	args := []string{"-test.run=^TestRunTestsHelper$", "-test.count=1"}
	if verbose {
		args = append(args, "-test.v")
	}
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), helperEnv+"="+helper,
		"VENDORKIT_ENGINE="+strings.Join(append([]string{filepath.Join(dir, "saboteur")}, engineArgs...), " "))
	out, _ := cmd.CombinedOutput()
	return string(out)
}

// TestSecondRunTestsSaysHow: a second RunTests in one test binary fails its
// test with an error that says to pass every configuration to one call,
// not with ginkgo's "calling RunSpecs more than once" in ANSI colours (and
// the binary does not exit in the middle of the tests).
func TestSecondRunTestsSaysHow(t *testing.T) {
	out := child(t, "twice", false)
	t.Logf("child output:\n%s", out)
	for _, want := range []string{"RunTests was already called in this test binary", "pass them all to one call", "--- FAIL: TestRunTestsHelper/second"} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q", want)
		}
	}
	for _, bad := range []string{"more than once", "\x1b[", "--- FAIL: TestRunTestsHelper/first"} {
		if strings.Contains(out, bad) {
			t.Errorf("the output holds %q", bad)
		}
	}
}

// TestFailureOutputIsTheRequirements: without -v, a failing run prints the
// failing requirement and not ginkgo's per-spec stream; with -v, the stream
// too.
func TestFailureOutputIsTheRequirements(t *testing.T) {
	const stream = "Ran 1 of" // ginkgo's closing line of its stream
	quiet := child(t, "fault", false, "--fault", "reinitialize-accepted")
	t.Logf("go test:\n%s", quiet)
	if !strings.Contains(quiet, "faulty: LIFE-004 (MUST) failed") || !strings.Contains(quiet, "--- FAIL: TestRunTestsHelper") {
		t.Errorf("go test does not name the failing requirement")
	}
	if strings.Contains(quiet, stream) || strings.Contains(quiet, "[FAILED]") {
		t.Errorf("go test prints ginkgo's stream")
	}
	if verbose := child(t, "fault", true, "--fault", "reinitialize-accepted"); !strings.Contains(verbose, stream) {
		t.Errorf("go test -v does not print ginkgo's stream:\n%s", verbose)
	}
}

// TestGoDocFindsTheKit: `go doc` of the vendor kit's directory prints the
// package doc that points at the example.
func TestGoDocFindsTheKit(t *testing.T) {
	out, err := exec.Command("go", "doc", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go doc ./conformance/vendorkit: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "conformance.RunTests") {
		t.Errorf("go doc ./conformance/vendorkit does not show the example:\n%s", out)
	}
}
