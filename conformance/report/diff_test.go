package report

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/e2e-conform/toolkit/protocol/wire"
)

func TestLatencyRegressed(t *testing.T) {
	for _, tc := range []struct {
		old, new float64
		want     bool
	}{
		{1, 1, false},
		{10, 12, false},     // × 1.2 exactly: not more
		{10, 12.1, true},    // > × 1.2 and > + 1 ms
		{0.2, 0.9, false},   // × 4.5 but only + 0.7 ms
		{0.2, 1.3, true},    // × 6.5 and + 1.1 ms
		{100, 110, false},   // + 10 ms but only × 1.1
		{100, 120.1, true},  // × 1.201
		{0, 1, false},       // + 1 ms exactly: not more
		{0, 1.1, true},      // from nothing to over 1 ms
		{50, 10, false},     // faster
		{4, 5.1, true},      // × 1.275 and + 1.1 ms
		{4.5, 5.5, false},   // × 1.22 but + 1.0 ms
		{4.5, 5.6, true},    // × 1.24 and + 1.1 ms
		{1000, 1199, false}, // × 1.199
	} {
		if got := LatencyRegressed(tc.old, tc.new); got != tc.want {
			t.Errorf("LatencyRegressed(%v, %v) = %v, want %v", tc.old, tc.new, got, tc.want)
		}
	}
}

// diffReport builds a report with the given requirement statuses
// and p90 latencies.
func diffReport(verdict string, statuses map[string]Status, p90 map[string]float64) *Result {
	r := &Result{Suite: "e2e-conform", Verdict: verdict}
	for _, id := range []string{"WIRE-001", "WIRE-002", "ERR-001", "OBS-001", "MAN-001", "NEW-001"} {
		if st, ok := statuses[id]; ok {
			r.Requirements = append(r.Requirements, RequirementResult{ID: id, Level: "MUST", Status: st, Reason: "why " + id + " is " + string(st)})
		}
	}
	for _, m := range append(append([]string{wire.MethodInitialize}, wire.EngineMethods()...), wire.MethodShutdown) {
		if v, ok := p90[m]; ok {
			r.Latency = append(r.Latency, MethodLatency{Method: m, Count: latencyMinCalls, P90Ms: v})
		}
	}
	return r
}

func TestDiff(t *testing.T) {
	base := map[string]Status{"WIRE-001": Passed, "WIRE-002": Passed, "ERR-001": NotVerified, "OBS-001": Failed, "MAN-001": NotApplicable}
	with := func(changes map[string]Status) map[string]Status {
		out := map[string]Status{}
		for k, v := range base {
			out[k] = v
		}
		for k, v := range changes {
			if v == "" {
				delete(out, k)
			} else {
				out[k] = v
			}
		}
		return out
	}
	lat := map[string]float64{"engine/observe": 2, "session/open": 10}
	for _, tc := range []struct {
		name        string
		old, new    *Result
		changes     []string // "ID old→new worse?"
		regressions []string
		worse       bool
	}{
		{name: "identical", old: diffReport("conformant", base, lat), new: diffReport("conformant", base, lat)},
		{
			name: "passed to failed is worse", old: diffReport("conformant", base, lat),
			new:     diffReport("non-conformant", with(map[string]Status{"WIRE-001": Failed}), lat),
			changes: []string{"WIRE-001 passed→failed worse"}, worse: true,
		},
		{
			name: "failed to passed is better", old: diffReport("non-conformant", base, lat),
			new:     diffReport("conformant", with(map[string]Status{"OBS-001": Passed}), lat),
			changes: []string{"OBS-001 failed→passed"},
		},
		{
			name: "passed to not verified is worse, failed to not verified is not", old: diffReport("x", base, lat),
			new:     diffReport("x", with(map[string]Status{"WIRE-002": NotVerified, "OBS-001": NotVerified}), lat),
			changes: []string{"WIRE-002 passed→not verified worse", "OBS-001 failed→not verified"}, worse: true,
		},
		{
			name: "not verified to failed is worse", old: diffReport("x", base, lat),
			new:     diffReport("x", with(map[string]Status{"ERR-001": Failed}), lat),
			changes: []string{"ERR-001 not verified→failed worse"}, worse: true,
		},
		{
			name: "passed to not applicable or not selected is a change, not worse", old: diffReport("x", base, lat),
			new:     diffReport("x", with(map[string]Status{"WIRE-001": NotApplicable, "WIRE-002": NotSelected}), lat),
			changes: []string{"WIRE-001 passed→not applicable", "WIRE-002 passed→not selected"},
		},
		{
			name: "a requirement added failed is worse, one removed is not", old: diffReport("x", base, lat),
			new:     diffReport("x", with(map[string]Status{"NEW-001": Failed, "MAN-001": ""}), lat),
			changes: []string{"NEW-001 absent→failed worse", "MAN-001 not applicable→absent"}, worse: true,
		},
		{
			name: "p90 regression", old: diffReport("x", base, lat),
			new:         diffReport("x", base, map[string]float64{"engine/observe": 3.5, "session/open": 11}),
			regressions: []string{"engine/observe 2.0→3.5"}, worse: true,
		},
		{
			name: "a method only in one report is not compared", old: diffReport("x", base, lat),
			new: diffReport("x", base, map[string]float64{"engine/observe": 2, "engine/locate": 500}),
		},
		{
			name: "a method called too few times is not compared", old: diffReport("x", base, lat),
			new: func() *Result {
				r := diffReport("x", base, map[string]float64{"engine/observe": 30, "session/open": 10})
				r.Latency[0].Count = latencyMinCalls - 1
				return r
			}(),
		},
		{
			name: "faster is no regression", old: diffReport("x", base, lat),
			new: diffReport("x", base, map[string]float64{"engine/observe": 0.5, "session/open": 2}),
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := Diff(tc.old, tc.new)
			var changes, regressions []string
			for _, c := range d.Changes {
				s := c.ID + " " + string(c.Old) + "→" + string(c.New)
				if c.Worse {
					s += " worse"
				}
				changes = append(changes, s)
				if c.New != Absent && c.Reason != "why "+c.ID+" is "+string(c.New) {
					t.Errorf("%s: reason %q, want the new run's", c.ID, c.Reason)
				}
			}
			for _, r := range d.Regressions {
				regressions = append(regressions, fmt.Sprintf("%s %.1f→%.1f", r.Method, r.OldP90Ms, r.NewP90Ms))
			}
			if strings.Join(changes, "; ") != strings.Join(tc.changes, "; ") {
				t.Errorf("changes %q, want %q", changes, tc.changes)
			}
			if strings.Join(regressions, "; ") != strings.Join(tc.regressions, "; ") {
				t.Errorf("regressions %q, want %q", regressions, tc.regressions)
			}
			if d.Worse() != tc.worse {
				t.Errorf("Worse() = %v, want %v", d.Worse(), tc.worse)
			}
			var b bytes.Buffer
			d.Write(&b)
			out := b.String()
			if strings.Count(out, "WORSE ") != strings.Count(strings.Join(tc.changes, ";"), " worse") ||
				strings.Count(out, "SLOWER ") != len(tc.regressions) {
				t.Errorf("the printed diff does not mark what got worse:\n%s", out)
			}
		})
	}
}

func TestReadResult(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	if err := diffReport("conformant", map[string]Status{"WIRE-001": Passed}, nil).WriteJSON(good); err != nil {
		t.Fatal(err)
	}
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		name, path string
		wantErr    string // "" when it reads
		notReport  bool
	}{
		{name: "a run report", path: good},
		{name: "missing", path: filepath.Join(dir, "missing.json"), wantErr: "missing.json"},
		{name: "not JSON", path: write("text.json", "verdict: conformant"), wantErr: "text.json is not JSON"},
		{name: "another suite", path: write("other.json", `{"suite":"h2spec","requirements":[]}`), wantErr: "other.json", notReport: true},
		{name: "a --repeat report", path: write("repeat.json", `{"suite":"e2e-conform","runs":[]}`), wantErr: "repeat.json", notReport: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := ReadResult(tc.path)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("ReadResult: %v", err)
			case tc.wantErr == "":
				if r.Verdict != "conformant" || len(r.Requirements) != 1 {
					t.Errorf("read %+v", r)
				}
			case err == nil:
				t.Fatalf("ReadResult read %s", tc.path)
			case !strings.Contains(err.Error(), tc.wantErr):
				t.Errorf("error %q does not name %q", err, tc.wantErr)
			case errors.Is(err, errNotRunReport) != tc.notReport:
				t.Errorf("error %q: errors.Is(errNotRunReport) = %v", err, !tc.notReport)
			}
		})
	}
}

func TestDiffReason(t *testing.T) {
	long := strings.Repeat("é", diffReasonRunes+5)
	for _, tc := range []struct{ in, want string }{
		{"one line", "one line"},
		{"  first\nExpected\n  <dump>", "first …"},
		{long, strings.Repeat("é", diffReasonRunes) + " …"},
	} {
		if got := diffReason(tc.in); got != tc.want {
			t.Errorf("diffReason(%.20q) = %.40q, want %.40q", tc.in, got, tc.want)
		}
	}
}
