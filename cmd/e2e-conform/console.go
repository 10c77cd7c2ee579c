package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/e2e-conform/toolkit/conformance"
	"github.com/e2e-conform/toolkit/conformance/report"
)

// The modes of --progress.
const (
	progressAuto  = "auto"  // a live line on a terminal, lines otherwise
	progressLines = "lines" // one line per area
	progressOff   = "off"   // nothing but the summary
)

// validProgress reports whether mode is a --progress mode.
func validProgress(mode string) bool {
	return mode == progressAuto || mode == progressLines || mode == progressOff
}

// setConsole sets cfg's console: progress and failures on stderr (a live
// line when mode is auto, stderr a terminal, TERM not dumb and the
// streams of --verbose not scrolling under it), ginkgo's stream only with
// --verbose, and the JSON report's path for the --explain pointers.
func setConsole(cfg *conformance.Config, mode string, verbose bool, jsonPath string, stderr io.Writer) {
	cfg.GinkgoStream = verbose
	cfg.JSONReport = jsonPath
	if mode == progressOff {
		return
	}
	cfg.Progress = stderr
	f, ok := stderr.(*os.File)
	cfg.ProgressLive = mode == progressAuto && ok && conformance.IsTerminal(f) && os.Getenv("TERM") != "dumb" && !verbose
}

// writeConsoleHelp writes --help's part on the console.
func writeConsoleHelp(w io.Writer) {
	fmt.Fprintln(w, `console (stderr; the summary goes to stdout):
  "checking N requirement(s)", then progress counted in requirements (done: every spec checking it ended):
  on a terminal one live line "[ 37/98] SIG    12.4 s  1 failed  <the spec running>", otherwise one line per area;
  each failed requirement once, when it fails: "FAIL SIG-005 <reason>  (e2e-conform --explain SIG-005 report.json)".
  --verbose adds ginkgo's per-spec stream and every frame; --progress off leaves only the summary.
  The summary groups failures one engine bug likely explains ("one cause likely: ...").`)
}

// runExplain is --explain ID FILE.json: the requirement's full
// explanation from a JSON report. Exit 2 when the report cannot be read
// or does not hold the requirement.
func runExplain(id string, args []string, stdout, stderr io.Writer) int {
	if id == "" || len(args) != 1 {
		fmt.Fprintln(stderr, "e2e-conform: --explain takes a requirement ID and one JSON report: e2e-conform --explain SIG-005 report.json")
		return report.ExitUsage
	}
	res, err := report.ReadResult(args[0])
	if err != nil {
		fmt.Fprintf(stderr, "e2e-conform: --explain: %v\n", err)
		return report.ExitUsage
	}
	if err := res.WriteExplanation(stdout, id); err != nil {
		fmt.Fprintf(stderr, "e2e-conform: --explain: %v\n", err)
		if errors.Is(err, report.ErrNotInReport) {
			return report.ExitUsage
		}
		return report.ExitHarness
	}
	return 0
}
