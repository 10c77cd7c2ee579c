package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/e2e-conform/toolkit/conformance/report"
)

// killGrace is how long the children of an interrupted --repeat get to
// finish after the signal is forwarded, before they are killed.
const killGrace = 15 * time.Second

// repeatConfig is what --repeat runs.
type repeatConfig struct {
	runs, parallel int
	jsonPath       string // the combined report ("" none)
	verbose        bool   // children's stderr goes to ours
	args           []string
}

// childArgs returns args without the flags named in drop (and their
// values): each child of --repeat gets the parent's flags but those.
func childArgs(fs *flag.FlagSet, args []string, drop ...string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || !strings.HasPrefix(a, "-") || a == "-" {
			out = append(out, args[i:]...) // the flag package stops here too
			break
		}
		name := strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
		name, _, inline := strings.Cut(name, "=")
		takesNext := false
		if f := fs.Lookup(name); f != nil && !inline {
			b, isBool := f.Value.(interface{ IsBoolFlag() bool })
			takesNext = !isBool || !b.IsBoolFlag()
		}
		keep := !slices.Contains(drop, name)
		if keep {
			out = append(out, a)
		}
		if takesNext && i+1 < len(args) {
			i++
			if keep {
				out = append(out, args[i])
			}
		}
	}
	return out
}

// child is one run of --repeat.
type child struct {
	run    int
	report string // its --json
	log    string // its stdout (and stderr unless verbose)
	proc   *os.Process
	code   int
	err    error // starting or waiting failed
}

// repeatRuns runs the selection cfg.runs times, cfg.parallel at a time,
// each run a child process of this binary with its own --json in a
// temporary directory (removed on every return), then compares the
// results. SIGINT and SIGTERM are forwarded to the running children, which
// are killed when they outlast killGrace; no further run starts.
func repeatRuns(cfg repeatConfig, stdout, stderr io.Writer) int {
	start := time.Now()
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "e2e-conform: --repeat: cannot find this binary to run it again: %v\n", err)
		return report.ExitHarness
	}
	dir, err := os.MkdirTemp("", "e2e-conform-repeat-*")
	if err != nil {
		fmt.Fprintf(stderr, "e2e-conform: --repeat: %v\n", err)
		return report.ExitHarness
	}
	defer os.RemoveAll(dir)

	runs := childRuns{exe: exe, dir: dir, kind: "run", total: cfg.runs, limit: cfg.parallel, verbose: cfg.verbose,
		args: func(*child) []string { return cfg.args },
		finished: func(c *child) {
			r := c.result()
			line := report.RunSummary{Run: c.run, Verdict: r.Verdict, ExitCode: r.ExitCode, Reason: r.Reason, Counts: r.Counts, Duration: r.Duration}.Line(cfg.runs)
			fmt.Fprintf(stderr, "e2e-conform: %s\n", line)
		},
	}
	out := runs.run(stderr)
	children, interrupted, usageErr, finished := out.children, out.interrupted, out.usageErr, out.finished
	if usageErr {
		return report.ExitUsage
	}
	if interrupted != nil {
		fmt.Fprintf(stderr, "e2e-conform: interrupted by %v: %d of %d runs finished before it; no comparison\n", interrupted, finished, cfg.runs)
		return report.ExitIncomplete
	}
	results := make([]report.Result, len(children))
	for i, c := range children {
		results[i] = c.result()
		res := results[i]
		if len(res.Requirements) == 0 {
			fmt.Fprintf(stderr, "e2e-conform: run %d/%d left no report (%s); its output:\n%s", c.run, cfg.runs, res.Reason, tail(c.log, 20))
		}
	}
	st := report.CompareRuns(results)
	st.Duration = time.Since(start)
	st.WriteSummary(stdout)
	if cfg.jsonPath != "" {
		if err := st.WriteJSON(cfg.jsonPath); err != nil {
			fmt.Fprintf(stderr, "e2e-conform: %v\n", err)
			return report.ExitHarness
		}
	}
	return st.ExitCode
}

// start starts the child and a goroutine that waits for it and sends it on
// done. The goroutine keeps its OS thread until the child is reaped, since
// on Linux the child dies (Pdeathsig) when the thread that started it ends.
func (c *child) start(exe string, cfg repeatConfig, stderr io.Writer, done chan<- *child) bool {
	log, err := os.Create(c.log)
	if err != nil {
		c.err = err
		return false
	}
	// The child's own flags come first: after a "--" in args everything
	// is the engine's argv. Its console is off (its output goes to its
	// log, or with --verbose to our stderr, beside the other runs'): the
	// runs' lines are ours.
	cmd := exec.Command(exe, append([]string{"--progress", progressOff, "--json", c.report}, cfg.args...)...)
	cmd.Stdout, cmd.Stderr = log, log
	if cfg.verbose {
		cmd.Stderr = stderr
	}
	cmd.SysProcAttr = childSysProcAttr()
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		defer log.Close()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		c.proc = cmd.Process
		started <- nil
		err := cmd.Wait()
		c.code = cmd.ProcessState.ExitCode()
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			c.err = err
		}
		done <- c
	}()
	if err := <-started; err != nil {
		c.err = err
		return false
	}
	return true
}

// result is the child's report, or a harness error saying why there is
// none.
func (c *child) result() report.Result {
	if c.err != nil {
		return report.Result{Verdict: "harness error", ExitCode: report.ExitHarness, Reason: fmt.Sprintf("run %d: %v", c.run, c.err)}
	}
	data, err := os.ReadFile(c.report)
	if err != nil {
		return report.Result{Verdict: "harness error", ExitCode: report.ExitHarness, Reason: fmt.Sprintf("run %d exited %d without a report", c.run, c.code)}
	}
	var r report.Result
	if err := json.Unmarshal(data, &r); err != nil {
		return report.Result{Verdict: "harness error", ExitCode: report.ExitHarness, Reason: fmt.Sprintf("run %d: its report %s: %v", c.run, filepath.Base(c.report), err)}
	}
	return r
}

// tail returns the last n lines of the file at path, indented.
func tail(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return "  (no output: " + err.Error() + ")\n"
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	var b bytes.Buffer
	for _, l := range lines {
		b.WriteString("  " + l + "\n")
	}
	return b.String()
}
