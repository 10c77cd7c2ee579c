package conformance

import (
	"strings"
	"testing"

	"github.com/e2e-conform/toolkit/conformance/report"
)

// TestCutRunKeepsItsFailures: a run cut (signal, run timeout) after a MUST
// failed stays non-conformant, its reason saying it did not end; one
// without a failed MUST is incomplete; a run-wide check the cut kept from
// running fails on the violations the run recorded before the cut.
func TestCutRunKeepsItsFailures(t *testing.T) {
	const why = "the run timeout (1s) elapsed before its last spec"
	nonConformant := Result{Verdict: "non-conformant", ExitCode: report.ExitNonConformant, Reason: "1 MUST requirement(s) failed", Counts: map[report.Status]int{report.Failed: 1}}
	nonConformant.MarkIncomplete(why)
	if nonConformant.ExitCode != report.ExitNonConformant || nonConformant.Verdict != "non-conformant" || !strings.Contains(nonConformant.Reason, why) {
		t.Errorf("a cut run with a failed MUST: %q (exit %d, %s), want non-conformant naming the cut", nonConformant.Verdict, nonConformant.ExitCode, nonConformant.Reason)
	}
	for _, r := range []Result{
		{Verdict: "conformant", ExitCode: report.ExitConformant, Counts: map[report.Status]int{}},
		{Verdict: "conformant", ExitCode: report.ExitConformant, Counts: map[report.Status]int{report.Failed: 1}}, // a SHOULD
		{Verdict: "incomplete", ExitCode: report.ExitIncomplete, Counts: map[report.Status]int{}},
	} {
		r.MarkIncomplete(why)
		if r.ExitCode != report.ExitIncomplete || r.Verdict != "incomplete" || !strings.HasPrefix(r.Reason, why) {
			t.Errorf("a cut run without a failed MUST: %q (exit %d, %s), want incomplete", r.Verdict, r.ExitCode, r.Reason)
		}
	}

	wire001 := runWideChecks[0]
	var wire002 runWideCheck
	for _, c := range runWideChecks {
		if c.id == "WIRE-002" {
			wire002 = c
		}
	}
	specs := []report.SpecResult{
		{Text: wire001.text, Requirements: []string{wire001.id}, Status: report.NotVerified, Message: "not run: " + why},
		{Text: wire002.text, Requirements: []string{wire002.id}, Status: report.NotVerified, Message: "not run: " + why},
		{Text: "a spec of WIRE-001 that is no run-wide check", Requirements: []string{"WIRE-001"}, Status: report.NotVerified, Message: "not run: " + why},
	}
	e := &runEnv{}
	e.runChecker.violations = map[string][]violationRec{"WIRE-001": {{msg: "Content-Length 3 for 4 bytes"}}}
	failRecordedViolations(specs, e)
	if specs[0].Status != report.Failed || !strings.Contains(specs[0].Message, "Content-Length 3 for 4 bytes") {
		t.Errorf("the run-wide check of WIRE-001, violated before the cut: %s (%s), want failed with the violation", specs[0].Status, specs[0].Message)
	}
	if specs[1].Status != report.NotVerified || specs[2].Status != report.NotVerified {
		t.Errorf("a run-wide check without violations, or a spec that is none: %s, %s; want both still not verified", specs[1].Status, specs[2].Status)
	}
}
