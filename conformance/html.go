package conformance

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

// htmlPage is what the template renders.
type htmlPage struct {
	R            *Result
	VerdictClass string
	Script       template.JS
	ScriptHash   string
	Filters      []htmlFilter
	Areas        []htmlArea
	Requirements []htmlRequirement
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
}

// htmlSpec is one spec of a requirement.
type htmlSpec struct {
	SpecResult
	Class    string
	Evidence []htmlCount
	// ShowMessage: the spec has a message other than its requirement's
	// reason (which the page shows already).
	ShowMessage bool
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

// htmlPageOf builds the page of r.
func htmlPageOf(r *Result) htmlPage {
	sum := sha256.Sum256([]byte(htmlScript))
	p := htmlPage{R: r, VerdictClass: verdictClass(r.Verdict), Script: template.JS(htmlScript),
		ScriptHash: "sha256-" + base64.StdEncoding.EncodeToString(sum[:])}
	count := map[Status]int{}
	perArea := map[string]map[Status]int{}
	var areas []string
	for _, rr := range r.Requirements {
		count[rr.Status]++
		if perArea[rr.Area] == nil {
			perArea[rr.Area] = map[Status]int{}
			areas = append(areas, rr.Area)
		}
		perArea[rr.Area][rr.Status]++
		hr := htmlRequirement{RequirementResult: rr, Class: statusClass(rr.Status), Evidence: evidenceLines(rr.Evidence), Stale: slices.Contains(r.StaleBaseline, rr.ID)}
		for _, s := range r.Specs {
			if contains(s.Requirements, rr.ID) {
				hr.Specs = append(hr.Specs, htmlSpec{SpecResult: s, Class: statusClass(s.Status), Evidence: evidenceLines(s.Evidence[rr.ID]),
					ShowMessage: s.Message != "" && s.Message != rr.Reason})
			}
		}
		p.Requirements = append(p.Requirements, hr)
	}
	for _, s := range htmlStatuses() {
		p.Filters = append(p.Filters, htmlFilter{s.status, s.class, count[s.status]})
	}
	for _, a := range areas {
		row := htmlArea{Name: a}
		for _, s := range htmlStatuses() {
			row.Counts = append(row.Counts, perArea[a][s.status])
		}
		p.Areas = append(p.Areas, row)
	}
	return p
}

// htmlTemplate parses the report's template.
func htmlTemplate() (*template.Template, error) {
	return template.New("report").Funcs(template.FuncMap{
		"ms": func(d time.Duration) string { return fmt.Sprintf("%.1f ms", millis(d)) },
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

// RenderHTML returns the HTML report of r: one self-contained page (inline
// CSS and script, no network: its Content-Security-Policy allows no fetch
// and no script but its own) with the verdict, the area table, every
// requirement with its reason, evidence and its specs' exchanges, filters
// by status and area, and the latency table. Everything the run recorded
// is escaped as text (html/template).
func (r *Result) RenderHTML() ([]byte, error) {
	t, err := htmlTemplate()
	if err != nil {
		return nil, fmt.Errorf("html report template: %w", err)
	}
	var b bytes.Buffer
	if err := t.Execute(&b, htmlPageOf(r)); err != nil {
		return nil, fmt.Errorf("html report: %w", err)
	}
	return b.Bytes(), nil
}

// WriteHTML writes the HTML report (RenderHTML) to path.
func (r *Result) WriteHTML(path string) error {
	data, err := r.RenderHTML()
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("writing the html report: %w", err)
	}
	return nil
}
