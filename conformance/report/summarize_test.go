package report

import "testing"

// TestUnreachedRunDecidesNoApplicability: a run that never reached the
// engine (core with --only a fixture requirement selects no spec) knows
// no manifest, so it reports no requirement not applicable for lacking a
// method. Was: "OBS-005 not applicable: the manifest does not list
// engine/observe" against an engine that lists it.
func TestUnreachedRunDecidesNoApplicability(t *testing.T) {
	specs := []SpecResult{{Text: "a spec of OBS-005", Requirements: []string{"OBS-005"}, Status: NotSelected}}
	res := Summarize(Scope{Profile: ProfileCore, Only: []string{"OBS-005"}}, RunInput{}, specs, nil)
	for _, r := range res.Requirements {
		if r.ID == "OBS-005" && r.Status != NotSelected {
			t.Errorf("OBS-005 is %s (%s), want not selected", r.Status, r.Reason)
		}
	}
}
