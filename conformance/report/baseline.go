package report

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/e2e-conform/toolkit/conformance/catalog"
)

// ErrUsage wraps configuration errors of a run (exit code 2): a
// malformed baseline, an unknown requirement.
var ErrUsage = errors.New("usage")

// ExpectedFailure is the status of a requirement that failed and is listed
// in the run's baseline (Config.ExpectedFailures, --expected-failures): the
// failure is known and accepted for now, so it does not make the run
// non-conformant. Every report shows it apart from failed.
const ExpectedFailure Status = "expected failure"

// baselineReasonRunes bounds a reason --write-baseline writes (the JSON
// report has the failure whole).
const baselineReasonRunes = 300

// ParseExpectedFailures reads a baseline: one requirement ID a line with
// its reason after a colon ("SIG-007: the engine ignores timeoutMs, fixed
// in 2.1"), blank lines and lines starting with # ignored. It returns the
// reasons by ID. An error (wrapping ErrUsage) names the line: one without
// an ID and a reason, an ID that is not in the requirement catalog, an ID
// listed twice.
func ParseExpectedFailures(r io.Reader) (map[string]string, error) {
	out := map[string]string{}
	lineOf := map[string]int{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		id, reason, ok := strings.Cut(text, ":")
		id, reason = strings.TrimSpace(id), strings.TrimSpace(reason)
		switch {
		case !ok || id == "" || strings.ContainsAny(id, " \t") || reason == "":
			return nil, fmt.Errorf("%w: line %d %q is not \"ID: reason\" (a requirement ID, a colon and why its failure is expected)", ErrUsage, n, Clip(text))
		case lineOf[id] > 0:
			return nil, fmt.Errorf("%w: line %d lists %s again (first on line %d)", ErrUsage, n, id, lineOf[id])
		}
		if _, known := catalog.Lookup(id); !known {
			return nil, fmt.Errorf("%w: line %d: %s is not a requirement of the catalog (e2e-conform --list lists them)", ErrUsage, n, id)
		}
		out[id], lineOf[id] = reason, n
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: line %d: %w", ErrUsage, n+1, err)
	}
	return out, nil
}

// ReadExpectedFailures reads the baseline file at path
// (ParseExpectedFailures); an error names the file.
func ReadExpectedFailures(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: the baseline: %w", ErrUsage, err)
	}
	defer f.Close()
	m, err := ParseExpectedFailures(f)
	if err != nil {
		return nil, fmt.Errorf("the baseline %s: %w", path, err)
	}
	return m, nil
}

// ValidateExpectedFailures checks a Config's baseline as
// ParseExpectedFailures checks a file: every ID in the catalog, every
// reason given.
func ValidateExpectedFailures(m map[string]string) error {
	ids := make([]string, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		if _, known := catalog.Lookup(id); !known {
			return fmt.Errorf("%w: ExpectedFailures lists %q, which is not a requirement of the catalog", ErrUsage, id)
		}
		if strings.TrimSpace(m[id]) == "" {
			return fmt.Errorf("%w: ExpectedFailures lists %s without a reason", ErrUsage, id)
		}
	}
	return nil
}

// staleReason is the reason of a run whose baseline lists requirements
// that passed.
func staleReason(stale []string) string {
	parts := make([]string, len(stale))
	for i, id := range stale {
		parts[i] = "stale baseline entry: " + id + " now passes; remove it"
	}
	return strings.Join(parts, "; ")
}

// expectedOnly says whether a failed spec checking ids failed only
// requirements the baseline expected to fail (at least one is an expected
// failure, none is failed), and returns the first such requirement's
// baseline reason.
func (r *Result) expectedOnly(ids []string) (string, bool) {
	reason, any := "", false
	for _, rr := range r.Requirements {
		if !contains(ids, rr.ID) {
			continue
		}
		switch rr.Status {
		case Failed:
			return "", false
		case ExpectedFailure:
			if !any {
				reason, any = rr.ID+": "+rr.Baseline, true
			}
		}
	}
	return reason, any
}

// writeBaselineSummary writes the console's part of the baseline: each
// expected failure, each stale entry, each entry this run did not check.
func (r *Result) writeBaselineSummary(w io.Writer) {
	if len(r.ExpectedFailures) == 0 {
		return
	}
	for _, rr := range r.Requirements {
		if _, listed := r.ExpectedFailures[rr.ID]; !listed {
			continue
		}
		switch rr.Status {
		case ExpectedFailure:
			fmt.Fprintf(w, "\nEXPECTED FAILURE %s (%s): %s\n  baseline: %s\n  %s\n", rr.ID, rr.Level, rr.Statement, rr.Baseline, indent(FirstLine(rr.Reason)))
		case Passed:
			fmt.Fprintf(w, "\nSTALE BASELINE ENTRY %s (%s): it now passes; remove it from the baseline (it said: %s)\n", rr.ID, rr.Level, rr.Baseline)
		default:
			fmt.Fprintf(w, "\nbaseline entry %s kept: not checked in this run (%s%s)\n", rr.ID, rr.Status, colonReason(rr.Reason))
		}
	}
}

func colonReason(s string) string {
	if s == "" {
		return ""
	}
	return ": " + FirstLine(s)
}

// badgeValue is the badge's verdict text: "conformant with 2 expected
// failures" when the run was conformant thanks to its baseline.
func (r *Result) badgeValue() string {
	n := r.Counts[ExpectedFailure]
	switch {
	case r.Verdict != "conformant" || n == 0:
		return r.Verdict
	case n == 1:
		return "conformant with 1 expected failure"
	default:
		return fmt.Sprintf("conformant with %d expected failures", n)
	}
}

// Baseline returns the baseline of the run's failures, in the form
// ParseExpectedFailures reads: one line "ID: reason" per failed
// requirement (MUST and SHOULD) and per expected failure, in catalog
// order. A failure's reason is on one line (whitespace and newlines folded
// into spaces), cut at 300 characters, secrets redacted as in every report; an expected
// failure keeps its baseline's reason.
func (r *Result) Baseline() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# e2e-conform expected failures (--expected-failures), written by --write-baseline\n")
	fmt.Fprintf(&b, "# from a run of %s, profile %s, verdict %s.\n", oneLine(r.Engine), r.Profile, r.Verdict)
	fmt.Fprintf(&b, "# One requirement a line, \"ID: reason\"; edit the reasons, remove a line once the engine passes it.\n")
	for _, rr := range r.Requirements {
		var reason string
		switch rr.Status {
		case Failed:
			reason = oneLine(rr.Reason)
		case ExpectedFailure:
			reason = oneLine(rr.Baseline)
		default:
			continue
		}
		if reason == "" {
			reason = "failed (the run gave no reason)"
		}
		fmt.Fprintf(&b, "%s: %s\n", rr.ID, reason)
	}
	return b.Bytes()
}

// oneLine folds s's whitespace (newlines included) into single spaces and
// cuts it at baselineReasonRunes runes.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if rs := []rune(s); len(rs) > baselineReasonRunes {
		s = string(rs[:baselineReasonRunes]) + " …"
	}
	return s
}

// WriteBaseline writes the run's baseline (Baseline) to path.
func (r *Result) WriteBaseline(path string) error {
	if err := os.WriteFile(path, r.Baseline(), 0o644); err != nil {
		return fmt.Errorf("writing the baseline: %w", err)
	}
	return nil
}
