package client_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/e2e-conform/toolkit/protocol/client"
	"github.com/e2e-conform/toolkit/protocol/engineerr"
	"github.com/e2e-conform/toolkit/protocol/transport"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

func transports(t *testing.T) map[string]func() transport.Transport {
	return map[string]func() transport.Transport{
		"loopback": loopbackExample,
		"spawn":    func() transport.Transport { return spawnSelf(t, "example") },
		"socket":   func() transport.Transport { return socketExample(t) },
	}
}

// TestRoundTripEveryMethod drives every method of ENGINE_METHODS, and the
// server-to-client messages the example engine sends, over each transport.
func TestRoundTripEveryMethod(t *testing.T) {
	for name, mk := range transports(t) {
		t.Run(name, func(t *testing.T) {
			var logs, env []string
			c := open(t, mk(), func(cc *client.ConnConfig) {
				cc.Context.Role = wire.RoleWorker
				cc.Handlers.EngineLog = func(line string) { logs = append(logs, line) }
				cc.Handlers.Environment = func(id string, facts map[string]any) { env = append(env, id) }
			})
			ctx := context.Background()
			seen := map[string]bool{}
			must := func(method string, err error) {
				t.Helper()
				seen[method] = true
				if err != nil {
					t.Fatalf("%s: %v", method, err)
				}
			}
			res, err := c.Prepare(ctx, wire.PrepareParams{RunID: "r1", TargetName: "t", ProjectRoot: "/tmp", Slots: 1, Env: map[string]string{}})
			must(wire.MethodPrepare, err)
			if res == nil || res.Workers == nil || *res.Workers != 1 {
				t.Errorf("prepare result %+v", res)
			}
			must(wire.MethodInit, c.Init(ctx, wire.InitParams{RunID: "r1", TargetName: "t", ProjectRoot: "/tmp", Env: map[string]string{}}))
			dir := t.TempDir()
			must(wire.MethodStartAttempt, c.StartAttempt(ctx, wire.StartAttemptParams{AttemptID: "a1", ArtifactsDir: dir}))
			op := client.Op{RunID: "r1"}
			app := appURL(t)
			must(wire.MethodOpen, c.Open(ctx, op, app+"/a"))
			must(wire.MethodOpen, c.Open(ctx, op, app+"/b"))
			must(wire.MethodBack, c.Back(ctx, op))
			snap, err := c.Observe(ctx, op, nil)
			must(wire.MethodObserve, err)
			if snap.Location != app+"/a" || snap.Root.Ref.ID != "root" || snap.Pixels != nil {
				t.Errorf("snapshot %+v", snap)
			}
			found, err := c.Locate(ctx, op, wire.LocatorExpression{Kind: "query", Query: &wire.SemanticQuery{Kind: "role", Value: wire.StringPattern("button", false), Name: ptr(wire.StringPattern("Increment", true))}})
			must(wire.MethodLocate, err)
			if len(found) != 1 {
				t.Fatalf("locate found %d nodes", len(found))
			}
			must(wire.MethodPerform, c.Perform(ctx, op, found[0].Ref, wire.LocatorAction{Kind: "doubleTap"}))
			must(wire.MethodPerformAt, c.PerformAt(ctx, op, wire.ViewportPoint{X: 20, Y: 60}, wire.PointerAction{Kind: "tap"}))
			name := wire.NodeRef{ID: "n4", Revision: "b1"}
			must(wire.MethodPerform, c.Perform(ctx, op, name, wire.LocatorAction{Kind: "fill", Value: "Ada"}))
			must(wire.MethodType, c.Type(ctx, op, " L", false))
			must(wire.MethodPress, c.Press(ctx, op, "!"))
			must(wire.MethodDismiss, c.Dismiss(ctx, op))
			snap, _ = c.Observe(ctx, op, &wire.EngineObserveOptions{Pixels: true})
			if got := *snap.Root.Children[2].Text; got != "Count: 3" {
				t.Errorf("counter shows %q, want Count: 3", got)
			}
			if got := *snap.Root.Children[3].Value; got != "Ada L!" {
				t.Errorf("name is %q", got)
			}
			if snap.Pixels == nil || snap.Pixels.Width != 320 {
				t.Errorf("no pixels")
			}
			state, err := c.Capture(ctx, op)
			must(wire.MethodCapture, err)
			must(wire.MethodReset, c.Reset(ctx, op))
			must(wire.MethodRestore, c.Restore(ctx, op, *state))
			must(wire.MethodRestart, c.Restart(ctx, op))
			snap, _ = c.Observe(ctx, op, nil)
			if *snap.Root.Children[2].Text != "Count: 3" || snap.Location != "" {
				t.Errorf("restore or restart: %+v", snap.Root.Children[2])
			}
			shot, err := c.Screenshot(ctx, op, "after restore")
			must(wire.MethodScreenshot, err)
			if _, err := client.DecodeBase64(shot.Data); err != nil || shot.MediaType != "image/png" {
				t.Errorf("screenshot: %v", err)
			}
			must(wire.MethodStartVideo, c.StartVideo(ctx, op))
			segs, err := c.StopVideo(ctx, op)
			must(wire.MethodStopVideo, err)
			if segs == nil || len(segs) != 0 {
				t.Errorf("stopVideo %v", segs)
			}
			must(wire.MethodSettleAttempt, c.SettleAttempt(ctx, 1000))
			must(wire.MethodEndAttempt, c.EndAttempt(ctx, 1000))
			must(wire.MethodDispose, c.Dispose(ctx, 1000, nil))
			must(wire.MethodFinish, c.Finish(ctx, wire.FinishParams{RunID: "r1", TargetName: "t", Env: map[string]string{}, TimeoutMs: 1000}))
			for _, m := range wire.EngineMethods() {
				if !seen[m] {
					t.Errorf("method %s not exercised", m)
				}
			}
			if err := c.Close(5 * time.Second); err != nil {
				t.Errorf("Close: %v", err)
			}
			if len(logs) < 2 || len(env) != 1 || env[0] != "a1" {
				t.Errorf("server messages: logs %q, environment %q", logs, env)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

// TestCLI011WorkerHandle drives the engine handle through a worker's whole span,
// with the screenshot written by the client (CLI-011).
func TestCLI011WorkerHandle(t *testing.T) {
	e, err := client.ConnectEngine(client.Config{Transport: loopbackExample(), Manifest: exampleManifest(), Schemas: schemas})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	w := e.NewWorker()
	if _, err := w.Observe(ctx, "test", nil); !errors.Is(err, engineerr.New(engineerr.InvalidState, "")) {
		t.Fatalf("observe before init: %v", err)
	}
	if err := w.Init(ctx, wire.InitParams{RunID: "r", Env: map[string]string{}}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := w.StartAttempt(ctx, "a1", dir, false); err != nil {
		t.Fatal(err)
	}
	rel, err := w.Screenshot(ctx, "test", "Login page!")
	if err != nil {
		t.Fatal(err)
	}
	if rel != "screenshots/001-login-page.png" {
		t.Errorf("screenshot path %q", rel)
	}
	if b, err := os.ReadFile(filepath.Join(dir, rel)); err != nil || len(b) < 8 || string(b[1:4]) != "PNG" {
		t.Errorf("screenshot file: %v", err)
	}
	if err := w.EndAttempt(ctx, 1000); err != nil {
		t.Fatal(err)
	}
	if err := w.Dispose(ctx, 2000); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Observe(ctx, "test", nil); !errors.Is(err, engineerr.New(engineerr.InvalidState, "")) {
		t.Fatalf("observe after dispose: %v", err)
	}
}
