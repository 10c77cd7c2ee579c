package main

import (
	"flag"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/e2e-conform/toolkit/conformance/report"
	"github.com/e2e-conform/toolkit/internal/testbin"
)

var (
	parallelVerdictRuns   = flag.Int("parallel-verdicts", 0, "TestParallelVerdictsHold: runs of each kind, unsharded and --parallel (make parallel-verdicts sets it)")
	parallelVerdictEngine = flag.String("parallel-verdicts-engine", "saboteur", "TestParallelVerdictsHold: saboteur (core profile) or web (the reference web engine, full profile)")
	parallelVerdictShards = flag.Int("parallel-verdicts-shards", 3, "TestParallelVerdictsHold: the N of --parallel N")
)

// webBins is the reference web engine, built only when a long run asks.
var webBins = testbin.New("../e2e-web-engine")

// TestParallelVerdictsHold (a long run: make parallel-verdicts): the
// selection runs -parallel-verdicts times unsharded and as many times with
// --parallel N, alternately, against the saboteur's core profile or the
// web engine's full one; every requirement has the same status in every
// run of both kinds (issue 30: "verdicts identical, compare JSON per
// requirement over 10 runs each"). It logs each kind's median wall time
// and their ratio, measured in the same minutes (the figures of
// docs/perf.md), never asserting on them.
func TestParallelVerdictsHold(t *testing.T) {
	runs := *parallelVerdictRuns
	if runs == 0 {
		t.Skip("a long run of its own: make parallel-verdicts (PARALLEL_VERDICT_RUNS, PARALLEL_VERDICT_ENGINE)")
	}
	var args []string
	switch *parallelVerdictEngine {
	case "saboteur":
		args = []string{"--spawn", filepath.Join(bins(t), "saboteur")}
	case "web":
		args = []string{"--profile", "full", "--spawn", filepath.Join(webBins.Dir(t), "e2e-web-engine")}
	default:
		t.Fatalf("-parallel-verdicts-engine %q: want saboteur or web", *parallelVerdictEngine)
	}
	n := *parallelVerdictShards
	type kind struct {
		name  string
		extra []string
		took  []time.Duration
	}
	kinds := []*kind{{name: "unsharded"}, {name: fmt.Sprintf("--parallel %d", n), extra: []string{"--parallel", fmt.Sprint(n)}}}
	var first map[string]report.Status
	var firstWhat string
	dir := t.TempDir()
	for i := range runs {
		for _, k := range kinds {
			file := filepath.Join(dir, fmt.Sprintf("run-%d-%d.json", i, len(k.took)))
			start := time.Now()
			code, res, out := cli(t, nil, file, append(slices.Clone(args), append(k.extra, "--json", file)...)...)
			k.took = append(k.took, time.Since(start))
			if res == nil || code == report.ExitHarness || code == report.ExitUsage {
				t.Fatalf("%s run %d: exit %d, no report on the engine:\n%s", k.name, i+1, code, out)
			}
			st := statuses(res)
			what := fmt.Sprintf("%s run %d", k.name, i+1)
			if first == nil {
				first, firstWhat = st, what
				continue
			}
			var diff []string
			for id, s := range first {
				if st[id] != s {
					diff = append(diff, fmt.Sprintf("%s: %s in %s, %s here", id, s, firstWhat, orNone(st[id])))
				}
			}
			sort.Strings(diff)
			if len(diff) > 0 || len(st) != len(first) {
				t.Errorf("%s differs (%d requirements, %d in %s): %s", what, len(st), len(first), firstWhat, strings.Join(diff, "; "))
			}
		}
	}
	m0, m1 := median(kinds[0].took), median(kinds[1].took)
	t.Logf("%s: %d runs each, alternately: unsharded median %s, %s median %s: ratio %.2fx", *parallelVerdictEngine, runs, m0.Round(100*time.Millisecond), kinds[1].name, m1.Round(100*time.Millisecond), m1.Seconds()/m0.Seconds())
	for _, k := range kinds {
		t.Logf("  %s: %v", k.name, roundAll(k.took))
	}
}

// median is the median of ds.
func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// roundAll rounds each of ds to 100 ms, for the log.
func roundAll(ds []time.Duration) []time.Duration {
	out := make([]time.Duration, len(ds))
	for i, d := range ds {
		out[i] = d.Round(100 * time.Millisecond)
	}
	return out
}

// orNone is st, or "(no row)".
func orNone(st report.Status) string {
	if st == "" {
		return "(no row)"
	}
	return string(st)
}
