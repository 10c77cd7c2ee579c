package report

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"unicode"
)

// ErrNotInReport is WriteExplanation's error for a requirement the report
// does not hold (e2e-conform --explain exits 2 on it).
var ErrNotInReport = errors.New("not in the report")

// explainHint says, under a summary's failures, how to read one in full.
func explainHint(report string) string {
	if report != "" {
		return "a failure in full (likely cause, sent, wanted, came, its exchange): e2e-conform --explain ID " + report
	}
	return "a failure in full (likely cause, sent, wanted, came, its exchange): write the JSON report (--json FILE), then e2e-conform --explain ID FILE"
}

// writeFailures writes the summary's failures: each failed requirement
// with its level, section and statement, its reason on one line, its
// likely cause, what was wanted and what came (clipped); then the groups
// one cause likely explains, and how to read a failure in full. The
// exchanges stay in the reports. When brief (the run's console printed
// each failure as it came), the failed requirements are only named.
func (r *Result) writeFailures(w io.Writer, report string, brief bool) {
	var failed []string
	for _, rr := range r.Requirements {
		if rr.Status != Failed {
			continue
		}
		failed = append(failed, rr.ID)
		if brief {
			continue
		}
		fmt.Fprintf(w, "\nFAILED %s (%s)%s: %s\n  %s\n", rr.ID, rr.Level, ifStr(rr.Section != "", " "+rr.Section), ConsoleLine(rr.Statement), ClipRunes(ConsoleLine(rr.Reason), 400))
		if x := rr.Explanation; x != nil {
			if x.LikelyCause != "" {
				fmt.Fprintf(w, "  likely cause: %s\n", ConsoleLine(x.LikelyCause))
			}
			fmt.Fprintf(w, "  wanted: %s\n", ClipRunes(ConsoleLine(x.Wanted), 300))
			if x.Came != "" {
				fmt.Fprintf(w, "  came: %s\n", ClipRunes(ConsoleLine(x.Came), 300))
			}
		}
	}
	if len(failed) == 0 {
		return
	}
	fmt.Fprintln(w)
	if brief {
		fmt.Fprintf(w, "failed: %s (each told on stderr when it failed)\n", strings.Join(failed, ", "))
	}
	for _, g := range r.FailureGroups() {
		fmt.Fprintf(w, "one cause likely: %s\n", g)
	}
	fmt.Fprintf(w, "%s\n", explainHint(report))
}

// WriteExplanation writes, for a person, everything r says of requirement
// id (e2e-conform --explain): its status and level, section, statement,
// reason, baseline entry, specs; for a failed or not verified one the
// spec whose exchange it is, the likely cause, what was sent, wanted and
// came, the failures one cause likely joins it to, and the exchange; the
// evidence its specs recorded. The report's texts are redacted already;
// control characters an engine sent are escaped. It returns an error
// wrapping ErrNotInReport when r does not hold id.
func (r *Result) WriteExplanation(w io.Writer, id string) error {
	i := slices.IndexFunc(r.Requirements, func(rr RequirementResult) bool { return strings.EqualFold(rr.ID, id) })
	if i < 0 {
		return fmt.Errorf("%s: %w (%d requirements; e2e-conform --list names them)", id, ErrNotInReport, len(r.Requirements))
	}
	rr := r.Requirements[i]
	fmt.Fprintf(w, "%s (%s): %s\n", rr.ID, rr.Level, rr.Status)
	field := func(name, value string) {
		if value != "" {
			fmt.Fprintf(w, "%-13s %s\n", name+":", printable(value, "              "))
		}
	}
	field("section", rr.Section)
	field("requirement", rr.Statement)
	field("reason", rr.Reason)
	field("baseline", rr.Baseline)
	x := rr.Explanation
	if x != nil {
		field("spec", x.Spec)
		field("likely cause", x.LikelyCause)
		field("sent", x.Sent)
		field("wanted", x.Wanted)
		field("came", x.Came)
	}
	if g, ok := groupOf(r.FailureGroups(), rr.ID); ok {
		field("one cause", g.String())
	}
	if len(rr.Specs) > 0 {
		fmt.Fprintln(w, "specs:")
		for _, s := range rr.Specs {
			fmt.Fprintf(w, "  %s\n", printable(s, "  "))
		}
	}
	if len(rr.Evidence) > 0 {
		fmt.Fprintln(w, "evidence (what its specs observed and checked):")
		for _, what := range slices.Sorted(maps.Keys(rr.Evidence)) {
			fmt.Fprintf(w, "  %6d  %s\n", rr.Evidence[what], printable(what, "  "))
		}
	}
	if x != nil && x.Exchange != "" {
		fmt.Fprintf(w, "exchange of the spec %q:\n%s\n", x.Spec, strings.TrimRight(printable(x.Exchange, ""), "\n"))
	}
	return nil
}

// printable is s with every control character but line breaks and tabs
// escaped (\x1b), so that a frame an engine wrote cannot drive the
// terminal; each line after the first is indented by indent.
func printable(s, indent string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n':
			b.WriteString("\n" + indent)
		case r == '\t':
			b.WriteRune(r)
		case unicode.IsControl(r):
			fmt.Fprintf(&b, "\\x%02x", r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
