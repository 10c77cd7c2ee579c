package report

import "testing"

// TestCameStopsAtWant: "got X; want Y" explains came X, not "X; want Y".
func TestCameStopsAtWant(t *testing.T) {
	r := &Result{
		Requirements: []RequirementResult{{ID: "WIRE-009", Status: Failed, Reason: "failed: got code -32603; want -32601 (§1.7)"}},
	}
	r.Explain()
	x := r.Requirements[0].Explanation
	if x == nil || x.Came != "code -32603" || x.Wanted != "-32601 (§1.7)" {
		t.Fatalf("explanation %+v", x)
	}
}
