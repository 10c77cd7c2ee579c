package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/e2e-conform/toolkit/conformance"
	"github.com/e2e-conform/toolkit/conformance/report"
	"github.com/e2e-conform/toolkit/protocol/client"
	"github.com/e2e-conform/toolkit/protocol/transport"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// --parallel N runs the selection as N shards (--shard i/N) at once, each
// in a child process of this binary, and merges their reports into one
// (report.Merge, the very merge of `e2e-conform merge`): one verdict,
// one set of reports. The shard rule decides which child runs which spec,
// so the verdict is the unsharded run's (TestShardsMergeAsOneRun).
//
// Before the children start, one connection reads the engine's manifest:
// its workers, when given, caps N. Over --connect every child's run opens
// connections to the same server, so the server must serve several at once
// (TRN-003 asks for two; a run holds up to connsPerShard at a time): it is
// asked for connsPerShard×N simultaneous initialized connections first,
// each within TRN-003's bound, and when it does not serve them all the run
// goes on without --parallel, saying so, never failing the engine for it.

// connsPerShard is how many connections one run of the suite holds open at
// a time, at most (a pooled client, a raw connection and TRN-003's second).
const connsPerShard = 3

// probeBound bounds each step of the probes (TRN-003's bound for an
// initialize on a new connection).
const probeBound = 10 * time.Second

// parallelConfig is what --parallel runs.
type parallelConfig struct {
	shards  int
	cfg     conformance.Config // the engine to probe (Spawn, Connect, Env)
	args    []string           // each child's flags, without the reports and --parallel
	reports reportPaths
	trace   string // --trace: the shards' traces, each line labelled with its shard ("" none)
	verbose bool   // children's stderr goes to ours
}

// parallelRun probes the engine, runs the shards, merges their reports,
// prints the summary, writes the reports asked for and returns the merged
// run's exit status. SIGINT and SIGTERM go to every child; children that
// outlast killGrace after that are killed; an interrupted run is
// incomplete (exit 3) and writes no report.
func parallelRun(pc parallelConfig, stdout, stderr io.Writer) int {
	start := time.Now()
	n := pc.shards
	if why := capShards(pc.cfg, &n); why != "" {
		fmt.Fprintf(stderr, "e2e-conform: --parallel %d: %s\n", pc.shards, why)
	}
	if n <= 1 {
		// One run, as without --parallel: a child of its own all the same,
		// so the reports and the exit status come the same way.
		n = 1
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "e2e-conform: --parallel: cannot find this binary to run it again: %v\n", err)
		return report.ExitHarness
	}
	dir, err := os.MkdirTemp("", "e2e-conform-parallel-*")
	if err != nil {
		fmt.Fprintf(stderr, "e2e-conform: --parallel: %v\n", err)
		return report.ExitHarness
	}
	defer os.RemoveAll(dir)

	// The shards share the specs as they go (Config.ShardClaims): each
	// runs the next spec none has claimed, so they end together.
	claims := filepath.Join(dir, "claims")
	if err := os.Mkdir(claims, 0o700); err != nil {
		fmt.Fprintf(stderr, "e2e-conform: --parallel: %v\n", err)
		return report.ExitHarness
	}
	runs := childRuns{exe: exe, dir: dir, kind: "shard", total: n, limit: n, verbose: pc.verbose,
		args: func(c *child) []string {
			args := slices.Clone(pc.args)
			if n > 1 {
				args = append([]string{"--shard", fmt.Sprintf("%d/%d", c.run, n), "--shard-claims", claims}, args...)
			}
			if pc.trace != "" {
				args = append([]string{"--trace", c.trace()}, args...)
			}
			return args
		},
		finished: func(c *child) {
			if n > 1 {
				r := c.result()
				fmt.Fprintf(stderr, "e2e-conform: shard %d/%d: %s (%d passed, %d failed) in %.1f s\n", c.run, n, r.Verdict,
					r.Counts[report.Passed], r.Counts[report.Failed], r.Duration.Seconds())
			}
		},
	}
	out := runs.run(stderr)
	children, interrupted, usageErr := out.children, out.interrupted, out.usageErr
	if usageErr {
		return report.ExitUsage
	}
	if interrupted != nil {
		fmt.Fprintf(stderr, "e2e-conform: interrupted by %v: the shards' results are not merged; the run is incomplete\n", interrupted)
		return report.ExitIncomplete
	}
	reports := make([]*report.Result, n)
	for i, c := range children {
		r := c.result()
		if len(r.Requirements) == 0 || r.ExitCode == report.ExitHarness {
			fmt.Fprintf(stderr, "e2e-conform: shard %d/%d: %s (%s); its output:\n%s", c.run, n, r.Verdict, r.Reason, tail(c.log, 20))
			return report.ExitHarness
		}
		reports[i] = &r
	}
	res := reports[0]
	if n > 1 {
		if res, err = report.Merge(reports); err != nil {
			fmt.Fprintf(stderr, "e2e-conform: --parallel: %v\n", err)
			return report.ExitHarness
		}
	}
	res.Duration = time.Since(start)
	res.WriteSummary(stdout)
	if pc.trace != "" {
		if err := mergeTraces(pc.trace, children, n); err != nil {
			fmt.Fprintf(stderr, "e2e-conform: --trace %s: %v\n", pc.trace, err)
			return report.ExitHarness
		}
	}
	if err := writeReports(res, pc.reports); err != nil {
		fmt.Fprintf(stderr, "e2e-conform: %v\n", err)
		return report.ExitHarness
	}
	return res.ExitCode
}

// capShards lowers *n to what the engine allows and says why ("" when it
// stays): the manifest's workers, and over --connect the connections the
// server serves at once. An engine that cannot be reached leaves *n as it
// is: the shards' runs report it as a run without --parallel would.
func capShards(cfg conformance.Config, n *int) string {
	if *n <= 1 {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), probeBound)
	defer cancel()
	tr, err := probeTransport(cfg)
	if err != nil {
		return ""
	}
	c, err := client.Open(ctx, client.ConnConfig{Transport: tr, ClientInfo: clientInfo()})
	if err != nil {
		return ""
	}
	m := c.Manifest()
	_ = c.Close(5 * time.Second)
	why := ""
	if m.Workers != nil && *m.Workers < int64(*n) {
		*n = int(*m.Workers)
		why = fmt.Sprintf("the engine serves at most %d worker(s) (its manifest's workers): %d shard(s)", *n, *n)
	}
	if cfg.Connect == "" || *n <= 1 {
		return why
	}
	want := connsPerShard * *n
	if got := simultaneous(tr, want); got < want {
		*n = 1
		return fmt.Sprintf("the server at %s initialized %d of %d simultaneous connections within %s (each shard holds up to %d at a time): running without --parallel, as one run",
			cfg.Connect, got, want, probeBound, connsPerShard)
	}
	return why
}

// simultaneous opens want initialized connections over tr at once, each
// within probeBound, and returns how many were initialized while all were
// open; it closes them all.
func simultaneous(tr transport.Transport, want int) int {
	ctx, cancel := context.WithTimeout(context.Background(), probeBound)
	defer cancel()
	var mu sync.Mutex
	var conns []*client.Conn
	var wg sync.WaitGroup
	for range want {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := client.Open(ctx, client.ConnConfig{Transport: tr, ClientInfo: clientInfo()})
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}()
	}
	wg.Wait()
	var cw sync.WaitGroup
	for _, c := range conns {
		cw.Add(1)
		go func() { defer cw.Done(); _ = c.Close(5 * time.Second) }()
	}
	cw.Wait()
	return len(conns)
}

// probeTransport is the transport of cfg's engine.
func probeTransport(cfg conformance.Config) (transport.Transport, error) {
	if cfg.Connect != "" {
		host, port, err := net.SplitHostPort(cfg.Connect)
		if err != nil {
			return nil, err
		}
		p, err := strconv.Atoi(port)
		if err != nil {
			return nil, err
		}
		return transport.Socket(transport.SocketOptions{Host: host, Port: p, DialTimeout: probeBound}), nil
	}
	if len(cfg.Spawn) == 0 {
		return nil, fmt.Errorf("no engine")
	}
	return transport.Spawn(transport.SpawnOptions{Command: cfg.Spawn[0], Args: cfg.Spawn[1:], Env: cfg.Env}), nil
}

// clientInfo names this probe to the engine.
func clientInfo() wire.ClientInfo { return wire.ClientInfo{Name: "e2e-conform --parallel probe"} }

// trace is the path of the child's --trace.
func (c *child) trace() string { return strings.TrimSuffix(c.report, ".json") + ".trace.jsonl" }

// mergeTraces writes the shards' traces to path one after the other, each
// line given a "shard" member ("2/3"; none when n is 1): the connection
// numbers and times of a line are its shard's.
func mergeTraces(path string, children []*child, n int) error {
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(out, 1<<20)
	for _, c := range children {
		in, err := os.Open(c.trace())
		if err != nil {
			out.Close()
			return fmt.Errorf("shard %d/%d wrote no trace: %w", c.run, n, err)
		}
		sc := bufio.NewScanner(in)
		sc.Buffer(make([]byte, 64<<10), 256<<20)
		label := fmt.Sprintf(`{"shard":"%d/%d",`, c.run, n)
		for sc.Scan() {
			line := sc.Bytes()
			switch {
			case n > 1 && len(line) > 1 && line[0] == '{' && line[1] != '}':
				w.WriteString(label)
				w.Write(line[1:])
			default:
				w.Write(line)
			}
			w.WriteByte('\n')
		}
		err = sc.Err()
		in.Close()
		if err != nil {
			out.Close()
			return fmt.Errorf("shard %d/%d's trace: %w", c.run, n, err)
		}
	}
	if err := w.Flush(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
