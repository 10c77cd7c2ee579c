package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/e2e-conform/toolkit/conformance/report"
)

// childRuns runs this binary again as child processes: the shards of
// --parallel, the runs of --repeat. Each child gets its own --json and
// log in dir; at most limit run at a time. SIGINT and SIGTERM go to every
// running child, and none starts after them; children that outlast
// killGrace after the signal are killed. A child that exits with a usage
// error stops the others (SIGTERM) and starts no more: every child has
// the same flags, so the rest would fail the same way.
type childRuns struct {
	exe, dir string
	// kind names a child in messages and file names: "shard", "run".
	kind    string
	total   int
	limit   int
	verbose bool // the children's stderr goes to ours
	// args returns the flags of child c (its own --json comes first).
	args func(c *child) []string
	// finished is called for each child that ended before any signal or
	// usage error, in the order they end.
	finished func(c *child)
}

// childOutcome is how a childRuns ended.
type childOutcome struct {
	children    []*child  // every child, by number; those never started have no report
	interrupted os.Signal // the signal that stopped the run, nil when none did
	usageErr    bool      // a child exited with a usage error
	finished    int       // children that ended before a signal
}

// name is "shard 2/3" for child c.
func (s childRuns) name(c *child) string { return fmt.Sprintf("%s %d/%d", s.kind, c.run, s.total) }

// run starts the children, limit at a time, and waits for all of them.
func (s childRuns) run(stderr io.Writer) childOutcome {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)

	out := childOutcome{children: make([]*child, s.total)}
	running := map[int]*child{}
	done := make(chan *child)
	next := 0
	var kill <-chan time.Time
	for {
		for out.interrupted == nil && !out.usageErr && len(running) < max(s.limit, 1) && next < s.total {
			c := &child{run: next + 1,
				report: filepath.Join(s.dir, fmt.Sprintf("%s-%03d.json", s.kind, next+1)),
				log:    filepath.Join(s.dir, fmt.Sprintf("%s-%03d.log", s.kind, next+1))}
			out.children[next] = c
			next++
			if c.start(s.exe, repeatConfig{args: s.args(c), verbose: s.verbose}, stderr, done) {
				running[c.run] = c
			} else {
				fmt.Fprintf(stderr, "e2e-conform: %s could not start: %v\n", s.name(c), c.err)
			}
		}
		if len(running) == 0 {
			return out
		}
		select {
		case c := <-done:
			delete(running, c.run)
			if c.code == report.ExitUsage {
				if !out.usageErr {
					out.usageErr = true
					fmt.Fprintf(stderr, "e2e-conform: %s: a usage error:\n%s", s.name(c), tail(c.log, 20))
				}
				for _, o := range running {
					_ = o.proc.Signal(syscall.SIGTERM)
				}
				continue
			}
			if out.interrupted == nil && !out.usageErr {
				out.finished++
				if s.finished != nil {
					s.finished(c)
				}
			}
		case sig := <-sigs:
			if out.interrupted == nil {
				out.interrupted = sig
				fmt.Fprintf(stderr, "e2e-conform: %v: stopping %d %s(s) in progress, starting no more\n", sig, len(running), s.kind)
				kill = time.After(killGrace)
			}
			for _, c := range running {
				_ = c.proc.Signal(sig)
			}
		case <-kill:
			for _, c := range running {
				fmt.Fprintf(stderr, "e2e-conform: %s outlasted the signal by %s: killing it\n", s.name(c), killGrace)
				_ = c.proc.Kill()
			}
		}
	}
}
