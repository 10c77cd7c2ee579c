package report

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/e2e-conform/toolkit/conformance/catalog"
)

// The HTML report's template and its one script (embedded: the report is
// one self-contained file).
var (
	//go:embed report.html.tmpl
	htmlTemplateText string
	//go:embed report.js
	htmlScript string
)

// htmlStatuses is the order of the statuses in the HTML report's filters
// and area table, with the CSS class of each.
func htmlStatuses() []htmlStatus {
	return []htmlStatus{
		{Failed, "failed"},
		{ExpectedFailure, "expected-failure"},
		{NotVerified, "not-verified"},
		{Passed, "passed"},
		{NotApplicable, "not-applicable"},
		{NotSelected, "not-selected"},
	}
}

// htmlStatus is a status and its CSS class.
type htmlStatus struct {
	status Status
	class  string
}

// statusClass is st's CSS class ("not verified" → "not-verified").
func statusClass(st Status) string {
	for _, s := range htmlStatuses() {
		if s.status == st {
			return s.class
		}
	}
	return "unknown"
}

// DefaultSpecURL is where the HTML report links a requirement's section
// when HTMLOptions.SpecURL is empty: the specification's file name,
// relative to the report ("engine-protocol.md#13-malformed-input"), which
// resolves when the report sits beside the specification or on a site
// that serves both.
const DefaultSpecURL = "engine-protocol.md"

// HTMLOptions are the HTML report's settings.
type HTMLOptions struct {
	// SpecURL is the address of engine-protocol.md the report links each
	// requirement's section to, followed by "#" and the heading's anchor
	// (catalog.SectionAnchor); "" is DefaultSpecURL.
	SpecURL string
}

// htmlPage is what the template renders.
type htmlPage struct {
	R            *Result
	VerdictClass string
	Script       template.JS
	ScriptHash   string
	Filters      []htmlFilter
	Areas        []htmlArea
	// Chart is the area chart: one column per area.
	Chart []htmlColumn
	// Requirements is every requirement but those not selected, failures
	// first (htmlRank); NotSelected those, shown on request.
	Requirements []htmlRequirement
	NotSelected  []htmlRequirement
	// Total is the number of requirements.
	Total int
}

// htmlColumn is one area of the area chart: a column as tall as the area
// has requirements, in segments per status.
type htmlColumn struct {
	Area     string
	Total    int
	Failed   int
	Height   int // px
	Segments []htmlSegment
	Title    string
}

// htmlSegment is one status's part of a column.
type htmlSegment struct {
	Class string
	Count int
}

// htmlFilter is one status button: the status, its class and how many
// requirements have it.
type htmlFilter struct {
	Status Status
	Class  string
	Count  int
}

// htmlArea is one row of the area table.
type htmlArea struct {
	Name   string
	Counts []int // per htmlStatuses, in the table's column order
}

// htmlRequirement is one requirement with its specs.
type htmlRequirement struct {
	RequirementResult
	Class    string
	Evidence []htmlCount
	Specs    []htmlSpec
	// Stale: the baseline lists it and it passed.
	Stale bool
	// SectionHeading is its section's title ("Malformed input"),
	// SectionURL the link to it ("" when the section has no heading).
	SectionHeading string
	SectionURL     string
	// Diagram is its explanation's exchange drawn as a sequence diagram
	// (failed, expected failure and not verified requirements with an
	// exchange).
	Diagram *htmlDiagram
}

// htmlSpec is one spec of a requirement.
type htmlSpec struct {
	SpecResult
	Class    string
	Evidence []htmlCount
	// ShowMessage: the spec has a message other than its requirement's
	// reason (which the page shows already).
	ShowMessage bool
	// ShowFrames: its exchange is not the one the requirement's diagram
	// draws (which the page shows already).
	ShowFrames bool
}

// htmlCount is one evidence line.
type htmlCount struct {
	What string
	N    int
}

// evidenceLines sorts an evidence map by what was observed.
func evidenceLines(m map[string]int) []htmlCount {
	var out []htmlCount
	for what, n := range m {
		out = append(out, htmlCount{what, n})
	}
	slices.SortFunc(out, func(a, b htmlCount) int { return strings.Compare(a.What, b.What) })
	return out
}

// verdictClass is the CSS class of a verdict.
func verdictClass(verdict string) string {
	switch b, _ := badgeFor(verdict); b.colour {
	case badgeGreen:
		return "good"
	case badgeRed:
		return "bad"
	default:
		return "warn"
	}
}

// htmlRank orders the requirement cards: failures first (MUST before
// SHOULD), then stale baseline entries, not verified, expected failures,
// passed, not applicable, not selected.
func htmlRank(rr RequirementResult, stale bool) int {
	switch {
	case rr.Status == Failed && rr.Level == string(catalog.Must):
		return 0
	case rr.Status == Failed:
		return 1
	case stale:
		return 2
	case rr.Status == NotVerified:
		return 3
	case rr.Status == ExpectedFailure:
		return 4
	case rr.Status == Passed:
		return 5
	case rr.Status == NotApplicable:
		return 6
	default:
		return 7
	}
}

// htmlPageOf builds the page of r.
func htmlPageOf(r *Result, opts HTMLOptions) htmlPage {
	sum := sha256.Sum256([]byte(htmlScript))
	p := htmlPage{R: r, VerdictClass: verdictClass(r.Verdict), Script: template.JS(htmlScript),
		ScriptHash: "sha256-" + base64.StdEncoding.EncodeToString(sum[:]), Total: len(r.Requirements)}
	specURL := opts.SpecURL
	if specURL == "" {
		specURL = DefaultSpecURL
	}
	count := map[Status]int{}
	perArea := map[string]map[Status]int{}
	var areas []string
	var reqs []htmlRequirement
	for _, rr := range r.Requirements {
		count[rr.Status]++
		if perArea[rr.Area] == nil {
			perArea[rr.Area] = map[Status]int{}
			areas = append(areas, rr.Area)
		}
		perArea[rr.Area][rr.Status]++
		hr := htmlRequirement{RequirementResult: rr, Class: statusClass(rr.Status), Evidence: evidenceLines(rr.Evidence), Stale: slices.Contains(r.StaleBaseline, rr.ID)}
		sec := rr.Section
		if sec == "" {
			if c, ok := catalog.Lookup(rr.ID); ok {
				sec = c.Section
			}
		}
		hr.Section = sec
		if h, ok := catalog.SectionHeading(sec); ok {
			_, title, _ := strings.Cut(h, " ") // "1.3 Malformed input": the number is Section
			hr.SectionHeading, hr.SectionURL = title, specURL+"#"+catalog.SectionAnchor(sec)
		}
		diagramSpec := ""
		if x := rr.Explanation; x != nil && x.Exchange != "" {
			diagramSpec = x.Spec
			var times []int64
			for _, s := range r.Specs {
				if s.Text == x.Spec && s.LastFrames == x.Exchange {
					times = s.FrameTimes
					break
				}
			}
			d := parseExchange(x.Exchange, times)
			if rr.Status == Failed || rr.Status == ExpectedFailure {
				d.highlight(x.Came, rr.Reason)
			}
			hr.Diagram = &d
		}
		for _, s := range r.Specs {
			if contains(s.Requirements, rr.ID) {
				hr.Specs = append(hr.Specs, htmlSpec{SpecResult: s, Class: statusClass(s.Status), Evidence: evidenceLines(s.Evidence[rr.ID]),
					ShowMessage: s.Message != "" && s.Message != rr.Reason,
					ShowFrames:  s.LastFrames != "" && (hr.Diagram == nil || s.Text != diagramSpec)})
			}
		}
		reqs = append(reqs, hr)
	}
	slices.SortStableFunc(reqs, func(a, b htmlRequirement) int {
		return htmlRank(a.RequirementResult, a.Stale) - htmlRank(b.RequirementResult, b.Stale)
	})
	for _, hr := range reqs {
		if hr.Status == NotSelected {
			p.NotSelected = append(p.NotSelected, hr)
		} else {
			p.Requirements = append(p.Requirements, hr)
		}
	}
	for _, s := range htmlStatuses() {
		p.Filters = append(p.Filters, htmlFilter{s.status, s.class, count[s.status]})
	}
	maxTotal := 1
	for _, a := range areas {
		total := 0
		for _, n := range perArea[a] {
			total += n
		}
		maxTotal = max(maxTotal, total)
	}
	for _, a := range areas {
		row := htmlArea{Name: a}
		col := htmlColumn{Area: a, Failed: perArea[a][Failed]}
		var title []string
		for _, s := range htmlStatuses() {
			n := perArea[a][s.status]
			row.Counts = append(row.Counts, n)
			col.Total += n
			if n > 0 {
				col.Segments = append(col.Segments, htmlSegment{s.class, n})
				title = append(title, fmt.Sprintf("%d %s", n, s.status))
			}
		}
		col.Height = max(4, chartHeight*col.Total/maxTotal)
		col.Title = a + ": " + strings.Join(title, ", ")
		p.Areas = append(p.Areas, row)
		p.Chart = append(p.Chart, col)
	}
	return p
}

// chartHeight is the area chart's height in px: the column of the area
// with the most requirements.
const chartHeight = 96

// htmlTemplate parses the report's template.
func htmlTemplate() (*template.Template, error) {
	return template.New("report").Funcs(template.FuncMap{
		"ms": func(d time.Duration) string { return fmt.Sprintf("%.1f ms", Millis(d)) },
		// md renders a sentence's code spans; bytes escapes a frame's
		// bytes that are not UTF-8 (\xNN).
		"md":    markdownCode,
		"bytes": escapeNonUTF8,
		"join":  strings.Join,
		"seconds": func(d time.Duration) string {
			return fmt.Sprintf("%.1f s", d.Seconds())
		},
		"statusColumns": func() []htmlFilter {
			var out []htmlFilter
			for _, s := range htmlStatuses() {
				out = append(out, htmlFilter{Status: s.status, Class: s.class})
			}
			return out
		},
	}).Parse(htmlTemplateText)
}

// RenderHTML returns the HTML report of r with the default options
// (RenderHTMLWith).
func (r *Result) RenderHTML() ([]byte, error) { return r.RenderHTMLWith(HTMLOptions{}) }

// RenderHTMLWith returns the HTML report of r: one self-contained page
// (inline CSS and script, no network: its Content-Security-Policy allows no
// fetch and no script but its own) with the verdict, an area chart, and the
// requirements, failures first: each failure with its section (linked into
// the specification at opts.SpecURL), statement, wanted and came, likely
// cause, and its exchange drawn as a sequence diagram above the raw frames;
// not selected requirements only on request; filters by status and area;
// the latency table and the run's provenance. Everything the run recorded
// is escaped as text (html/template), code spans of sentences are rendered
// as code, and bytes that are not UTF-8 are written \xNN: the page is
// valid UTF-8.
func (r *Result) RenderHTMLWith(opts HTMLOptions) ([]byte, error) {
	t, err := htmlTemplate()
	if err != nil {
		return nil, fmt.Errorf("html report template: %w", err)
	}
	var b bytes.Buffer
	if err := t.Execute(&b, htmlPageOf(r, opts)); err != nil {
		return nil, fmt.Errorf("html report: %w", err)
	}
	return escapeNonUTF8Bytes(b.Bytes()), nil
}

// WriteHTML writes the HTML report (RenderHTML) to path.
func (r *Result) WriteHTML(path string) error { return r.WriteHTMLWith(path, HTMLOptions{}) }

// WriteHTMLWith writes the HTML report (RenderHTMLWith) to path.
func (r *Result) WriteHTMLWith(path string, opts HTMLOptions) error {
	data, err := r.RenderHTMLWith(opts)
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("writing the html report: %w", err)
	}
	return nil
}
