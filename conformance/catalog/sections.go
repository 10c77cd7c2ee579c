package catalog

//go:generate go run ./gen -spec ../../../shared/spec/engine-protocol.md -out= -sections sections_gen.go

import (
	"bufio"
	"bytes"
	"regexp"
	"strings"
	"unicode"
)

// sectionHeadingRE matches a numbered heading of the specification:
// "## 1. Wire" (§1) and "### 1.1 Framing" (§1.1).
var sectionHeadingRE = regexp.MustCompile(`^#{2,3} (\d+(?:\.\d+)?)\.? (.*)$`)

// ParseSections reads the numbered headings out of the specification's
// markdown: "§1.1" → "1.1 Framing", "§1" → "1. Wire", the heading's text
// as written (backquotes kept).
func ParseSections(spec []byte) map[string]string {
	out := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(spec))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if m := sectionHeadingRE.FindStringSubmatch(line); m != nil {
			if _, dup := out["§"+m[1]]; !dup {
				out["§"+m[1]] = strings.TrimSpace(strings.TrimLeft(line, "# "))
			}
		}
	}
	return out
}

// SectionHeading returns the heading of section sec ("§1.1" → "1.1
// Framing"), false when the specification has no such numbered heading.
func SectionHeading(sec string) (string, bool) {
	h, ok := sectionHeadings[sec]
	return h, ok
}

// SectionAnchor returns the fragment a markdown renderer (GitHub's, and
// most that follow it) gives section sec's heading: "§1.1" →
// "11-framing", "§4.15" → "415-statecapture-and-staterestore"; "" when
// sec is no numbered heading.
func SectionAnchor(sec string) string {
	h, ok := sectionHeadings[sec]
	if !ok {
		return ""
	}
	return headingSlug(h)
}

// headingSlug is GitHub's heading anchor: lower case, every character but
// letters, digits, '_', '-' and spaces dropped, spaces turned into '-'.
func headingSlug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			b.WriteRune(r)
		}
	}
	return b.String()
}
