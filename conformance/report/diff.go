package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// DiffResult is what changed from one run's report to another's (Diff):
// the requirements whose status changed and the methods whose p90 latency
// regressed.
type DiffResult struct {
	OldVerdict  string              `json:"oldVerdict"`
	NewVerdict  string              `json:"newVerdict"`
	Changes     []StatusChange      `json:"changes,omitempty"`
	Regressions []LatencyRegression `json:"regressions,omitempty"`
	// LatencyIgnored: the regressions are listed but do not make the
	// comparison worse (e2e-conform diff --no-latency).
	LatencyIgnored bool `json:"latencyIgnored,omitempty"`
}

// StatusChange is one requirement whose status differs between the runs.
// A requirement missing from one report has the status Absent there.
type StatusChange struct {
	ID     string `json:"id"`
	Level  string `json:"level"`
	Old    Status `json:"old"`
	New    Status `json:"new"`
	Reason string `json:"reason,omitempty"` // the new run's reason
	// Worse: the new status ranks below the old one (statusRank).
	Worse bool `json:"worse"`
}

// LatencyRegression is one method whose p90 round trip regressed (p90
// regression rule: LatencyRegressed).
type LatencyRegression struct {
	Method   string  `json:"method"`
	OldP90Ms float64 `json:"oldP90Ms"`
	NewP90Ms float64 `json:"newP90Ms"`
	OldCount int     `json:"oldCount"`
	NewCount int     `json:"newCount"`
}

// The p90 regression rule: a method regressed when its new p90 exceeds
// the old one by more than latencyFactor times and by more than
// latencySlackMs (both, so that neither a 0.2 → 0.5 ms jitter nor a few
// percent on a slow method counts).
const (
	latencyFactor  = 1.2
	latencySlackMs = 1.0
	// latencyMinCalls: a method called fewer times in either run is not
	// compared (the p90 of a handful of calls is their slowest, which one
	// busy moment of the machine sets).
	latencyMinCalls = 20
)

// LatencyRegressed reports whether a p90 going from oldMs to newMs is a
// regression: newMs > oldMs × 1.2 and newMs > oldMs + 1 ms.
func LatencyRegressed(oldMs, newMs float64) bool {
	return newMs > oldMs*latencyFactor && newMs > oldMs+latencySlackMs
}

// statusRank orders the statuses for Diff: failed (expected or not: a
// baseline changes no engine's behaviour) below not verified below
// the rest (passed, not applicable, not selected, absent), which rank
// alike: a requirement that became failed, or became not verified from
// anything but failed, got worse; passed → not applicable (the engine no
// longer declares what it needs) or → not selected (another selection) is
// a change, not a regression.
func statusRank(st Status) int {
	switch st {
	case Failed, ExpectedFailure:
		return 0
	case NotVerified:
		return 1
	default:
		return 2
	}
}

// Worse reports whether anything changed for the worse: a requirement's
// status or, unless LatencyIgnored, a method's p90 latency.
func (d DiffResult) Worse() bool {
	if len(d.Regressions) > 0 && !d.LatencyIgnored {
		return true
	}
	for _, c := range d.Changes {
		if c.Worse {
			return true
		}
	}
	return false
}

// Diff compares the report of an earlier run (oldRun) with a later one (newRun):
// every requirement whose status changed, in the new report's catalog order
// (then those only the old report has), and every method called at least
// latencyMinCalls times in both runs whose p90 latency regressed
// (LatencyRegressed), in the new report's order.
func Diff(oldRun, newRun *Result) DiffResult {
	d := DiffResult{OldVerdict: oldRun.Verdict, NewVerdict: newRun.Verdict}
	before := map[string]RequirementResult{}
	for _, r := range oldRun.Requirements {
		before[r.ID] = r
	}
	seen := map[string]bool{}
	for _, n := range newRun.Requirements {
		seen[n.ID] = true
		o, ok := before[n.ID]
		oldStatus := o.Status
		if !ok {
			oldStatus = Absent
		}
		if oldStatus == n.Status {
			continue
		}
		d.Changes = append(d.Changes, StatusChange{ID: n.ID, Level: n.Level, Old: oldStatus, New: n.Status, Reason: n.Reason,
			Worse: statusRank(n.Status) < statusRank(oldStatus)})
	}
	for _, o := range oldRun.Requirements {
		if !seen[o.ID] {
			d.Changes = append(d.Changes, StatusChange{ID: o.ID, Level: o.Level, Old: o.Status, New: Absent})
		}
	}
	oldLatency := map[string]MethodLatency{}
	for _, m := range oldRun.Latency {
		oldLatency[m.Method] = m
	}
	for _, n := range newRun.Latency {
		o, ok := oldLatency[n.Method]
		if !ok || o.Count < latencyMinCalls || n.Count < latencyMinCalls || !LatencyRegressed(o.P90Ms, n.P90Ms) {
			continue
		}
		d.Regressions = append(d.Regressions, LatencyRegression{Method: n.Method, OldP90Ms: o.P90Ms, NewP90Ms: n.P90Ms, OldCount: o.Count, NewCount: n.Count})
	}
	return d
}

// Write prints the comparison: the verdicts, each changed requirement
// (worse ones marked WORSE, with the first line of the new reason), each
// regressed method, and a closing line.
func (d DiffResult) Write(w io.Writer) {
	if d.OldVerdict != d.NewVerdict {
		fmt.Fprintf(w, "verdict: %s → %s\n", d.OldVerdict, d.NewVerdict)
	} else {
		fmt.Fprintf(w, "verdict: %s (unchanged)\n", d.NewVerdict)
	}
	worse := 0
	if len(d.Changes) > 0 {
		fmt.Fprintf(w, "\nrequirements whose status changed:\n")
	}
	for _, c := range d.Changes {
		mark := "      "
		if c.Worse {
			mark = "WORSE "
			worse++
		}
		fmt.Fprintf(w, "%s%s (%s): %s → %s\n", mark, c.ID, c.Level, c.Old, c.New)
		if c.Reason != "" {
			fmt.Fprintf(w, "        %s\n", diffReason(c.Reason))
		}
	}
	if len(d.Regressions) > 0 {
		fmt.Fprintf(w, "\nmethods whose p90 round trip regressed (new p90 > old p90 × %.1f and > old p90 + %.0f ms, %d calls or more in both runs)%s:\n", latencyFactor, latencySlackMs, latencyMinCalls, ifStr(d.LatencyIgnored, ", not counted as worse (--no-latency)"))
	}
	for _, r := range d.Regressions {
		fmt.Fprintf(w, "SLOWER %s: p90 %.1f ms → %.1f ms (%d → %d calls)\n", r.Method, r.OldP90Ms, r.NewP90Ms, r.OldCount, r.NewCount)
	}
	fmt.Fprintf(w, "\n%d requirement(s) changed, %d for the worse; %d method(s) slower%s\n", len(d.Changes), worse, len(d.Regressions), ifStr(d.LatencyIgnored, " (latency not gating: --no-latency)"))
}

// diffReasonRunes bounds the reason Write prints per change (the report
// has it whole).
const diffReasonRunes = 400

// diffReason is the first line of reason, cut at diffReasonRunes runes.
func diffReason(reason string) string {
	line, _, more := strings.Cut(strings.TrimSpace(reason), "\n")
	if r := []rune(line); len(r) > diffReasonRunes {
		line, more = string(r[:diffReasonRunes]), true
	}
	if more {
		line += " …"
	}
	return line
}

// ReadResult reads a run's JSON report (WriteJSON) from path. An error
// names the file: it cannot be read, is not JSON, or is not the report of
// one run (the combined report of --repeat has no requirements).
func ReadResult(path string) (*Result, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the report %s: %w", path, err)
	}
	var r Result
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("the report %s is not JSON of an e2e-conform report: %w", path, err)
	}
	switch {
	case r.Suite != "e2e-conform":
		return nil, fmt.Errorf("the report %s: %w (suite %q, want \"e2e-conform\")", path, errNotRunReport, r.Suite)
	case r.Requirements == nil:
		return nil, fmt.Errorf("the report %s: %w (it has no requirements: a --repeat report?)", path, errNotRunReport)
	}
	return &r, nil
}

// errNotRunReport is the error of a JSON file that is not one run's report.
var errNotRunReport = errors.New("not the JSON report of an e2e-conform run")
