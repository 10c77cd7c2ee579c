package conformance

import (
	"encoding/json"
	"strings"

	"github.com/e2e-conform/toolkit/conformance/catalog"
	"github.com/e2e-conform/toolkit/conformance/report"
	"github.com/onsi/ginkgo/v2/types"
)

// specsFrom converts ginkgo's spec reports.
func specsFrom(r types.Report) []report.SpecResult {
	var out []report.SpecResult
	for _, sr := range r.SpecReports {
		if sr.LeafNodeType != types.NodeTypeIt {
			continue
		}
		res := report.SpecResult{Text: sr.LeafNodeText, Duration: sr.RunTime, RunWide: isRunWide(sr.LeafNodeText)}
		for _, l := range sr.Labels() {
			if _, ok := catalog.Lookup(l); ok {
				res.Requirements = append(res.Requirements, l)
			}
		}
		msg := sr.Failure.Message
		switch {
		case sr.State == types.SpecStatePassed:
			res.Status = report.Passed
		case sr.State == types.SpecStateSkipped && strings.HasPrefix(msg, notApplicable):
			res.Status, res.Message = report.NotApplicable, strings.TrimPrefix(msg, notApplicable)
		case sr.State == types.SpecStateSkipped && strings.HasPrefix(msg, nothingToCheck):
			res.Status, res.Message, res.NothingToCheck = report.NotVerified, strings.TrimPrefix(msg, nothingToCheck), true
		case sr.State == types.SpecStateSkipped && strings.HasPrefix(msg, notVerified):
			res.Status, res.Message = report.NotVerified, strings.TrimPrefix(msg, notVerified)
		case sr.State == types.SpecStateSkipped || sr.State == types.SpecStatePending:
			res.Status, res.Message = report.NotSelected, msg
		case sr.State == types.SpecStatePanicked:
			// A panic is the suite's own bug, whatever the engine sent: no
			// requirement is failed for it (the run reports a harness error).
			res.Status, res.SuiteError = report.NotVerified, true
			res.Message = "the suite itself broke (a bug of e2e-conform, not a finding about the engine; please report it): " + failureText(sr)
		default: // failed, timedout, interrupted, aborted
			res.Status, res.Message = report.Failed, strings.TrimSpace(sr.State.String()+": "+failureText(sr))
		}
		for _, e := range sr.ReportEntries {
			switch e.Name {
			case "last frames":
				res.LastFrames = e.StringRepresentation()
			case "frame times":
				var t []int64
				if json.Unmarshal([]byte(e.StringRepresentation()), &t) == nil {
					res.FrameTimes = t
				}
			case "warning":
				res.Warnings = append(res.Warnings, e.StringRepresentation())
			case "connection unserved":
				// The server left a connection the spec needed unserved
				// (connguard.go): the run-wide check of TRN-003 reports
				// that; the spec did not judge its own requirement.
				if res.Status == report.Failed {
					res.Status, res.Message = report.NotVerified, e.StringRepresentation()+"; what the spec then saw: "+res.Message
				}
			case "stream broken":
				// A connection's stream broke under the spec (a framing
				// fault the run-wide WIRE-001 check reports): what failed
				// after it is not the spec's requirement's fault.
				if res.Status == report.Failed {
					res.Status, res.Message = report.NotVerified, e.StringRepresentation()+"; what the spec then saw: "+res.Message
				}
			case "evidence":
				var ev report.Evidence
				if json.Unmarshal([]byte(e.StringRepresentation()), &ev) == nil {
					res.Evidence = ev
				}
			}
		}
		if res.Status == report.Passed && totalEvidence(res.Evidence) == 0 {
			// Every spec talks to the server; one that read nothing from
			// it checked nothing (D58).
			res.Status, res.Message = report.NotVerified, "the spec read nothing from the server, so it checked nothing"
		}
		out = append(out, res)
	}
	return out
}

// totalEvidence counts every observation of ev.
func totalEvidence(ev report.Evidence) int {
	n := 0
	for id := range ev {
		n += ev.Total(id)
	}
	return n
}

// summarize turns spec results into the requirement verdicts, the verdict
// and the exit code (report.Summarize, within cfg's scope).
func summarize(cfg Config, env *runEnv, specs []report.SpecResult, harnessErr error) Result {
	return report.Summarize(scopeOf(cfg), env.summaryInput(), specs, harnessErr)
}

// scopeOf is what the verdict needs of cfg: the engine's name, the
// profile, the selection, the shard and the baseline.
func scopeOf(cfg Config) report.Scope {
	return report.Scope{Engine: (&suite{cfg: cfg}).name(), Profile: cfg.profile(), Only: cfg.Only, Skip: cfg.Skip,
		Shard: cfg.Shard, Baseline: cfg.ExpectedFailures}
}

// summaryInput collects e's part of the summary (a nil e: nothing).
func (e *runEnv) summaryInput() report.RunInput {
	if e == nil {
		return report.RunInput{}
	}
	in := report.RunInput{Reached: e.Manifest.Name != "", Transport: e.Transport, Manifest: e.Manifest, Latency: e.latency.snapshot()}
	in.Facts.TapModifiersPresent = e.tapModifiersPresent
	in.Facts.ServerSent = e.sentKinds()
	if e.initRefused != nil {
		in.Facts.InitRefused = e.initRefused.Error()
	}
	return in
}
