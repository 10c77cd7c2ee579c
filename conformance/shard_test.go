package conformance_test

import (
	"crypto/sha256"
	"encoding/hex"
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
)

// TestShardsMergeAsOneRun: three shards of the full profile against the
// saboteur, merged, give the verdict, the counts and every requirement's
// status of one unsharded run; each spec is held by exactly one shard; a
// missing shard, a repeated one and a shard of another profile are refused.
func TestShardsMergeAsOneRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the suite four times")
	}
	sab := filepath.Join(bins(t), "saboteur")
	const n = 3
	shards := make([]conformance.Result, n)
	codes := make([]int, n)
	var whole conformance.Result
	var wholeCode int
	sem := make(chan struct{}, 2) // at most two suite runs at a time
	var wg sync.WaitGroup
	for i := 0; i <= n; i++ {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if i == n {
				wholeCode, whole, _ = healthyFull(t)
				return
			}
			var out string
			codes[i], shards[i], out = conform(t, "--spawn", sab, "--profile", "full", "--shard", conformance.Shard{Index: i + 1, Count: n}.String())
			if codes[i] != conformance.ExitConformant {
				t.Errorf("shard %d/%d: exit %d, want 0\n%s", i+1, n, codes[i], out)
			}
		}()
	}
	wg.Wait()
	if wholeCode != conformance.ExitConformant {
		t.Fatalf("the unsharded run: exit %d (%s), want conformant", wholeCode, whole.Reason)
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

	// Every spec is held by one shard, the run-wide checks by all.
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
		if conformance.IsRunWide(s.Text) {
			want = n
		}
		if holders[s.Text] != want {
			t.Errorf("spec %q is held by %d shards, want %d", s.Text, holders[s.Text], want)
		}
	}

	ptrs := []*conformance.Result{&shards[2], &shards[0], &shards[1]} // any order
	merged, err := conformance.Merge(ptrs)
	if err != nil {
		t.Fatalf("Merge: %v", err)
	}
	if merged.Verdict != whole.Verdict || merged.ExitCode != whole.ExitCode {
		t.Errorf("merged verdict %q (exit %d), the unsharded run's %q (exit %d)", merged.Verdict, merged.ExitCode, whole.Verdict, whole.ExitCode)
	}
	for _, st := range []conformance.Status{conformance.Passed, conformance.Failed, conformance.NotApplicable, conformance.NotVerified, conformance.NotSelected} {
		if merged.Counts[st] != whole.Counts[st] {
			t.Errorf("merged %d %s, the unsharded run %d", merged.Counts[st], st, whole.Counts[st])
		}
	}
	want := map[string]conformance.Status{}
	for _, r := range whole.Requirements {
		want[r.ID] = r.Status
	}
	var differ []string
	for _, r := range merged.Requirements {
		if want[r.ID] != r.Status {
			differ = append(differ, r.ID+": merged "+string(r.Status)+", unsharded "+string(want[r.ID]))
		}
	}
	sort.Strings(differ)
	if len(differ) > 0 {
		t.Errorf("requirement statuses differ: %s", strings.Join(differ, "; "))
	}
	if len(merged.Requirements) != len(whole.Requirements) {
		t.Errorf("merged %d requirements, the unsharded run %d", len(merged.Requirements), len(whole.Requirements))
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
	if fromCLI, err := conformance.ReadResult(mergedJSON); err != nil || fromCLI.Selection == nil || fromCLI.Selection.MergedShards != n {
		t.Errorf("the merged report: %v (selection %+v), want one that says it merged %d shards", err, fromCLI, n)
	}
	if page, err := os.ReadFile(mergedHTML); err != nil || !strings.Contains(string(page), "merged from 3 shards") {
		t.Errorf("the merged HTML report: %v; want it to say it merged 3 shards", err)
	}

	// Refusals.
	other := shards[1]
	other.Profile = "core"
	for _, c := range []struct {
		what    string
		reports []*conformance.Result
		says    string
	}{
		{"a missing shard", []*conformance.Result{&shards[0], &shards[2]}, "shard 2/3 missing"},
		{"a repeated shard", []*conformance.Result{&shards[0], &shards[0], &shards[1], &shards[2]}, "shard 1/3 is given twice"},
		{"a shard of another profile", []*conformance.Result{&shards[0], &other, &shards[2]}, "another profile"},
		{"a whole run", []*conformance.Result{&shards[0], &whole, &shards[2]}, "not a shard's"},
	} {
		_, err := conformance.Merge(c.reports)
		if !errors.Is(err, conformance.ErrMerge) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: Merge gave %v, want an ErrMerge saying %q", c.what, err, c.says)
		}
	}
}

// TestMergeCommand: e2e-conform merge refuses a missing shard with exit 2
// and a message naming it.
func TestMergeCommand(t *testing.T) {
	dir := bins(t)
	bin := filepath.Join(dir, "e2e-conform")
	out, err := exec.Command(bin, "merge").CombinedOutput()
	if code := exitCode(err); code != conformance.ExitUsage || !strings.Contains(string(out), "want the shards' JSON reports") {
		t.Errorf("merge without reports: exit %d, %s", code, out)
	}
	out, err = exec.Command(bin, "merge", filepath.Join(t.TempDir(), "none.json")).CombinedOutput()
	if code := exitCode(err); code != conformance.ExitUsage || !strings.Contains(string(out), "none.json") {
		t.Errorf("merge of a report that does not exist: exit %d, %s", code, out)
	}
	out, err = exec.Command(bin, "--shard", "4/3", "--spawn", "x").CombinedOutput()
	if code := exitCode(err); code != conformance.ExitUsage || !strings.Contains(string(out), "--shard") {
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
