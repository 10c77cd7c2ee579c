package report

import "fmt"

// Redact passes every text of r that can quote what an engine sent or what
// a spec expected through redact: no report shows a secret value, however
// a spec's message came to hold it.
func (r *Result) Redact(redact func(string) string) {
	r.Reason = redact(r.Reason)
	for id, why := range r.ExpectedFailures {
		r.ExpectedFailures[id] = redact(why)
	}
	r.Engine = redact(r.Engine)
	r.Provenance.redact(redact)
	for i := range r.Warnings {
		r.Warnings[i] = redact(r.Warnings[i])
	}
	for i := range r.Requirements {
		rr := &r.Requirements[i]
		rr.Reason, rr.Baseline = redact(rr.Reason), redact(rr.Baseline)
		if x := rr.Explanation; x != nil {
			x.Sent, x.Wanted, x.Came, x.Exchange = redact(x.Sent), redact(x.Wanted), redact(x.Came), redact(x.Exchange)
		}
	}
	for i := range r.Specs {
		sp := &r.Specs[i]
		sp.Message, sp.LastFrames = redact(sp.Message), redact(sp.LastFrames)
		for j := range sp.Warnings {
			sp.Warnings[j] = redact(sp.Warnings[j])
		}
	}
}

// MarkIncomplete makes an interrupted run incomplete (exit 3): the report
// holds what it saw, failures included, but the run did not end. A run
// that had failed a MUST by then stays non-conformant (exit 1): the
// failure is a fact whatever was left unrun, and the reason says the run
// was cut.
func (r *Result) MarkIncomplete(why string) {
	if r.ExitCode == ExitNonConformant {
		r.Reason += "; the run did not end: " + why
		return
	}
	if r.Counts[Failed] > 0 {
		why += fmt.Sprintf("; %d requirement(s) had failed by then", r.Counts[Failed])
	}
	r.Verdict, r.ExitCode, r.Reason = "incomplete", ExitIncomplete, why
}

// MarkNotVerified marks requirement id not verified with reason (a requirement
// failed by another's breach is reset too).
func (r *Result) MarkNotVerified(id, reason string) {
	for i := range r.Requirements {
		if r.Requirements[i].ID == id {
			r.Counts[r.Requirements[i].Status]--
			r.Counts[NotVerified]++
			r.Requirements[i].Status = NotVerified
			r.Requirements[i].Reason = reason
		}
	}
}

// MarkFailed marks requirement id failed with reason.
func (r *Result) MarkFailed(id, reason string) {
	for i := range r.Requirements {
		if r.Requirements[i].ID == id {
			if r.Requirements[i].Status != Failed {
				r.Counts[r.Requirements[i].Status]--
				r.Counts[Failed]++
			}
			r.Requirements[i].Status = Failed
			r.Requirements[i].Reason = reason
		}
	}
}

// redact passes the provenance's command through redact.
func (p *Provenance) redact(redact func(string) string) {
	if p == nil {
		return
	}
	for i := range p.EngineCommand {
		p.EngineCommand[i] = redact(p.EngineCommand[i])
	}
}
