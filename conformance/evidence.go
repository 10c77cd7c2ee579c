package conformance

import (
	. "github.com/onsi/ginkgo/v2"

	"github.com/e2e-conform/toolkit/conformance/report"
)

// observed records one observation of what for requirement id, for the
// spec running now and for the run (the run-wide checks read the latter).
// It is safe for concurrent use (frames are checked on reader goroutines).
func (e *runEnv) observed(id, what string) {
	what = e.Redact(what) // an engine's code or method name could carry anything
	if len(what) > 96 {
		what = what[:96] + "…"
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.runEvidence.Add(id, what, 1)
	if e.specEvidence != nil {
		e.specEvidence.Add(id, what, 1)
	}
}

// runObserved returns how many observations the run made for id so far.
func (e *runEnv) runObserved(id string) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.runEvidence.Checked(id)
}

// specObserved returns how many observations the running spec made for id,
// the frames it merely read (report.FrameFloor) not counted: a check that needed
// to see something must have recorded it with observed.
func (e *runEnv) specObserved(id string) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.specEvidence.Checked(id)
}

// specObservedWhat returns how many observations of what the running spec
// made for id.
func (e *runEnv) specObservedWhat(id, what string) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.specEvidence[id][what]
}

// requireEvidence ends the running spec as not verified when it observed
// nothing for requirement id; why says what it needed to see.
func (e *runEnv) requireEvidence(id, why string) {
	if e.specObserved(id) == 0 {
		Skip(notVerified + why)
	}
}

// requireRunEvidence is requireEvidence over the whole run's observations
// (the run-wide checks).
func (e *runEnv) requireRunEvidence(id, why string) {
	if e.runObserved(id) == 0 {
		Skip(notVerified + why)
	}
}

// beginSpec starts a fresh record of the running spec's evidence; ids are
// the spec's requirements, each credited with every frame the server
// writes while it runs (the floor of evidence: a spec that read nothing
// from the server cannot have checked it).
//
// It also starts the spec's exchange: every frame of every connection
// until endSpec, labelled by connection (trace.go), the failure report's
// LastFrames.
func (e *runEnv) beginSpec(ids []string) {
	e.mu.Lock()
	e.specEvidence = report.Evidence{}
	e.specIDs = ids
	e.specExchange = newExchange()
	e.lastExchange, e.lastIDs = e.specExchange, ids
	e.specClients = nil
	e.mu.Unlock()
}

// prepareSpec forgets the previous spec's exchange and broken stream, as
// the spec starts (before the server-to-client scenario it may run, whose
// broken stream counts as the spec's).
func (e *runEnv) prepareSpec(ids []string) {
	e.mu.Lock()
	e.lastExchange, e.lastIDs = nil, ids
	e.specBroken, e.specClients = "", nil
	e.mu.Unlock()
}

// frameReceived credits the running spec's requirements with one frame
// read from the server.
func (e *runEnv) frameReceived() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.specEvidence == nil {
		return
	}
	for _, id := range e.specIDs {
		e.specEvidence.Add(id, report.FrameFloor, 1)
	}
}

// endSpec returns the running spec's evidence and stops recording it and
// its exchange (which LastFrames still renders).
func (e *runEnv) endSpec() report.Evidence {
	e.mu.Lock()
	defer e.mu.Unlock()
	ev := e.specEvidence
	e.specEvidence, e.specIDs, e.specExchange = nil, nil, nil
	return ev
}

// adoptRunEvidence copies the run's observations for id into the running
// spec's evidence (a run-wide check rests on the whole run's traffic).
func (e *runEnv) adoptRunEvidence(id string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.specEvidence == nil {
		return
	}
	// The run's record already holds what this spec observed (the
	// workload ran inside it): replace, keeping the spec's own frame count.
	own := e.specEvidence[id][report.FrameFloor]
	m := map[string]int{}
	for what, n := range e.runEvidence[id] {
		m[what] = n
	}
	if own > 0 {
		m[report.FrameFloor] = own
	}
	e.specEvidence[id] = m
}

// skipNothingToCheck ends the running spec as not verified with nothing to
// check (the engine did what the spec allows and left the check nothing to
// judge).
func skipNothingToCheck(reason string) { Skip(nothingToCheck + reason) }
