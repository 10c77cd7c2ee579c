package catalog

import (
	"bufio"
	"bytes"
	"fmt"
	"regexp"
	"strings"
)

var (
	rowRE     = regexp.MustCompile(`^\| ([A-Z0-9]+)-(\d{3}) \| (MUST|SHOULD) \| (.*?) \| (yes|no) \| (.*) \|$`)
	headingRE = regexp.MustCompile(`^#{2,3} (\d+\.\d+) (.*)$`)
	citeRE    = regexp.MustCompile(`§(\d+\.\d+)`)
	codeRE    = regexp.MustCompile("`([^`]+)`")
)

// areaSection is the part of the specification an area's requirements
// come from, when a row neither cites a section nor names a method that
// has its own.
var areaSection = map[string]string{
	"WIRE": "1", "LIFE": "2", "MAN": "3", "OBS": "4.8", "LOC": "4.9", "ACT": "4.10", "PTR": "4.11",
	"KEY": "4.12", "STATE": "4.15", "ART": "4.16", "SESS": "4.18", "SIG": "7", "ERR": "8", "S2C": "6",
	"TRN": "9", "CLI": "2.10",
}

// byMethodName lists the areas whose rows take the section of the first
// method they name that has a heading of its own ("`startAttempt`" is
// §4.4); the rows of the others are about one part of the specification,
// whatever method they use to check it.
var byMethodName = map[string]bool{"LIFE": true, "KEY": true, "STATE": true, "ART": true, "SESS": true, "S2C": true}

// rowSection names the section of the rows whose statement does not say
// it, read off the specification: the rule each row checks is stated there
// (WIRE-006's batch rule is §1.4's "Batches MUST NOT be sent" and §1.3's
// table row; the first is named).
var rowSection = map[string]string{
	"WIRE-001": "1.1", "WIRE-002": "1.1", "WIRE-003": "1.1", "WIRE-005": "1.3", "WIRE-006": "1.3",
	"WIRE-007": "1.2", "WIRE-008": "1.4", "WIRE-010": "4.0", "WIRE-011": "1.5", "WIRE-012": "0.4",
	"LIFE-012": "4.4", "LIFE-013": "4.6", "LIFE-014": "4.5", "LIFE-015": "4.5", "LIFE-017": "4.1", "LIFE-018": "4.2",
	"MAN-002": "3.2", "MAN-003": "3.2", "MAN-005": "3.3", "MAN-006": "3.3", "MAN-007": "3.3", "MAN-008": "3.3",
	"OBS-001": "5.4", "S2C-001": "6.7",
	"SIG-001": "7.5", "SIG-002": "7.5", "SIG-003": "7.2", "SIG-004": "7.5", "SIG-005": "7.5", "SIG-006": "7.5",
	"SIG-007": "7.2", "SIG-008": "1.5", "SIG-009": "7.3", "SIG-010": "7.3", "SIG-011": "7.4", "SIG-012": "7.7",
	"ERR-001": "8.1", "ERR-002": "8.2", "ERR-003": "8.2", "ERR-004": "8.3", "ERR-005": "8.1", "ERR-007": "6.6",
	"TRN-001": "9.1", "TRN-002": "9.1", "TRN-003": "9.2", "TRN-004": "9.2", "TRN-005": "9.2", "TRN-006": "9.2",
	"STATE-002": "4.15", "STATE-004": "4.15", "MAN-009": "3.5", "ACT-004": "4.10", "KEY-005": "5.9", "OBS-002": "4.8", "ACT-009": "4.10",
}

// section is the § a row belongs to: rowSection's, else the first section
// its statement cites, else (areas of byMethodName) the section headed by
// the first name in backquotes it mentions, else its area's section.
func section(id, area, statement string, headed map[string]string) string {
	if sec, ok := rowSection[id]; ok {
		return "§" + sec
	}
	if m := citeRE.FindStringSubmatch(statement); m != nil {
		return "§" + m[1]
	}
	if byMethodName[area] {
		for _, m := range codeRE.FindAllStringSubmatch(statement, -1) {
			if sec, ok := headed[m[1]]; ok {
				return "§" + sec
			}
		}
	}
	if sec, ok := areaSection[area]; ok {
		return "§" + sec
	}
	return "§11"
}

// Parse reads the catalog rows out of the specification's markdown.
func Parse(spec []byte) ([]Requirement, error) {
	var out []Requirement
	sc := bufio.NewScanner(bytes.NewReader(spec))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	seen := map[string]bool{}
	headed := map[string]string{} // a name in backquotes in a heading -> its section
	for sc.Scan() {
		if h := headingRE.FindStringSubmatch(sc.Text()); h != nil {
			for _, c := range codeRE.FindAllStringSubmatch(h[2], -1) {
				// "lifecycle/startAttempt" is also "startAttempt", as the
				// rows write it.
				names := []string{c[1]}
				if _, short, ok := strings.Cut(c[1], "/"); ok {
					names = append(names, short)
				}
				for _, n := range names {
					if _, dup := headed[n]; !dup {
						headed[n] = h[1]
					}
				}
			}
			continue
		}
		m := rowRE.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		id := m[1] + "-" + m[2]
		if seen[id] {
			return nil, fmt.Errorf("catalog: %s appears twice", id)
		}
		seen[id] = true
		out = append(out, Requirement{ID: id, Area: m[1], Level: Level(m[3]),
			AppliesWhen: strings.ReplaceAll(m[4], "`", ""), Fixture: m[5] == "yes", Statement: m[6],
			Section: section(id, m[1], m[6], headed)})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("catalog: no requirement rows found")
	}
	return out, sc.Err()
}
