package conformance

import (
	"strings"
	"testing"

	"github.com/e2e-conform/toolkit/conformance/report"
	"github.com/onsi/ginkgo/v2/types"
)

// TestPanickedSpecIsNoFinding: a spec the suite's own code broke (a panic)
// is not verified, never failed, and the run is a harness error, not
// non-conformant, unless a MUST failed in another spec. Was: the panic
// failed the spec's requirements (WIRE-010 and TRN-001 against a manifest
// listing no method, an index out of range in the suite).
func TestPanickedSpecIsNoFinding(t *testing.T) {
	ginkgoReport := func(states ...types.SpecState) types.Report {
		var r types.Report
		for i, st := range states {
			label := []string{"WIRE-010", "WIRE-009"}[i]
			r.SpecReports = append(r.SpecReports, types.SpecReport{
				LeafNodeType: types.NodeTypeIt, LeafNodeText: "spec " + label, LeafNodeLabels: []string{label}, State: st,
				Failure: types.Failure{Message: "runtime error: index out of range [0] with length 0"},
			})
		}
		return r
	}
	cases := []struct {
		name     string
		states   []types.SpecState
		wantExit int
		want     map[string]report.Status
	}{
		{"a panic alone is a harness error", []types.SpecState{types.SpecStatePanicked, types.SpecStatePassed}, report.ExitHarness,
			map[string]report.Status{"WIRE-010": report.NotVerified}},
		{"a MUST failed elsewhere still makes the run non-conformant", []types.SpecState{types.SpecStatePanicked, types.SpecStateFailed}, report.ExitNonConformant,
			map[string]report.Status{"WIRE-010": report.NotVerified, "WIRE-009": report.Failed}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			specs := specsFrom(ginkgoReport(c.states...))
			if !specs[0].SuiteError || specs[0].Status != report.NotVerified || !strings.Contains(specs[0].Message, "bug of e2e-conform") {
				t.Fatalf("the panicked spec: %+v, want not verified, marked a suite error", specs[0])
			}
			for i := range specs {
				specs[i].Evidence = report.Evidence{specs[i].Requirements[0]: {"checked": 1}}
				if c.states[i] == types.SpecStatePassed {
					specs[i].Status = report.Passed // specsFrom read no evidence entry
				}
			}
			res := report.Summarize(report.Scope{Profile: ProfileCore, Only: []string{"WIRE-009", "WIRE-010"}}, report.RunInput{Reached: true, Transport: "spawn"}, specs, nil)
			if res.ExitCode != c.wantExit {
				t.Errorf("exit %d (%s), want %d", res.ExitCode, res.Reason, c.wantExit)
			}
			for _, r := range res.Requirements {
				if want, ok := c.want[r.ID]; ok && r.Status != want {
					t.Errorf("%s is %s, want %s", r.ID, r.Status, want)
				}
			}
		})
	}
}
