package webengine

import (
	"bytes"
	"context"
	"encoding/base64"
	"image/png"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/e2e-conform/toolkit/conformance/fixture/web"
	"github.com/e2e-conform/toolkit/protocol/client"
	"github.com/e2e-conform/toolkit/protocol/engineerr"
	"github.com/e2e-conform/toolkit/protocol/server"
	"github.com/e2e-conform/toolkit/protocol/transport"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// webPage opens path of the fixture server on a fresh engine.
func webPage(t *testing.T, path string) (*Engine, string) {
	t.Helper()
	srv := httptest.NewServer(web.Handler())
	t.Cleanup(srv.Close)
	e := newTestEngine(t)
	if err := e.Open(context.Background(), testOp, srv.URL+path); err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	return e, srv.URL
}

func byTestID(t *testing.T, e *Engine, id string) wire.SemanticNode {
	t.Helper()
	got, err := e.Locate(context.Background(), testOp, &wire.LocatorExpression{Kind: wire.ExprQuery, Query: &wire.SemanticQuery{Kind: wire.QueryTestID, Value: wire.StringPattern(id, true)}})
	if err != nil {
		t.Fatalf("locate %s: %v", id, err)
	}
	if len(got) != 1 {
		t.Fatalf("locate %s: %d nodes", id, len(got))
	}
	return got[0]
}

func textOf(t *testing.T, e *Engine, id string) string {
	t.Helper()
	n := byTestID(t, e, id)
	if n.Text == nil {
		return ""
	}
	return *n.Text
}

func op(ms float64) server.Operation { return server.Operation{TimeoutMs: ms} }

func wantCode(t *testing.T, err error, code engineerr.Code, contains string) {
	t.Helper()
	if engineerr.CodeOf(err) != code {
		t.Fatalf("got %v, want %s", err, code)
	}
	if contains != "" && !strings.Contains(err.Error(), contains) {
		t.Fatalf("error %q does not say %q", err, contains)
	}
}

func TestCoveredButtonIsNotActionable(t *testing.T) {
	e, _ := webPage(t, "/web/covered")
	b := byTestID(t, e, "covered-button")
	err := e.Perform(context.Background(), op(3000), b.Ref, wire.LocatorAction{Kind: wire.ActionTap})
	wantCode(t, err, engineerr.NotActionable, "intercepts pointer events")
	if got := textOf(t, e, "covered-taps"); got != "covered taps: 0" {
		t.Errorf("the covered button registered a tap: %q", got)
	}
}

func TestHungPage(t *testing.T) {
	e, _ := webPage(t, "/web/hang")
	b := byTestID(t, e, "hang-button")
	start := time.Now()
	err := e.Perform(context.Background(), op(2000), b.Ref, wire.LocatorAction{Kind: wire.ActionTap})
	wantCode(t, err, engineerr.ActionMayHaveCommitted, "")
	if d := time.Since(start); d > 4*time.Second {
		t.Errorf("tap on the hung page answered after %v, budget 2 s", d)
	}
	start = time.Now()
	_, err = e.Observe(context.Background(), op(1500), wire.EngineObserveOptions{})
	wantCode(t, err, engineerr.OperationTimeout, "")
	if d := time.Since(start); d < 1200*time.Millisecond || d > 3500*time.Millisecond {
		t.Errorf("observe on the hung page answered after %v, budget 1.5 s", d)
	}
}

func TestShadowRoots(t *testing.T) {
	e, _ := webPage(t, "/web/shadow")
	for _, mode := range []string{"open", "closed"} {
		b := byTestID(t, e, mode+"-shadow-button")
		if err := e.Perform(context.Background(), testOp, b.Ref, wire.LocatorAction{Kind: wire.ActionTap}); err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		if got, want := textOf(t, e, mode+"-taps"), mode+" taps: 1"; got != want {
			t.Errorf("%s: %q, want %q", mode, got, want)
		}
	}
}

func TestNestedFrames(t *testing.T) {
	e, _ := webPage(t, "/web/nested-frames")
	snap, err := e.Observe(context.Background(), testOp, wire.EngineObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var inner *wire.SemanticNode
	snap.Root.Walk(func(n *wire.SemanticNode) bool {
		if n.TestID != nil && *n.TestID == "inner-button" {
			inner = n
		}
		return true
	})
	if inner == nil {
		t.Fatal("the inner frame's button is not observed")
	}
	want := []string{`iframe[data-testid="outer-frame"]`, `iframe[data-testid="inner-frame"]`}
	if !slices.Equal(inner.FramePath, want) {
		t.Errorf("framePath %q, want %q", inner.FramePath, want)
	}
	expr := &wire.LocatorExpression{Kind: wire.ExprFrame, Selector: want[0], Source: &wire.LocatorExpression{Kind: wire.ExprFrame, Selector: want[1],
		Source: &wire.LocatorExpression{Kind: wire.ExprQuery, Query: &wire.SemanticQuery{Kind: wire.QueryRole, Value: wire.StringPattern("button", false), Name: ptr(wire.StringPattern("Inner button", true))}}}}
	got, err := e.Locate(context.Background(), testOp, expr)
	if err != nil || len(got) != 1 || got[0].Ref.ID != inner.Ref.ID {
		t.Fatalf("frame > frame > role button: %v %v", got, err)
	}
	if err := e.Perform(context.Background(), testOp, inner.Ref, wire.LocatorAction{Kind: wire.ActionTap}); err != nil {
		t.Fatal(err)
	}
	if got := textOf(t, e, "inner-taps"); got != "taps: 1" {
		t.Errorf("inner taps %q after a tap (the click landed elsewhere)", got)
	}
	_, err = e.Locate(context.Background(), testOp, &wire.LocatorExpression{Kind: wire.ExprFrame, Selector: `iframe[data-testid="nope"]`, Source: expr.Source})
	wantCode(t, err, engineerr.FrameNotFound, "nope")
}

func TestSensitiveFillNeverShows(t *testing.T) {
	const secret = "hunter2-secret-value"
	e, _ := webPage(t, "/web/password")
	f := byTestID(t, e, "secret-input")
	if err := e.Perform(context.Background(), testOp, f.Ref, wire.LocatorAction{Kind: wire.ActionFill, Value: secret, Sensitive: true}); err != nil {
		t.Fatal(err)
	}
	if got := textOf(t, e, "secret-length"); got != "length: 20" {
		t.Fatalf("after the fill: %q", got)
	}
	snap, err := e.Observe(context.Background(), testOp, wire.EngineObserveOptions{Pixels: true})
	if err != nil {
		t.Fatal(err)
	}
	var field *wire.SemanticNode
	snap.Root.Walk(func(n *wire.SemanticNode) bool {
		if n.TestID != nil && *n.TestID == "secret-input" {
			field = n
		}
		return true
	})
	if field == nil || field.Rect == nil || !field.State("secure") {
		t.Fatalf("the password field is not observed as secure with a rect: %+v", field)
	}
	if field.Value != nil && *field.Value != "" {
		t.Errorf("the secure field carries a value")
	}
	if snap.MaskedRegionCount == nil || *snap.MaskedRegionCount != 1 {
		t.Errorf("maskedRegionCount %v, want 1", snap.MaskedRegionCount)
	}
	raw, _ := base64.StdEncoding.DecodeString(snap.Pixels.Data)
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	r := field.Rect
	for _, p := range [][2]float64{{r.X + 2, r.Y + 2}, {r.X + r.Width/2, r.Y + r.Height/2}, {r.X + r.Width - 2, r.Y + r.Height - 2}} {
		cr, cg, cb, _ := img.At(int(p[0]*snap.Pixels.Scale), int(p[1]*snap.Pixels.Scale)).RGBA()
		if cr|cg|cb != 0 {
			t.Errorf("pixel at %v inside the secure field is not black", p)
		}
	}
}

func TestUploadAndDragAndDrop(t *testing.T) {
	e, base := webPage(t, "/web/upload")
	dir := t.TempDir()
	var paths []string
	for _, n := range []string{"a.txt", "b.csv"} {
		p := filepath.Join(dir, n)
		os.WriteFile(p, []byte(n), 0o644)
		paths = append(paths, p)
	}
	in := byTestID(t, e, "upload-input")
	if err := e.Perform(context.Background(), testOp, in.Ref, wire.LocatorAction{Kind: wire.ActionSetInputFiles, Paths: paths}); err != nil {
		t.Fatal(err)
	}
	if got := textOf(t, e, "upload-status"); got != "files: a.txt, b.csv" {
		t.Errorf("upload status %q", got)
	}
	err := e.Perform(context.Background(), testOp, in.Ref, wire.LocatorAction{Kind: wire.ActionSetInputFiles, Paths: []string{filepath.Join(dir, "missing")}})
	wantCode(t, err, engineerr.NotActionable, "missing")

	if err := e.Open(context.Background(), testOp, base+"/web/dnd"); err != nil {
		t.Fatal(err)
	}
	src, dst := byTestID(t, e, "dnd-source"), byTestID(t, e, "dnd-target")
	if err := e.Perform(context.Background(), testOp, src.Ref, wire.LocatorAction{Kind: wire.ActionDragTo, Target: &dst.Ref}); err != nil {
		t.Fatal(err)
	}
	if got := textOf(t, e, "dnd-status"); got != "dropped: dnd-source" {
		t.Errorf("after dragTo: %q", got)
	}
}

func TestURLPolicy(t *testing.T) {
	e := newTestEngine(t)
	for _, u := range []string{"file:///etc/passwd", "javascript:alert(1)", "data:text/html,hi", "chrome://settings"} {
		err := e.Open(context.Background(), testOp, u)
		var e2 *engineerr.E2EError
		if !errorsAs(err, &e2) || e2.Code != "INVALID_ARGUMENT" {
			t.Errorf("open %s: %v, want INVALID_ARGUMENT", u, err)
		}
	}
}

// clientOf connects to an in-process engine over the loopback transport.
func clientOf(t *testing.T) *client.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := client.Open(ctx, client.ConnConfig{Transport: Transport(Options{}), Context: transport.Context{Role: wire.RoleWorker, Env: map[string]string{}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(10 * time.Second) })
	if err := c.Init(ctx, wire.InitParams{RunID: "r", TargetName: "web", Env: map[string]string{}}); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestVideoSegmentsPerPage(t *testing.T) {
	srv := httptest.NewServer(web.Handler())
	defer srv.Close()
	c := clientOf(t)
	ctx := context.Background()
	dir := t.TempDir()
	if err := c.StartAttempt(ctx, wire.StartAttemptParams{AttemptID: "a1", ArtifactsDir: dir}); err != nil {
		t.Fatal(err)
	}
	o := client.Op{RunID: "r", AttemptID: "a1"}
	if err := c.StartVideo(ctx, o); err != nil {
		t.Fatal(err)
	}
	if err := c.Open(ctx, o, srv.URL+"/counter"); err != nil {
		t.Fatal(err)
	}
	if err := c.Restart(ctx, o); err != nil {
		t.Fatal(err)
	}
	if err := c.Open(ctx, o, srv.URL+"/form"); err != nil {
		t.Fatal(err)
	}
	segs, err := c.StopVideo(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range segs {
		got = append(got, s.Path)
		data, err := os.ReadFile(filepath.Join(dir, s.Path))
		if err != nil || !bytes.HasPrefix(data, []byte{0x1a, 0x45, 0xdf, 0xa3}) {
			t.Errorf("%s is not a WebM file (%v)", s.Path, err)
		}
		if _, err := time.Parse("2006-01-02T15:04:05.000Z", s.StartedAt); err != nil {
			t.Errorf("%s startedAt %q", s.Path, s.StartedAt)
		}
	}
	if want := []string{"video/video.webm", "video/video-part2.webm"}; !slices.Equal(got, want) {
		t.Errorf("segments %v, want %v", got, want)
	}
}

func TestStateRoundTripAndDisposeInit(t *testing.T) {
	srv := httptest.NewServer(web.Handler())
	defer srv.Close()
	c := clientOf(t)
	ctx := context.Background()
	if err := c.StartAttempt(ctx, wire.StartAttemptParams{AttemptID: "a1", ArtifactsDir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	o := client.Op{RunID: "r", AttemptID: "a1"}
	stored := func() string {
		t.Helper()
		if err := c.Open(ctx, o, srv.URL+"/storage"); err != nil {
			t.Fatal(err)
		}
		got, err := c.Locate(ctx, o, wire.LocatorExpression{Kind: wire.ExprQuery, Query: &wire.SemanticQuery{Kind: wire.QueryTestID, Value: wire.StringPattern("stored-values", true)}})
		if err != nil || len(got) != 1 || got[0].Text == nil {
			t.Fatalf("stored values: %v %v", got, err)
		}
		return *got[0].Text
	}
	if err := c.Open(ctx, o, srv.URL+"/storage?set=v1"); err != nil {
		t.Fatal(err)
	}
	st, err := c.Capture(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Reset(ctx, o); err != nil {
		t.Fatal(err)
	}
	if got := stored(); got != "stored values: none" {
		t.Fatalf("after reset: %q", got)
	}
	if err := c.Restore(ctx, o, *st); err != nil {
		t.Fatal(err)
	}
	if got := stored(); got != "stored values: v1" {
		t.Fatalf("after restore: %q", got)
	}
	if err := c.Restart(ctx, o); err != nil {
		t.Fatal(err)
	}
	if got := stored(); got != "stored values: v1" {
		t.Fatalf("after restart: %q", got)
	}
	bad := *st
	bad.Format = "something-else"
	if err := c.Restore(ctx, o, bad); err == nil {
		t.Fatal("a state of another format was restored")
	}
	if err := c.EndAttempt(ctx, 5000); err != nil {
		t.Fatal(err)
	}
	if err := c.Dispose(ctx, 5000, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Dispose(ctx, 5000, nil); err != nil {
		t.Fatalf("dispose on a cold engine: %v", err)
	}
	if err := c.Init(ctx, wire.InitParams{RunID: "r", TargetName: "web", Env: map[string]string{}}); err != nil {
		t.Fatalf("init after dispose: %v", err)
	}
	if err := c.Open(ctx, o, srv.URL+"/counter"); err != nil {
		t.Fatalf("open after re-init: %v", err)
	}
}
