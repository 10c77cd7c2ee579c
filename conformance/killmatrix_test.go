package conformance_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/e2e-conform/toolkit/conformance/report"
	"github.com/e2e-conform/toolkit/fixtures/saboteur"
	"github.com/e2e-conform/toolkit/internal/testbin"
)

var (
	updateMatrix = flag.Bool("update-kill-matrix", false, "rewrite docs/kill-matrix.md")
	killFaults   = flag.String("kill-faults", "", "comma-separated fault names: run only these (no survivor check); for working on a few faults")
	killExplain  = flag.String("kill-explanations", "", "write every fault's failed requirements with their likely cause, sent line and reason to this file (tab-separated), for auditing the explanations")
)

// TestKillMatrix is the proof that every spec can fail: the suite against
// the healthy saboteur reports no failure, and against each fault exits 1
// with the fault's requirements among the failures. Every spec that passes
// on the healthy saboteur must be killed by at least one fault.
func TestKillMatrix(t *testing.T) {
	t.Parallel() // a suite-driving test: it mostly waits on engines, so the heavy ones overlap (two at a time: go test -parallel defaults to GOMAXPROCS, and ginkgo refuses an explicit -parallel)
	dir := bins(t)
	sab := filepath.Join(dir, "saboteur") // built by bins
	code, healthy, out := healthyFull(t)
	if code != report.ExitConformant || healthy.Counts[report.Failed] != 0 {
		t.Fatalf("the healthy saboteur is not conformant over spawn (exit %d):\n%s", code, out)
	}
	stop := listen(t, sab)
	code, overSocket, out := conform(t, "--connect", stop.addr, "--profile", "full")
	stop.close()
	if code != report.ExitConformant || overSocket.Counts[report.Failed] != 0 {
		t.Fatalf("the healthy saboteur is not conformant over socket (exit %d):\n%s", code, out)
	}
	passing := map[string]bool{}
	for _, res := range []report.Result{healthy, overSocket} {
		for _, s := range res.Specs {
			if s.Status == report.Passed {
				passing[s.Text] = true
			}
		}
	}
	killedBy := map[string][]string{} // spec -> faults
	var explained []string            // -kill-explanations rows
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
	sem := make(chan struct{}, max(1, *invarianceRuns))
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
			var res report.Result
			var out string
			if runsOverSocket(f) {
				l := listen(t, sab, "--fault", f.Name)
				code, res, out = conform(t, append([]string{"--connect", l.addr, "--profile", "full"}, only...)...)
				l.close()
			} else {
				code, res, out = conform(t, append([]string{"--spawn", sab + " --fault " + f.Name, "--profile", "full"}, only...)...)
			}
			want := report.ExitNonConformant
			if f.Level == "SHOULD" {
				want = report.ExitConformant
			}
			if code != want {
				t.Errorf("fault %s: exit %d, want %d\n%s", f.Name, code, want, out)
			}
			failed := map[string]bool{}
			for _, r := range res.Requirements {
				if r.Status == report.Failed {
					failed[r.ID] = true
				}
			}
			for _, id := range f.Requirements {
				if !failed[id] {
					t.Errorf("fault %s does not fail %s", f.Name, id)
				}
			}
			for _, msg := range explanationFaults(f.Name, res) {
				t.Errorf("fault %s: %s", f.Name, msg)
			}
			mu.Lock()
			for _, r := range res.Requirements {
				if r.Status == report.Failed && r.Explanation != nil {
					explained = append(explained, explanationRow(f.Name, r.ID, r.Explanation.LikelyCause, r.Explanation.Sent, r.Reason))
				}
			}
			for _, s := range res.Specs {
				if s.Status == report.Failed {
					killedBy[s.Text] = append(killedBy[s.Text], f.Name)
				}
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	if *killExplain != "" {
		sort.Strings(explained)
		if err := os.WriteFile(*killExplain, []byte(strings.Join(explained, "\n")+"\n"), 0o644); err != nil {
			t.Errorf("-kill-explanations: %v", err)
		}
	}
	var alive []string
	for s := range passing {
		if len(killedBy[s]) == 0 {
			alive = append(alive, s)
		}
	}
	sort.Strings(alive)
	specReqs := specRequirements(healthy)
	if only := collateralOnly(specReqs, killedBy); len(only) > 0 {
		t.Logf("%d specs are killed only by faults that name none of their requirements (collateral kills):\n  %s", len(only), strings.Join(only, "\n  "))
	}
	var only map[string]onlyVerdict
	if (*killOnly || *updateMatrix) && !*killNoOnly {
		// Selection invariance (invariance_test.go): each fault's full
		// run, then --only each requirement it failed and its area; the
		// healthy saboteur's passing requirements alone (all of them
		// only for the whole matrix).
		var ids []string
		if *killFaults == "" {
			ids = passedIn(healthy)
		}
		only = checkOnlyInvariance(t, sab, faults, ids)
	}
	writeMatrix(t, healthy, specReqs, killedBy, only)
	if len(alive) > 0 && *killFaults == "" {
		t.Errorf("%d of %d specs are killed by no fault:\n  %s", len(alive), len(passing), strings.Join(alive, "\n  "))
	}
}

// matrixHeader opens docs/kill-matrix.md.
const matrixHeader = "# Kill matrix\n\nGenerated by `make kill-matrix` (TestKillMatrix): for each requirement, the specs that check it and the\n" +
	"saboteur faults (`fixtures/saboteur`) that make each spec fail. A kill is *targeted* when the fault names\n" +
	"(in the saboteur's registry) a requirement the spec checks, *collateral* when it names none of them.\n" +
	"A spec no fault kills fails the test.\n\n" +
	"*Kills under `--only`* lists the faults whose full run (the full profile, no selection) fails the requirement\n" +
	"and which fail it again when `--only` selects the requirement alone (and its area); a fault that does not is\n" +
	"marked **escape** and fails the test (selection invariance, conformance/invariance_test.go). *not run*: the\n" +
	"matrix was rewritten with `-kill-no-only` (the `--only` pass over every fault costs about an hour (64 min) on\n" +
	"2 cores; `make kill-matrix` runs it).\n\n" +
	"| Requirement | Spec | Targeted kills | Collateral kills | Kills under `--only` |\n| --- | --- | --- | --- | --- |\n"

// listening is a saboteur serving TCP for one run.
type listening struct {
	addr  string
	close func()
}

// listen starts the saboteur sab on a TCP port with args (testbin.Listen);
// the caller closes it.
func listen(t *testing.T, sab string, args ...string) listening {
	t.Helper()
	l := testbin.Listen(t, sab, args...)
	return listening{addr: l.Addr, close: l.Close}
}

// killKind says whether a fault that failed a spec was meant to.
type killKind int

const (
	// targeted: the fault names (in the saboteur's registry,
	// saboteur.Fault.Requirements) a requirement the spec checks.
	targeted killKind = iota
	// collateral: the fault names none of the spec's requirements; the
	// spec failed as a side effect of a fault aimed elsewhere.
	collateral
)

func (k killKind) String() string {
	if k == targeted {
		return "targeted"
	}
	return "collateral"
}

// classifyKill is the kind of the kill of a spec checking specReqs by the
// fault named fault. A name the registry does not hold targets nothing.
func classifyKill(fault string, specReqs []string) killKind {
	f, ok := saboteur.LookupFault(fault)
	if !ok {
		return collateral
	}
	for _, id := range f.Requirements {
		if slices.Contains(specReqs, id) {
			return targeted
		}
	}
	return collateral
}

// splitKills sorts the faults that killed a spec checking specReqs into
// the targeted and the collateral ones, each in name order.
func splitKills(specReqs, faults []string) (aimed, side []string) {
	for _, f := range faults {
		if classifyKill(f, specReqs) == targeted {
			aimed = append(aimed, f)
		} else {
			side = append(side, f)
		}
	}
	sort.Strings(aimed)
	sort.Strings(side)
	return aimed, side
}

// specRequirements maps each spec of res to the requirements it checks.
func specRequirements(res report.Result) map[string][]string {
	out := map[string][]string{}
	for _, s := range res.Specs {
		out[s.Text] = s.Requirements
	}
	return out
}

// collateralOnly lists, in order, the specs some fault killed but none
// that names one of their requirements.
func collateralOnly(specReqs, killedBy map[string][]string) []string {
	var out []string
	for s, faults := range killedBy {
		if aimed, _ := splitKills(specReqs[s], faults); len(aimed) == 0 {
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}

// writeMatrix renders requirement -> specs -> faults into docs/kill-matrix.md
// when the test runs with -update-kill-matrix, each kill marked targeted or
// collateral (classifyKill), with the faults that fail the requirement
// under --only (onlyColumn).
func writeMatrix(t *testing.T, healthy report.Result, specReqs, killedBy map[string][]string, only map[string]onlyVerdict) {
	var b strings.Builder
	b.WriteString(matrixHeader)
	for _, r := range healthy.Requirements {
		for _, s := range r.Specs {
			aimed, side := splitKills(specReqs[s], killedBy[s])
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", r.ID, s, strings.Join(aimed, ", "), strings.Join(side, ", "), onlyColumn(r.ID, only))
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

func TestKillKinds(t *testing.T) {
	cases := []struct {
		name     string
		fault    string
		specReqs []string
		want     killKind
	}{
		{"the fault names the spec's one requirement", "bad-content-length", []string{"WIRE-001"}, targeted},
		{"the fault names one of the spec's requirements", "bad-content-length", []string{"WIRE-008", "WIRE-001"}, targeted},
		{"the fault names another requirement", "bad-content-length", []string{"WIRE-002"}, collateral},
		{"a spec checking nothing", "bad-content-length", nil, collateral},
		{"a name the registry does not hold", "no-such-fault", []string{"WIRE-001"}, collateral},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := classifyKill(c.fault, c.specReqs); got != c.want {
				t.Errorf("classifyKill(%q, %v) = %v, want %v", c.fault, c.specReqs, got, c.want)
			}
		})
	}
	// Every fault's kill of a spec checking exactly its requirements is
	// targeted: the classification reads the same registry the faults do.
	for _, f := range saboteur.Faults() {
		if got := classifyKill(f.Name, f.Requirements); got != targeted {
			t.Errorf("%s on a spec checking %v: %v", f.Name, f.Requirements, got)
		}
	}
	specReqs := map[string][]string{"framing": {"WIRE-001"}, "headers": {"WIRE-002"}}
	killedBy := map[string][]string{"framing": {"extra-header", "bad-content-length"}, "headers": {"bad-content-length"}}
	if aimed, side := splitKills(specReqs["framing"], killedBy["framing"]); !slices.Equal(aimed, []string{"bad-content-length"}) || !slices.Equal(side, []string{"extra-header"}) {
		t.Errorf("splitKills: targeted %v, collateral %v", aimed, side)
	}
	if got := collateralOnly(specReqs, killedBy); !slices.Equal(got, []string{"headers"}) {
		t.Errorf("collateralOnly = %v, want [headers]", got)
	}
}

// killCauses is, for the faults that fail a requirement in another way
// than its usual one, the text the likely cause of that failure must hold
// (conformance/catalog's causeRefinements, checked on the faults they
// were written from).
var killCauses = map[string]struct{ requirement, cause string }{
	"answer-abort":               {"SIG-007", "never answer it"},
	"unknown-abort-remembered":   {"SIG-007", "remembers the ids"},
	"abort-id-as-text":           {"SIG-007", "compared as text"},
	"conflicting-content-length": {"WIRE-001", "Content-Length twice"},
	"content-length-chars":       {"WIRE-001", "counts bytes of UTF-8"},
	"stdout-banner":              {"TRN-001", "prints to stdout"},
}

// explanationFaults checks the explanations of a fault's run: the sent
// line of every failed requirement is a request or notification the suite
// wrote (never its answer to a server request), and the likely cause is
// the one killCauses names for the fault.
func explanationFaults(fault string, res report.Result) []string {
	var faults []string
	for _, r := range res.Requirements {
		if r.Status != report.Failed || r.Explanation == nil {
			continue
		}
		if s := r.Explanation.Sent; s != "" && (!strings.Contains(s, " send ") || report.IsAnswerLine(s)) {
			faults = append(faults, fmt.Sprintf("%s: the explanation's sent line is no request the suite wrote: %.200s", r.ID, s))
		}
		if c, ok := killCauses[fault]; ok && c.requirement == r.ID && !strings.Contains(r.Explanation.LikelyCause, c.cause) {
			faults = append(faults, fmt.Sprintf("%s: likely cause %q does not say %q", r.ID, r.Explanation.LikelyCause, c.cause))
		}
	}
	return faults
}

// TestKillCausesNameTheirFaults: every killCauses entry is a fault of the
// registry that names the requirement (so TestKillMatrix runs it and the
// check cannot pass by never running).
func TestKillCausesNameTheirFaults(t *testing.T) {
	byName := map[string]saboteur.Fault{}
	for _, f := range saboteur.Faults() {
		byName[f.Name] = f
	}
	for name, c := range killCauses {
		f, ok := byName[name]
		if !ok || !slices.Contains(f.Requirements, c.requirement) {
			t.Errorf("killCauses: %s is no fault of the registry naming %s", name, c.requirement)
		}
	}
}

// explanationRow is one tab-separated row of -kill-explanations.
func explanationRow(cells ...string) string {
	clean := strings.NewReplacer("\n", `\n`, "\t", " ")
	for i := range cells {
		cells[i] = clean.Replace(cells[i])
	}
	return strings.Join(cells, "\t")
}
