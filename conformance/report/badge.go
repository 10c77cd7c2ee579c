package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"os"
)

// badgeColour is the fill of a badge's right-hand part.
type badgeColour string

// The badge colours (the shields.io palette).
const (
	badgeGreen badgeColour = "#4c1"
	badgeRed   badgeColour = "#e05d44"
	badgeAmber badgeColour = "#dfb317"
	badgeGrey  badgeColour = "#9f9f9f"
)

// badgeStyle is how one verdict looks on a badge.
type badgeStyle struct {
	verdict string
	colour  badgeColour
}

// badgeStyles is every verdict a report can carry: conformant green,
// non-conformant red, incomplete and unstable (--repeat) amber, a harness
// error grey.
func badgeStyles() []badgeStyle {
	return []badgeStyle{
		{"conformant", badgeGreen},
		{"non-conformant", badgeRed},
		{"incomplete", badgeAmber},
		{"unstable", badgeAmber},
		{"stale baseline", badgeAmber},
		{"harness error", badgeGrey},
	}
}

// badgeFor returns verdict's style, grey when the verdict is unknown.
func badgeFor(verdict string) (badgeStyle, bool) {
	for _, b := range badgeStyles() {
		if b.verdict == verdict {
			return b, true
		}
	}
	return badgeStyle{verdict, badgeGrey}, false
}

// badgeLabel is the badge's left-hand text.
const badgeLabel = "e2e-conform"

// textWidth estimates the width in pixels of s in 11 px Verdana (narrow
// and wide letters apart, the rest at an average width), enough to size a
// badge without a font at hand.
func textWidth(s string) int {
	w := 0.0
	for _, c := range s {
		switch {
		case c == ' ' || c == 'i' || c == 'j' || c == 'l' || c == 't' || c == 'f' || c == 'r' ||
			c == '(' || c == ')' || c == '.' || c == ',' || c == ':' || c == '|' || c == '!' || c == '\'':
			w += 4.2
		case c == 'm' || c == 'w' || c == 'M' || c == 'W':
			w += 10.5
		case c >= 'A' && c <= 'Z':
			w += 7.8
		default:
			w += 6.8
		}
	}
	return int(w + 0.5)
}

// Badge returns an SVG badge of the verdict in the shields.io style:
// "e2e-conform | conformant (core)", green when conformant, red when
// non-conformant, amber when incomplete or unstable, grey otherwise.
func Badge(verdict, profile string) []byte { return badge(verdict, verdict, profile) }

// badge is Badge with text in place of the verdict ("conformant with 2
// expected failures"), in the verdict's colour.
func badge(verdict, text, profile string) []byte {
	style, _ := badgeFor(verdict)
	value := text
	if profile != "" {
		value += " (" + profile + ")"
	}
	lw, vw := textWidth(badgeLabel)+10, textWidth(value)+10
	total := lw + vw
	var b bytes.Buffer
	esc := func(s string) string {
		var e bytes.Buffer
		_ = xml.EscapeText(&e, []byte(s)) // writing to a bytes.Buffer does not fail
		return e.String()
	}
	title := esc(badgeLabel + ": " + value)
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="20" role="img" aria-label="%s">`, total, title)
	fmt.Fprintf(&b, `<title>%s</title>`, title)
	b.WriteString(`<linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient>`)
	fmt.Fprintf(&b, `<clipPath id="r"><rect width="%d" height="20" rx="3" fill="#fff"/></clipPath>`, total)
	fmt.Fprintf(&b, `<g clip-path="url(#r)"><rect width="%d" height="20" fill="#555"/><rect class="value" x="%d" width="%d" height="20" fill="%s"/><rect width="%d" height="20" fill="url(#s)"/></g>`,
		lw, lw, vw, style.colour, total)
	b.WriteString(`<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" font-size="11">`)
	for _, t := range []struct {
		x    int
		text string
	}{{lw / 2, badgeLabel}, {lw + vw/2, value}} {
		fmt.Fprintf(&b, `<text x="%d" y="15" fill="#010101" fill-opacity=".3">%s</text><text x="%d" y="14">%s</text>`, t.x, esc(t.text), t.x, esc(t.text))
	}
	b.WriteString("</g></svg>\n")
	return b.Bytes()
}

// WriteBadge writes the SVG badge of the run's verdict and profile (Badge)
// to path; a conformant run with expected failures says how many
// ("conformant with 2 expected failures (core)").
func (r *Result) WriteBadge(path string) error {
	if err := os.WriteFile(path, badge(r.Verdict, r.badgeValue(), r.Profile), 0o644); err != nil {
		return fmt.Errorf("writing the badge: %w", err)
	}
	return nil
}
