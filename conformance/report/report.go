package report

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/e2e-conform/toolkit/conformance/catalog"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// SuiteVersion identifies this suite in reports.
const SuiteVersion = "0.1.0"

// Status of a requirement or a spec in a run.
type Status string

// The statuses.
const (
	Passed        Status = "passed"
	Failed        Status = "failed"
	NotApplicable Status = "not applicable"
	NotVerified   Status = "not verified"
	NotSelected   Status = "not selected"
)

// Exit codes of a run.
const (
	ExitConformant    = 0
	ExitNonConformant = 1
	ExitUsage         = 2
	ExitIncomplete    = 3
	ExitHarness       = 4
)

// SpecResult is one spec's outcome.
type SpecResult struct {
	Text         string   `json:"text"`
	Requirements []string `json:"requirements"`
	Status       Status   `json:"status"`
	Message      string   `json:"message,omitempty"`
	Warnings     []string `json:"warnings,omitempty"`
	LastFrames   string   `json:"lastFrames,omitempty"`
	// FrameTimes is when each frame of LastFrames' own exchange (the lines
	// before any "around the first … violation" part) was recorded, in µs
	// since the spec began: the HTML report's sequence diagram shows them.
	FrameTimes []int64 `json:"frameTimesUs,omitempty"`
	// NothingToCheck marks a not-verified spec whose engine gave it nothing
	// to judge while behaving as the spec allows (it does not make the run
	// incomplete).
	NothingToCheck bool `json:"nothingToCheck,omitempty"`
	// SuiteError marks a spec the suite's own code broke (a panic): the
	// spec is not verified, never failed, and the run is a harness error
	// unless a MUST failed elsewhere.
	SuiteError bool `json:"suiteError,omitempty"`
	// RunWide marks a run-wide check: it judges every message of the run,
	// so every shard runs it and Merge combines the shards' results.
	RunWide bool `json:"runWide,omitempty"`
	// Evidence is what the spec observed and checked, per requirement.
	Evidence Evidence      `json:"evidence,omitempty"`
	Duration time.Duration `json:"durationNs"`
}

// RequirementResult is one requirement's verdict.
type RequirementResult struct {
	ID        string   `json:"id"`
	Area      string   `json:"area"`
	Level     string   `json:"level"`
	Statement string   `json:"statement"`
	Status    Status   `json:"status"`
	Reason    string   `json:"reason,omitempty"`
	Specs     []string `json:"specs,omitempty"`
	// Evidence is what the requirement's specs observed and checked for
	// it ("frame framed": 212, "engine error CANCELLED": 3).
	Evidence map[string]int `json:"evidence,omitempty"`
	// Section is the part of the specification it comes from ("§1.1").
	Section string `json:"section,omitempty"`
	// Explanation says, for a failed or not verified requirement, what was
	// sent, wanted and came, the likely cause, and its spec's exchange
	// (explain.go).
	Explanation *Explanation `json:"explanation,omitempty"`
	// Baseline is the reason the run's baseline gives for the requirement,
	// when it lists it (baseline.go).
	Baseline string `json:"baseline,omitempty"`
}

// Result is a run's outcome: the verdict and exit code, and every
// requirement's status. Its JSON form is documented in docs/report.md.
type Result struct {
	Suite        string              `json:"suite"`
	SuiteVersion string              `json:"suiteVersion"`
	Engine       string              `json:"engine"`
	Profile      string              `json:"profile"`
	Transport    string              `json:"transport"`
	Manifest     *wire.Manifest      `json:"manifest,omitempty"`
	Verdict      string              `json:"verdict"`
	ExitCode     int                 `json:"exitCode"`
	Reason       string              `json:"reason,omitempty"`
	Counts       map[Status]int      `json:"counts"`
	Warnings     []string            `json:"warnings,omitempty"`
	Requirements []RequirementResult `json:"requirements"`
	Specs        []SpecResult        `json:"specs"`
	// Facts are what the run learned of the engine that decide which
	// requirements apply.
	Facts RunFacts `json:"facts"`
	// Selection is the run's Only and Skip, and its shard.
	Selection *Selection `json:"selection,omitempty"`
	// Provenance says what was tested, by what, where and when.
	Provenance *Provenance `json:"provenance,omitempty"`
	// Latency is the round trips of the suite's calls per method
	// (latency.go).
	Latency  []MethodLatency `json:"latency,omitempty"`
	Duration time.Duration   `json:"durationNs"`
	// ExpectedFailures is the run's baseline (Config.ExpectedFailures):
	// the reason of each requirement it lists, by ID.
	ExpectedFailures map[string]string `json:"expectedFailures,omitempty"`
	// StaleBaseline lists the baseline's requirements that passed: each
	// makes the run exit 1 until it is removed from the baseline.
	StaleBaseline []string `json:"staleBaseline,omitempty"`
}

// RunFacts are what a run learned of the engine, beyond its manifest, that
// decide which requirements apply (catalog.Facts); the report keeps them so
// that Merge decides as one run would.
type RunFacts struct {
	// TapModifiersPresent: the manifest carried a tapModifiers member.
	TapModifiersPresent bool `json:"tapModifiersPresent,omitempty"`
	// ServerSent lists the server-to-client message kinds the run saw
	// ("attempt/resolveSecret", "attempt/resolveSecret with derivation").
	ServerSent []string `json:"serverSent,omitempty"`
	// InitRefused says why lifecycle/init with valid params was refused
	// at the start of the run (probeInit), "" when it was not.
	InitRefused string `json:"initRefused,omitempty"`
}

// Profiles.
const (
	// ProfileCore checks the requirements that need no fixture screen.
	ProfileCore = "core"
	// ProfileFull checks every requirement; a MUST left not verified makes
	// the run incomplete.
	ProfileFull = "full"
)

// Scope is what a verdict is judged within: the engine's name, the
// profile, the selection (Only, Skip), the shard, and the baseline. It is
// all Summarize needs of a run's configuration.
type Scope struct {
	// Engine names the engine in the report (its command or address).
	Engine string
	// Profile is ProfileCore or ProfileFull.
	Profile string
	// Only and Skip are the run's selection.
	Only, Skip []string
	// Shard is the part of the run's specs it ran (the zero Shard: all).
	Shard Shard
	// Baseline is the run's expected failures: the reason of each
	// requirement it lists, by ID.
	Baseline map[string]string
}

// RunInput is what Summarize needs of a run besides its specs.
type RunInput struct {
	// Reached: the engine was discovered (a manifest was read).
	Reached bool
	// Transport is the transport the run used.
	Transport string
	// Manifest is the engine's manifest (when Reached).
	Manifest wire.Manifest
	// Facts are what the run learned that decides applicability.
	Facts RunFacts
	// Latency is the suite's round trips per method.
	Latency []MethodLatency
}

// Summarize turns spec results into the requirement verdicts, the verdict
// and the exit code (one function decides all three, so the summary and
// the exit code cannot disagree), for a run's own input or merged shards'.
func Summarize(sc Scope, in RunInput, specs []SpecResult, harnessErr error) Result {
	res := Result{Suite: "e2e-conform", SuiteVersion: SuiteVersion, Profile: sc.Profile, Counts: map[Status]int{}, Specs: specs}
	res.Engine = sc.Engine
	res.Transport = in.Transport
	if in.Reached {
		m := in.Manifest
		res.Manifest = &m
	}
	facts := catalog.Facts{Manifest: in.Manifest, Transport: in.Transport, TapModifiersPresent: in.Facts.TapModifiersPresent,
		Sent: func(what string) bool { return slices.Contains(in.Facts.ServerSent, what) }}
	res.Facts = in.Facts
	res.Latency = in.Latency
	if len(sc.Baseline) > 0 {
		res.ExpectedFailures = maps.Clone(sc.Baseline)
	}
	bySpec := map[string][]SpecResult{}
	for _, s := range specs {
		for _, id := range s.Requirements {
			bySpec[id] = append(bySpec[id], s)
		}
	}
	ran := 0
	for _, s := range specs {
		if s.Status == Passed || s.Status == Failed {
			ran++
		}
	}
	for _, s := range specs {
		for _, w := range s.Warnings {
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s (SHOULD): %s", strings.Join(s.Requirements, ", "), w))
		}
	}
	mustFailed, mustUnverified := 0, 0
	var suiteErrors []string
	for _, s := range specs {
		if s.SuiteError {
			suiteErrors = append(suiteErrors, fmt.Sprintf("%q", s.Text))
		}
	}
	for _, r := range catalog.All() {
		rr := RequirementResult{ID: r.ID, Area: r.Area, Level: string(r.Level), Statement: r.Statement}
		ss := bySpec[r.ID]
		for _, s := range ss {
			rr.Specs = append(rr.Specs, s.Text)
			for what, n := range s.Evidence[r.ID] {
				if rr.Evidence == nil {
					rr.Evidence = map[string]int{}
				}
				rr.Evidence[what] += n
			}
		}
		// Applicability is read off the manifest the engine announced:
		// a run that never reached the engine (nothing it selected needed
		// it, or it could not) knows no manifest and decides none.
		applies, why := true, ""
		if in.Reached {
			applies, why = r.Applies(facts)
		}
		st := map[Status]bool{}
		var failMsg, skipMsg, unverifiedMsg string
		onlyNothingToCheck := true // every not-verified spec had nothing to check
		for _, s := range ss {
			if s.Status == NotVerified && !s.NothingToCheck {
				onlyNothingToCheck = false
			}
			st[s.Status] = true
			if s.Status == Failed && failMsg == "" {
				failMsg = s.Message
			}
			if s.Status == NotVerified && unverifiedMsg == "" {
				unverifiedMsg = s.Message
				if len(ss) > 1 {
					unverifiedMsg = fmt.Sprintf("the spec %q: %s", s.Text, s.Message)
				}
			}
			if (s.Status == NotVerified || s.Status == NotApplicable || s.Status == NotSelected) && skipMsg == "" {
				skipMsg = s.Message
			}
		}
		switch {
		case r.Withdrawn():
			rr.Status, rr.Reason = NotApplicable, "withdrawn"
		case !in.Reached && harnessErr == nil && len(ss) == 0:
			rr.Status, rr.Reason = NotVerified, "the engine could not be reached"
		case !applies:
			rr.Status, rr.Reason = NotApplicable, why
		case st[Failed]:
			rr.Status, rr.Reason = Failed, failMsg
		case st[NotVerified]:
			// A requirement is passed only when every spec that ran for it
			// observed what it checks: one clause left unverified leaves
			// the requirement unverified, whatever the other specs saw.
			rr.Status, rr.Reason = NotVerified, unverifiedMsg
		case st[Passed]:
			rr.Status = Passed
		case len(ss) == 0:
			rr.Status, rr.Reason = NotVerified, "no spec of this suite checks it yet"
		default:
			rr.Status, rr.Reason = NotSelected, skipMsg
		}
		if reason, listed := sc.Baseline[r.ID]; listed {
			rr.Baseline = reason
			switch rr.Status {
			case Failed:
				rr.Status = ExpectedFailure
			case Passed:
				if !sc.Shard.Sharded() { // another shard may fail it: merge judges
					res.StaleBaseline = append(res.StaleBaseline, r.ID)
				}
			}
		}
		if rr.Status == Failed && r.Level == catalog.Should {
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s (SHOULD): %s", r.ID, rr.Reason))
		}
		if rr.Status == Failed && r.Level == catalog.Must {
			mustFailed++
		}
		_, allowed := mayStayUnverified()[r.ID]
		allowed = allowed || (len(ss) > 0 && st[NotVerified] && onlyNothingToCheck)
		if rr.Status == NotVerified && r.Level == catalog.Must && !allowed && (!r.Fixture || sc.Profile == ProfileFull) {
			mustUnverified++ // in the profile's scope, applicable, and not checked
		}
		res.Counts[rr.Status]++
		res.Requirements = append(res.Requirements, rr)
	}
	switch {
	case harnessErr != nil:
		res.Verdict, res.ExitCode, res.Reason = "harness error", ExitHarness, harnessErr.Error()
	case len(suiteErrors) > 0 && mustFailed == 0:
		res.Verdict, res.ExitCode = "harness error", ExitHarness
		res.Reason = fmt.Sprintf("the suite itself broke in %d spec(s) (%s): a bug of e2e-conform, whose verdict on the engine is therefore unknown", len(suiteErrors), strings.Join(suiteErrors, ", "))
	case ran == 0:
		res.Verdict, res.ExitCode, res.Reason = "incomplete", ExitIncomplete, "no spec ran: a run that checks nothing is never conformant"
	case mustFailed > 0:
		res.Verdict, res.ExitCode = "non-conformant", ExitNonConformant
		res.Reason = fmt.Sprintf("%d MUST requirement(s) failed", mustFailed)
		if len(res.StaleBaseline) > 0 {
			res.Reason += "; " + staleReason(res.StaleBaseline)
		}
	case len(res.StaleBaseline) > 0:
		res.Verdict, res.ExitCode, res.Reason = "stale baseline", ExitNonConformant, staleReason(res.StaleBaseline)
	case mustUnverified > 0:
		res.Verdict, res.ExitCode = "incomplete", ExitIncomplete
		res.Reason = fmt.Sprintf("%d applicable MUST requirement(s) of the %s profile not verified", mustUnverified, sc.Profile)
		if in.Facts.InitRefused != "" {
			res.Reason += ": " + in.Facts.InitRefused
		}
	default:
		res.Verdict, res.ExitCode = "conformant", ExitConformant
		if n := res.Counts[NotSelected]; n > 0 && (len(sc.Only) > 0 || len(sc.Skip) > 0) {
			res.Reason = fmt.Sprintf("for the selection only: %d requirement(s) not selected", n)
		}
		if n := res.Counts[NotSelected]; n > 0 && sc.Shard.Sharded() {
			res.Reason = fmt.Sprintf("for shard %s only: %d requirement(s) held by other shards or not selected; merge the shards' reports for the verdict", sc.Shard, n)
		}
		if n := res.Counts[ExpectedFailure]; n > 0 {
			res.Reason = strings.TrimPrefix(res.Reason+"; ", "; ") + fmt.Sprintf("with %d expected failure(s) listed in the baseline", n)
		}
	}
	return res
}

// mayStayUnverified lists requirements whose catalog statement itself says
// they are reported not verified when the engine gives the suite nothing to
// check; they never make a run incomplete.
func mayStayUnverified() map[string]string {
	return map[string]string{
		"LIFE-015": "the catalog: with no failing first settleAttempt the check is reported not verified",
		"ACT-015":  "an engine that declares every action kind leaves no undeclared kind to send",
		"PTR-005":  "an engine that declares every pointer kind leaves no undeclared kind to send",
	}
}

// WriteSummary writes the human summary: per area, passed / failed / not
// applicable / not verified; every failure with its requirement, section,
// statement, what went wrong and its likely cause, and the failures one
// cause likely explains grouped (groups.go); the verdict. The exchanges
// are left to the reports (e2e-conform --explain ID FILE).
func (r *Result) WriteSummary(w io.Writer) { r.WriteSummaryOf(w, "", false) }

// WriteSummaryOf is WriteSummary; report, when given, is the path of the
// run's JSON report, named in the pointer to --explain; brief names the
// failures only (the run's console told each as it came).
func (r *Result) WriteSummaryOf(w io.Writer, report string, brief bool) {
	type counts struct{ p, f, na, nv, ns, xf int }
	per := map[string]*counts{}
	var order []string
	for _, rr := range r.Requirements {
		c, ok := per[rr.Area]
		if !ok {
			c = &counts{}
			per[rr.Area] = c
			order = append(order, rr.Area)
		}
		switch rr.Status {
		case Passed:
			c.p++
		case Failed:
			c.f++
		case NotApplicable:
			c.na++
		case NotSelected:
			c.ns++
		case ExpectedFailure:
			c.xf++
		default:
			c.nv++
		}
	}
	fmt.Fprintf(w, "\ne2e-conform %s, profile %s, %s\n", r.SuiteVersion, r.Profile, r.Engine)
	if r.Manifest != nil {
		fmt.Fprintf(w, "engine %s %s, platform %q, %d methods\n", r.Manifest.Name, r.Manifest.Version, r.Manifest.Platform, len(r.Manifest.Methods))
	}
	xf := r.Counts[ExpectedFailure] > 0 // the column only when the baseline matched
	fmt.Fprintf(w, "%-6s %7s %7s %15s %13s %13s%s\n", "area", "passed", "failed", "not applicable", "not verified", "not selected", ifStr(xf, fmt.Sprintf(" %16s", "expected failure")))
	for _, a := range order {
		c := per[a]
		fmt.Fprintf(w, "%-6s %7d %7d %15d %13d %13d%s\n", a, c.p, c.f, c.na, c.nv, c.ns, ifStr(xf, fmt.Sprintf(" %16d", c.xf)))
	}
	r.writeFailures(w, report, brief)
	r.writeBaselineSummary(w)
	for _, wmsg := range r.Warnings {
		fmt.Fprintf(w, "warning: %s\n", wmsg)
	}
	writeLatency(w, r.Latency)
	fmt.Fprintf(w, "\n%d passed, %d failed, %d not applicable, %d not verified, %d not selected%s\n",
		r.Counts[Passed], r.Counts[Failed], r.Counts[NotApplicable], r.Counts[NotVerified], r.Counts[NotSelected],
		ifStr(r.Counts[ExpectedFailure] > 0, fmt.Sprintf(", %d expected failure(s)", r.Counts[ExpectedFailure])))
	fmt.Fprintf(w, "verdict: %s", r.Verdict)
	if r.Reason != "" {
		fmt.Fprintf(w, " (%s)", r.Reason)
	}
	fmt.Fprintf(w, ", exit %d\n", r.ExitCode)
}

func indent(s string) string { return strings.ReplaceAll(strings.TrimSpace(s), "\n", "\n  ") }

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// WriteJSON writes the JSON report.
func (r *Result) WriteJSON(path string) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}

// WriteJUnit writes a JUnit XML report that validates against the common
// JUnit schema (Jenkins' junit-10.xsd, conformance/report/testdata): one testcase
// per spec, named by its sentence, its requirement IDs as the classname
// (a testcase holds no <properties> there), skipped
// specs with their real reason; the run's profile, verdict and engine are
// the testsuite's properties, and specs the suite's own code broke are
// <error>s (testsuite@errors is always written).
func (r *Result) WriteJUnit(path string) error {
	type property struct {
		Name  string `xml:"name,attr"`
		Value string `xml:"value,attr"`
	}
	type message struct {
		Message string `xml:"message,attr"`
		Text    string `xml:",chardata"`
	}
	type testcase struct {
		Name      string   `xml:"name,attr"`
		Classname string   `xml:"classname,attr"`
		Time      float64  `xml:"time,attr"`
		Skipped   *message `xml:"skipped,omitempty"`
		Error     *message `xml:"error,omitempty"`
		Failure   *message `xml:"failure,omitempty"`
		SystemOut string   `xml:"system-out,omitempty"`
	}
	type testsuite struct {
		XMLName    xml.Name   `xml:"testsuite"`
		Name       string     `xml:"name,attr"`
		Tests      int        `xml:"tests,attr"`
		Failures   int        `xml:"failures,attr"`
		Errors     int        `xml:"errors,attr"`
		Skipped    int        `xml:"skipped,attr"`
		Time       float64    `xml:"time,attr"`
		Properties []property `xml:"properties>property,omitempty"`
		Cases      []testcase `xml:"testcase"`
	}
	ts := testsuite{Name: "e2e-conform " + r.Engine, Time: r.Duration.Seconds()}
	for _, p := range []property{{"suiteVersion", r.SuiteVersion}, {"profile", r.Profile}, {"transport", r.Transport}, {"verdict", r.Verdict}} {
		if p.Value != "" {
			ts.Properties = append(ts.Properties, p)
		}
	}
	for _, s := range r.Specs {
		tc := testcase{Name: s.Text, Classname: strings.Join(s.Requirements, " "), Time: s.Duration.Seconds()}
		out := ""
		switch s.Status {
		case Failed:
			if why, ok := r.expectedOnly(s.Requirements); ok {
				// The baseline expects it: skipped, so CI stays green and
				// importers show it apart, the failure kept in system-out.
				tc.Skipped = &message{Message: "expected failure: " + why}
				out += "expected failure (listed in the baseline): " + s.Message + "\n" + s.LastFrames
				ts.Skipped++
				break
			}
			if !ChecksMust(s.Requirements) {
				// A SHOULD miss is a warning: CI must not turn red on it.
				out += "warning (SHOULD, not a failure): " + s.Message + "\n" + s.LastFrames
				break
			}
			tc.Failure = &message{Message: FirstLine(s.Message), Text: s.Message + "\n" + s.LastFrames}
			ts.Failures++
		case NotApplicable, NotVerified, NotSelected:
			if s.SuiteError {
				// The suite's own code broke: neither the engine's failure
				// nor a skip.
				tc.Error = &message{Message: "suite error: " + FirstLine(s.Message), Text: s.Message}
				ts.Errors++
				break
			}
			tc.Skipped = &message{Message: string(s.Status) + ": " + s.Message}
			ts.Skipped++
		}
		tc.SystemOut = out
		ts.Tests++
		ts.Cases = append(ts.Cases, tc)
	}
	data, err := xml.MarshalIndent(ts, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append([]byte(xml.Header), data...), 0o644)
}

func ifStr(cond bool, s string) string {
	if cond {
		return s
	}
	return ""
}

// FirstLine is the first line of s.
func FirstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// Clip cuts s to 120 bytes, marking the cut with "…".
func Clip(s string) string {
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}

// ChecksMust reports whether any of ids is a MUST requirement.
func ChecksMust(ids []string) bool {
	for _, id := range ids {
		if r, ok := catalog.Lookup(id); ok && r.Level == catalog.Must {
			return true
		}
	}
	return false
}
