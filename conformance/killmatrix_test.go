package conformance_test

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/e2e-conform/toolkit/conformance"
	"github.com/e2e-conform/toolkit/fixtures/saboteur"
)

var (
	updateMatrix = flag.Bool("update-kill-matrix", false, "rewrite docs/kill-matrix.md")
	killFaults   = flag.String("kill-faults", "", "comma-separated fault names: run only these (no survivor check); for working on a few faults")
)

// TestKillMatrix is the proof that every spec can fail: the suite against
// the healthy saboteur reports no failure, and against each fault exits 1
// with the fault's requirements among the failures. Every spec that passes
// on the healthy saboteur must be killed by at least one fault.
func TestKillMatrix(t *testing.T) {
	dir := bins(t)
	sab := filepath.Join(dir, "saboteur") // built by bins
	code, healthy, out := healthyFull(t)
	if code != conformance.ExitConformant || healthy.Counts[conformance.Failed] != 0 {
		t.Fatalf("the healthy saboteur is not conformant over spawn (exit %d):\n%s", code, out)
	}
	stop := listen(t, sab)
	code, overSocket, out := conform(t, "--connect", stop.addr, "--profile", "full")
	stop.close()
	if code != conformance.ExitConformant || overSocket.Counts[conformance.Failed] != 0 {
		t.Fatalf("the healthy saboteur is not conformant over socket (exit %d):\n%s", code, out)
	}
	passing := map[string]bool{}
	for _, res := range []conformance.Result{healthy, overSocket} {
		for _, s := range res.Specs {
			if s.Status == conformance.Passed {
				passing[s.Text] = true
			}
		}
	}
	killedBy := map[string][]string{} // spec -> faults
	var mu sync.Mutex
	faults := saboteur.Faults()
	if *killFaults != "" {
		want := map[string]bool{}
		for _, n := range strings.Split(*killFaults, ",") {
			want[strings.TrimSpace(n)] = true
		}
		var sel []saboteur.Fault
		for _, f := range faults {
			if want[f.Name] {
				sel = append(sel, f)
				delete(want, f.Name)
			}
		}
		if len(want) > 0 {
			t.Fatalf("-kill-faults names unknown faults: %v", want)
		}
		faults = sel
	}
	sem := make(chan struct{}, 2)
	var wg sync.WaitGroup
	for _, f := range faults {
		f := f
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			// Only the fault's own requirements: the run-wide checks draw
			// the traffic they judge themselves (exercise.go), and the
			// "when it sends" requirements provoke what they need, so a
			// selection as narrow as a vendor's --only must still kill.
			only := []string{"--only", strings.Join(f.Requirements, ",")}
			// A fault that stalls fails its spec, fast; the budget stays
			// above the slowest healthy spec under load (SIG-005 waits out
			// the 5 s slow page once), so no spec is "killed" by the budget.
			only = append(only, "--timeout", "15s")
			start := time.Now()
			defer func() { t.Logf("fault %s: %s", f.Name, time.Since(start).Round(time.Millisecond)) }()
			var code int
			var res conformance.Result
			var out string
			if f.Layer == saboteur.LayerProcess && strings.HasPrefix(f.Requirements[0], "TRN-00") && f.Requirements[0] >= "TRN-003" {
				l := listen(t, sab, "--fault", f.Name)
				code, res, out = conform(t, append([]string{"--connect", l.addr, "--profile", "full"}, only...)...)
				l.close()
			} else {
				code, res, out = conform(t, append([]string{"--spawn", sab + " --fault " + f.Name, "--profile", "full"}, only...)...)
			}
			want := conformance.ExitNonConformant
			if f.Level == "SHOULD" {
				want = conformance.ExitConformant
			}
			if code != want {
				t.Errorf("fault %s: exit %d, want %d\n%s", f.Name, code, want, out)
			}
			failed := map[string]bool{}
			for _, r := range res.Requirements {
				if r.Status == conformance.Failed {
					failed[r.ID] = true
				}
			}
			for _, id := range f.Requirements {
				if !failed[id] {
					t.Errorf("fault %s does not fail %s", f.Name, id)
				}
			}
			mu.Lock()
			for _, s := range res.Specs {
				if s.Status == conformance.Failed {
					killedBy[s.Text] = append(killedBy[s.Text], f.Name)
				}
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	var alive []string
	for s := range passing {
		if len(killedBy[s]) == 0 {
			alive = append(alive, s)
		}
	}
	sort.Strings(alive)
	writeMatrix(t, healthy, killedBy)
	if len(alive) > 0 && *killFaults == "" {
		t.Errorf("%d of %d specs are killed by no fault:\n  %s", len(alive), len(passing), strings.Join(alive, "\n  "))
	}
}

// listening is a saboteur serving TCP for one run.
type listening struct {
	addr  string
	close func()
}

func listen(t *testing.T, sab string, args ...string) listening {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cmd := exec.Command(sab, append([]string{"--listen", addr}, args...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait for the saboteur to say it listens, without connecting: a
	// probe connection would count as the first one (one-shot-listener).
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if strings.Contains(sc.Text(), "listening on") {
			break
		}
	}
	go io.Copy(io.Discard, stderr)
	return listening{addr: addr, close: func() { cmd.Process.Kill(); cmd.Wait() }}
}

// writeMatrix renders requirement -> specs -> faults into docs/kill-matrix.md
// when the test runs with -update-kill-matrix.
func writeMatrix(t *testing.T, healthy conformance.Result, killedBy map[string][]string) {
	var b strings.Builder
	b.WriteString("# Kill matrix\n\nGenerated by `make kill-matrix` (TestKillMatrix): for each requirement, the specs that check it and the\nsaboteur faults (`fixtures/saboteur`) that make each spec fail. A spec no fault kills fails the test.\n\n")
	b.WriteString("| Requirement | Spec | Killed by |\n| --- | --- | --- |\n")
	for _, r := range healthy.Requirements {
		for _, s := range r.Specs {
			k := killedBy[s]
			sort.Strings(k)
			fmt.Fprintf(&b, "| %s | %s | %s |\n", r.ID, s, strings.Join(k, ", "))
		}
	}
	// The matrix is regenerated by make kill-matrix; the test does not
	// compare it, since which faults kill a spec as a side effect varies
	// between runs. What it checks is above: every fault fails its
	// requirements and every spec is killed.
	if *updateMatrix {
		if err := os.WriteFile("../docs/kill-matrix.md", []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
