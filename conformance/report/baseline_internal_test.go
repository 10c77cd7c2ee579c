package report

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/e2e-conform/toolkit/conformance/catalog"
)

func TestParseExpectedFailures(t *testing.T) {
	for _, c := range []struct {
		name    string
		in      string
		want    map[string]string
		errHave []string // the error names the line and what is wrong
	}{
		{name: "comments and blank lines", in: "# the engine's baseline\n\n  # indented comment\nLIFE-004: a second initialize is accepted (bug 12)\n\r\nWIRE-005 :  not yet  \n",
			want: map[string]string{"LIFE-004": "a second initialize is accepted (bug 12)", "WIRE-005": "not yet"}},
		{name: "a reason holding colons and #", in: "LIFE-004: see https://example.com/issue#12: fixed in 2.1\n",
			want: map[string]string{"LIFE-004": "see https://example.com/issue#12: fixed in 2.1"}},
		{name: "empty file", in: "", want: map[string]string{}},
		{name: "only comments", in: "# nothing expected\n", want: map[string]string{}},
		{name: "no colon", in: "# c\n\nLIFE-004\n", errHave: []string{"line 3", `"LIFE-004"`, "ID: reason"}},
		{name: "no reason", in: "LIFE-004:   \n", errHave: []string{"line 1", "ID: reason"}},
		{name: "no ID", in: ": a reason\n", errHave: []string{"line 1", "ID: reason"}},
		{name: "words before the colon", in: "LIFE-004 and WIRE-005: both\n", errHave: []string{"line 1", "ID: reason"}},
		{name: "unknown ID", in: "LIFE-004: ok\nWIRE-999: no such requirement\n", errHave: []string{"line 2", "WIRE-999", "not a requirement of the catalog"}},
		{name: "lower-case ID", in: "life-004: ok\n", errHave: []string{"line 1", "life-004", "not a requirement"}},
		{name: "listed twice", in: "LIFE-004: a\n# c\nLIFE-004: b\n", errHave: []string{"line 3", "LIFE-004", "line 1"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseExpectedFailures(strings.NewReader(c.in))
			if c.errHave != nil {
				if !errors.Is(err, ErrUsage) {
					t.Fatalf("got %v, err %v; want a usage error", got, err)
				}
				for _, w := range c.errHave {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("the error %q does not say %q", err, w)
					}
				}
				return
			}
			if err != nil || !maps.Equal(got, c.want) {
				t.Errorf("got %q, %v; want %q", got, err, c.want)
			}
		})
	}
}

func TestReadExpectedFailuresNamesTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "base.txt")
	if err := os.WriteFile(path, []byte("NOPE-1: x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, path + ".missing"} {
		if _, err := ReadExpectedFailures(p); !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), p) {
			t.Errorf("ReadExpectedFailures(%s): %v, want a usage error naming the file", p, err)
		}
	}
}

// baselineSpecs is a run of the specs of LIFE-004, WIRE-009 (MUST) and
// WIRE-005 (SHOULD) with the given statuses (absent: not selected), every
// other requirement's spec not selected.
func baselineSpecs(st map[string]Status) []SpecResult {
	var specs []SpecResult
	for _, r := range catalog.All() {
		s := SpecResult{Text: "a spec of " + r.ID, Requirements: []string{r.ID}, Status: NotSelected}
		if x, ok := st[r.ID]; ok {
			s.Status = x
			s.Evidence = Evidence{r.ID: {"checked": 1}}
			if x == Failed {
				s.Message = "failed: want this, got that"
			}
		}
		specs = append(specs, s)
	}
	return specs
}

// TestBaselineVerdicts: each case of a baseline decides the requirement's
// status and the run's verdict and exit code.
func TestBaselineVerdicts(t *testing.T) {
	for _, c := range []struct {
		name        string
		baseline    map[string]string
		statuses    map[string]Status
		shard       Shard
		wantExit    int
		wantVerdict string
		want        map[string]Status
		wantStale   []string
		reasonHas   string
	}{
		{name: "listed failing MUST: expected failure, conformant",
			baseline: map[string]string{"LIFE-004": "bug 12"}, statuses: map[string]Status{"LIFE-004": Failed, "WIRE-009": Passed},
			wantExit: ExitConformant, wantVerdict: "conformant", want: map[string]Status{"LIFE-004": ExpectedFailure, "WIRE-009": Passed},
			reasonHas: "with 1 expected failure(s) listed in the baseline"},
		{name: "unlisted failing MUST: non-conformant",
			baseline: map[string]string{"LIFE-004": "bug 12"}, statuses: map[string]Status{"LIFE-004": Failed, "WIRE-009": Failed},
			wantExit: ExitNonConformant, wantVerdict: "non-conformant", want: map[string]Status{"LIFE-004": ExpectedFailure, "WIRE-009": Failed},
			reasonHas: "1 MUST requirement(s) failed"},
		{name: "listed passing: stale, exit 1",
			baseline: map[string]string{"LIFE-004": "bug 12"}, statuses: map[string]Status{"LIFE-004": Passed, "WIRE-009": Passed},
			wantExit: ExitNonConformant, wantVerdict: "stale baseline", want: map[string]Status{"LIFE-004": Passed},
			wantStale: []string{"LIFE-004"}, reasonHas: "stale baseline entry: LIFE-004 now passes; remove it"},
		{name: "stale and an unlisted failure: non-conformant, both said",
			baseline: map[string]string{"LIFE-004": "bug 12"}, statuses: map[string]Status{"LIFE-004": Passed, "WIRE-009": Failed},
			wantExit: ExitNonConformant, wantVerdict: "non-conformant", wantStale: []string{"LIFE-004"},
			reasonHas: "1 MUST requirement(s) failed; stale baseline entry: LIFE-004 now passes"},
		{name: "listed not selected: as it is, not stale",
			baseline: map[string]string{"LIFE-004": "bug 12"}, statuses: map[string]Status{"WIRE-009": Passed},
			wantExit: ExitConformant, wantVerdict: "conformant", want: map[string]Status{"LIFE-004": NotSelected}},
		{name: "listed not verified: as it is, not stale",
			baseline: map[string]string{"LIFE-004": "bug 12"}, statuses: map[string]Status{"LIFE-004": NotVerified, "WIRE-009": Passed},
			wantExit: ExitIncomplete, wantVerdict: "incomplete", want: map[string]Status{"LIFE-004": NotVerified}},
		{name: "listed failing SHOULD: expected failure, no warning",
			baseline: map[string]string{"WIRE-005": "later"}, statuses: map[string]Status{"WIRE-005": Failed, "WIRE-009": Passed},
			wantExit: ExitConformant, wantVerdict: "conformant", want: map[string]Status{"WIRE-005": ExpectedFailure}},
		{name: "a shard calls no entry stale (another shard may fail it)",
			baseline: map[string]string{"LIFE-004": "bug 12"}, statuses: map[string]Status{"LIFE-004": Passed, "WIRE-009": Passed},
			shard: Shard{Index: 1, Count: 2}, wantExit: ExitConformant, wantVerdict: "conformant", want: map[string]Status{"LIFE-004": Passed}},
		{name: "no baseline: a failure fails",
			statuses: map[string]Status{"LIFE-004": Failed}, wantExit: ExitNonConformant, wantVerdict: "non-conformant", want: map[string]Status{"LIFE-004": Failed}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := Scope{Profile: ProfileCore, Only: []string{"LIFE-004", "WIRE-009", "WIRE-005"}, Baseline: c.baseline, Shard: c.shard}
			res := Summarize(cfg, RunInput{Reached: true, Transport: "spawn"}, baselineSpecs(c.statuses), nil)
			if res.ExitCode != c.wantExit || res.Verdict != c.wantVerdict {
				t.Errorf("verdict %s (%s), exit %d; want %s, exit %d", res.Verdict, res.Reason, res.ExitCode, c.wantVerdict, c.wantExit)
			}
			if !strings.Contains(res.Reason, c.reasonHas) {
				t.Errorf("reason %q does not say %q", res.Reason, c.reasonHas)
			}
			if !slices.Equal(res.StaleBaseline, c.wantStale) {
				t.Errorf("stale %q, want %q", res.StaleBaseline, c.wantStale)
			}
			for _, rr := range res.Requirements {
				if want, ok := c.want[rr.ID]; ok && rr.Status != want {
					t.Errorf("%s is %s, want %s", rr.ID, rr.Status, want)
				}
				if why, listed := c.baseline[rr.ID]; listed && rr.Baseline != why {
					t.Errorf("%s carries the baseline reason %q, want %q", rr.ID, rr.Baseline, why)
				}
			}
			for _, w := range res.Warnings {
				if strings.HasPrefix(w, "WIRE-005") && c.baseline["WIRE-005"] != "" {
					t.Errorf("an expected SHOULD failure still warns: %s", w)
				}
			}
			if !maps.Equal(res.ExpectedFailures, c.baseline) {
				t.Errorf("the report's baseline %q, want %q", res.ExpectedFailures, c.baseline)
			}
		})
	}
}

// baselineResult is a run with LIFE-004 an expected failure, WIRE-009
// passed, and, when both, a spec of LIFE-004 and WIRE-009 together failed.
func baselineResult(t *testing.T, both bool) Result {
	t.Helper()
	specs := baselineSpecs(map[string]Status{"LIFE-004": Failed, "WIRE-009": Passed})
	if both {
		specs = append(specs, SpecResult{Text: "a spec of both", Requirements: []string{"LIFE-004", "WIRE-009"}, Status: Failed,
			Message: "failed: want both, got neither", Evidence: Evidence{"LIFE-004": {"checked": 1}}})
	}
	cfg := Scope{Profile: ProfileCore, Only: []string{"LIFE-004", "WIRE-009"}, Baseline: map[string]string{"LIFE-004": "bug 12 <b>"}}
	res := Summarize(cfg, RunInput{Reached: true, Transport: "spawn"}, specs, nil)
	res.Explain()
	return res
}

// TestJUnitExpectedFailureIsNoFailure: a spec that failed only expected
// requirements is skipped with "expected failure: ID: reason" and the
// failure in system-out; a spec that also failed an unlisted one stays a
// failure.
func TestJUnitExpectedFailureIsNoFailure(t *testing.T) {
	for _, both := range []bool{false, true} {
		res := baselineResult(t, both)
		path := filepath.Join(t.TempDir(), "junit.xml")
		if err := res.WriteJUnit(path); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		x := string(data)
		if !strings.Contains(x, `<skipped message="expected failure: LIFE-004: bug 12 &lt;b&gt;"></skipped>`) ||
			!strings.Contains(x, "<system-out>expected failure (listed in the baseline): failed: want this, got that") {
			t.Errorf("both=%v: the expected failure is not skipped with its reason:\n%s", both, x)
		}
		if got := strings.Count(x, "<failure"); got != map[bool]int{false: 0, true: 1}[both] || both != strings.Contains(x, `failures="1"`) {
			t.Errorf("both=%v: %d <failure> elements:\n%s", both, got, x)
		}
	}
}

func TestBaselineInSummaryHTMLAndBadge(t *testing.T) {
	res := baselineResult(t, false)
	var b strings.Builder
	res.WriteSummary(&b)
	for _, want := range []string{"expected failure\n", "EXPECTED FAILURE LIFE-004 (MUST)", "baseline: bug 12 <b>", ", 1 expected failure(s)\n",
		"; with 1 expected failure(s) listed in the baseline), exit 0"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the summary lacks %q:\n%s", want, b.String())
		}
	}
	page, err := res.RenderHTML()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<div class="req expected-failure" id="req-LIFE-004" data-status="expected failure"`, `baseline: bug 12 &lt;b&gt;`, `id="filter-expected-failure"`} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the HTML report lacks %q", want)
		}
	}
	svg := string(badge(res.Verdict, res.badgeValue(), res.Profile))
	if !strings.Contains(svg, "conformant with 1 expected failure (core)") || !strings.Contains(svg, string(badgeGreen)) {
		t.Errorf("badge: %s", svg)
	}
	res.Counts[ExpectedFailure] = 3
	if v := res.badgeValue(); v != "conformant with 3 expected failures" {
		t.Errorf("badge value %q", v)
	}

	stale := Summarize(Scope{Profile: ProfileCore, Only: []string{"LIFE-004"}, Baseline: map[string]string{"LIFE-004": "bug 12"}},
		RunInput{Reached: true, Transport: "spawn"}, baselineSpecs(map[string]Status{"LIFE-004": Passed}), nil)
	b.Reset()
	stale.WriteSummary(&b)
	if !strings.Contains(b.String(), "STALE BASELINE ENTRY LIFE-004 (MUST): it now passes; remove it from the baseline (it said: bug 12)") {
		t.Errorf("the summary of a stale entry:\n%s", b.String())
	}
	if page, _ := stale.RenderHTML(); !strings.Contains(string(page), "stale baseline entry: LIFE-004 now passes; remove it") {
		t.Error("the HTML report does not say the entry is stale")
	}
	if svg := string(badge(stale.Verdict, stale.badgeValue(), stale.Profile)); !strings.Contains(svg, "stale baseline (core)") || !strings.Contains(svg, string(badgeAmber)) {
		t.Errorf("badge of a stale baseline: %s", svg)
	}
}

// TestWriteBaselineRoundTrip: the baseline a run writes lists its failures
// (MUST and SHOULD) and its expected failures, each on one line, and
// parses back.
func TestWriteBaselineRoundTrip(t *testing.T) {
	specs := baselineSpecs(map[string]Status{"LIFE-004": Failed, "WIRE-009": Failed, "WIRE-005": Failed})
	for i := range specs {
		if specs[i].Requirements[0] == "WIRE-009" {
			specs[i].Message = "failed: line one\n  line two\n" + strings.Repeat("x", 500)
		}
	}
	res := Summarize(Scope{Profile: ProfileCore, Baseline: map[string]string{"LIFE-004": "bug 12"}}, RunInput{Reached: true, Transport: "spawn"}, specs, nil)
	path := filepath.Join(t.TempDir(), "baseline.txt")
	if err := res.WriteBaseline(path); err != nil {
		t.Fatal(err)
	}
	got, err := ReadExpectedFailures(path)
	if err != nil {
		t.Fatalf("the written baseline does not parse: %v", err)
	}
	if len(got) != 3 || got["LIFE-004"] != "bug 12" || got["WIRE-005"] != "failed: want this, got that" {
		t.Errorf("baseline %q", got)
	}
	if w := got["WIRE-009"]; !strings.HasPrefix(w, "failed: line one line two xxx") || !strings.HasSuffix(w, " …") || len([]rune(w)) != baselineReasonRunes+2 {
		t.Errorf("WIRE-009's reason is not one clipped line: %q", w)
	}
}

// TestDiffNoLatency: with LatencyIgnored a regressed p90 is listed but
// not worse; a requirement that got worse still is. An expected failure
// ranks as the failure it is.
func TestDiffNoLatency(t *testing.T) {
	run := func(st Status, p90 float64) *Result {
		return &Result{Verdict: "conformant", Requirements: []RequirementResult{{ID: "LIFE-004", Level: "MUST", Status: st}},
			Latency: []MethodLatency{{Method: "engine/observe", Count: 50, P90Ms: p90}}}
	}
	for _, c := range []struct {
		name      string
		old, new  *Result
		ignore    bool
		wantWorse bool
	}{
		{"slower", run(Passed, 2), run(Passed, 9), false, true},
		{"slower, latency ignored", run(Passed, 2), run(Passed, 9), true, false},
		{"worse and slower, latency ignored", run(Passed, 2), run(Failed, 9), true, true},
		{"passed → expected failure is worse", run(Passed, 2), run(ExpectedFailure, 2), true, true},
		{"failed → expected failure is no worse", run(Failed, 2), run(ExpectedFailure, 2), false, false},
		{"expected failure → failed is no worse", run(ExpectedFailure, 2), run(Failed, 2), false, false},
	} {
		d := Diff(c.old, c.new)
		d.LatencyIgnored = c.ignore
		if d.Worse() != c.wantWorse {
			t.Errorf("%s: worse %v, want %v (%+v)", c.name, d.Worse(), c.wantWorse, d)
		}
		var b strings.Builder
		d.Write(&b)
		if c.ignore && len(d.Regressions) > 0 && !strings.Contains(b.String(), "(latency not gating: --no-latency)") {
			t.Errorf("%s: the output does not say latency does not gate:\n%s", c.name, b.String())
		}
	}
}
