// Command e2e-conform runs the conformance suite of the e2e engine protocol
// against an engine server, started as a child process or reached over
// TCP, and says whether it conforms:
//
//	e2e-conform --spawn "./my-engine --flag" [--profile full] [--json out/report.json] [--junit out/junit.xml] [--html out/report.html] [--badge out/badge.svg]
//	e2e-conform [flags] -- ./my-engine --flag "an argument with spaces"
//	e2e-conform diff OLD.json NEW.json
//	e2e-conform --connect 127.0.0.1:7000
//	e2e-conform --list [--json]
//	e2e-conform --repeat 5 [--repeat-parallel 2] --spawn "./my-engine" [--json out/repeat.json]
//	e2e-conform diff [--no-latency] OLD.json NEW.json
//	e2e-conform --spawn "./my-engine" --expected-failures baseline.txt [--write-baseline new-baseline.txt]
//	e2e-conform --shard 2/3 --spawn "./my-engine" --json shard2.json
//	e2e-conform merge shard1.json shard2.json shard3.json --json report.json
//	e2e-conform --explain SIG-005 report.json
//	e2e-conform monitor [--json F --html F --junit F --trace F --fail] -- ./my-engine --flag
//	e2e-conform monitor --listen 127.0.0.1:7001 --connect 127.0.0.1:7000
//
// Exit status: 0 conformant, 1 non-conformant (or a stale entry of the
// --expected-failures baseline: a listed requirement passed), 2 usage error, 3 incomplete
// (a required check could not run, or nothing was selected), 4 harness
// error, 5 unstable (with --repeat: a requirement's verdict varied between
// the runs and no run was non-conformant). The flags map onto
// conformance.Config; the suite lives in package conformance.
//
// --spawn splits its command like a POSIX shell would (quotes and
// backslashes honoured; no variable, glob or command expansion); after
// "--" the command and its arguments are taken as given.
//
// On Linux e2e-conform is a child subreaper: a process an engine started
// that left its process group (setsid) and lost its parent comes back to
// it, and every process still below it at exit is killed and reaped. On
// other systems such a process is adopted by init and can outlive the run.
//
// --repeat N runs the same selection N times, each run in a child process
// of this binary (the suite runs once per process) with the same flags,
// and reports every requirement whose verdict varied; see repeat.go.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/mattn/go-shellwords"

	"github.com/e2e-conform/toolkit/conformance"
	"github.com/e2e-conform/toolkit/conformance/report"
	"github.com/e2e-conform/toolkit/internal/buildinfo"
	"github.com/e2e-conform/toolkit/internal/procs"
)

// endWait bounds how long the last step waits for the leftover processes
// it kills to exit.
const endWait = 5 * time.Second

// main makes this process a child subreaper (Linux): a descendant of a
// spawned engine that called setsid and lost its parent comes back here
// instead of to init, and whatever the engines left is killed and reaped
// before exit. Elsewhere such an orphan escapes to init.
//
// Everything the run puts in the temporary directory (the suite's
// e2e-conform-* directory of attempt artifacts) goes into a private
// directory, TMPDIR for the run, removed once every process below this one
// is gone: an engine, or a process it left behind, that goes on writing
// into an attempt's artifacts directory after the suite removed it (a run
// cut by its run timeout or a signal) cannot leave it behind.
func main() {
	_ = procs.BecomeSubreaper()
	private, err := os.MkdirTemp("", "e2e-conform-run-")
	// The monitor hands the engine the environment its harness gave it,
	// TMPDIR included (it relays and never alters).
	if monitoring := len(os.Args) > 1 && os.Args[1] == "monitor"; err == nil && !monitoring {
		os.Setenv("TMPDIR", private)
	}
	code := run(os.Args[1:], os.Stdout, os.Stderr)
	procs.EndChildren(time.Now().Add(endWait))
	if err == nil {
		os.RemoveAll(private)
	}
	os.Exit(code)
}

type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error {
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			*l = append(*l, p)
		}
	}
	return nil
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "diff" {
		return runDiff(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "merge" {
		return runMerge(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "monitor" {
		return runMonitor(args[1:], os.Stdin, stdout, stderr)
	}
	fs := flag.NewFlagSet("e2e-conform", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg conformance.Config
	var env, only, skip listFlag
	spawn := fs.String("spawn", "", "start the engine server per connection: `command and arguments`, split like a shell (or give them after --)")
	version := fs.Bool("version", false, "print the version (module, VCS revision, Go) and exit")
	fs.StringVar(&cfg.Connect, "connect", "", "connect to an engine server listening on `host:port`")
	fs.Var(&env, "env", "`K=V` in the engine's environment (repeatable)")
	fs.StringVar(&cfg.AppURL, "app-url", "", "base `URL` of the app, for profiles that need one")
	fs.StringVar(&cfg.Profile, "profile", conformance.ProfileCore, "`core` (no fixture screens) or full")
	fs.Var(&only, "only", "run only specs with these requirement IDs, areas, labels or spec sections (§7.5) (comma separated, repeatable; an unknown name is a usage error)")
	fs.Var(&skip, "skip", "skip specs with these requirement IDs, areas, labels or spec sections")
	junit := fs.String("junit", "", "write a JUnit XML report to `path`")
	jsonPath := fs.String("json", "", "write the JSON report to `path` (with --list: print the list as JSON)")
	htmlPath := fs.String("html", "", "write the HTML report (one self-contained file) to `path`")
	specURL := fs.String("spec-url", "", "the `address` of engine-protocol.md the HTML report links each requirement's section to (default: engine-protocol.md beside the report)")
	badgePath := fs.String("badge", "", "write an SVG badge of the verdict to `path`")
	expected := fs.String("expected-failures", "", "the baseline: a `file` of requirements expected to fail, one \"ID: reason\" a line (# comments); they are reported expected failure and do not fail the run, and one that passes fails it (a stale entry)")
	writeBaseline := fs.String("write-baseline", "", "write the run's failures as a baseline for --expected-failures to `file`")
	listJSON := false
	fs.DurationVar(&cfg.SpecTimeout, "timeout", 30*time.Second, "budget of each spec")
	fs.DurationVar(&cfg.RunTimeout, "run-timeout", 10*time.Minute, "budget of the whole run")
	fs.BoolVar(&cfg.FailFast, "fail-fast", false, "stop after the first spec that fails a MUST requirement (the rest report not verified)")
	list := fs.Bool("list", false, "list the requirements and specs instead of running")
	verbose := fs.Bool("verbose", false, "print ginkgo's per-spec stream and every frame exchanged to stderr, secrets redacted")
	progressMode := fs.String("progress", progressAuto, "the console on stderr: `auto` (one live line on a terminal, one line per area otherwise), lines (one line per area), off (none); failures are printed when they happen unless off")
	explainID := fs.String("explain", "", "print requirement `ID`'s full explanation (status, section, statement, reason, likely cause, sent, wanted, came, exchange) from a JSON report: --explain ID FILE.json")
	tracePath := fs.String("trace", "", "write every frame of every connection to `path` as JSON Lines (µs since start, connection id and role, direction, method, id, the frame; secrets redacted)")
	shard := fs.String("shard", "", "run only shard `i/n` of the selected specs (deterministic by spec; the run-wide checks in every shard); combine the shards' --json reports with e2e-conform merge")
	shardClaims := fs.String("shard-claims", "", "with --shard, share the specs with the other shards running at once on this machine through directory `DIR` (each runs the next spec none claimed yet) instead of the fixed rule; --parallel uses it")
	repeat := fs.Int("repeat", 0, "run the selection `N` times, each in a child process, and report every requirement whose verdict varied (--json then writes the combined report)")
	repeatParallel := fs.Int("repeat-parallel", 1, "with --repeat, run up to `K` runs at a time")
	parallel := fs.Int("parallel", 0, "run the selection as `N` shards at once, each in a child process, and merge them into one report (capped by the engine's workers; over --connect only when the server serves the connections at once)")
	fs.Usage = func() { usage(fs) }
	args = bareJSON(args)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0 // asked for: not a usage error
		}
		return report.ExitUsage
	}
	if *jsonPath == "-" {
		listJSON, *jsonPath = true, ""
	}
	if *version {
		fmt.Fprintln(stdout, buildinfo.Read().Line("e2e-conform")+", suite "+report.SuiteVersion)
		return 0
	}
	if set(fs, "explain") {
		return runExplain(*explainID, fs.Args(), stdout, stderr)
	}
	if !validProgress(*progressMode) {
		fmt.Fprintf(stderr, "e2e-conform: --progress %q: want auto, lines or off\n", *progressMode)
		return report.ExitUsage
	}
	var err error
	if cfg.Spawn, err = engineCommand(*spawn, args, fs.NArg()); err != nil {
		fmt.Fprintf(stderr, "e2e-conform: %v\n", err)
		return report.ExitUsage
	}
	cfg.Env = map[string]string{}
	for _, kv := range env {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			fmt.Fprintf(stderr, "e2e-conform: --env %q is not K=V\n", kv)
			return report.ExitUsage
		}
		cfg.Env[k] = v
	}
	cfg.Only, cfg.Skip = only, skip
	if *expected != "" {
		if cfg.ExpectedFailures, err = report.ReadExpectedFailures(*expected); err != nil {
			fmt.Fprintf(stderr, "e2e-conform: --expected-failures: %v\n", err)
			return report.ExitUsage
		}
	}
	if *shard != "" {
		if cfg.Shard, err = report.ParseShard(*shard); err != nil {
			fmt.Fprintf(stderr, "e2e-conform: --shard: %v\n", err)
			return report.ExitUsage
		}
	}
	if *shardClaims != "" {
		if *shard == "" {
			fmt.Fprintln(stderr, "e2e-conform: --shard-claims goes with --shard")
			return report.ExitUsage
		}
		if fi, err := os.Stat(*shardClaims); err != nil || !fi.IsDir() {
			fmt.Fprintf(stderr, "e2e-conform: --shard-claims %s: not a directory\n", *shardClaims)
			return report.ExitUsage
		}
		cfg.ShardClaims = *shardClaims
	}
	if *verbose {
		cfg.Verbose = stderr
	}
	if *list && set(fs, "repeat") {
		fmt.Fprintln(stderr, "e2e-conform: --list does not go with --repeat")
		return report.ExitUsage
	}
	if *list {
		if *jsonPath != "" {
			f, err := os.Create(*jsonPath)
			if err != nil {
				fmt.Fprintf(stderr, "e2e-conform: --json: %v\n", err)
				return report.ExitUsage
			}
			code := doList(cfg, true, f, stderr)
			if err := f.Close(); err != nil {
				fmt.Fprintf(stderr, "e2e-conform: --json: %v\n", err)
				return report.ExitHarness
			}
			return code
		}
		return doList(cfg, listJSON, stdout, stderr)
	}
	if listJSON {
		fmt.Fprintln(stderr, "e2e-conform: --json needs a path (a bare --json only goes with --list)")
		return report.ExitUsage
	}
	if set(fs, "repeat") || set(fs, "repeat-parallel") {
		switch {
		case set(fs, "parallel"):
			fmt.Fprintln(stderr, "e2e-conform: --parallel does not go with --repeat (use --repeat-parallel)")
			return report.ExitUsage
		case *repeat < 1:
			fmt.Fprintf(stderr, "e2e-conform: --repeat %d: the number of runs must be at least 1\n", *repeat)
			return report.ExitUsage
		case *repeatParallel < 1:
			fmt.Fprintf(stderr, "e2e-conform: --repeat-parallel %d: the number of runs at a time must be at least 1\n", *repeatParallel)
			return report.ExitUsage
		case *junit != "":
			fmt.Fprintln(stderr, "e2e-conform: --junit does not go with --repeat (--json writes the combined report)")
			return report.ExitUsage
		case *htmlPath != "" || *badgePath != "":
			fmt.Fprintln(stderr, "e2e-conform: --html and --badge do not go with --repeat (--json writes the combined report)")
			return report.ExitUsage
		case *writeBaseline != "":
			fmt.Fprintln(stderr, "e2e-conform: --write-baseline does not go with --repeat (write it from one run)")
			return report.ExitUsage
		}
		return repeatRuns(repeatConfig{
			runs: *repeat, parallel: *repeatParallel, jsonPath: *jsonPath, verbose: *verbose,
			args: childArgs(fs, args, "repeat", "repeat-parallel", "json", "junit", "html", "badge", "trace", "write-baseline", "spec-url", "progress"),
		}, stdout, stderr)
	}
	if set(fs, "parallel") {
		switch {
		case *parallel < 1:
			fmt.Fprintf(stderr, "e2e-conform: --parallel %d: the number of shards must be at least 1\n", *parallel)
			return report.ExitUsage
		case *shard != "":
			fmt.Fprintln(stderr, "e2e-conform: --parallel does not go with --shard (it shards the run itself)")
			return report.ExitUsage
		}
		return parallelRun(parallelConfig{
			shards: *parallel, cfg: cfg, verbose: *verbose, trace: *tracePath,
			args:    childArgs(fs, args, "parallel", "json", "junit", "html", "badge", "trace", "write-baseline", "spec-url", "progress"),
			reports: reportPaths{*jsonPath, *junit, *htmlPath, *badgePath, *writeBaseline, *specURL},
		}, stdout, stderr)
	}
	cfg.Out = stdout
	setConsole(&cfg, *progressMode, *verbose, *jsonPath, stderr)
	var traceFile *os.File
	var traceBuf *bufio.Writer
	if *tracePath != "" {
		f, err := os.Create(*tracePath)
		if err != nil {
			fmt.Fprintf(stderr, "e2e-conform: --trace: %v\n", err)
			return report.ExitUsage
		}
		traceFile, traceBuf = f, bufio.NewWriterSize(f, 1<<20)
		cfg.Trace = traceBuf
	}
	res, err := conformance.Run(cfg)
	if traceFile != nil {
		ferr := traceBuf.Flush()
		if cerr := traceFile.Close(); ferr == nil {
			ferr = cerr
		}
		if ferr != nil {
			fmt.Fprintf(stderr, "e2e-conform: --trace %s: %v\n", *tracePath, ferr)
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "e2e-conform: %v\n", err)
		if errors.Is(err, report.ErrUsage) {
			return report.ExitUsage
		}
		return report.ExitHarness
	}
	if err := writeReports(res, reportPaths{*jsonPath, *junit, *htmlPath, *badgePath, *writeBaseline, *specURL}); err != nil {
		fmt.Fprintf(stderr, "e2e-conform: %v\n", err)
		return report.ExitHarness
	}
	return res.ExitCode
}

// reportPaths are the paths of the reports asked for ("" for none), and
// the address the HTML report links the specification at (--spec-url).
type reportPaths struct{ json, junit, html, badge, baseline, specURL string }

// writeReports writes each report asked for with its own writer.
func writeReports(res *report.Result, p reportPaths) error {
	for _, out := range []struct {
		path  string
		write func(string) error
	}{{p.json, res.WriteJSON}, {p.junit, res.WriteJUnit}, {p.html, func(path string) error {
		return res.WriteHTMLWith(path, report.HTMLOptions{SpecURL: p.specURL})
	}}, {p.badge, res.WriteBadge}, {p.baseline, res.WriteBaseline}} {
		if out.path == "" {
			continue
		}
		if err := out.write(out.path); err != nil {
			return err
		}
	}
	return nil
}

// engineCommand is the engine's argv: --spawn's value split like a POSIX
// shell would (quotes and backslashes; nothing expanded), or the n
// arguments after a "--" that ended the flags; nil when neither is given.
func engineCommand(spawn string, args []string, n int) ([]string, error) {
	argv := afterTerminator(args, n)
	switch {
	case n > 0 && argv == nil:
		return nil, fmt.Errorf("unexpected arguments %q (give the engine's command after --, or in --spawn)", args[len(args)-n:])
	case argv != nil && spawn != "":
		return nil, errors.New("give the engine's command either in --spawn or after --, not both")
	case argv != nil:
		return argv, nil
	case spawn == "":
		return nil, nil
	}
	words, err := shellwords.Parse(spawn)
	if err == nil && len(words) == 0 {
		err = errors.New("it is empty")
	}
	if err != nil {
		return nil, fmt.Errorf("--spawn %q does not split into a command: %v", spawn, err)
	}
	return words, nil
}

// afterTerminator returns the n arguments the flag package left after a
// "--" that ended the flags (the engine's argv), or nil when the flags
// ended otherwise (or there is nothing after "--").
func afterTerminator(args []string, n int) []string {
	if n == 0 || len(args) < n+1 || args[len(args)-n-1] != "--" {
		return nil
	}
	return append([]string(nil), args[len(args)-n:]...)
}

// set reports whether the flag name was given.
func set(fs *flag.FlagSet, name string) bool {
	found := false
	fs.Visit(func(f *flag.Flag) { found = found || f.Name == name })
	return found
}

// usage is the help: the synopsis, the flags and the exit statuses.
func usage(fs *flag.FlagSet) {
	w := fs.Output()
	fmt.Fprintln(w, `usage: e2e-conform (--spawn "command args" | --connect host:port) [flags]
       e2e-conform [flags] -- command args...
       e2e-conform --list [--json [FILE]]
       e2e-conform --repeat N [--repeat-parallel K] (--spawn ... | --connect ...) [flags]
       e2e-conform diff [--no-latency] OLD.json NEW.json
       e2e-conform --parallel N (--spawn ... | --connect ...) [flags]
       e2e-conform --shard i/n (--spawn ... | --connect ...) --json SHARD.json [flags]
       e2e-conform merge SHARD.json... [--expected-failures F] [--json F] [--junit F] [--html F] [--badge F]
       e2e-conform --explain ID REPORT.json
       e2e-conform --version`)
	fs.PrintDefaults()
	fmt.Fprintln(w, `profiles:
  core  every requirement that needs no fixture screen (the default; any engine)
  full  core and the fixture requirements: the suite serves its fixture screens (or --app-url)
        and the engine must stage them (see "Checking a non-web engine" in the README)
examples:
  e2e-conform --spawn "./my-engine --stdio" --json out/report.json --junit out/junit.xml
  e2e-conform --profile full --only OBS,ACT -- ./my-engine --headless
  e2e-conform --connect 127.0.0.1:7000 --repeat 5 --repeat-parallel 2
  e2e-conform --spawn ./my-engine --write-baseline baseline.txt      (then, in CI:)
  e2e-conform --spawn ./my-engine --expected-failures baseline.txt
  e2e-conform --explain SIG-005 out/report.json                      (a failure in full)`)
	writeConsoleHelp(w)
	writeHelpTopics(w)
	fmt.Fprintln(w, `exit status:
  0 conformant
  1 non-conformant (a MUST requirement failed, not listed in --expected-failures), or a stale
    baseline (a requirement --expected-failures lists passed: remove its line)
  2 usage error
  3 incomplete (a required check could not run, or nothing was selected)
  4 harness error (also: the engine could not be started, or exited before answering its first initialize)
  5 unstable (--repeat: a requirement's verdict varied between the runs, and no run was non-conformant)`)
}

// bareJSON lets --json stand alone with --list ("--list --json" prints the
// list as JSON): a --json not followed by a value becomes --json=-.
func bareJSON(args []string) []string {
	out := append([]string(nil), args...)
	for i, a := range out {
		if a == "--json" || a == "-json" {
			if i+1 == len(out) || strings.HasPrefix(out[i+1], "-") {
				out[i] = "--json=-"
			}
		}
	}
	return out
}

func doList(cfg conformance.Config, asJSON bool, stdout, stderr io.Writer) int {
	specs, err := conformance.List(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "e2e-conform: %v\n", err)
		if errors.Is(err, report.ErrUsage) {
			return report.ExitUsage
		}
		return report.ExitHarness
	}
	reqs, err := conformance.SelectedRequirements(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "e2e-conform: %v\n", err)
		return report.ExitUsage
	}
	bySpec := map[string][]string{}
	for _, s := range specs {
		text := s.Text
		if s.Fixture {
			text += " [fixture: full profile]"
		}
		for _, id := range s.Requirements {
			bySpec[id] = append(bySpec[id], text)
		}
	}
	if asJSON {
		// The JSON report's keys (RequirementResult), lower-case.
		type req struct {
			ID          string   `json:"id"`
			Area        string   `json:"area"`
			Level       string   `json:"level"`
			Statement   string   `json:"statement"`
			Section     string   `json:"section,omitempty"`
			AppliesWhen string   `json:"appliesWhen,omitempty"`
			Fixture     bool     `json:"fixture,omitempty"`
			Specs       []string `json:"specs"`
		}
		out := []req{}
		for _, r := range reqs {
			out = append(out, req{ID: r.ID, Area: r.Area, Level: string(r.Level), Statement: r.Statement, Section: r.Section,
				AppliesWhen: r.AppliesWhen, Fixture: r.Fixture, Specs: bySpec[r.ID]})
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(map[string]any{"requirements": out, "specs": specs}); err != nil {
			return report.ExitHarness
		}
		return 0
	}
	for _, r := range reqs {
		fmt.Fprintf(stdout, "%s %-6s %s\n", r.ID, r.Level, r.Statement)
		for _, s := range bySpec[r.ID] {
			fmt.Fprintf(stdout, "    spec: %s\n", s)
		}
	}
	return 0
}
