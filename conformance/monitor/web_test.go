package monitor_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/e2e-conform/toolkit/conformance/fixture/web"
	"github.com/e2e-conform/toolkit/conformance/monitor"
	"github.com/e2e-conform/toolkit/internal/testbin"
	"github.com/e2e-conform/toolkit/protocol/client"
)

// webSet is the binaries of the web tests (Chromium behind them).
var webSet = testbin.New("../../cmd/e2e-web-engine", "../../cmd/e2e-mcp")

// TestWebEngineThroughMonitor: a short session of the toolkit's client on
// the web engine (Chromium) through the monitor: bytes unchanged both
// ways, no violation.
func TestWebEngineThroughMonitor(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Chromium")
	}
	app := httptest.NewServer(web.Handler())
	defer app.Close()
	tr, sv := throughMonitor(t, monitor.Config{}, webBin(t, "e2e-web-engine"))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c := clientSession(ctx, t, tr, "web")
	must := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	op := client.Op{RunID: "r1"}
	must("open", c.Open(ctx, op, app.URL+"/counter"))
	_, err := c.Observe(ctx, op, nil)
	must("observe", err)
	must("endAttempt", c.EndAttempt(ctx, 5000))
	must("dispose", c.Dispose(ctx, 5000, nil))
	must("close", c.Close(10*time.Second))
	<-sv.done
	sv.checkBytes(t)
	for _, v := range sv.report.Monitor.Violations {
		t.Errorf("violation %s (%s at fault): %s\n%s", v.Requirement, v.Side, v.Message, v.Exchange)
	}
	t.Logf("%s", sv.report.Verdict)
}

// webBin is a binary of the web tests, built once per test binary.
func webBin(t *testing.T, name string) string { return webSet.Path(t, name) }

// TestMCPThroughMonitor: e2e-mcp drives the web engine through a session
// whose engine command is `e2e-conform monitor -- e2e-web-engine`; the
// monitor's report (written when the session's connection ends) shows no
// violation, and what the session covered.
func TestMCPThroughMonitor(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Chromium")
	}
	app := httptest.NewServer(web.Handler())
	defer app.Close()
	proj := t.TempDir()
	reportPath := filepath.Join(t.TempDir(), "monitor.json")
	args, _ := json.Marshal([]string{"monitor", "--json", reportPath, "--", webBin(t, "e2e-web-engine")})
	cfg := `{"targets":[{"name":"web","engine":{"command":"` + bins.Path(t, "e2e-conform") + `","args":` + string(args) + `},"app":{"url":"` + app.URL + `/counter"}}]}`
	if err := os.WriteFile(filepath.Join(proj, "e2e.config.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(webBin(t, "e2e-mcp"))
	cmd.Dir = proj
	var stderr strings.Builder
	cmd.Stderr = &stderr
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	call := func(name string, a map[string]any) string {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: a})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v\n%s", name, err, res, stderr.String())
		}
		return res.Content[0].(*mcp.TextContent).Text
	}
	call("open_session", map[string]any{})
	call("call", map[string]any{"tool": "observe"})
	call("close_session", map[string]any{})
	if err := cs.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	if _, err := os.Stat(reportPath); err != nil {
		t.Fatalf("no monitor report: %v\n%s", err, stderr.String())
	}
	r := readMonitorReport(t, reportPath)
	for _, v := range r.Monitor.Violations {
		t.Errorf("violation %s (%s at fault): %s\n%s", v.Requirement, v.Side, v.Message, v.Exchange)
	}
	if !strings.HasPrefix(r.Verdict, "no violation seen in this traffic") {
		t.Errorf("verdict %q", r.Verdict)
	}
	var methods, reqs []string
	for _, m := range r.Monitor.Methods {
		methods = append(methods, fmt.Sprintf("%s:%d/%d", m.Method, m.FromHarness, m.FromEngine))
	}
	for _, q := range r.Monitor.Requirements {
		reqs = append(reqs, fmt.Sprintf("%s:%d", q.ID, q.Checks))
	}
	t.Logf("e2e-mcp session through the monitor: %s; %d frames; methods (from harness/engine) %v; requirements exercised (checks) %v", r.Verdict, r.Monitor.Frames, methods, reqs)
}
