package conformance

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/e2e-conform/toolkit/conformance/catalog"
	"github.com/e2e-conform/toolkit/conformance/report"
)

// TestProgressLineRender: the progress line reads "[ 37/160] SIG  12.4 s
// 1 failed", then the spec running, the whole within the terminal's width,
// and nothing an engine could have put in a spec's text moves the cursor.
func TestProgressLineRender(t *testing.T) {
	long := strings.Repeat("a spec sentence that goes on ", 10)
	for _, c := range []struct {
		name  string
		line  progressLine
		width int
		want  string // the whole line, or its start when clipped
		max   int    // rune bound (0: want is the whole line)
	}{
		{"a per-area line", progressLine{Done: 37, Total: 160, Area: "SIG", Elapsed: 12400 * time.Millisecond, Failed: 1}, 0,
			"[ 37/160] SIG    12.4 s  1 failed", 0},
		{"the count padded to the total's digits", progressLine{Done: 3, Total: 9, Area: "WIRE", Elapsed: 300 * time.Millisecond}, 0,
			"[3/9] WIRE    0.3 s  0 failed", 0},
		{"no spec on a per-area line", progressLine{Done: 1, Total: 10, Area: "LIFE", Elapsed: time.Second, Spec: "initialize gets"}, 0,
			"[ 1/10] LIFE    1.0 s  0 failed", 0},
		{"the spec running on a live line", progressLine{Done: 1, Total: 10, Area: "LIFE", Elapsed: time.Second, Spec: "initialize gets"}, 80,
			"[ 1/10] LIFE    1.0 s  0 failed  initialize gets", 0},
		{"clipped to the width", progressLine{Done: 1, Total: 10, Area: "LIFE", Elapsed: time.Second, Spec: long}, 60,
			"[ 1/10] LIFE    1.0 s  0 failed  a spec sentence", 60},
		{"control characters escaped, lines joined", progressLine{Done: 1, Total: 10, Area: "ERR", Spec: "a\x1b[2Jb\nc"}, 80,
			`[ 1/10] ERR     0.0 s  0 failed  a\x1b[2Jb c`, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := c.line.render(c.width)
			if c.max == 0 && got != c.want {
				t.Errorf("render(%d) = %q, want %q", c.width, got, c.want)
			}
			if c.max > 0 && (!strings.HasPrefix(got, c.want) || utf8.RuneCountInString(got) != c.max || !strings.HasSuffix(got, "…")) {
				t.Errorf("render(%d) = %q (%d runes), want %q… in %d runes", c.width, got, utf8.RuneCountInString(got), c.want, c.max)
			}
			if strings.ContainsAny(got, "\x1b\r\n") {
				t.Errorf("render(%d) = %q holds a control character", c.width, got)
			}
		})
	}
}

// TestFailureLine: a failure is one line: FAIL, the requirement, its level
// when it is not a MUST (or its baseline entry), the reason on one line,
// and where to read more.
func TestFailureLine(t *testing.T) {
	for _, c := range []struct {
		name, id         string
		level            catalog.Level
		baseline, reason string
		report           string
		want             string
	}{
		{"a MUST, with a report", "SIG-005", catalog.Must, "", "failed: want CANCELLED, got NODE_STALE", "out/report.json",
			"FAIL SIG-005 want CANCELLED, got NODE_STALE  (e2e-conform --explain SIG-005 out/report.json)"},
		{"a SHOULD is a warning", "WIRE-005", catalog.Should, "", "want -32600, got null", "r.json",
			"FAIL WIRE-005 (SHOULD: a warning) want -32600, got null  (e2e-conform --explain WIRE-005 r.json)"},
		{"an expected failure says so", "LIFE-004", catalog.Must, "bug 12", "want -32600", "r.json",
			"expected failure LIFE-004 (listed in the baseline: bug 12) want -32600  (e2e-conform --explain LIFE-004 r.json)"},
		{"no report", "LIFE-003", catalog.Must, "", "want -32002", "",
			"FAIL LIFE-003 want -32002  (more in the summary below)"},
		{"one line, escaped", "LIFE-003", catalog.Must, "", "want -32002\n  got\t\x1b[31mred", "r.json",
			`FAIL LIFE-003 want -32002 got \x1b[31mred  (e2e-conform --explain LIFE-003 r.json)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := report.FailureLine(c.id, c.level, c.baseline, c.reason, c.report); got != c.want {
				t.Errorf("got  %q\nwant %q", got, c.want)
			}
		})
	}
	long := report.FailureLine("LIFE-003", catalog.Must, "", strings.Repeat("x", 5000), "r.json")
	if n := utf8.RuneCountInString(long); n > 300 {
		t.Errorf("a 5000-byte reason makes a %d-rune line", n)
	}
}

// specReport is a ginkgo report of an It spec checking ids, with state and
// failure message.
func specReport(text string, ids []string, state types.SpecState, msg string) types.SpecReport {
	labels := append([]string(nil), ids...)
	for _, id := range ids {
		r, _ := catalog.Lookup(id)
		labels = append(labels, r.Area)
	}
	sr := types.SpecReport{LeafNodeType: types.NodeTypeIt, LeafNodeText: text, LeafNodeLabels: labels, State: state}
	sr.Failure.Message = msg
	if state == types.SpecStatePassed {
		sr.ReportEntries = types.ReportEntries{{Name: "evidence", Value: types.WrapEntryValue(`{"` + ids[0] + `":{"seen":1}}`)}}
	}
	return sr
}

// consoleRun drives a console through specs the way ginkgo's report
// nodes do, and returns what it printed.
func consoleRun(t *testing.T, live bool, specs []types.SpecReport, cfg Config) string {
	t.Helper()
	var b bytes.Buffer
	cfg.Progress, cfg.ProgressLive, cfg.Connect = &b, live, "127.0.0.1:1"
	s := &suite{cfg: cfg}
	p := newProgress(s)
	s.progress = p
	for _, sr := range specs {
		p.plan(sr.LeafNodeText, requirementLabels(sr.Labels()), sr.Labels())
	}
	for _, sr := range specs {
		p.before(sr)
		p.after(sr)
	}
	p.finish()
	return b.String()
}

// TestConsole: without a terminal the console prints what the run checks,
// one line per area as the run leaves it, each failed requirement once
// (a second failing spec of it says nothing more), and no escape
// sequence; on a terminal one line redrawn in place, failures above it.
func TestConsole(t *testing.T) {
	specs := []types.SpecReport{
		specReport("initialize gets a manifest", []string{"LIFE-001"}, types.SpecStatePassed, ""),
		specReport("an engine method before initialize gets -32002", []string{"LIFE-003"}, types.SpecStateFailed, "engine/observe before initialize: want error -32002, got -32600"),
		specReport("shutdown before initialize gets -32002", []string{"LIFE-003"}, types.SpecStateFailed, "shutdown before initialize: want error -32002, got -32600"),
		specReport("a second initialize gets -32600", []string{"LIFE-004"}, types.SpecStateFailed, "want -32600, got null"),
		specReport("the manifest validates", []string{"MAN-001"}, types.SpecStatePassed, ""),
		specReport("an envelope that is not JSON-RPC 2.0 gets -32600", []string{"WIRE-005"}, types.SpecStateFailed, "want -32600, got null"),
		specReport("every message the server wrote framed correctly, with Content-Length equal to its UTF-8 JSON content", []string{"WIRE-001"}, types.SpecStatePassed, ""),
	}
	cfg := Config{JSONReport: "r.json", ExpectedFailures: map[string]string{"LIFE-004": "bug 12"}}

	out := consoleRun(t, false, specs, cfg)
	want := []string{
		"checking 6 requirement(s) of engine at 127.0.0.1:1, profile core",
		"FAIL LIFE-003 engine/observe before initialize: want error -32002, got -32600  (e2e-conform --explain LIFE-003 r.json)",
		"expected failure LIFE-004 (listed in the baseline: bug 12) want -32600, got null  (e2e-conform --explain LIFE-004 r.json)",
		"[3/6] LIFE ",
		"[4/6] MAN ",
		"FAIL WIRE-005 (SHOULD: a warning) want -32600, got null  (e2e-conform --explain WIRE-005 r.json)",
		"[5/6] WIRE ",
		"[6/6] run-wide ",
		"[6/6] done ",
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(want), out)
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("line %d = %q, want %q…", i+1, lines[i], w)
		}
	}
	if !strings.HasSuffix(lines[3], " 1 failed") || !strings.HasSuffix(lines[8], " 2 failed") {
		t.Errorf("the failed count (LIFE-003, then WIRE-005; the expected failure aside):\n%s", out)
	}
	if strings.ContainsAny(out, "\x1b\r") {
		t.Errorf("an escape sequence without a terminal:\n%q", out)
	}

	live := consoleRun(t, true, specs, cfg)
	if strings.Count(live, "FAIL LIFE-003 ") != 1 || strings.Count(live, "FAIL WIRE-005 ") != 1 {
		t.Errorf("each failure once on a terminal too:\n%q", live)
	}
	for _, w := range []string{
		"\r[1/6] LIFE ", // redrawn in place
		"  an engine method before initialize gets -32002\x1b[K", // the spec running, the rest erased
		"\r\x1b[KFAIL LIFE-003 ",                                 // a failure above the line
		"\r[6/6] done ",
	} {
		if !strings.Contains(live, w) {
			t.Errorf("the live console lacks %q:\n%q", w, live)
		}
	}
	if !strings.HasSuffix(live, "\x1b[K\n") {
		t.Errorf("the live console does not end its last line:\n%q", live)
	}
}

// TestConsoleLeavesOutUnselectedSpecs: a spec the selection leaves out
// (ginkgo reports it skipped) counts for nothing.
func TestConsoleLeavesOutUnselectedSpecs(t *testing.T) {
	specs := []types.SpecReport{
		specReport("initialize gets a manifest", []string{"LIFE-001"}, types.SpecStatePassed, ""),
		specReport("a second initialize gets -32600", []string{"LIFE-004"}, types.SpecStateSkipped, ""),
	}
	cfg := Config{Only: []string{"LIFE-001"}}
	var b bytes.Buffer
	cfg.Progress, cfg.Connect = &b, "127.0.0.1:1"
	s := &suite{cfg: cfg}
	s.selected, _ = types.ParseLabelFilter(labelFilter(cfg))
	p := newProgress(s)
	for _, sr := range specs {
		p.plan(sr.LeafNodeText, requirementLabels(sr.Labels()), sr.Labels())
	}
	for _, sr := range specs {
		p.before(sr)
		p.after(sr)
	}
	p.finish()
	if !strings.HasPrefix(b.String(), "checking 1 requirement(s)") || !strings.Contains(b.String(), "[1/1] done ") {
		t.Errorf("the unselected spec counted:\n%s", b.String())
	}
}

// TestFailureGroups: failures that meet on a frame (one cites a connection
// another's exchange holds, or both cite it) or that got the same
// particular answer are grouped; silence and frame lines join nothing.
func TestFailureGroups(t *testing.T) {
	failed := func(id, reason, came, exchange string) report.RequirementResult {
		return report.RequirementResult{ID: id, Status: report.Failed, Reason: reason, Explanation: &report.Explanation{Came: came, Exchange: exchange}}
	}
	// A run-wide check's exchange (here conn 30) is whatever ended last:
	// WIRE-001 citing conn 30 does not join it.
	runWide := failed("WIRE-013", "during the run: result of initialize: … (in the answer to initialize (id 0), conn 12 (raw)); … conn 17 (raw))", "", "  conn 1 (raw) send {}\n  conn 30 (raw) send {}")
	runWide.Explanation.Spec = "every result, error and server message validated against its schema"
	if !isRunWide(runWide.Explanation.Spec) {
		t.Fatal("the run-wide check of WIRE-013 is named otherwise now")
	}
	r := &Result{Specs: []report.SpecResult{{Text: runWide.Explanation.Spec, RunWide: true}}, Requirements: []report.RequirementResult{
		runWide,
		failed("LIFE-002", "want error -32002, got -32600", `-32600 "server not initialized"`, "  conn 3 (raw) send {}"),
		failed("LIFE-003", "want error -32002, got -32600", `-32600 "server not initialized"`, "  conn 4 (raw) send {}"),
		failed("LIFE-004", "want -32600", "no answer (no message: context deadline exceeded)", "  conn 5 (raw) send {}"),
		failed("LIFE-006", "want -32600", "no answer (no message: context deadline exceeded)", "  conn 6 (raw) send {}"),
		failed("LIFE-007", "exit status 1", "conn 7 (raw) recv {}", "  conn 7 (raw) recv {}"),
		failed("LIFE-008", "exit status 1", "conn 7 (raw) recv {}", "  conn 8 (raw) recv {}"),
		failed("MAN-001", "the manifest announced to role run: want a valid manifest", "manifest: /methods/2", "  conn 12 (raw) send {}"),
		failed("MAN-005", "engine/perform without actions", "[ \"engine/perform without actions\" ]", "  conn 17 (raw) send {}"),
		failed("WIRE-001", "during the run: conn 30 broke", "", "  conn 2 (raw) send {}"),
		{ID: "MAN-002", Status: report.Passed, Reason: "conn 12"},
	}}
	got := r.FailureGroups()
	want := []report.FailureGroup{
		{Requirements: []string{"WIRE-013", "MAN-001", "MAN-005"}, Connections: []string{"conn 12", "conn 17"}},
		{Requirements: []string{"LIFE-002", "LIFE-003"}, Answer: `-32600 "server not initialized"`},
	}
	if len(got) != len(want) {
		t.Fatalf("groups %+v, want %+v", got, want)
	}
	for i := range want {
		if strings.Join(got[i].Requirements, ",") != strings.Join(want[i].Requirements, ",") ||
			strings.Join(got[i].Connections, ",") != strings.Join(want[i].Connections, ",") || got[i].Answer != want[i].Answer {
			t.Errorf("group %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	for i, w := range []string{
		"WIRE-013, MAN-001, MAN-005 fail on the same exchange (conn 12, conn 17): one engine bug likely",
		`LIFE-002, LIFE-003 fail with the same answer (-32600 "server not initialized"): one engine bug likely`,
	} {
		if s := got[i].String(); s != w {
			t.Errorf("group %d says %q, want %q", i, s, w)
		}
	}
}

// TestSummaryFailures: the summary names each failure with its section,
// reason, likely cause, wanted and came (no exchange), the groups and how
// to read one in full; after a console that told each failure, it only
// names them.
func TestSummaryFailures(t *testing.T) {
	r := &Result{SuiteVersion: report.SuiteVersion, Profile: "core", Engine: "e", Verdict: "non-conformant", ExitCode: 1, Counts: map[report.Status]int{report.Failed: 2},
		Requirements: []report.RequirementResult{
			{ID: "LIFE-002", Area: "LIFE", Level: "MUST", Statement: "initialize …", Section: "§2.2", Status: report.Failed, Reason: "want error -32002, got -32600",
				Explanation: &report.Explanation{LikelyCause: "the cause", Wanted: "error -32002", Came: `-32600 "server not initialized"`, Exchange: "  conn 3 (raw) send {\"x\":1}"}},
			{ID: "LIFE-003", Area: "LIFE", Level: "MUST", Statement: "before initialize …", Section: "§2.4", Status: report.Failed, Reason: "want error -32002, got -32600",
				Explanation: &report.Explanation{Wanted: "error -32002", Came: `-32600 "server not initialized"`, Exchange: "  conn 4 (raw) send {}"}},
		}}
	var full, brief bytes.Buffer
	r.WriteSummaryOf(&full, "r.json", false)
	r.WriteSummaryOf(&brief, "r.json", true)
	for _, w := range []string{"FAILED LIFE-002 (MUST) §2.2: initialize …\n  want error -32002, got -32600\n  likely cause: the cause\n  wanted: error -32002\n  came: -32600",
		"one cause likely: LIFE-002, LIFE-003 fail with the same answer", "e2e-conform --explain ID r.json", "verdict: non-conformant"} {
		if !strings.Contains(full.String(), w) {
			t.Errorf("the summary lacks %q:\n%s", w, full.String())
		}
	}
	if strings.Contains(full.String(), `{"x":1}`) {
		t.Errorf("the summary holds the exchange:\n%s", full.String())
	}
	for _, w := range []string{"failed: LIFE-002, LIFE-003 (each told on stderr when it failed)", "one cause likely: LIFE-002, LIFE-003", "e2e-conform --explain ID r.json"} {
		if !strings.Contains(brief.String(), w) {
			t.Errorf("the brief summary lacks %q:\n%s", w, brief.String())
		}
	}
	if strings.Contains(brief.String(), "FAILED ") || strings.Contains(brief.String(), "likely cause: ") {
		t.Errorf("the brief summary tells the failures again:\n%s", brief.String())
	}
}

// TestWriteExplanation: --explain prints a requirement's whole story from
// a report, control characters escaped; an ID the report lacks is
// ErrNotInReport.
func TestWriteExplanation(t *testing.T) {
	r := &Result{Requirements: []report.RequirementResult{
		{ID: "LIFE-003", Level: "MUST", Statement: "An engine method before initialize gets -32002.", Section: "§2.4", Status: report.Failed,
			Reason: "engine/observe before initialize: want error -32002, got -32600", Specs: []string{"an engine method before initialize gets -32002"},
			Evidence: map[string]int{"frame received from the server": 1},
			Explanation: &report.Explanation{Section: "§2.4", Spec: "an engine method before initialize gets -32002", LikelyCause: "Requests before initialize are executed.",
				Sent: `conn 4 (raw) send {"id":1}`, Wanted: "error -32002", Came: `-32600 "server not initialized"`,
				Exchange: "  conn 4 (raw) send {\"id\":1}\n  conn 4 (raw) recv {\"error\":{\"message\":\"\x1b[2J\"}}\n"}},
		{ID: "LIFE-002", Status: report.Failed, Explanation: &report.Explanation{Came: `-32600 "server not initialized"`}},
		{ID: "LIFE-001", Level: "MUST", Status: report.Passed, Section: "§2.2"},
	}}
	var b bytes.Buffer
	if err := r.WriteExplanation(&b, "life-003"); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, w := range []string{
		"LIFE-003 (MUST): failed\n",
		"section:      §2.4\n",
		"requirement:  An engine method before initialize gets -32002.\n",
		"reason:       engine/observe before initialize",
		"likely cause: Requests before initialize are executed.\n",
		"sent:         conn 4 (raw) send",
		"wanted:       error -32002\n",
		"came:         -32600 \"server not initialized\"\n",
		"one cause:    LIFE-003, LIFE-002 fail with the same answer",
		"specs:\n  an engine method before initialize gets -32002\n",
		"       1  frame received from the server\n",
		"exchange of the spec \"an engine method before initialize gets -32002\":\n  conn 4 (raw) send {\"id\":1}\n  conn 4 (raw) recv {\"error\":{\"message\":\"\\x1b[2J\"}}\n",
	} {
		if !strings.Contains(out, w) {
			t.Errorf("the explanation lacks %q:\n%s", w, out)
		}
	}
	if strings.Contains(out, "\x1b") {
		t.Errorf("the explanation writes a raw ESC:\n%q", out)
	}
	b.Reset()
	if err := r.WriteExplanation(&b, "LIFE-001"); err != nil || !strings.HasPrefix(b.String(), "LIFE-001 (MUST): passed\nsection:      §2.2\n") {
		t.Errorf("a passed requirement: %v\n%s", err, b.String())
	}
	if err := r.WriteExplanation(&b, "LIFE-099"); !errors.Is(err, report.ErrNotInReport) {
		t.Errorf("an ID the report lacks: %v", err)
	}
}
