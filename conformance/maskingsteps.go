package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/e2e-conform/toolkit/conformance/fixture"
	"github.com/e2e-conform/toolkit/protocol/client"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// The steps of the specs that judge masking in images (D75: OBS-010 in
// observation pixels, ART-006 in screenshots) and of the screenshots taken
// where the server cannot write the artifact directory (ART-003, ART-006).

// fxTypePassword puts a typed value into the password field of the staged
// form fixture (snap its observation): a sensitive fill of a fresh canary,
// registered as a secret, when the engine declares fill, else focus and
// keyboard/type of a plain value (keyboard/type carries no sensitive flag,
// so its value is no secret an engine must keep out of its logs). It
// returns the first observation whose password length status shows the
// value's characters, or nil and why the field does not hold it: the
// engine declares neither way, refused a step, or the status never showed
// the length within 5 s. The caller's clause is then not verified.
func (e *runEnv) fxTypePassword(ctx context.Context, c *client.Conn, op client.Op, snap *wire.EngineSnapshot) (*wire.EngineSnapshot, string) {
	sc := fixture.Form()
	ref := fxNode(snap, sc, fixture.FormPassword()).Ref
	var v string
	switch {
	case e.fxCanPerform(wire.ActionFill):
		v = fxCanary("e2e-conform-password-")
		e.Secret(v)
		if err := c.Perform(ctx, op, ref, wire.LocatorAction{Kind: wire.ActionFill, Value: v, Sensitive: true}); err != nil {
			return nil, "engine/perform fill (sensitive) of the password field answered " + fxDescribeError(err)
		}
	case e.fxCanPerform(wire.ActionFocus) && e.Manifest.Lists(wire.MethodType):
		v = fxCanary("e2e-conform-typed-")
		if err := c.Perform(ctx, op, ref, wire.LocatorAction{Kind: wire.ActionFocus}); err != nil {
			return nil, "engine/perform focus of the password field answered " + fxDescribeError(err)
		}
		if err := c.Type(ctx, op, v, true); err != nil {
			return nil, "keyboard/type into the focused password field answered " + fxDescribeError(err)
		}
	default:
		return nil, "the engine declares neither engine/perform fill nor focus with keyboard/type, so the suite cannot put a value into the password field"
	}
	st := fixture.FormPasswordLength()
	want := strconv.Itoa(len(v)) // the canaries are ASCII
	got, ok := fxEventually(ctx, c, op, 5*time.Second, "of the form fixture after typing the password", func(s *wire.EngineSnapshot) bool {
		n, _ := st.Read(&s.Root)
		return n == want
	})
	if !ok {
		n, _ := st.Read(&got.Root)
		return nil, fmt.Sprintf("the form fixture's %q status did not show the %s characters typed within 5 s (it reads %q)", st.TestID, want, n)
	}
	return got, ""
}

// fxPasswordRect returns the password field's rect in snap, or nil and why
// it cannot be judged.
func fxPasswordRect(snap *wire.EngineSnapshot) (*wire.Rect, string) {
	n := fixture.FormPassword().Find(&snap.Root)
	switch {
	case n == nil:
		return nil, "the observation holds no password field"
	case n.Rect == nil:
		return nil, "the observation gives the password field no rect"
	}
	return n.Rect, ""
}

// secureMasks judges D75 for every node of snap with states.secure: true
// in img, an image of snap's viewport. It returns the judgements of the
// nodes found unmasked and of those it could not judge, each prefixed with
// the node's description, and the judgement of the node el (nil when el is
// not secure in snap).
func secureMasks(img image.Image, snap *wire.EngineSnapshot, el fixture.Element) (unmasked, unjudged []string, of *maskJudgement) {
	target := el.Find(&snap.Root)
	snap.Root.Walk(func(n *wire.SemanticNode) bool {
		if !n.State("secure") {
			return true
		}
		what := fmt.Sprintf("the secure node %q", n.Ref.ID)
		if n.TestID != nil && *n.TestID != "" {
			what += fmt.Sprintf(" (test id %q)", *n.TestID)
		}
		var j maskJudgement
		if n.Rect == nil {
			j = maskJudgement{verdict: maskUnjudged, detail: "it has no rect"}
		} else {
			j = judgeMask(img, snap.Viewport, *n.Rect)
		}
		if n == target {
			jj := j
			of = &jj
		}
		switch j.verdict {
		case maskUnmasked:
			unmasked = append(unmasked, what+": "+j.detail)
		case maskUnjudged:
			unjudged = append(unjudged, what+": "+j.detail)
		}
		return true
	})
	return unmasked, unjudged, of
}

// unwritableDir returns an existing directory in which the suite (and so a
// server it spawned, or one on its machine, under the same user or a less
// privileged one) cannot create a file or a directory: the artifactsDir of
// an attempt where the server "cannot write the artifact directory"
// (§4.16). First a directory of its own under the run's artifacts
// directory without write permission; where permissions do not bind (the
// suite runs as root), on Linux a directory of procfs (/proc/PID/fdinfo of
// the suite's process), in which no one creates files. Each is probed
// before it is used. It returns "" and why when none holds.
func (e *runEnv) unwritableDir() (string, string) {
	var tried []string
	if dir, err := os.MkdirTemp(e.Artifacts, "unwritable-"); err == nil {
		if err := os.Chmod(dir, 0o555); err == nil {
			why := writable(dir)
			if why == "" {
				DeferCleanup(func() { _ = os.Chmod(dir, 0o755) })
				return dir, ""
			}
			tried = append(tried, why)
		}
		_ = os.Chmod(dir, 0o755)
		_ = os.Remove(dir)
	}
	if runtime.GOOS == "linux" {
		dir := fmt.Sprintf("/proc/%d/fdinfo", os.Getpid())
		if st, err := os.Stat(dir); err == nil && st.IsDir() {
			why := writable(dir)
			if why == "" {
				return dir, ""
			}
			tried = append(tried, why)
		}
	}
	return "", "no directory the suite cannot write was found (" + orDefault(strings.Join(tried, "; "), "nothing to try on "+runtime.GOOS) + ")"
}

// writable probes dir: "" when neither a file nor a directory can be
// created in it, else what was created (and removed again).
func writable(dir string) string {
	if f, err := os.CreateTemp(dir, "e2e-conform-probe-"); err == nil {
		_ = f.Close()
		_ = os.Remove(f.Name())
		return "the suite could create a file in " + dir
	}
	sub := filepath.Join(dir, "e2e-conform-probe")
	if err := os.Mkdir(sub, 0o755); err == nil {
		_ = os.Remove(sub)
		return "the suite could create a directory in " + dir
	}
	return ""
}

// restartAttemptIn ends a's attempt and starts another on the same
// connection whose artifactsDir is dir. It returns "" when the new attempt
// runs, else why not: the engine lists no attempt boundaries (it never
// learns an artifactsDir), or one of the two calls answered an error (an
// engine may refuse a directory it cannot write; that is no verdict of the
// caller's requirement).
func (a *rawAttemptConn) restartAttemptIn(ctx context.Context, dir string) string {
	e := a.e
	if !e.Manifest.Lists(wire.MethodStartAttempt) || !e.Manifest.Lists(wire.MethodEndAttempt) {
		return "the engine does not list lifecycle/startAttempt and lifecycle/endAttempt, so it learns no artifactsDir it could fail to write"
	}
	if f := a.endAttempt(); f == nil || f.Error() != nil {
		return "lifecycle/endAttempt of the first attempt did not answer null"
	}
	attempt := e.nextID("attempt")
	a.Op.AttemptID = ""
	id := a.id()
	p, err := json.Marshal(wire.StartAttemptParams{AttemptID: attempt, ArtifactsDir: dir, Signal: wire.SignalRef{ID: wire.IntSignalID(int64(id))}})
	Expect(err).NotTo(HaveOccurred())
	f, err := a.Call(ctx, fmt.Sprint(id), wire.MethodStartAttempt, string(p))
	Expect(err).NotTo(HaveOccurred(), "lifecycle/startAttempt with artifactsDir %s: no response", dir)
	if eo := f.Error(); eo != nil {
		return fmt.Sprintf("lifecycle/startAttempt with the artifactsDir %s, which the server cannot write, answered error %d %q", dir, eo.Code, eo.Message)
	}
	a.Op.AttemptID, a.Dir, a.Started = attempt, dir, time.Now()
	return ""
}

// restartAttemptIn is rawAttemptConn.restartAttemptIn on a client
// connection: it ends op's attempt and returns the operation identity of a
// new one whose artifactsDir is dir, or why there is none.
func (e *runEnv) restartAttemptIn(ctx context.Context, c *client.Conn, op client.Op, dir string) (client.Op, string) {
	if !e.Manifest.Lists(wire.MethodStartAttempt) || !e.Manifest.Lists(wire.MethodEndAttempt) {
		return op, "the engine does not list lifecycle/startAttempt and lifecycle/endAttempt, so it learns no artifactsDir it could fail to write"
	}
	if err := c.EndAttempt(ctx, 5000); err != nil {
		return op, "lifecycle/endAttempt of the first attempt answered " + fxDescribeError(err)
	}
	attempt := e.nextID("attempt")
	if err := c.StartAttempt(ctx, wire.StartAttemptParams{AttemptID: attempt, ArtifactsDir: dir}); err != nil {
		return op, fmt.Sprintf("lifecycle/startAttempt with the artifactsDir %s, which the server cannot write, answered %s", dir, fxDescribeError(err))
	}
	return client.Op{RunID: op.RunID, AttemptID: attempt}, ""
}
