package report

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"
)

// ExitUnstable is the exit code of a repeated run (e2e-conform --repeat)
// in which some requirement's status varied between runs although no run
// was non-conformant.
const ExitUnstable = 5

// Absent is the status a Variation gives a requirement missing from the
// report of a run (the runs used different catalogs); it is no status of a
// single run.
const Absent Status = "absent"

// RunSummary is one run of a repeated selection: its verdict, exit code and
// counts, as its own report gave them.
type RunSummary struct {
	// Run is the run's number, from 1.
	Run      int            `json:"run"`
	Verdict  string         `json:"verdict"`
	ExitCode int            `json:"exitCode"`
	Reason   string         `json:"reason,omitempty"`
	Counts   map[Status]int `json:"counts"`
	Duration time.Duration  `json:"durationNs"`
}

// StatusRuns is how many runs gave one status to a requirement, which runs
// (numbered from 1) and the reason of the first of them.
type StatusRuns struct {
	Status Status `json:"status"`
	Count  int    `json:"count"`
	Runs   []int  `json:"runs"`
	Reason string `json:"reason,omitempty"`
}

// Variation is a requirement whose status was not the same in every run
// that reported requirements: each status it had, most frequent first.
type Variation struct {
	ID        string       `json:"id"`
	Level     string       `json:"level"`
	Statement string       `json:"statement"`
	Statuses  []StatusRuns `json:"statuses"`
}

// Stability compares the runs of one selection repeated (CompareRuns). Its
// JSON form is the report of `e2e-conform --repeat N --json PATH`,
// documented in docs/report.md.
type Stability struct {
	Suite        string `json:"suite"`
	SuiteVersion string `json:"suiteVersion"`
	Engine       string `json:"engine,omitempty"`
	Profile      string `json:"profile,omitempty"`
	// Verdict is the verdict of the worst run, or "unstable" (ExitCode
	// ExitUnstable) when requirements varied and no run was
	// non-conformant (nor a harness error).
	Verdict  string       `json:"verdict"`
	ExitCode int          `json:"exitCode"`
	Runs     []RunSummary `json:"runs"`
	// Varied lists the requirements whose status varied, in catalog order.
	Varied []Variation `json:"varied"`
	// FailedEveryRun lists the requirements that failed in every run that
	// reported requirements (a stable failure, no variation), in catalog
	// order, each with its one status.
	FailedEveryRun []Variation `json:"failedEveryRun"`
	// Duration is the sum of the runs' durations (CompareRuns); the caller
	// may set the wall time of the whole repetition instead.
	Duration time.Duration `json:"durationNs"`
}

// severity orders exit codes from best to worst: conformant, incomplete,
// harness error, non-conformant (a run that found a violation outweighs
// one that could not run).
func severity(code int) int {
	switch code {
	case ExitConformant:
		return 0
	case ExitIncomplete:
		return 1
	case ExitHarness:
		return 3
	case ExitNonConformant:
		return 4
	default: // anything else (a usage error, a crash) counts as a harness error
		return 3
	}
}

// CompareRuns compares the results of one selection run several times
// (in order): every requirement whose status was not the same in all runs
// is a Variation. A run without requirements (it produced no report) takes
// no part in the comparison, but its exit code counts. The exit code is the
// worst run's (non-conformant over harness error over incomplete over
// conformant); when a requirement varied and no run was non-conformant or
// a harness error, it is ExitUnstable.
func CompareRuns(results []Result) Stability {
	st := Stability{Suite: "e2e-conform", SuiteVersion: SuiteVersion, Varied: []Variation{}, FailedEveryRun: []Variation{}}
	worst := -1
	type seen struct {
		level, statement string
		statuses         []StatusRuns
		reported         map[int]bool // the runs that reported it
	}
	byID := map[string]*seen{}
	var order []string
	var compared []int // the runs that reported requirements
	for i, r := range results {
		run := i + 1
		st.Runs = append(st.Runs, RunSummary{Run: run, Verdict: r.Verdict, ExitCode: r.ExitCode, Reason: r.Reason, Counts: r.Counts, Duration: r.Duration})
		st.Duration += r.Duration
		if st.Engine == "" {
			st.Engine = r.Engine
		}
		if st.Profile == "" {
			st.Profile = r.Profile
		}
		if worst < 0 || severity(r.ExitCode) > severity(results[worst].ExitCode) {
			worst = i
		}
		if len(r.Requirements) == 0 {
			continue
		}
		compared = append(compared, run)
		for _, rr := range r.Requirements {
			s, ok := byID[rr.ID]
			if !ok {
				s = &seen{level: rr.Level, statement: rr.Statement, reported: map[int]bool{}}
				byID[rr.ID] = s
				order = append(order, rr.ID)
			}
			s.reported[run] = true
			j := slices.IndexFunc(s.statuses, func(x StatusRuns) bool { return x.Status == rr.Status })
			if j < 0 {
				s.statuses = append(s.statuses, StatusRuns{Status: rr.Status, Reason: rr.Reason})
				j = len(s.statuses) - 1
			}
			s.statuses[j].Count++
			s.statuses[j].Runs = append(s.statuses[j].Runs, run)
			if s.statuses[j].Reason == "" {
				s.statuses[j].Reason = rr.Reason
			}
		}
	}
	for _, id := range order {
		s := byID[id]
		if len(s.reported) < len(compared) {
			// Absent from a run that reported requirements (another
			// catalog): that is a variation too.
			a := StatusRuns{Status: Absent, Reason: "the run's report does not list it"}
			for _, run := range compared {
				if !s.reported[run] {
					a.Runs = append(a.Runs, run)
				}
			}
			a.Count = len(a.Runs)
			s.statuses = append(s.statuses, a)
		}
		if len(s.statuses) < 2 {
			if s.statuses[0].Status == Failed {
				st.FailedEveryRun = append(st.FailedEveryRun, Variation{ID: id, Level: s.level, Statement: s.statement, Statuses: s.statuses})
			}
			continue
		}
		slices.SortStableFunc(s.statuses, func(a, b StatusRuns) int { return b.Count - a.Count })
		st.Varied = append(st.Varied, Variation{ID: id, Level: s.level, Statement: s.statement, Statuses: s.statuses})
	}
	switch {
	case worst < 0:
		st.Verdict, st.ExitCode = "incomplete", ExitIncomplete
	case len(st.Varied) > 0 && severity(results[worst].ExitCode) < severity(ExitHarness):
		st.Verdict, st.ExitCode = "unstable", ExitUnstable
	default:
		st.Verdict, st.ExitCode = results[worst].Verdict, results[worst].ExitCode
	}
	return st
}

// WriteSummary writes the comparison for people: each run's verdict line,
// each varied requirement with the runs per status and one reason of each,
// the requirements failed in every run, the overall verdict, and the final line "N runs, K requirements varied".
func (s *Stability) WriteSummary(w io.Writer) {
	for _, r := range s.Runs {
		fmt.Fprintf(w, "%s\n", r.Line(len(s.Runs)))
	}
	for _, v := range s.Varied {
		var parts []string
		for _, sr := range v.Statuses {
			parts = append(parts, fmt.Sprintf("%s in %d", sr.Status, sr.Count))
		}
		fmt.Fprintf(w, "\nVARIED %s (%s): %s\n  %s\n", v.ID, v.Level, strings.Join(parts, ", "), v.Statement)
		for _, sr := range v.Statuses {
			fmt.Fprintf(w, "  %s (%s)", sr.Status, runList(sr.Runs))
			if sr.Reason != "" {
				fmt.Fprintf(w, ": %s", indent(FirstLine(sr.Reason)))
			}
			fmt.Fprintln(w)
		}
	}
	if len(s.FailedEveryRun) > 0 {
		fmt.Fprintln(w)
	}
	for _, v := range s.FailedEveryRun {
		fmt.Fprintf(w, "FAILED in every run %s (%s): %s\n", v.ID, v.Level, indent(FirstLine(v.Statuses[0].Reason)))
	}
	fmt.Fprintf(w, "\nverdict over the runs: %s, exit %d\n", s.Verdict, s.ExitCode)
	fmt.Fprintf(w, "%d runs, %d requirements varied\n", len(s.Runs), len(s.Varied))
}

// Line is the run's verdict line, "run i/n: verdict: … , exit c (d)".
func (r RunSummary) Line(n int) string {
	line := fmt.Sprintf("run %d/%d: verdict: %s", r.Run, n, r.Verdict)
	if r.Reason != "" {
		line += " (" + FirstLine(r.Reason) + ")"
	}
	line += fmt.Sprintf(", exit %d", r.ExitCode)
	if r.Duration > 0 {
		line += fmt.Sprintf(" [%d passed, %d failed, %s]", r.Counts[Passed], r.Counts[Failed], r.Duration.Round(100*time.Millisecond))
	}
	return line
}

func runList(runs []int) string {
	if len(runs) == 0 {
		return "no run"
	}
	var b strings.Builder
	if len(runs) == 1 {
		b.WriteString("run ")
	} else {
		b.WriteString("runs ")
	}
	for i, r := range runs {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprint(&b, r)
	}
	return b.String()
}

// WriteJSON writes the combined report of the runs.
func (s *Stability) WriteJSON(path string) error {
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("writing the repeat report: %w", err)
	}
	return nil
}
