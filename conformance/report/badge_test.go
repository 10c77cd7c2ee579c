package report

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// badgeParts parses an SVG badge: it must be well-formed XML with an svg
// root; it returns the fill of the value rect and the texts drawn.
func badgeParts(t *testing.T, svg []byte) (fill string, texts []string) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(svg))
	var stack []string
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("the badge is not well-formed XML: %v\n%s", err, svg)
		}
		switch el := tok.(type) {
		case xml.StartElement:
			if len(stack) == 0 && (el.Name.Local != "svg" || el.Name.Space != "http://www.w3.org/2000/svg") {
				t.Fatalf("root element %v, want svg in the SVG namespace", el.Name)
			}
			stack = append(stack, el.Name.Local)
			if el.Name.Local == "rect" {
				var class, f string
				for _, a := range el.Attr {
					switch a.Name.Local {
					case "class":
						class = a.Value
					case "fill":
						f = a.Value
					}
				}
				if class == "value" {
					fill = f
				}
			}
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 && stack[len(stack)-1] == "text" {
				texts = append(texts, string(el))
			}
		}
	}
	if len(stack) != 0 {
		t.Fatalf("unclosed elements %v", stack)
	}
	return fill, texts
}

func TestBadge(t *testing.T) {
	for _, tc := range []struct {
		verdict, profile string
		fill             badgeColour
		value            string
	}{
		{"conformant", ProfileCore, badgeGreen, "conformant (core)"},
		{"conformant", ProfileFull, badgeGreen, "conformant (full)"},
		{"non-conformant", ProfileCore, badgeRed, "non-conformant (core)"},
		{"incomplete", ProfileFull, badgeAmber, "incomplete (full)"},
		{"unstable", ProfileCore, badgeAmber, "unstable (core)"},
		{"harness error", ProfileCore, badgeGrey, "harness error (core)"},
		{"<odd & verdict>", "", badgeGrey, "<odd & verdict>"},
	} {
		t.Run(tc.verdict+"/"+tc.profile, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "badge.svg")
			r := &Result{Verdict: tc.verdict, Profile: tc.profile}
			if err := r.WriteBadge(path); err != nil {
				t.Fatal(err)
			}
			svg, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			fill, texts := badgeParts(t, svg)
			if fill != string(tc.fill) {
				t.Errorf("value colour %q, want %q", fill, tc.fill)
			}
			// Each text is drawn twice (shadow, then text).
			want := []string{badgeLabel, badgeLabel, tc.value, tc.value}
			if strings.Join(texts, "|") != strings.Join(want, "|") {
				t.Errorf("texts %q, want %q", texts, want)
			}
		})
	}
}

// TestBadgeWidthGrowsWithText: the value part is wide enough for longer
// verdicts (a badge's text must not overflow its box).
func TestBadgeWidthGrowsWithText(t *testing.T) {
	if a, b := textWidth("conformant (core)"), textWidth("non-conformant (core)"); a >= b {
		t.Errorf("textWidth: %d for the shorter text, %d for the longer", a, b)
	}
	if w := textWidth("non-conformant (full)"); w < 100 || w > 160 {
		t.Errorf("textWidth(non-conformant (full)) = %d px, want a Verdana 11 px width (about 125)", w)
	}
}
