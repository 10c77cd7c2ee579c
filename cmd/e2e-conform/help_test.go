package main

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/e2e-conform/toolkit/conformance/catalog"
	"github.com/e2e-conform/toolkit/conformance/report"
)

// TestHelpNamesEveryArea: --help lists every area of the catalog (in
// catalog order, no other), a glossary of every status a report gives, and
// where the documentation is.
func TestHelpNamesEveryArea(t *testing.T) {
	var out, errs bytes.Buffer
	if code := run([]string{"--help"}, &out, &errs); code != 0 {
		t.Fatalf("--help: exit %d", code)
	}
	help := errs.String()
	var areas []string
	for _, a := range areaTitles() {
		areas = append(areas, a.Area)
		if !strings.Contains(help, "\n  "+a.Area+" ") || !strings.Contains(help, a.Title) {
			t.Errorf("--help lacks the area %s (%s)", a.Area, a.Title)
		}
	}
	if !slices.Equal(areas, catalog.Areas()) {
		t.Errorf("areaTitles lists %v; the catalog's areas are %v", areas, catalog.Areas())
	}
	for _, st := range []report.Status{report.Passed, report.Failed, report.NotApplicable,
		report.NotVerified, report.NotSelected, report.ExpectedFailure} {
		if !strings.Contains(help, "\n  "+string(st)+" ") {
			t.Errorf("--help's glossary lacks the status %q:\n%s", st, help)
		}
	}
	for _, want := range []string{"statuses of a requirement", "docs/report.md", "docs/ci.md", "README.md", "§7.5",
		"e2e-conform --explain ID REPORT.json", "console (stderr", "--progress"} {
		if !strings.Contains(help, want) {
			t.Errorf("--help lacks %q", want)
		}
	}
}
