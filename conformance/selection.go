package conformance

import (
	"fmt"
	"slices"
	"strings"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/e2e-conform/toolkit/conformance/catalog"
	"github.com/e2e-conform/toolkit/conformance/report"
)

// filterSyntax holds the characters of ginkgo's label-filter grammar: a
// selection word holding one is an expression (`/SIG-00/`, `!fixture`),
// which the ginkgo parser checks, not a name this file can look up.
const filterSyntax = "&|!,()/{}:= \t"

// fixtureLabelName is the one label that is neither a requirement ID nor
// an area: the specs that stage fixture screens (suite.register1).
const fixtureLabelName = "fixture"

// isSection reports whether w names a section of the specification
// ("§7.5").
func isSection(w string) bool { return strings.HasPrefix(w, "§") }

// sectionIDs returns the IDs of the requirements of section sec ("§7.5")
// and of its subsections ("§7" holds §7.5), in catalog order.
func sectionIDs(sec string) []string {
	var out []string
	for _, r := range catalog.All() {
		if r.Section == sec || strings.HasPrefix(r.Section, sec+".") {
			out = append(out, r.ID)
		}
	}
	return out
}

// selectionLabels turns a selection's words into ginkgo labels: a section
// becomes its requirements' IDs, anything else stays as it is.
func selectionLabels(words []string) []string {
	var out []string
	for _, w := range words {
		if isSection(w) {
			out = append(out, sectionIDs(w)...)
			continue
		}
		out = append(out, w)
	}
	return out
}

// selectionNames are the names a selection may give: every requirement ID,
// area, other label and section of the catalog.
func selectionNames() []string {
	names := []string{fixtureLabelName}
	names = append(names, catalog.Areas()...)
	for _, r := range catalog.All() {
		names = append(names, r.ID)
		if r.Section != "" && !slices.Contains(names, r.Section) {
			names = append(names, r.Section)
		}
	}
	return names
}

// checkSelection returns a usage error naming the first word of Only or
// Skip that is no requirement ID, area, label or section of the catalog
// (ginkgo matches labels case-insensitively, so does this), with the
// nearest name: a typo would otherwise select nothing (`--only SIGG`) or
// skip nothing (`--skip SIGG`) without a word.
func checkSelection(c Config) error {
	names := selectionNames()
	for _, sel := range []struct {
		flag  string
		words []string
	}{{"only", c.Only}, {"skip", c.Skip}} {
		for _, w := range sel.words {
			w = strings.TrimSpace(w)
			if w == "" || strings.ContainsAny(w, filterSyntax) && !isSection(w) {
				continue
			}
			if isSection(w) && len(sectionIDs(w)) > 0 {
				continue
			}
			if !isSection(w) && slices.ContainsFunc(names, func(n string) bool { return strings.EqualFold(n, w) }) {
				continue
			}
			hint := ""
			if n := nearest(w, names); n != "" {
				hint = fmt.Sprintf("; did you mean %s?", n)
			}
			return fmt.Errorf("%w: --%s: unknown requirement, area or label %s%s", report.ErrUsage, sel.flag, w, hint)
		}
	}
	return nil
}

// nearest returns the name closest to w by edit distance (ignoring case),
// or "" when none is close enough to be a likely typo of it.
func nearest(w string, names []string) string {
	best, bestD := "", -1
	lw := []rune(strings.ToUpper(w))
	for _, n := range names {
		d := editDistance(lw, []rune(strings.ToUpper(n)))
		if bestD < 0 || d < bestD {
			best, bestD = n, d
		}
	}
	if bestD < 0 || bestD > max(2, len(lw)/3) {
		return ""
	}
	return best
}

// editDistance is the Levenshtein distance of a and b.
func editDistance(a, b []rune) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// SelectedRequirements returns the catalog's requirements that the
// configuration's Only and Skip select, by the requirement's own labels
// (its ID, area, section and fixture mark), in catalog order, whatever the
// profile (as List). It is what `e2e-conform --list --only SIG` prints; a
// selection naming an unknown requirement, area, label or section is a
// usage error (report.ErrUsage).
func SelectedRequirements(cfg Config) ([]catalog.Requirement, error) {
	if err := checkSelection(cfg); err != nil {
		return nil, err
	}
	full := cfg
	full.Profile = ProfileFull
	f := labelFilter(full)
	if f == "" {
		return catalog.All(), nil
	}
	match, err := types.ParseLabelFilter(f)
	if err != nil {
		return nil, fmt.Errorf("%w: the selection (Only %q, Skip %q) is not valid: %v", report.ErrUsage, cfg.Only, cfg.Skip, err)
	}
	var out []catalog.Requirement
	for _, r := range catalog.All() {
		labels := []string{r.ID, r.Area}
		if r.Fixture {
			labels = append(labels, fixtureLabelName)
		}
		if match(labels) {
			out = append(out, r)
		}
	}
	return out, nil
}
