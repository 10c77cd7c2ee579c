package conformance_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/e2e-conform/toolkit/conformance"
	"github.com/e2e-conform/toolkit/conformance/report"
)

// shardedRun is one selection TestShardsMergeAsOneRun splits into shards.
type shardedRun struct {
	name string
	// args select the run (profile, --only); the engine is the healthy
	// saboteur over spawn.
	args []string
	// shards is how many shards the run is split into.
	shards int
	// full: the unsharded run is healthyFull's, and the test goes on to
	// provenance, the merge command and Merge's refusals.
	full bool
	// claimed: the shards share a --shard-claims directory, as those of
	// --parallel do, instead of the fixed rule.
	claimed bool
}

// shardedRuns are the selections the shard test merges: every spec the
// profile or --only leaves out is reported not selected by every shard,
// and Merge must take it from the shard that holds it (issue 25: the core
// profile's merge was refused, every shard seeming to hold those specs).
var shardedRuns = []shardedRun{
	{name: "full", args: []string{"--profile", "full"}, shards: 3, full: true},
	{name: "core", shards: 2},
	{name: "only", args: []string{"--only", "LIFE,SESS,TRN-001"}, shards: 2},
	{name: "core claimed", shards: 3, claimed: true},
}

// TestShardsMergeAsOneRun: for the full profile, the core profile and an
// --only selection, the shards of a run against the saboteur, merged, give
// the verdict, the counts and every requirement (its status and its JSON,
// evidence counts aside) of one unsharded run; each spec is held by
// exactly one shard. For the full profile a missing shard, a repeated one
// and a shard of another profile are refused, and e2e-conform merge
// writes the same from the files.
func TestShardsMergeAsOneRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the suite ten times")
	}
	t.Parallel() // a suite-driving test: it mostly waits on engines, so the heavy ones overlap (two at a time: go test -parallel defaults to GOMAXPROCS, and ginkgo refuses an explicit -parallel)
	for _, c := range shardedRuns {
		t.Run(c.name, func(t *testing.T) { testShardedRun(t, c) })
	}
}

func testShardedRun(t *testing.T, c shardedRun) {
	sab := filepath.Join(bins(t), "saboteur")
	n := c.shards
	shards := make([]report.Result, n)
	codes := make([]int, n)
	var whole report.Result
	var wholeCode int
	var wholeOut string
	var shardFlags []string
	if c.claimed {
		shardFlags = []string{"--shard-claims", t.TempDir()}
	}
	sem := make(chan struct{}, 2) // at most two suite runs at a time
	var wg sync.WaitGroup
	for i := 0; i <= n; i++ {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if i == n {
				if c.full {
					wholeCode, whole, wholeOut = healthyFull(t)
				} else {
					wholeCode, whole, wholeOut = conform(t, append([]string{"--spawn", sab}, c.args...)...)
				}
				return
			}
			var out string
			codes[i], shards[i], out = conform(t, append(append([]string{"--spawn", sab, "--shard", report.Shard{Index: i + 1, Count: n}.String()}, shardFlags...), c.args...)...)
			if codes[i] == report.ExitHarness || len(shards[i].Requirements) == 0 {
				t.Errorf("shard %d/%d: exit %d, want a report on the engine\n%s", i+1, n, codes[i], out)
			}
		}()
	}
	wg.Wait()
	// The verdict itself is not the point (a requirement no spec checks
	// yet makes the saboteur's full run incomplete): the merge must give
	// the unsharded run's, whatever it is.
	if wholeCode == report.ExitHarness || len(whole.Requirements) == 0 {
		t.Fatalf("the unsharded run: exit %d (%s), want a report on the engine\n%s", wholeCode, whole.Reason, wholeOut)
	}
	if t.Failed() {
		t.FailNow()
	}

	// Every spec is held by one shard, the run-wide checks by all; shards
	// that claim their specs hold none the selection leaves out.
	holders := map[string]int{}
	for _, s := range shards {
		if s.Selection == nil || s.Selection.Shard == nil {
			t.Fatalf("a shard's report has no selection: %+v", s.Selection)
		}
		for _, h := range s.Selection.Held {
			holders[h]++
		}
	}
	for _, s := range whole.Specs {
		want := 1
		switch {
		case conformance.IsRunWide(s.Text):
			want = n
		case c.claimed && s.Status == report.NotSelected:
			want = 0
		}
		if holders[s.Text] != want {
			t.Errorf("spec %q is held by %d shards, want %d", s.Text, holders[s.Text], want)
		}
	}

	ptrs := make([]*report.Result, n)
	for i := range shards {
		ptrs[(i+1)%n] = &shards[i] // any order
	}
	merged, err := report.Merge(ptrs)
	if err != nil {
		t.Fatalf("Merge: %v", err)
	}
	sameAsUnsharded(t, merged, &whole)
	if !c.full {
		return
	}

	// Provenance: the engine binary's digest, the suite's build, the host.
	data, err := os.ReadFile(sab)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	if p := whole.Provenance; p == nil || p.EngineSHA256 != hex.EncodeToString(sum[:]) || p.EngineBinary != sab ||
		p.Host != runtime.GOOS+"/"+runtime.GOARCH || p.SpecVersion != "1" || len(p.Catalog) != 64 || p.StartedAt.IsZero() {
		t.Errorf("provenance %+v: want the saboteur's SHA-256 %x, its path, the host, spec version 1, the catalog digest and the start", whole.Provenance, sum)
	}

	// The command: the same merge from the files, its reports written.
	dir := t.TempDir()
	var files []string
	for i := range shards {
		f := filepath.Join(dir, fmt.Sprintf("shard-%d.json", i+1))
		if err := shards[i].WriteJSON(f); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	mergedJSON, mergedHTML := filepath.Join(dir, "report.json"), filepath.Join(dir, "report.html")
	cmd := exec.Command(filepath.Join(bins(t), "e2e-conform"), append(append([]string{"merge"}, files...), "--json", mergedJSON, "--html", mergedHTML)...)
	out, err := cmd.CombinedOutput()
	if code := exitCode(err); code != whole.ExitCode || !strings.Contains(string(out), "verdict: "+whole.Verdict) {
		t.Errorf("e2e-conform merge: exit %d, want %d and the verdict %q:\n%s", code, whole.ExitCode, whole.Verdict, out)
	}
	if fromCLI, err := report.ReadResult(mergedJSON); err != nil || fromCLI.Selection == nil || fromCLI.Selection.MergedShards != n {
		t.Errorf("the merged report: %v (selection %+v), want one that says it merged %d shards", err, fromCLI, n)
	}
	if page, err := os.ReadFile(mergedHTML); err != nil || !strings.Contains(string(page), fmt.Sprintf("merged from %d shards", n)) {
		t.Errorf("the merged HTML report: %v; want it to say it merged %d shards", err, n)
	}

	// Refusals.
	other := shards[1]
	other.Profile = "core"
	for _, c := range []struct {
		what    string
		reports []*report.Result
		says    string
	}{
		{"a missing shard", []*report.Result{&shards[0], &shards[2]}, "shard 2/3 missing"},
		{"a repeated shard", []*report.Result{&shards[0], &shards[0], &shards[1], &shards[2]}, "shard 1/3 is given twice"},
		{"a shard of another profile", []*report.Result{&shards[0], &other, &shards[2]}, "another profile"},
		{"a whole run", []*report.Result{&shards[0], &whole, &shards[2]}, "not a shard's"},
	} {
		_, err := report.Merge(c.reports)
		if !errors.Is(err, report.ErrMerge) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: Merge gave %v, want an ErrMerge saying %q", c.what, err, c.says)
		}
	}
}

// sameAsUnsharded fails t unless merged has whole's verdict, exit code and
// counts, and each requirement whole's status and JSON (requirementJSON).
func sameAsUnsharded(t *testing.T, merged, whole *report.Result) {
	t.Helper()
	if merged.Verdict != whole.Verdict || merged.ExitCode != whole.ExitCode {
		t.Errorf("merged verdict %q (exit %d), the unsharded run's %q (exit %d)", merged.Verdict, merged.ExitCode, whole.Verdict, whole.ExitCode)
	}
	for _, st := range []report.Status{report.Passed, report.Failed, report.NotApplicable, report.NotVerified, report.NotSelected} {
		if merged.Counts[st] != whole.Counts[st] {
			t.Errorf("merged %d %s, the unsharded run %d", merged.Counts[st], st, whole.Counts[st])
		}
	}
	want := map[string]report.RequirementResult{}
	for _, r := range whole.Requirements {
		want[r.ID] = r
	}
	var differ []string
	for _, r := range merged.Requirements {
		w, ok := want[r.ID]
		switch {
		case !ok:
			differ = append(differ, r.ID+": merged only")
		case r.Status != w.Status:
			differ = append(differ, fmt.Sprintf("%s: merged %s, unsharded %s\n  merged    %s\n  unsharded %s", r.ID, r.Status, w.Status, requirementJSON(r), requirementJSON(w)))
		case requirementJSON(r) != requirementJSON(w):
			differ = append(differ, fmt.Sprintf("%s (%s):\n  merged    %s\n  unsharded %s", r.ID, r.Status, requirementJSON(r), requirementJSON(w)))
		}
	}
	sort.Strings(differ)
	if len(differ) > 0 {
		t.Errorf("%d requirements differ between the merged report and the unsharded run:\n%s", len(differ), strings.Join(differ, "\n"))
	}
	if len(merged.Requirements) != len(whole.Requirements) {
		t.Errorf("merged %d requirements, the unsharded run %d", len(merged.Requirements), len(whole.Requirements))
	}
}

// requirementJSON is r's JSON without what depends on the connections
// of one run: a shard opens connections of its own (a spec that took a
// pooled connection in one run opens one in the other), so the evidence
// (how often a thing was seen, and what some entries count: "20 engine
// method(s) in flight") and the explanation's frames (connection numbers,
// attempt ids, artifact paths) differ. Whether there was evidence at all,
// and everything else, must not.
func requirementJSON(r report.RequirementResult) string {
	if x := r.Explanation; x != nil {
		c := *x
		c.Sent, c.Came, c.Exchange = "", "", ""
		r.Explanation = &c
	}
	if len(r.Evidence) > 0 {
		r.Evidence = map[string]int{"(some evidence)": 1}
	}
	b, err := json.Marshal(r)
	if err != nil {
		return err.Error()
	}
	return string(b)
}

// TestMergeCommand: e2e-conform merge refuses a missing shard with exit 2
// and a message naming it.
func TestMergeCommand(t *testing.T) {
	dir := bins(t)
	bin := filepath.Join(dir, "e2e-conform")
	out, err := exec.Command(bin, "merge").CombinedOutput()
	if code := exitCode(err); code != report.ExitUsage || !strings.Contains(string(out), "want the shards' JSON reports") {
		t.Errorf("merge without reports: exit %d, %s", code, out)
	}
	out, err = exec.Command(bin, "merge", filepath.Join(t.TempDir(), "none.json")).CombinedOutput()
	if code := exitCode(err); code != report.ExitUsage || !strings.Contains(string(out), "none.json") {
		t.Errorf("merge of a report that does not exist: exit %d, %s", code, out)
	}
	out, err = exec.Command(bin, "--shard", "4/3", "--spawn", "x").CombinedOutput()
	if code := exitCode(err); code != report.ExitUsage || !strings.Contains(string(out), "--shard") {
		t.Errorf("--shard 4/3: exit %d, %s", code, out)
	}
}

func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}
