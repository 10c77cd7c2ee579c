package main

import (
	"fmt"
	"io"

	"github.com/e2e-conform/toolkit/conformance"
)

// runDiff is `e2e-conform diff OLD.json NEW.json`: it prints the
// requirements whose status changed between the two runs' JSON reports and
// the methods whose p90 round trip regressed (conformance.Diff), and exits
// 0 when nothing changed for the worse, 1 when something did, 2 on a usage
// error or a report it cannot read.
func runDiff(args []string, stdout, stderr io.Writer) int {
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
		diffUsage(stdout)
		return 0
	}
	if len(args) != 2 {
		fmt.Fprintf(stderr, "e2e-conform diff: want two reports, got %d argument(s)\n", len(args))
		diffUsage(stderr)
		return conformance.ExitUsage
	}
	var runs [2]*conformance.Result
	for i, path := range args {
		r, err := conformance.ReadResult(path)
		if err != nil {
			fmt.Fprintf(stderr, "e2e-conform diff: %v\n", err)
			return conformance.ExitUsage
		}
		runs[i] = r
	}
	d := conformance.Diff(runs[0], runs[1])
	fmt.Fprintf(stdout, "e2e-conform diff %s → %s\n", args[0], args[1])
	d.Write(stdout)
	if d.Worse() {
		return conformance.ExitNonConformant
	}
	return conformance.ExitConformant
}

func diffUsage(w io.Writer) {
	fmt.Fprintln(w, `usage: e2e-conform diff OLD.json NEW.json
  compares two reports written by --json: the requirements whose status changed
  (WORSE: it became failed, or not verified from anything but failed) and the
  methods whose p90 round trip regressed (new p90 > old p90 × 1.2 and > old p90 + 1 ms,
  among the methods called 20 times or more in both runs)
exit status:
  0 nothing changed for the worse
  1 a requirement got worse or a method's p90 regressed
  2 usage error, or a report that cannot be read`)
}
