package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/e2e-conform/toolkit/conformance/report"
)

// runMerge is `e2e-conform merge r1.json r2.json … [--json F --junit F
// --html F --badge F]`: it combines the JSON reports of every shard of one
// run (--shard i/n) into one verdict (report.Merge), prints the
// summary, writes the reports asked for, and exits with the merged run's
// exit status; 2 when the reports cannot be read or merged (a missing
// shard, a shard of another run).
func runMerge(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("e2e-conform merge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	jsonPath := fs.String("json", "", "write the merged JSON report to `path`")
	junit := fs.String("junit", "", "write the merged JUnit XML report to `path`")
	htmlPath := fs.String("html", "", "write the merged HTML report to `path`")
	specURL := fs.String("spec-url", "", "the `address` of engine-protocol.md the HTML report links sections to (default: engine-protocol.md beside the report)")
	badgePath := fs.String("badge", "", "write an SVG badge of the merged verdict to `path`")
	expected := fs.String("expected-failures", "", "the baseline `file` to judge the merged run by (default: the one the shards ran with, which must then be the same in every shard)")
	writeBaseline := fs.String("write-baseline", "", "write the merged run's failures as a baseline to `file`")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), `usage: e2e-conform merge SHARD.json... [--expected-failures F] [--json F] [--junit F] [--html F] [--badge F]
  combines the JSON reports of every shard of one run (e2e-conform --shard i/n --json F)
  into one verdict, as one unsharded run would give it; refuses a missing or repeated shard
  and a shard of another suite, profile, selection, engine or manifest; judges by the
  baseline the shards ran with (--expected-failures), or by --expected-failures F given here
exit status: the merged run's (0 conformant, 1 non-conformant or a stale baseline entry, 3 incomplete), 2 when the
  reports cannot be read or merged`)
		fs.PrintDefaults()
	}
	// Flags may come before or after the reports.
	var paths []string
	rest := args
	for len(rest) > 0 {
		if err := fs.Parse(rest); err != nil {
			if err == flag.ErrHelp {
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
	if len(paths) == 0 {
		fmt.Fprintln(stderr, "e2e-conform merge: want the shards' JSON reports")
		fs.Usage()
		return report.ExitUsage
	}
	var reports []*report.Result
	for _, p := range paths {
		r, err := report.ReadResult(p)
		if err != nil {
			fmt.Fprintf(stderr, "e2e-conform merge: %v\n", err)
			return report.ExitUsage
		}
		reports = append(reports, r)
	}
	var baseline map[string]string // nil: the shards' own
	if *expected != "" {
		var err error
		if baseline, err = report.ReadExpectedFailures(*expected); err != nil {
			fmt.Fprintf(stderr, "e2e-conform merge: --expected-failures: %v\n", err)
			return report.ExitUsage
		}
	}
	res, err := report.MergeWithBaseline(reports, baseline)
	if err != nil {
		fmt.Fprintf(stderr, "e2e-conform merge: %v\n", err)
		return report.ExitUsage
	}
	res.WriteSummary(stdout)
	if err := writeReports(res, reportPaths{*jsonPath, *junit, *htmlPath, *badgePath, *writeBaseline, *specURL}); err != nil {
		fmt.Fprintf(stderr, "e2e-conform merge: %v\n", err)
		return report.ExitHarness
	}
	return res.ExitCode
}
