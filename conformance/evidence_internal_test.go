package conformance

import (
	"testing"
)

// The frames a spec reads are the floor of its evidence (a spec that read
// nothing passed nothing), never the evidence a particular check needs:
// requireEvidence and the run-wide checks count only what was recorded with
// observed. Before, every frame counted, so a check that saw nothing of
// what it needed could never report not verified.
func TestFramesReadAreNotEvidenceOfACheck(t *testing.T) {
	cases := []struct {
		name         string
		frames       int
		observations []string
		wantSpec     int
		wantRun      int
		wantTotal    int
	}{
		{"frames only", 5, nil, 0, 0, 5},
		{"nothing at all", 0, nil, 0, 0, 0},
		{"frames and one observation", 3, []string{"URL not reached"}, 1, 1, 4},
		{"observations only", 0, []string{"a", "b"}, 2, 2, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := &runEnv{}
			e.beginSpec([]string{"SIG-001"})
			for range tc.frames {
				e.frameReceived()
			}
			for _, what := range tc.observations {
				e.observed("SIG-001", what)
			}
			if got := e.specObserved("SIG-001"); got != tc.wantSpec {
				t.Errorf("specObserved = %d, want %d", got, tc.wantSpec)
			}
			if got := e.runObserved("SIG-001"); got != tc.wantRun {
				t.Errorf("runObserved = %d, want %d", got, tc.wantRun)
			}
			e.adoptRunEvidence("SIG-001")
			if got := e.specObserved("SIG-001"); got != tc.wantSpec {
				t.Errorf("specObserved after adoptRunEvidence = %d, want %d", got, tc.wantSpec)
			}
			ev := e.endSpec()
			if got := totalEvidence(ev); got != tc.wantTotal {
				t.Errorf("the spec's whole evidence (the report's floor) = %d, want %d", got, tc.wantTotal)
			}
		})
	}
}
