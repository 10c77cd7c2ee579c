package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// synth is a synthetic Result: its exit code (the verdict follows) and
// requirement statuses as "ID=status" or "ID=status:reason".
func synth(code int, reqs ...string) Result {
	verdicts := map[int]string{ExitConformant: "conformant", ExitNonConformant: "non-conformant", ExitIncomplete: "incomplete", ExitHarness: "harness error"}
	r := Result{Engine: "engine x", Profile: ProfileFull, Verdict: verdicts[code], ExitCode: code, Counts: map[Status]int{}, Duration: time.Second}
	for _, q := range reqs {
		id, rest, _ := strings.Cut(q, "=")
		st, reason, _ := strings.Cut(rest, ":")
		r.Requirements = append(r.Requirements, RequirementResult{ID: id, Level: "MUST", Statement: id + " holds", Status: Status(st), Reason: reason})
		r.Counts[Status(st)]++
	}
	return r
}

func TestCompareRuns(t *testing.T) {
	type varied map[string][]StatusRuns
	for _, tc := range []struct {
		name     string
		runs     []Result
		exit     int
		verdict  string
		variedBy varied
		// failedEvery lists the requirements failed in every run.
		failedEvery []string
	}{
		{
			name:    "stable conformant",
			runs:    []Result{synth(0, "A-001=passed", "A-002=not applicable:no"), synth(0, "A-001=passed", "A-002=not applicable:no"), synth(0, "A-001=passed", "A-002=not applicable:no")},
			exit:    ExitConformant,
			verdict: "conformant",
		},
		{
			name:        "stable non-conformant is not unstable",
			runs:        []Result{synth(1, "A-001=failed:x"), synth(1, "A-001=failed:y")},
			exit:        ExitNonConformant,
			verdict:     "non-conformant",
			failedEvery: []string{"A-001"},
		},
		{
			name: "a MUST failing in one run of three",
			runs: []Result{synth(0, "A-001=passed", "A-002=passed"), synth(1, "A-001=failed:answered late", "A-002=passed"), synth(0, "A-001=passed", "A-002=passed")},
			exit: ExitNonConformant, verdict: "non-conformant",
			variedBy: varied{"A-001": {{Status: Passed, Count: 2, Runs: []int{1, 3}}, {Status: Failed, Count: 1, Runs: []int{2}, Reason: "answered late"}}},
		},
		{
			name: "varied without a non-conformant run is unstable",
			runs: []Result{synth(0, "S-001=failed:warned"), synth(0, "S-001=passed")},
			exit: ExitUnstable, verdict: "unstable",
			variedBy: varied{"S-001": {{Status: Failed, Count: 1, Runs: []int{1}, Reason: "warned"}, {Status: Passed, Count: 1, Runs: []int{2}}}},
		},
		{
			name: "incomplete and varied is unstable",
			runs: []Result{synth(3, "A-001=not verified:no screen"), synth(0, "A-001=passed"), synth(0, "A-001=passed")},
			exit: ExitUnstable, verdict: "unstable",
			variedBy: varied{"A-001": {{Status: Passed, Count: 2, Runs: []int{2, 3}}, {Status: NotVerified, Count: 1, Runs: []int{1}, Reason: "no screen"}}},
		},
		{
			name:    "incomplete over conformant",
			runs:    []Result{synth(0, "A-001=passed"), synth(3, "A-001=passed")},
			exit:    ExitIncomplete,
			verdict: "incomplete",
		},
		{
			name:    "a run without a report counts, but is not compared",
			runs:    []Result{synth(0, "A-001=passed"), {Verdict: "harness error", ExitCode: ExitHarness, Reason: "no report"}, synth(0, "A-001=passed")},
			exit:    ExitHarness,
			verdict: "harness error",
		},
		{
			name: "non-conformant over harness error",
			runs: []Result{{Verdict: "harness error", ExitCode: ExitHarness}, synth(1, "A-001=failed:x")},
			exit: ExitNonConformant, verdict: "non-conformant",
			failedEvery: []string{"A-001"},
		},
		{
			name: "a requirement missing from one report varied",
			runs: []Result{synth(0, "A-001=passed", "A-002=passed"), synth(0, "A-001=passed")},
			exit: ExitUnstable, verdict: "unstable",
			variedBy: varied{"A-002": {{Status: Passed, Count: 1, Runs: []int{1}}, {Status: Absent, Count: 1, Runs: []int{2}, Reason: "the run's report does not list it"}}},
		},
		{
			name: "no runs",
			exit: ExitIncomplete, verdict: "incomplete",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := CompareRuns(tc.runs)
			if st.ExitCode != tc.exit || st.Verdict != tc.verdict {
				t.Errorf("exit %d %q, want %d %q", st.ExitCode, st.Verdict, tc.exit, tc.verdict)
			}
			if len(st.Runs) != len(tc.runs) {
				t.Errorf("%d run summaries, want %d", len(st.Runs), len(tc.runs))
			}
			got := varied{}
			for _, v := range st.Varied {
				if v.Level != "MUST" || v.Statement != v.ID+" holds" {
					t.Errorf("%s: level %q statement %q", v.ID, v.Level, v.Statement)
				}
				got[v.ID] = v.Statuses
			}
			var failed []string
			for _, v := range st.FailedEveryRun {
				failed = append(failed, v.ID)
			}
			if !reflect.DeepEqual(failed, tc.failedEvery) {
				t.Errorf("failed in every run: %v, want %v", failed, tc.failedEvery)
			}
			if len(got) == 0 && len(tc.variedBy) == 0 {
				return
			}
			if !reflect.DeepEqual(got, tc.variedBy) {
				t.Errorf("varied:\n got %+v\nwant %+v", got, tc.variedBy)
			}
		})
	}
}

func TestStabilitySummaryAndJSON(t *testing.T) {
	st := CompareRuns([]Result{synth(0, "A-001=passed", "A-002=failed:never"), synth(1, "A-001=failed:answered after 3.9 s\nmore", "A-002=failed:never"), synth(0, "A-001=passed", "A-002=failed:never")})
	var b bytes.Buffer
	st.WriteSummary(&b)
	out := b.String()
	for _, want := range []string{
		"run 1/3: verdict: conformant, exit 0",
		"run 2/3: verdict: non-conformant, exit 1",
		"VARIED A-001 (MUST): passed in 2, failed in 1",
		"  passed (runs 1, 3)\n",
		"  failed (run 2): answered after 3.9 s\n",
		"verdict over the runs: non-conformant, exit 1",
		"FAILED in every run A-002 (MUST): never\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if last := lines[len(lines)-1]; last != "3 runs, 1 requirements varied" {
		t.Errorf("last line %q", last)
	}
	path := filepath.Join(t.TempDir(), "repeat.json")
	if err := st.WriteJSON(path); err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"verdict", "exitCode", "runs", "varied", "failedEveryRun", "durationNs", "engine", "profile"} {
		if _, ok := back[k]; !ok {
			t.Errorf("the JSON report lacks %q: %s", k, data)
		}
	}
	var typed Stability
	if err := json.Unmarshal(data, &typed); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(typed, st) {
		t.Errorf("round trip:\n got %+v\nwant %+v", typed, st)
	}
}
