package conformance_test

import (
	"flag"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/e2e-conform/toolkit/conformance/catalog"
	"github.com/e2e-conform/toolkit/conformance/report"
	"github.com/e2e-conform/toolkit/fixtures/saboteur"
)

// Selection invariance: a requirement's verdict does not depend on the
// selection that ran it. For a fault, every requirement its full run
// fails must fail under `--only` that requirement and under `--only` its
// area; for the healthy saboteur, every requirement its full run passes
// must pass (or be not verified) under `--only` it. make kill-matrix
// checks every fault (TestKillMatrix with -update-kill-matrix, or
// -kill-only with -kill-faults while working on a few);
// TestSelectionInvariance checks a bounded sample on every make test.

var (
	killOnly       = flag.Bool("kill-only", false, "with TestKillMatrix: also check selection invariance (--only) of every fault run (implied by -update-kill-matrix)")
	killNoOnly     = flag.Bool("kill-no-only", false, "with -update-kill-matrix: skip the --only pass (its column then reads \"not run\"), for a quick rewrite of the matrix")
	invarianceArg  = flag.String("invariance-faults", "", "TestSelectionInvariance: comma-separated fault names to check instead of the sample")
	invarianceRuns = flag.Int("invariance-parallel", 4, "suite runs at a time in the kill matrix and its --only invariance check (make kill-matrix sets KILL_PARALLEL; the runs mostly wait, so more than the cores pays)")
)

// invarianceSample is TestSelectionInvariance's faults, each once a
// violation or near one: a run-wide error fault whose misspelt code only
// LIFE-012 and LIFE-019 traffic drew before the run-wide workload drew it
// too, one whose error only a fixture screen draws (the workload's fixture
// part), and a SHOULD fault of an ordinary spec.
var invarianceSample = []string{"invalid-state-misspelt", "retryable-not-actionable", "overlapping-attempt-accepted"}

// invarianceHealthySample is the requirements of the healthy saboteur
// TestSelectionInvariance runs alone: run-wide ones (the workload alone
// must not fail a healthy engine) and ordinary ones.
var invarianceHealthySample = []string{"ERR-002", "ERR-004", "WIRE-013", "S2C-001", "LIFE-012", "LIFE-019"}

// onlyVerdict is the selection invariance of one fault.
type onlyVerdict struct {
	fault string
	// full lists the requirements the fault's full run failed, sorted.
	full []string
	// killed holds the requirements that also failed under `--only` the
	// requirement alone.
	killed map[string]bool
	// escapes says, for each selection that let a requirement of full
	// pass, what it reported instead.
	escapes []string
	// took is the time the fault's runs took together.
	took time.Duration
}

// runner runs the suite against a saboteur, at most cap(sem) runs at a
// time.
type runner struct {
	t   *testing.T
	sab string
	sem chan struct{}
}

// run is one run of the full profile against the saboteur with args
// (--fault, --quirk) and the extra flags of the suite, over TCP for the
// faults of TRN-003 and later (as TestKillMatrix).
func (r runner) run(f *saboteur.Fault, extra ...string) (int, report.Result, string) {
	r.sem <- struct{}{}
	defer func() { <-r.sem }()
	// The budget of TestKillMatrix: above the slowest healthy spec under
	// load, so that no spec is "killed" by the budget.
	extra = append([]string{"--profile", "full", "--timeout", "15s"}, extra...)
	if f == nil {
		return conform(r.t, append([]string{"--spawn", r.sab}, extra...)...)
	}
	if runsOverSocket(*f) {
		l := listen(r.t, r.sab, "--fault", f.Name)
		defer l.close()
		return conform(r.t, append([]string{"--connect", l.addr}, extra...)...)
	}
	return conform(r.t, append([]string{"--spawn", r.sab + " --fault " + f.Name}, extra...)...)
}

// failedIn lists the requirements res failed, sorted.
func failedIn(res report.Result) []string { return withStatus(res, report.Failed) }

// passedIn lists the requirements res passed, sorted.
func passedIn(res report.Result) []string { return withStatus(res, report.Passed) }

// withStatus lists the requirements res gives status st, sorted.
func withStatus(res report.Result, st report.Status) []string {
	var out []string
	for _, req := range res.Requirements {
		if req.Status == st {
			out = append(out, req.ID)
		}
	}
	sort.Strings(out)
	return out
}

// runsOverSocket reports whether the kill matrix runs fault f over --connect:
// the process faults of TRN-003 and later show only on a socket server.
func runsOverSocket(f saboteur.Fault) bool {
	return f.Layer == saboteur.LayerProcess && strings.HasPrefix(f.Requirements[0], "TRN-00") && f.Requirements[0] >= "TRN-003"
}

// areaOf is the catalog area of requirement id ("ERR" for ERR-002).
func areaOf(id string) string {
	if r, ok := catalog.Lookup(id); ok {
		return r.Area
	}
	a, _, _ := strings.Cut(id, "-")
	return a
}

// onlySelections are the selections a full run's failures are checked
// under: each failed requirement alone, then each area that holds one,
// with the failures each must reproduce.
func onlySelections(full []string) (sels []string, want map[string][]string) {
	want = map[string][]string{}
	for _, id := range full {
		sels = append(sels, id)
		want[id] = []string{id}
	}
	var areas []string
	for _, id := range full {
		a := areaOf(id)
		if _, seen := want[a]; !seen {
			areas = append(areas, a)
		}
		want[a] = append(want[a], id)
	}
	return append(sels, areas...), want
}

// checkFault runs fault f in full, then under each selection of
// onlySelections, in parallel as r allows.
func (r runner) checkFault(f saboteur.Fault) onlyVerdict {
	start := time.Now()
	v := onlyVerdict{fault: f.Name, killed: map[string]bool{}}
	_, fullRes, out := r.run(&f)
	v.full = failedIn(fullRes)
	if len(fullRes.Requirements) == 0 {
		v.escapes = append(v.escapes, "the full run wrote no report:\n"+out)
	}
	sels, want := onlySelections(v.full)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, sel := range sels {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, res, _ := r.run(&f, "--only", sel)
			mu.Lock()
			defer mu.Unlock()
			for _, id := range want[sel] {
				st := statuses(res)[id]
				if st == report.Failed {
					if sel == id {
						v.killed[id] = true
					}
					continue
				}
				v.escapes = append(v.escapes, fmt.Sprintf("%s: the full run fails it, --only %s reports it %s%s", id, sel, orNone(string(st)), reasonOf(res, id)))
			}
		}()
	}
	wg.Wait()
	sort.Strings(v.escapes)
	v.took = time.Since(start)
	return v
}

// checkHealthy runs each of ids, which the healthy saboteur's full run
// passes, alone: each must pass or be not verified. It returns what broke
// the rule.
func (r runner) checkHealthy(ids []string) []string {
	var out []string
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, res, _ := r.run(nil, "--only", id)
			if st := statuses(res)[id]; st != report.Passed && st != report.NotVerified {
				mu.Lock()
				out = append(out, fmt.Sprintf("%s: the healthy saboteur's full run passes it, --only %s reports it %s", id, id, orNone(string(st))))
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	sort.Strings(out)
	return out
}

// reasonOf is ": " and the reason res gives for requirement id, cut to
// 300 bytes, "" when it gives none.
func reasonOf(res report.Result, id string) string {
	for _, r := range res.Requirements {
		if r.ID == id && r.Reason != "" {
			if len(r.Reason) > 300 {
				return ": " + r.Reason[:300] + "…"
			}
			return ": " + r.Reason
		}
	}
	return ""
}

// orNone is s, or "(no row)" when it is empty.
func orNone(s string) string {
	if s == "" {
		return "(no row)"
	}
	return s
}

// checkOnlyInvariance checks every fault of faults and, when healthyIDs is
// not empty, those requirements of the healthy saboteur; it reports every
// escape as a test error and returns the verdicts by fault.
func checkOnlyInvariance(t *testing.T, sab string, faults []saboteur.Fault, healthyIDs []string) map[string]onlyVerdict {
	r := runner{t: t, sab: sab, sem: make(chan struct{}, max(1, *invarianceRuns))}
	start := time.Now()
	out := map[string]onlyVerdict{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, f := range faults {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v := r.checkFault(f)
			t.Logf("--only invariance of %s: %s, full run failed %v", f.Name, v.took.Round(time.Millisecond), v.full)
			for _, e := range v.escapes {
				t.Errorf("fault %s: %s", f.Name, e)
			}
			mu.Lock()
			out[f.Name] = v
			mu.Unlock()
		}()
	}
	var healthy []string
	if len(healthyIDs) > 0 {
		wg.Add(1)
		go func() { defer wg.Done(); healthy = r.checkHealthy(healthyIDs) }()
	}
	wg.Wait()
	for _, e := range healthy {
		t.Error(e)
	}
	t.Logf("--only invariance: %d faults, %d healthy requirements in %s", len(faults), len(healthyIDs), time.Since(start).Round(time.Second))
	return out
}

// onlyColumn is the kill matrix's `--only` cell of requirement id: the
// faults whose full run fails id that fail it under `--only` id too, then
// those that do not.
func onlyColumn(id string, verdicts map[string]onlyVerdict) string {
	if verdicts == nil {
		return "not run"
	}
	var kills, escapes []string
	for name, v := range verdicts {
		if !slices.Contains(v.full, id) {
			continue
		}
		if v.killed[id] {
			kills = append(kills, name)
		} else {
			escapes = append(escapes, name)
		}
	}
	sort.Strings(kills)
	sort.Strings(escapes)
	cell := strings.Join(kills, ", ")
	if len(escapes) > 0 {
		cell += " **escape: " + strings.Join(escapes, ", ") + "**"
	}
	return strings.TrimSpace(cell)
}

// TestSelectionInvariance is the bounded sample of the selection
// invariance make kill-matrix checks for every fault: a few faults
// (invarianceSample, or -invariance-faults) run in full and under `--only`
// each requirement they fail and its area, and a few requirements the
// healthy saboteur passes run alone.
func TestSelectionInvariance(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the suite against the saboteur")
	}
	t.Parallel() // a suite-driving test: it mostly waits on engines, so the heavy ones overlap (two at a time: go test -parallel defaults to GOMAXPROCS, and ginkgo refuses an explicit -parallel)
	names := invarianceSample
	if *invarianceArg != "" {
		names = strings.Split(*invarianceArg, ",")
	}
	var faults []saboteur.Fault
	for _, n := range names {
		f, ok := saboteur.LookupFault(strings.TrimSpace(n))
		if !ok {
			t.Fatalf("unknown fault %q", n)
		}
		faults = append(faults, f)
	}
	_, healthy, _ := healthyFull(t)
	passing := passedIn(healthy)
	var ids []string
	for _, id := range invarianceHealthySample {
		if slices.Contains(passing, id) {
			ids = append(ids, id)
		}
	}
	verdicts := checkOnlyInvariance(t, filepath.Join(bins(t), "saboteur"), faults, ids)
	// The sample is not vacuous: each fault fails something in full and
	// under --only.
	for _, f := range faults {
		if v := verdicts[f.Name]; len(v.killed) == 0 {
			t.Errorf("fault %s: no requirement failed under --only (full run failed %v)", f.Name, v.full)
		}
	}
}

func TestOnlySelections(t *testing.T) {
	sels, want := onlySelections([]string{"ERR-002", "LIFE-012", "WIRE-013", "WIRE-008"})
	if got := strings.Join(sels, ","); got != "ERR-002,LIFE-012,WIRE-013,WIRE-008,ERR,LIFE,WIRE" {
		t.Errorf("selections %s", got)
	}
	if got := strings.Join(want["WIRE"], ","); got != "WIRE-013,WIRE-008" {
		t.Errorf("WIRE must reproduce %s", got)
	}
	verdicts := map[string]onlyVerdict{
		"a": {full: []string{"ERR-002"}, killed: map[string]bool{"ERR-002": true}},
		"b": {full: []string{"ERR-002"}, killed: map[string]bool{}},
		"c": {full: []string{"WIRE-013"}, killed: map[string]bool{"WIRE-013": true}},
	}
	if got := onlyColumn("ERR-002", verdicts); got != "a **escape: b**" {
		t.Errorf("onlyColumn = %q", got)
	}
	if got := onlyColumn("LIFE-001", verdicts); got != "" {
		t.Errorf("onlyColumn of an unfailed requirement = %q", got)
	}
}

// TestEnvelopeBreakLeavesRunWideViolations: a client connection broken at
// a malformed envelope (the fixture workload's, full profile) does not
// excuse a run-wide check whose violations were recorded frame by frame:
// --only ERR-005 and --only ERR-006 fail the error-object faults as the
// full run does (the kill matrix's --only pass found them not verified).
func TestEnvelopeBreakLeavesRunWideViolations(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the suite against the saboteur")
	}
	sab := filepath.Join(bins(t), "saboteur")
	for _, tc := range []struct{ fault, id string }{
		{"error-code-string", "ERR-005"},
		{"error-message-object", "ERR-006"},
		{"error-code-string", "WIRE-013"},
	} {
		_, res, out := conform(t, "--profile", "full", "--only", tc.id, "--spawn", sab+" --fault "+tc.fault)
		if st := statuses(res)[tc.id]; st != report.Failed {
			t.Errorf("--only %s against %s: %s, want failed\n%s", tc.id, tc.fault, st, out)
		}
	}
}
