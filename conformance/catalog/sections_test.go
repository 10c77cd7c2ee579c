package catalog

import (
	"os"
	"reflect"
	"testing"
)

// TestSectionHeadingsMatchSpec: sections_gen.go holds the specification's
// numbered headings, and every requirement's section is one of them (so
// the HTML report can link it).
func TestSectionHeadingsMatchSpec(t *testing.T) {
	data, err := os.ReadFile("../../../shared/spec/engine-protocol.md")
	if err != nil {
		t.Fatalf("the specification must sit beside the repository: %v", err)
	}
	if parsed := ParseSections(data); !reflect.DeepEqual(parsed, sectionHeadings) {
		t.Fatal("sections_gen.go is out of date: run go generate ./conformance/catalog")
	}
	for _, r := range All() {
		if SectionAnchor(r.Section) == "" {
			t.Errorf("%s: section %q has no heading to link", r.ID, r.Section)
		}
	}
}

// TestSectionAnchor: the fragments GitHub gives the headings.
func TestSectionAnchor(t *testing.T) {
	for sec, want := range map[string]string{
		"§1":    "1-wire",
		"§1.1":  "11-framing",
		"§2.2":  "22-initialize",
		"§3.2":  "32-engine_methods",
		"§4.15": "415-statecapture-and-staterestore",
		"§7.3":  "73-the-servers-signal-table",
		"§99":   "",
	} {
		if got := SectionAnchor(sec); got != want {
			t.Errorf("SectionAnchor(%q) = %q, want %q", sec, got, want)
		}
	}
	if h, ok := SectionHeading("§1.3"); !ok || h != "1.3 Malformed input" {
		t.Errorf("SectionHeading(§1.3) = %q, %v", h, ok)
	}
}
