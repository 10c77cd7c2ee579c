// Package vendorkit_test shows and checks the vendor kit: the conformance
// suite run inside an engine vendor's own `go test`, against two
// configurations of one engine (spawned, and over TCP).
package vendorkit_test

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/e2e-conform/toolkit/conformance"
	"github.com/e2e-conform/toolkit/conformance/report"
)

func TestVendorKit(t *testing.T) {
	dir := t.TempDir()
	if out, err := exec.Command("go", "build", "-o", dir+"/", "../../fixtures/example/cmd/example-engine", "../../fixtures/saboteur/cmd/saboteur").CombinedOutput(); err != nil {
		t.Fatalf("building the example engine and the saboteur: %v\n%s", err, out)
	}
	engine := filepath.Join(dir, "example-engine")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	ctx, cancel := context.WithCancel(context.Background())
	srv := exec.CommandContext(ctx, engine, "--listen", addr)
	srv.Stderr = os.Stderr
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cancel(); srv.Wait() }()
	for deadline := time.Now().Add(10 * time.Second); ; {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the engine does not listen on %s", addr)
		}
		time.Sleep(20 * time.Millisecond) // polling a port the child opens
	}
	results := conformance.RunTests(t,
		conformance.Config{Name: "example engine over stdio", Spawn: []string{engine}},
		conformance.Config{Name: "example engine over TCP, WIRE and LIFE only", Connect: addr, Only: []string{"WIRE", "LIFE"}, Skip: []string{"LIFE-016"}},
		// A known bug, in the baseline: the test does not fail for it.
		conformance.Config{Name: "an engine with a known bug", Spawn: []string{filepath.Join(dir, "saboteur"), "--fault", "reinitialize-accepted"},
			Only: []string{"LIFE-004"}, ExpectedFailures: map[string]string{"LIFE-004": "a second initialize is accepted (bug 12)"}})
	if len(results) != 3 {
		t.Fatalf("%d results, want one per configuration", len(results))
	}
	for _, res := range results {
		if res.Verdict != "conformant" {
			t.Errorf("%s: verdict %s (%s), want conformant", res.Engine, res.Verdict, res.Reason)
		}
	}
	// The second configuration's Only and Skip select its specs: nothing
	// outside WIRE and LIFE ran, LIFE-016 did not, and both areas did.
	ran := map[string]bool{}
	for _, s := range results[1].Specs {
		if s.Status == report.NotSelected {
			continue
		}
		for _, id := range s.Requirements {
			ran[id] = true
			if !strings.HasPrefix(id, "WIRE-") && !strings.HasPrefix(id, "LIFE-") || id == "LIFE-016" {
				t.Errorf("the TCP configuration ran %q (%s), outside its selection", s.Text, id)
			}
		}
	}
	if !ran["WIRE-001"] || !ran["LIFE-001"] {
		t.Errorf("the TCP configuration did not run its selection: %v", ran)
	}
	for _, rr := range results[2].Requirements {
		if rr.ID == "LIFE-004" && (rr.Status != report.ExpectedFailure || rr.Baseline != "a second initialize is accepted (bug 12)") {
			t.Errorf("the known bug's LIFE-004 is %s (baseline %q), want an expected failure", rr.Status, rr.Baseline)
		}
	}
	if results[0].Counts[report.NotSelected] >= results[1].Counts[report.NotSelected] {
		t.Errorf("the stdio configuration (everything) has %d not selected, the selective one %d", results[0].Counts[report.NotSelected], results[1].Counts[report.NotSelected])
	}
}
