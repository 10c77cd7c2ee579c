package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/e2e-conform/toolkit/conformance/report"
)

// runDiff is `e2e-conform diff [--no-latency] OLD.json NEW.json`: it
// prints the requirements whose status changed between the two runs' JSON
// reports and the methods whose p90 round trip regressed
// (report.Diff), and exits 0 when nothing changed for the worse, 1
// when something did, 2 on a usage error or a report it cannot read. With
// --no-latency a regressed p90 is listed but does not count as worse.
func runDiff(args []string, stdout, stderr io.Writer) int {
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
		diffUsage(stdout)
		return 0
	}
	fs := flag.NewFlagSet("e2e-conform diff", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { diffUsage(stderr) }
	noLatency := fs.Bool("no-latency", false, "list regressed p90 round trips without counting them as worse")
	// The flag may come before or after the reports.
	var paths []string
	for rest := args; len(rest) > 0; {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return 0
			}
			return report.ExitUsage
		}
		rest = fs.Args()
		if len(rest) > 0 {
			paths = append(paths, rest[0])
			rest = rest[1:]
		}
	}
	args = paths
	if len(args) != 2 {
		fmt.Fprintf(stderr, "e2e-conform diff: want two reports, got %d argument(s)\n", len(args))
		diffUsage(stderr)
		return report.ExitUsage
	}
	var runs [2]*report.Result
	for i, path := range args {
		r, err := report.ReadResult(path)
		if err != nil {
			fmt.Fprintf(stderr, "e2e-conform diff: %v\n", err)
			return report.ExitUsage
		}
		runs[i] = r
	}
	d := report.Diff(runs[0], runs[1])
	d.LatencyIgnored = *noLatency
	fmt.Fprintf(stdout, "e2e-conform diff %s → %s\n", args[0], args[1])
	d.Write(stdout)
	if d.Worse() {
		return report.ExitNonConformant
	}
	return report.ExitConformant
}

func diffUsage(w io.Writer) {
	fmt.Fprintln(w, `usage: e2e-conform diff [--no-latency] OLD.json NEW.json
  compares two reports written by --json: the requirements whose status changed
  (WORSE: it became failed, or not verified from anything but failed) and the
  methods whose p90 round trip regressed (new p90 > old p90 × 1.2 and > old p90 + 1 ms,
  among the methods called 20 times or more in both runs)
  --no-latency  list the regressed methods but do not count them as worse: the p90 of
                runs on a shared or busy machine moves with its load, so a gate on the
                requirements alone uses it
exit status:
  0 nothing changed for the worse
  1 a requirement got worse or (without --no-latency) a method's p90 regressed
  2 usage error, or a report that cannot be read`)
}
