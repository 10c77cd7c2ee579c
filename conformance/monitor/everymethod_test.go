package monitor_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/e2e-conform/toolkit/conformance/monitor"
	"github.com/e2e-conform/toolkit/protocol/client"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// TestClientEveryMethodThroughMonitor drives every method of
// ENGINE_METHODS on the example engine with the toolkit's client through
// the monitor (as protocol/client's round-trip test does without it):
// bytes unchanged both ways, no violation on either side, every method
// seen.
func TestClientEveryMethodThroughMonitor(t *testing.T) {
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer app.Close()
	tr, sv := throughMonitor(t, monitor.Config{}, bins.Path(t, "example-engine"))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := client.Open(ctx, client.ConnConfig{Transport: tr, Schemas: schemas, ClientInfo: wire.ClientInfo{Name: "monitor-test"}, Context: clientContext()})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	must := func(method string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
	}
	_, err = c.Prepare(ctx, wire.PrepareParams{RunID: "r1", TargetName: "t", ProjectRoot: "/tmp", Slots: 1, Env: map[string]string{}})
	must(wire.MethodPrepare, err)
	must(wire.MethodInit, c.Init(ctx, wire.InitParams{RunID: "r1", TargetName: "t", ProjectRoot: "/tmp", Env: map[string]string{}}))
	must(wire.MethodStartAttempt, c.StartAttempt(ctx, wire.StartAttemptParams{AttemptID: "a1", ArtifactsDir: t.TempDir()}))
	op := client.Op{RunID: "r1"}
	must(wire.MethodOpen, c.Open(ctx, op, app.URL+"/a"))
	must(wire.MethodOpen, c.Open(ctx, op, app.URL+"/b"))
	must(wire.MethodBack, c.Back(ctx, op))
	_, err = c.Observe(ctx, op, nil)
	must(wire.MethodObserve, err)
	found, err := c.Locate(ctx, op, wire.LocatorExpression{Kind: "query", Query: &wire.SemanticQuery{Kind: "role", Value: wire.StringPattern("button", false), Name: ptr(wire.StringPattern("Increment", true))}})
	must(wire.MethodLocate, err)
	if len(found) != 1 {
		t.Fatalf("locate found %d nodes", len(found))
	}
	must(wire.MethodPerform, c.Perform(ctx, op, found[0].Ref, wire.LocatorAction{Kind: "doubleTap"}))
	must(wire.MethodPerformAt, c.PerformAt(ctx, op, wire.ViewportPoint{X: 20, Y: 60}, wire.PointerAction{Kind: "tap"}))
	must(wire.MethodPerform, c.Perform(ctx, op, wire.NodeRef{ID: "n4", Revision: "b1"}, wire.LocatorAction{Kind: "fill", Value: "Ada"}))
	must(wire.MethodType, c.Type(ctx, op, " L", false))
	must(wire.MethodPress, c.Press(ctx, op, "!"))
	must(wire.MethodDismiss, c.Dismiss(ctx, op))
	_, err = c.Observe(ctx, op, &wire.EngineObserveOptions{Pixels: true})
	must(wire.MethodObserve, err)
	state, err := c.Capture(ctx, op)
	must(wire.MethodCapture, err)
	must(wire.MethodReset, c.Reset(ctx, op))
	must(wire.MethodRestore, c.Restore(ctx, op, *state))
	must(wire.MethodRestart, c.Restart(ctx, op))
	_, err = c.Screenshot(ctx, op, "after restore")
	must(wire.MethodScreenshot, err)
	must(wire.MethodStartVideo, c.StartVideo(ctx, op))
	_, err = c.StopVideo(ctx, op)
	must(wire.MethodStopVideo, err)
	must(wire.MethodSettleAttempt, c.SettleAttempt(ctx, 1000))
	must(wire.MethodEndAttempt, c.EndAttempt(ctx, 1000))
	must(wire.MethodDispose, c.Dispose(ctx, 1000, nil))
	must(wire.MethodFinish, c.Finish(ctx, wire.FinishParams{RunID: "r1", TargetName: "t", Env: map[string]string{}, TimeoutMs: 1000}))
	must("close", c.Close(5*time.Second))
	<-sv.done
	sv.checkBytes(t)
	for _, v := range sv.report.Monitor.Violations {
		t.Errorf("violation %s (%s at fault): %s\n%s", v.Requirement, v.Side, v.Message, v.Exchange)
	}
	seen := map[string]bool{}
	for _, m := range sv.report.Monitor.Methods {
		seen[m.Method] = m.FromHarness > 0
	}
	for _, m := range wire.EngineMethods() {
		if !seen[m] {
			t.Errorf("%s not seen", m)
		}
	}
	t.Logf("%s", sv.report.Verdict)
}

func ptr[T any](v T) *T { return &v }
