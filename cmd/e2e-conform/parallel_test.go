package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/e2e-conform/toolkit/conformance"
	"github.com/e2e-conform/toolkit/conformance/report"
	"github.com/e2e-conform/toolkit/internal/testbin"
	"github.com/e2e-conform/toolkit/protocol/server"
)

// cli runs the e2e-conform binary with args and env, and returns its exit
// code, its JSON report (when args ask for one at report) and its output.
func cli(t *testing.T, env []string, reportFile string, args ...string) (int, *report.Result, string) {
	t.Helper()
	cmd := exec.Command(filepath.Join(bins(t), "e2e-conform"), args...)
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	_ = cmd.Run()
	var res *report.Result
	if reportFile != "" {
		if data, err := os.ReadFile(reportFile); err == nil {
			res = new(report.Result)
			if err := json.Unmarshal(data, res); err != nil {
				t.Fatalf("the report: %v", err)
			}
		}
	}
	return cmd.ProcessState.ExitCode(), res, out.String()
}

// statuses is each requirement's status in res.
func statuses(res *report.Result) map[string]report.Status {
	m := map[string]report.Status{}
	for _, r := range res.Requirements {
		m[r.ID] = r.Status
	}
	return m
}

// TestParallelIsOneRun: --parallel N gives the unsharded run's verdict,
// requirement by requirement, one set of reports, and leaves nothing in
// the temporary directory (issue 30).
func TestParallelIsOneRun(t *testing.T) {
	sab := filepath.Join(bins(t), "saboteur")
	for _, tc := range []struct{ name, engine string }{
		{"healthy", sab},
		{"a fault failing requirements of several areas", sab + " --fault stdout-noise"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sel := []string{"--only", "WIRE,LIFE,SIG,TRN", "--spawn", tc.engine}
			dir := t.TempDir()
			one := filepath.Join(dir, "one.json")
			code1, res1, out1 := cli(t, nil, one, append(sel, "--json", one)...)
			tmp, env := privateTmp(t)
			par, junit, trace := filepath.Join(dir, "par.json"), filepath.Join(dir, "par.xml"), filepath.Join(dir, "trace.jsonl")
			code3, res3, out3 := cli(t, env, par, append(sel, "--parallel", "3", "--json", par, "--junit", junit, "--trace", trace)...)
			if res1 == nil || res3 == nil {
				t.Fatalf("a report is missing:\n%s\n---\n%s", out1, out3)
			}
			if code1 != code3 || res1.Verdict != res3.Verdict {
				t.Errorf("exit %d (%s) without --parallel, %d (%s) with --parallel 3", code1, res1.Verdict, code3, res3.Verdict)
			}
			s1, s3 := statuses(res1), statuses(res3)
			for id, st := range s1 {
				if s3[id] != st {
					t.Errorf("%s: %s without --parallel, %s with --parallel 3", id, st, s3[id])
				}
			}
			if len(s1) != len(s3) {
				t.Errorf("%d requirements without --parallel, %d with it", len(s1), len(s3))
			}
			if _, err := os.Stat(junit); err != nil {
				t.Errorf("--junit with --parallel: %v", err)
			}
			checkShardTrace(t, trace, 3)
			if !strings.Contains(out3, "shard 3/3:") {
				t.Errorf("no line for shard 3/3:\n%s", out3)
			}
			emptyDir(t, tmp)
		})
	}
}

// TestParallelUsage: --parallel with what it cannot go with is a usage
// error naming it.
func TestParallelUsage(t *testing.T) {
	sab := filepath.Join(bins(t), "saboteur")
	for _, tc := range []struct {
		args []string
		says string
	}{
		{[]string{"--parallel", "0"}, "at least 1"},
		{[]string{"--parallel", "2", "--shard", "1/2"}, "--shard"},
		{[]string{"--parallel", "2", "--repeat", "2"}, "--repeat"},
	} {
		code, _, out := cli(t, nil, "", append(tc.args, "--spawn", sab)...)
		if code != report.ExitUsage || !strings.Contains(out, tc.says) {
			t.Errorf("%q: exit %d, want %d saying %q:\n%s", tc.args, code, report.ExitUsage, tc.says, out)
		}
	}
}

// TestParallelOverSocketNeedsConnectionsAtOnce: a server that serves one
// connection at a time is not run in parallel (its shards would wait on
// each other and fail TRN-003 for the suite's doing): the run goes on as
// one, says so, and its verdict is the run's without --parallel.
func TestParallelOverSocketNeedsConnectionsAtOnce(t *testing.T) {
	addr := listenSaboteur(t, "--fault", "serial-connections")
	code, _, out := cli(t, nil, "", "--parallel", "2", "--only", "TRN-003", "--connect", addr)
	if !strings.Contains(out, "running without --parallel") {
		t.Errorf("no word of the fallback:\n%s", out)
	}
	if code != report.ExitNonConformant || !strings.Contains(out, "FAILED TRN-003") {
		t.Errorf("exit %d, want %d with TRN-003 failed, as without --parallel:\n%s", code, report.ExitNonConformant, out)
	}
	healthy := listenSaboteur(t)
	code, _, out = cli(t, nil, "", "--parallel", "2", "--only", "TRN", "--connect", healthy)
	if code != report.ExitConformant || strings.Contains(out, "without --parallel") || !strings.Contains(out, "shard 2/2:") {
		t.Errorf("a server serving connections at once: exit %d, want %d, in 2 shards:\n%s", code, report.ExitConformant, out)
	}
}

// oneWorker is an engine whose manifest says it serves one worker.
type oneWorker struct{}

func (oneWorker) Info() server.Info {
	return server.Info{Name: "one-worker", Version: "1.0.0", Workers: 1}
}

// TestParallelCappedByWorkers: the manifest's workers caps the shards.
func TestParallelCappedByWorkers(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- server.ServeListener(ctx, l, oneWorker{}, nil, server.Options{}) }()
	defer func() { cancel(); l.Close(); <-done }()
	n := 3
	why := capShards(conformance.Config{Connect: l.Addr().String()}, &n)
	if n != 1 || !strings.Contains(why, "workers") {
		t.Errorf("capShards: %d shard(s), %q; want 1, naming the manifest's workers", n, why)
	}
}

// listenSaboteur starts the saboteur on a TCP port with args and returns
// its address; the test's cleanup stops it.
func listenSaboteur(t *testing.T, args ...string) string {
	t.Helper()
	l := testbin.Listen(t, filepath.Join(bins(t), "saboteur"), args...)
	t.Cleanup(l.Close)
	return l.Addr
}

// checkShardTrace checks that the trace at path is JSON Lines holding
// frames of each of n shards, each line labelled with its shard.
// workloadClient is the clientInfo name of the run-wide workload's
// initialize (conformance/exercise.go: "e2e-conform " and exerciseTag).
const workloadClient = "e2e-conform ünï-码-𝄞"

func checkShardTrace(t *testing.T, path string, n int) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("--trace with --parallel: %v", err)
	}
	seen := map[string]int{}
	workloads := 0 // the run-wide workload's initialize, in any shard
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var l struct {
			Shard  string          `json:"shard"`
			Dir    string          `json:"dir"`
			Method string          `json:"method"`
			Frame  json.RawMessage `json:"frame"` // an object, or the text of bytes that were not JSON
		}
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatalf("a trace line is not JSON: %v: %.200s", err, line)
		}
		seen[l.Shard]++
		var init struct {
			Params struct {
				ClientInfo struct {
					Name string `json:"name"`
				} `json:"clientInfo"`
			} `json:"params"`
		}
		if l.Dir == "send" && l.Method == "initialize" && json.Unmarshal(l.Frame, &init) == nil && init.Params.ClientInfo.Name == workloadClient {
			workloads++
		}
	}
	// The shards share one run: the run-wide workload draws its traffic
	// once, in the shard that claimed it, as in an unsharded run.
	if workloads != 1 {
		t.Errorf("the run-wide workload ran %d times across the %d shards, want once", workloads, n)
	}
	for i := 1; i <= n; i++ {
		if seen[fmt.Sprintf("%d/%d", i, n)] == 0 {
			t.Errorf("the trace has no line of shard %d/%d: %v", i, n, seen)
		}
	}
	if seen[""] > 0 {
		t.Errorf("%d trace lines name no shard", seen[""])
	}
}
