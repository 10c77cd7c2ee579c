package monitor_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/e2e-conform/toolkit/conformance/monitor"
	"github.com/e2e-conform/toolkit/protocol/client"
	"github.com/e2e-conform/toolkit/protocol/transport"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// TestClientThroughMonitor drives the example engine with the toolkit's
// client through the monitor: every byte crosses unchanged both ways, and
// the monitor sees no violation (it says so, and never "conformant").
func TestClientThroughMonitor(t *testing.T) {
	dir := t.TempDir()
	tr, sv := throughMonitor(t, monitor.Config{JSON: dir + "/report.json", Trace: dir + "/trace.jsonl", JUnit: dir + "/junit.xml", HTML: dir + "/report.html"}, bins.Path(t, "example-engine"))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := clientSession(ctx, t, tr, "t")
	must := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	op := client.Op{RunID: "r1"}
	for range 3 {
		_, err := c.Observe(ctx, op, nil)
		must("observe", err)
	}
	aborted, stop := context.WithCancel(ctx)
	stop()
	if _, err := c.Observe(aborted, op, nil); err == nil {
		t.Errorf("an observe aborted at send succeeded")
	}
	must("endAttempt", c.EndAttempt(ctx, 1000))
	must("dispose", c.Dispose(ctx, 1000, nil))
	must("close", c.Close(5*time.Second))
	<-sv.done
	sv.checkBytes(t)
	r := sv.report
	if sv.err != nil {
		t.Fatalf("monitor: %v", sv.err)
	}
	for _, v := range r.Monitor.Violations {
		t.Errorf("violation %s (%s at fault): %s\n%s", v.Requirement, v.Side, v.Message, v.Exchange)
	}
	if !strings.HasPrefix(r.Verdict, "no violation seen in this traffic (") || strings.Contains(r.Verdict, "conformant") {
		t.Errorf("verdict %q", r.Verdict)
	}
	methods := map[string]monitor.MethodCount{}
	for _, m := range r.Monitor.Methods {
		methods[m.Method] = m
	}
	if got := methods[wire.MethodObserve].FromHarness; got != 4 {
		t.Errorf("engine/observe seen %d times from the harness, want 4 (%+v)", got, r.Monitor.Methods)
	}
	reqs := map[string]int{}
	for _, q := range r.Monitor.Requirements {
		reqs[q.ID] = q.Checks
	}
	for _, id := range []string{"WIRE-001", "WIRE-008", "WIRE-013", "LIFE-005", "CLI-013", "§1.4", "§5.13", "§7.5"} {
		if reqs[id] == 0 {
			t.Errorf("%s not exercised: %v", id, reqs)
		}
	}
	if len(r.Latency) == 0 {
		t.Errorf("no latency")
	}
	trace, err := os.ReadFile(dir + "/trace.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(trace)), "\n")
	if len(lines) != r.Monitor.Frames {
		t.Errorf("the trace has %d lines for %d frames", len(lines), r.Monitor.Frames)
	}
	for _, l := range lines {
		var rec struct {
			Role, Dir string
			Frame     json.RawMessage
		}
		if err := json.Unmarshal([]byte(l), &rec); err != nil || rec.Role != "monitor" || (rec.Dir != "sent" && rec.Dir != "received") || len(rec.Frame) == 0 {
			t.Errorf("trace line %s: %v", l, err)
		}
	}
	for _, f := range []string{"report.json", "junit.xml", "report.html"} {
		if st, err := os.Stat(dir + "/" + f); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	t.Logf("verdict: %s; requirements exercised: %v", r.Verdict, reqs)
}

func clientContext() transport.Context { return transport.Context{Role: wire.RoleWorker} }
