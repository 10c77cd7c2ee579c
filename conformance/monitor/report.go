package monitor

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/e2e-conform/toolkit/conformance/catalog"
	"github.com/e2e-conform/toolkit/conformance/report"
	"github.com/e2e-conform/toolkit/conformance/traffic"
)

// VerdictViolations is the verdict of a session in which a violation was
// seen. A session without one is never called conformant: its verdict
// says what was seen ("no violation seen in this traffic (N frames, M
// methods)").
const VerdictViolations = "violations"

// Report is a monitored session's report: the suite's Result (the verdict,
// a requirement result per requirement exercised or broken, one spec
// result per violation kept, latency per method) and what the traffic
// covered.
type Report struct {
	*report.Result
	Monitor Coverage `json:"monitor"`
}

// Coverage is what the monitored traffic covered.
type Coverage struct {
	// Frames is the number of frames judged, both directions.
	Frames int `json:"frames"`
	// Connections is the number of connections relayed.
	Connections int `json:"connections"`
	// Methods is each method seen: requests and notifications sent by
	// the harness and by the engine.
	Methods []MethodCount `json:"methods"`
	// Requirements is each requirement exercised: how many checks, and how
	// many violations.
	Requirements []RequirementCount `json:"requirements"`
	// Violations is every violation kept, with its side and exchange.
	Violations []ViolationReport `json:"violations,omitempty"`
	// UnjudgedBytes is the bytes relayed but not judged because the judge
	// fell behind and its queue was full (the connection was then only
	// relayed).
	UnjudgedBytes int64 `json:"unjudgedBytes,omitempty"`
	// OutOfStepBytes is the bytes relayed but not judged after a framing
	// fault put their connection out of step.
	OutOfStepBytes int64 `json:"outOfStepBytes,omitempty"`
	// Judged is the sides judged: both, engine or harness.
	Judged Judge `json:"judged"`
}

// MethodCount is how often a method was seen.
type MethodCount struct {
	Method      string `json:"method"`
	FromHarness int    `json:"fromHarness,omitempty"`
	FromEngine  int    `json:"fromEngine,omitempty"`
}

// RequirementCount is what a requirement saw.
type RequirementCount struct {
	ID         string `json:"id"`
	Checks     int    `json:"checks"`
	Violations int    `json:"violations,omitempty"`
}

// ViolationReport is one violation kept.
type ViolationReport struct {
	Requirement string       `json:"requirement"`
	Section     string       `json:"section,omitempty"`
	Side        traffic.Side `json:"side"`
	Conn        int          `json:"conn"`
	Message     string       `json:"message"`
	Exchange    string       `json:"exchange,omitempty"`
}

// Failed reports whether a violation was seen (a SHOULD missed is a
// warning, not a violation).
func (r *Report) Failed() bool { return r.Result.Verdict == VerdictViolations }

// build makes the report of what was seen so far. Called with m.mu held.
func (m *Monitor) build(engineExit int) *Report {
	rec := m.rec
	res := &report.Result{Suite: "e2e-conform monitor", SuiteVersion: report.SuiteVersion, Engine: strings.Join(m.cfg.Command, " "),
		Transport: "spawn", Counts: map[report.Status]int{}, Duration: time.Since(m.start)}
	if m.cfg.Command == nil {
		res.Engine, res.Transport = m.cfg.Connect, "socket"
	}
	cov := Coverage{Frames: rec.frames, Connections: int(m.nconn.Load()), Judged: m.cfg.Judge}
	for _, name := range rec.methodNames() {
		ms := rec.methods[name]
		cov.Methods = append(cov.Methods, MethodCount{Method: name, FromHarness: ms.fromHarness, FromEngine: ms.fromEngine})
	}
	var ids []string
	for id := range rec.reqs {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	violated := false
	for _, id := range ids {
		st := rec.reqs[id]
		checks := 0
		for _, n := range st.evidence {
			checks += n
		}
		cov.Requirements = append(cov.Requirements, RequirementCount{ID: id, Checks: checks, Violations: st.count})
		rr := report.RequirementResult{ID: id, Evidence: st.evidence, Section: id, Area: "harness", Level: "MUST"}
		if c, ok := catalog.Lookup(id); ok {
			rr.Area, rr.Level, rr.Statement, rr.Section = c.Area, string(c.Level), c.Statement, c.Section
		} else {
			rr.Statement = harnessStatement[id]
		}
		if st.count > 0 {
			v := st.violations[0]
			rr.Status = report.Failed
			rr.Reason = fmt.Sprintf("%s at fault (%d violation(s)): %s", v.Side, st.count, v.Message)
			if rr.Level == string(catalog.Should) {
				// A SHOULD missed is a warning, as in a suite run: it
				// neither makes the verdict nor fails --fail.
				res.Warnings = append(res.Warnings, fmt.Sprintf("%s (SHOULD): %s", id, rr.Reason))
			} else {
				violated = true
			}
		} else {
			rr.Status = report.NotVerified
			rr.Reason = fmt.Sprintf("no violation seen in this traffic (%d checks); traffic alone does not verify a requirement", checks)
		}
		res.Counts[rr.Status]++
		res.Requirements = append(res.Requirements, rr)
		for _, v := range st.violations {
			cov.Violations = append(cov.Violations, ViolationReport{Requirement: id, Section: v.Section, Side: v.Side, Conn: v.Conn, Message: v.Message, Exchange: v.Exchange})
			res.Specs = append(res.Specs, report.SpecResult{Text: fmt.Sprintf("%s, %s at fault: %s", id, v.Side, v.Message), Requirements: []string{id},
				Status: report.Failed, Message: fmt.Sprintf("%s (%s) broken by the %s on conn %d: %s", id, v.Section, v.Side, v.Conn, v.Message), LastFrames: v.Exchange, RunWide: true})
		}
	}
	var unjudged, outOfStep int64
	for cs := range rec.conns {
		unjudged += cs.bytes.Load()
		outOfStep += cs.outOfStep.Load()
	}
	for _, cs := range rec.closed {
		unjudged += cs.bytes.Load()
		outOfStep += cs.outOfStep.Load()
	}
	cov.UnjudgedBytes, cov.OutOfStepBytes = unjudged, outOfStep
	if unjudged > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("%d bytes were relayed but not judged: the judge fell behind (its queue of %d reads was full), so their connections were only relayed from then on", unjudged, m.cfg.QueueChunks))
	}
	if outOfStep > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("%d bytes were relayed but not judged: a framing fault put their connections out of step (see the violations)", outOfStep))
	}
	res.Warnings = append(res.Warnings, rec.cut...)
	res.Latency = rec.latency()
	if violated {
		res.Verdict = VerdictViolations
	} else {
		res.Verdict = fmt.Sprintf("no violation seen in this traffic (%d frames, %d methods)", rec.frames, len(rec.methods))
	}
	res.ExitCode = engineExit
	if violated && m.cfg.Fail {
		res.ExitCode = report.ExitNonConformant
	}
	out := &Report{Result: res, Monitor: cov}
	out.redact(rec.secrets)
	return out
}

// harnessStatement says what each harness rule without a catalog row
// requires.
var harnessStatement = map[string]string{
	traffic.RuleClientIDs:     "A sender does not reuse an id while a request with it is pending in the same direction, sends no batch, and answers only pending requests (§1.4).",
	traffic.RuleClientFraming: "Every message the client writes is a header part with Content-Length equal to the content's byte length, then UTF-8 JSON (§1.1).",
	traffic.RuleClientOrder:   "The client sends initialize first, and initialized before any other message (§2.2).",
	traffic.RuleClientParams:  "The params of every request and notification the client sends, and its attempt/resolveSecret results, validate against their schema.",
	traffic.RuleSignalRef:     "A SignalRef's aborted is only ever true, and reason comes only with it (§7.1).",
	traffic.RuleAbortedAtSend: "A request aborted at send (aborted: true) is answered with an error (§7.5, D24).",
}

// redact replaces every secret value the harness handed the engine, raw
// and in its JSON-escaped, base64 and percent-encoded forms, in every text
// of the report.
func (r *Report) redact(secrets []string) {
	if len(secrets) == 0 {
		return
	}
	var forms []string
	for _, s := range secrets {
		forms = append(forms, secretForms(s)...)
	}
	sort.Slice(forms, func(i, j int) bool { return len(forms[i]) > len(forms[j]) })
	f := func(s string) string {
		for _, v := range forms {
			s = strings.ReplaceAll(s, v, "[redacted]")
		}
		return s
	}
	r.Result.Redact(f)
	for i := range r.Monitor.Violations {
		r.Monitor.Violations[i].Message = f(r.Monitor.Violations[i].Message)
		r.Monitor.Violations[i].Exchange = f(r.Monitor.Violations[i].Exchange)
	}
}

// secretForms are the texts a secret value may appear as.
func secretForms(v string) []string {
	if v == "" {
		return nil
	}
	out := []string{v}
	if b, err := json.Marshal(v); err == nil {
		out = append(out, string(b[1:len(b)-1]))
	}
	if len(v) >= 8 {
		out = append(out, base64.StdEncoding.EncodeToString([]byte(v)), base64.URLEncoding.EncodeToString([]byte(v)), url.QueryEscape(v), url.PathEscape(v))
	}
	return out
}

// write writes the report files cfg asks for.
func (m *Monitor) write(r *Report, trace [][]byte, traceOut int, secrets []string) error {
	if p := m.cfg.JSON; p != "" {
		b, err := json.MarshalIndent(r, "", "  ")
		if err != nil {
			return fmt.Errorf("encoding the JSON report: %w", err)
		}
		if err := os.WriteFile(p, append(b, '\n'), 0o644); err != nil {
			return fmt.Errorf("writing the JSON report: %w", err)
		}
	}
	if p := m.cfg.JUnit; p != "" {
		if err := r.writeJUnit(p); err != nil {
			return fmt.Errorf("writing the JUnit report: %w", err)
		}
	}
	if p := m.cfg.HTML; p != "" {
		if err := r.Result.WriteHTML(p); err != nil {
			return fmt.Errorf("writing the HTML report: %w", err)
		}
	}
	if p := m.cfg.Trace; p != "" {
		var b strings.Builder
		forms := []string{}
		for _, s := range secrets {
			forms = append(forms, secretForms(s)...)
		}
		sort.Slice(forms, func(i, j int) bool { return len(forms[i]) > len(forms[j]) })
		for _, l := range trace {
			s := string(l)
			for _, v := range forms {
				s = strings.ReplaceAll(s, v, "[redacted]")
			}
			if !json.Valid([]byte(s)) {
				q, _ := json.Marshal(map[string]any{"t": 0, "conn": 0, "role": "monitor", "dir": "", "frame": s, "notJSON": true})
				s = string(q)
			}
			b.WriteString(s + "\n")
		}
		if traceOut > 0 {
			q, _ := json.Marshal(map[string]any{"truncated": true, "droppedFrames": traceOut, "note": fmt.Sprintf("the trace reached its cap of %d bytes: %d later frames are not in it", traceCap, traceOut)})
			b.Write(append(q, '\n'))
		}
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			return fmt.Errorf("writing the trace: %w", err)
		}
	}
	return nil
}

// Snapshot builds the report of what was seen so far and writes the files
// asked for.
func (m *Monitor) Snapshot(engineExit int) (*Report, error) {
	m.mu.Lock()
	r := m.build(engineExit)
	trace := append([][]byte(nil), m.rec.trace...)
	out := m.rec.traceOut
	secrets := append([]string(nil), m.rec.secrets...)
	m.mu.Unlock()
	err := m.write(r, trace, out, secrets)
	if m.cfg.Reports != nil {
		m.cfg.Reports(r)
	}
	return r, err
}
