package report

import (
	"regexp"
	"strings"

	"github.com/e2e-conform/toolkit/conformance/catalog"
)

// Explanation tells a vendor what a failed or not-verified requirement
// asked, where the specification says it, what the suite sent, what it
// wanted, what came back, and the likely cause; Exchange is the frames of
// the spec's own connections, labelled ("conn 3 (raw) send {…}"), bounded
// at 64 KiB with an elision marker.
type Explanation struct {
	Requirement string `json:"requirement"`
	Section     string `json:"section"`
	Sent        string `json:"sent,omitempty"`
	Wanted      string `json:"wanted"`
	Came        string `json:"came,omitempty"`
	LikelyCause string `json:"likelyCause,omitempty"`
	// Spec is the text of the spec whose exchange this is.
	Spec     string `json:"spec,omitempty"`
	Exchange string `json:"exchange,omitempty"`
}

// wantRE and gotRE find what a failure message wanted and what came.
var (
	wantRE = regexp.MustCompile(`(?s)\bwant(?:ed)?\b:? (.*?)(?:, got\b|; got\b|\. got\b|$)`)
	gotRE  = regexp.MustCompile(`(?s)\bgot\b:? (.*)$`)
	// wantAfterGotRE is where a "got …; want …" message's want clause
	// begins: came stops there.
	wantAfterGotRE = regexp.MustCompile(`[;,.:]\s+want(?:ed)?\b`)
)

// Explain fills every requirement's Section and, for each failed or not
// verified one, its Explanation, from the catalog and the spec results.
func (r *Result) Explain() {
	for i := range r.Requirements {
		rr := &r.Requirements[i]
		req, ok := catalog.Lookup(rr.ID)
		if !ok {
			continue
		}
		rr.Section = req.Section
		status := rr.Status
		if status == ExpectedFailure {
			status = Failed // explained as the failure it is
		}
		if status != Failed && status != NotVerified {
			continue
		}
		x := &Explanation{Requirement: req.Statement, Section: req.Section, LikelyCause: catalog.LikelyCause(rr.ID, rr.Reason)}
		if rr.Status == NotVerified {
			x.LikelyCause = "" // nothing failed: the check could not run
		}
		var spec *SpecResult
		for j := range r.Specs {
			s := &r.Specs[j]
			if !contains(s.Requirements, rr.ID) || s.Status != status {
				continue
			}
			if spec == nil || (spec.LastFrames == "" && s.LastFrames != "") {
				spec = s
			}
		}
		x.Wanted = req.Statement
		if m := wantRE.FindStringSubmatch(rr.Reason); m != nil && strings.TrimSpace(m[1]) != "" {
			x.Wanted = strings.TrimSpace(m[1])
		}
		if m := gotRE.FindStringSubmatch(rr.Reason); m != nil {
			came := m[1]
			if i := wantAfterGotRE.FindStringIndex(came); i != nil {
				came = came[:i[0]]
			}
			x.Came = strings.TrimSpace(came)
		}
		if spec != nil {
			x.Spec, x.Exchange = spec.Text, spec.LastFrames
			if x.Came == "" {
				x.Came = lastReceived(spec.LastFrames)
			}
			x.Sent = requestUnderTest(spec.LastFrames, rr.Reason, x.Came)
		}
		if x.Came == "" && status == Failed {
			x.Came = "nothing: no frame came from the server"
		}
		rr.Explanation = x
	}
}

// lastReceived is the last frame the server wrote in an exchange's own
// part (before the frames around a run-wide violation).
func lastReceived(exchange string) string {
	frames := exchangeFrames(exchange)
	if i := lastFrame(frames, len(frames), func(f exchangeFrame) bool { return !f.sent && !f.around }); i >= 0 {
		return frames[i].line()
	}
	return ""
}
