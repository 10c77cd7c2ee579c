package main

import (
	"fmt"
	"io"

	"github.com/e2e-conform/toolkit/conformance/catalog"
)

// areaTitle is one area of the requirement catalog with its heading in §11
// of the specification.
type areaTitle struct {
	Area, Title string
}

// areaTitles are the catalog's areas with their §11 headings, in catalog
// order (TestHelpNamesEveryArea keeps them in step with catalog.Areas).
func areaTitles() []areaTitle {
	return []areaTitle{
		{"WIRE", "framing and JSON-RPC"}, {"LIFE", "connection and lifecycle"}, {"MAN", "manifest"},
		{"OBS", "observation"}, {"LOC", "location"}, {"ACT", "node actions"}, {"PTR", "pointer actions"},
		{"KEY", "keyboard"}, {"STATE", "state capture and restore"}, {"ART", "artifacts"},
		{"SESS", "session steering"}, {"SIG", "signals and abort"}, {"ERR", "errors"},
		{"S2C", "server-to-client messages"}, {"TRN", "transports"}, {"CLI", "client library"},
	}
}

// statusGlossary says what each requirement status of a report means.
func statusGlossary() [][2]string {
	return [][2]string{
		{"passed", "its specs ran and saw it hold"},
		{"failed", "a spec saw the engine break it (a MUST failure makes the run non-conformant; a SHOULD one is a warning)"},
		{"not applicable", "it does not apply to this engine (its manifest does not list the method, action or feature)"},
		{"not verified", "it applies, but the suite could not observe it (a step it needs was refused or could not run); never a pass"},
		{"not selected", "left out by --only, --skip, --shard or the profile (core leaves the fixture requirements out)"},
		{"expected failure", "failed, and listed in --expected-failures with its reason: it does not fail the run"},
	}
}

// writeHelpTopics writes --help's areas, status glossary and where the
// documentation is.
func writeHelpTopics(w io.Writer) {
	counts := map[string]int{}
	for _, r := range catalog.All() {
		counts[r.Area]++
	}
	fmt.Fprintln(w, "areas (--only/--skip take an area, a requirement ID such as SIG-003, the label fixture, or a spec section such as §7.5; --list shows the requirements):")
	for _, a := range areaTitles() {
		fmt.Fprintf(w, "  %-6s %-28s %3d requirements\n", a.Area, a.Title, counts[a.Area])
	}
	fmt.Fprintln(w, "statuses of a requirement in the reports:")
	for _, g := range statusGlossary() {
		fmt.Fprintf(w, "  %-17s %s\n", g[0], g[1])
	}
	fmt.Fprintln(w, `documentation (in the source, https://github.com/e2e-conform/toolkit):
  README.md       getting started, checking your own engine, the verdict and its exit codes
  docs/report.md  the JSON, JUnit, HTML reports and the badge; baselines; --repeat, --shard and merge
  docs/ci.md      running the suite in CI
  the specification's §11 lists every requirement (also: e2e-conform --list)`)
}
