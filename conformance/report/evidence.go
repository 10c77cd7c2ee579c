package report

import (
	"fmt"
	"sort"
	"strings"
)

// Evidence is what a verdict rests on: for each requirement, how many
// things of each kind the suite observed and checked ("frame framed",
// "engine error CANCELLED", "case replace:false"). A spec whose check
// depends on something happening (an error drawn, a message sent, an action
// run) records it with runEnv.observed and ends with runEnv.requireEvidence, so
// that a check that saw nothing reports not verified, never passed (D58).
// The JSON report carries each spec's and each requirement's evidence.
type Evidence map[string]map[string]int

// Add counts n observations of what for requirement id.
func (ev Evidence) Add(id, what string, n int) {
	m := ev[id]
	if m == nil {
		m = map[string]int{}
		ev[id] = m
	}
	m[what] += n
}

// FrameFloor is the evidence every frame read from the server while a spec
// runs gives each of the spec's requirements: the floor of evidence (a spec
// that read nothing from the server cannot have checked it), never evidence
// of what a particular check needs to see.
const FrameFloor = "frame received from the server"

// Total is the number of observations recorded for id, the frame floor
// included.
func (ev Evidence) Total(id string) int {
	n := 0
	for _, c := range ev[id] {
		n += c
	}
	return n
}

// Checked is the number of observations recorded for id beyond the frame
// floor: what a check that depends on something happening needs.
func (ev Evidence) Checked(id string) int {
	return ev.Total(id) - ev[id][FrameFloor]
}

// Merge adds every count of o.
func (ev Evidence) Merge(o Evidence) {
	for id, m := range o {
		for what, n := range m {
			ev.Add(id, what, n)
		}
	}
}

// Clone copies ev.
func (ev Evidence) Clone() Evidence {
	out := Evidence{}
	out.Merge(ev)
	return out
}

// Describe renders id's evidence as "what ×n, …", sorted.
func (ev Evidence) Describe(id string) string {
	var parts []string
	for what, n := range ev[id] {
		parts = append(parts, fmt.Sprintf("%s ×%d", what, n))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}
