package conformance

import (
	"sync"

	. "github.com/onsi/ginkgo/v2"

	"github.com/e2e-conform/toolkit/conformance/report"
)

// evidenceRecorder is the run's observations and the running spec's
// (report.Evidence), under their own lock: frames are checked, and so
// observed, on reader goroutines. The zero value is ready to use.
type evidenceRecorder struct {
	mu sync.Mutex
	// run is every observation of the run, spec those of the spec running
	// now (nil between specs).
	run  report.Evidence
	spec report.Evidence
	ids  []string // the running spec's requirements
}

// add records one observation of what for requirement id, for the run
// and the running spec.
func (r *evidenceRecorder) add(id, what string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.run == nil {
		r.run = report.Evidence{}
	}
	r.run.Add(id, what, 1)
	if r.spec != nil {
		r.spec.Add(id, what, 1)
	}
}

// runChecked is how many observations the run made for id beyond the
// frame floor.
func (r *evidenceRecorder) runChecked(id string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.run.Checked(id)
}

// specChecked is how many observations the running spec made for id
// beyond the frame floor.
func (r *evidenceRecorder) specChecked(id string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.spec.Checked(id)
}

// specWhat is how many observations of what the running spec made for id.
func (r *evidenceRecorder) specWhat(id, what string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.spec[id][what]
}

// begin starts a fresh record of the running spec's evidence for ids.
func (r *evidenceRecorder) begin(ids []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.spec, r.ids = report.Evidence{}, ids
}

// end returns the running spec's evidence and stops recording it.
func (r *evidenceRecorder) end() report.Evidence {
	r.mu.Lock()
	defer r.mu.Unlock()
	ev := r.spec
	r.spec, r.ids = nil, nil
	return ev
}

// specIDs is the running spec's requirements (nil between specs).
func (r *evidenceRecorder) specIDs() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ids
}

// frame credits the running spec's requirements with one frame read from
// the server.
func (r *evidenceRecorder) frame() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.spec == nil {
		return
	}
	for _, id := range r.ids {
		r.spec.Add(id, report.FrameFloor, 1)
	}
}

// adopt copies the run's observations for id into the running spec's
// evidence, keeping the spec's own frame count.
func (r *evidenceRecorder) adopt(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.spec == nil {
		return
	}
	// The run's record already holds what this spec observed (the
	// workload ran inside it): replace, keeping the spec's own frame count.
	own := r.spec[id][report.FrameFloor]
	m := map[string]int{}
	for what, n := range r.run[id] {
		m[what] = n
	}
	if own > 0 {
		m[report.FrameFloor] = own
	}
	r.spec[id] = m
}

// observed records one observation of what for requirement id, for the
// spec running now and for the run (the run-wide checks read the latter).
// It is safe for concurrent use (frames are checked on reader goroutines).
func (e *runEnv) observed(id, what string) {
	what = e.Redact(what) // an engine's code or method name could carry anything
	if len(what) > 96 {
		what = what[:96] + "…"
	}
	e.evidence.add(id, what)
}

// runObserved returns how many observations the run made for id so far.
func (e *runEnv) runObserved(id string) int {
	return e.evidence.runChecked(id)
}

// specObserved returns how many observations the running spec made for id,
// the frames it merely read (report.FrameFloor) not counted: a check that needed
// to see something must have recorded it with observed.
func (e *runEnv) specObserved(id string) int {
	return e.evidence.specChecked(id)
}

// specObservedWhat returns how many observations of what the running spec
// made for id.
func (e *runEnv) specObservedWhat(id, what string) int {
	return e.evidence.specWhat(id, what)
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
	e.evidence.begin(ids)
	e.exchanges.begin(ids)
}

// prepareSpec forgets the previous spec's exchange and broken stream, as
// the spec starts (before the server-to-client scenario it may run, whose
// broken stream counts as the spec's).
func (e *runEnv) prepareSpec(ids []string) {
	e.exchanges.prepare(ids)
}

// frameReceived credits the running spec's requirements with one frame
// read from the server.
func (e *runEnv) frameReceived() {
	e.evidence.frame()
}

// endSpec returns the running spec's evidence and stops recording it and
// its exchange (which LastFrames still renders).
func (e *runEnv) endSpec() report.Evidence {
	ev := e.evidence.end()
	e.exchanges.end()
	return ev
}

// adoptRunEvidence copies the run's observations for id into the running
// spec's evidence (a run-wide check rests on the whole run's traffic).
func (e *runEnv) adoptRunEvidence(id string) {
	e.evidence.adopt(id)
}

// skipNothingToCheck ends the running spec as not verified with nothing to
// check (the engine did what the spec allows and left the check nothing to
// judge).
func skipNothingToCheck(reason string) { Skip(nothingToCheck + reason) }

// skipNotVerified skips the running spec as not verified.
func skipNotVerified(reason string) { Skip(notVerified + reason) }
