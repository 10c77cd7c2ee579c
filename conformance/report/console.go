package report

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/e2e-conform/toolkit/conformance/catalog"
)

// FailureLine is the console's line for a requirement that failed: its
// ID, its level when it is not a MUST, the one-line reason, and where to
// read more.
func FailureLine(id string, level catalog.Level, baseline, reason, report string) string {
	head := "FAIL " + id
	switch {
	case baseline != "":
		head = "expected failure " + id + " (listed in the baseline: " + ClipRunes(ConsoleLine(baseline), 80) + ")"
	case level == catalog.Should:
		head += " (SHOULD: a warning)"
	}
	more := "(more in the summary below)"
	if report != "" {
		more = "(e2e-conform --explain " + id + " " + report + ")"
	}
	return head + " " + ClipRunes(ConsoleLine(strings.TrimPrefix(reason, "failed: ")), 200) + "  " + more
}

// ConsoleLine makes s one line of printable text: line breaks and tabs become
// spaces, runs of spaces one, and any other control character (an ESC an
// engine sent, say) its \x escape, so nothing an engine wrote can move
// the cursor or colour the console.
func ConsoleLine(s string) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		switch {
		case r == '\n' || r == '\r' || r == '\t' || r == ' ':
			if !space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = true
			continue
		case r == utf8.RuneError:
			b.WriteString("\\ufffd")
		case unicode.IsControl(r):
			fmt.Fprintf(&b, "\\x%02x", r)
		default:
			b.WriteRune(r)
		}
		space = false
	}
	return strings.TrimRight(b.String(), " ")
}

// ClipRunes cuts s to max runes, marking the cut with "…".
func ClipRunes(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	return string([]rune(s)[:max-1]) + "…"
}
