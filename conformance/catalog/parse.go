package catalog

import (
	"bufio"
	"bytes"
	"fmt"
	"regexp"
	"strings"
)

var rowRE = regexp.MustCompile(`^\| ([A-Z0-9]+)-(\d{3}) \| (MUST|SHOULD) \| (.*?) \| (yes|no) \| (.*) \|$`)

// Parse reads the catalog rows out of the specification's markdown.
func Parse(spec []byte) ([]Requirement, error) {
	var out []Requirement
	sc := bufio.NewScanner(bytes.NewReader(spec))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	seen := map[string]bool{}
	for sc.Scan() {
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
			AppliesWhen: strings.ReplaceAll(m[4], "`", ""), Fixture: m[5] == "yes", Statement: m[6]})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("catalog: no requirement rows found")
	}
	return out, sc.Err()
}
