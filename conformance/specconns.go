package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/e2e-conform/toolkit/protocol/client"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// raw opens a raw connection that is released when the spec ends
// (rawConn.release).
func (e *runEnv) raw(ctx context.Context) *rawConn {
	r, err := e.openRaw(ctx)
	Expect(err).NotTo(HaveOccurred(), "opening a connection to the engine")
	DeferCleanup(func() { _ = r.release(5 * time.Second) })
	return r
}

// initialized opens a raw connection and runs the handshake.
func (e *runEnv) initialized(ctx context.Context) *rawConn {
	r := e.raw(ctx)
	_, err := r.Initialize(ctx)
	Expect(err).NotTo(HaveOccurred(), "initialize")
	return r
}

// open opens a client connection that is closed when the spec ends.
func (e *runEnv) open(ctx context.Context) (*client.Conn, *notifications) {
	c, msgs, err := e.Open(ctx, wire.RoleWorker)
	Expect(err).NotTo(HaveOccurred(), "opening and initializing a connection")
	DeferCleanup(func() { _ = c.Close(5 * time.Second) })
	return c, msgs
}

// inAttempt opens a client connection with an attempt started.
func (e *runEnv) inAttempt(ctx context.Context) (*client.Conn, client.Op, *notifications) {
	c, msgs := e.open(ctx)
	op, err := e.Attempt(ctx, c)
	Expect(err).NotTo(HaveOccurred(), "starting an attempt")
	return c, op, msgs
}

// expectCode checks that f is an error response with code.
func expectCode(f *frame, code int64, what string) *wire.ErrorObject {
	eo := f.Error()
	Expect(eo).NotTo(BeNil(), "%s: want error %d, got result %s", what, code, clip(string(f.Result())))
	Expect(eo.Code).To(Equal(code), "%s: want error %d, got %d %q", what, code, eo.Code, eo.Message)
	return eo
}

// expectResult checks that f is a successful response. A response that
// carries neither result nor error, or both, breaks WIRE-008 (the run-wide
// checks judge every response's shape): what the step needed of it is then
// unknown, so the spec is not verified rather than failed under a
// requirement the engine did not break (issue 25: response-neither failed
// S2C-001, S2C-005 and WIRE-011 on "the result of lifecycle/init").
func expectResult(f *frame, what string) json.RawMessage {
	_, hasResult := f.Msg["result"]
	_, hasError := f.Msg["error"]
	if hasResult == hasError {
		shape := "neither result nor error"
		if hasResult {
			shape = "both result and error"
		}
		Skip(notVerified + fmt.Sprintf("%s: the response carries %s, so what it answered is unknown (WIRE-008 judges the shape of every response): %s", what, shape, clip(string(f.Content))))
	}
	eo := f.Error()
	Expect(eo).To(BeNil(), "%s: want a result, got error %v", what, eo)
	return f.Result()
}

// engineErr decodes the data of a -32000 error.
type engineData struct {
	Type      string `json:"type"`
	Code      string `json:"code"`
	Category  string `json:"category"`
	Retryable *bool  `json:"retryable"`
}

func dataOf(eo *wire.ErrorObject) engineData {
	var d engineData
	_ = json.Unmarshal(eo.Data, &d)
	return d
}

// signalOp is a valid operation param with signal id.
func signalOp(id string, op client.Op) string {
	return fmt.Sprintf(`{"signal":{"id":%s},"timeoutMs":30000,"runId":%q,"attemptId":%q,"origin":"test"}`, id, orDefault(op.RunID, "run-x"), orDefault(op.AttemptID, "attempt-x"))
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// stage opens the fixture screen at path (a path on the suite's fixture
// server, e.g. "/counter") inside the attempt op of c, and returns the
// first observation that shows marker (a node whose name or text contains
// it). An engine that cannot stage the screen — no session/open or
// engine/observe, an open refused with an error (the staging rule, fxOpen),
// no marker within 5 s — skips the spec as not verified: fixture
// requirements are never passed by default.
func (e *runEnv) stage(ctx context.Context, c *client.Conn, op client.Op, path, marker string) *wire.EngineSnapshot {
	if !e.Manifest.Lists(wire.MethodOpen) || !e.Manifest.Lists(wire.MethodObserve) {
		Skip(notVerified + "the suite stages fixture screens with session/open and reads them with engine/observe, and the engine lacks one of them")
	}
	e.fxOpen(ctx, c, op, e.FixtureURL+path)
	deadline := time.Now().Add(5 * time.Second)
	for {
		snap, err := c.Observe(ctx, op, nil)
		Expect(err).NotTo(HaveOccurred(), "engine/observe of the fixture screen %s", path)
		if findText(&snap.Root, marker) != nil {
			return snap
		}
		if time.Now().After(deadline) {
			Skip(notVerified + fmt.Sprintf("the fixture screen %s did not show its marker %q within 5 s", path, marker))
		}
		select {
		case <-ctx.Done():
			Skip(notVerified + "the spec's budget ran out while staging " + path)
		case <-time.After(100 * time.Millisecond): // polling an observation, the harness's own way
		}
	}
}

// findText returns the first node (document order) whose name or text
// contains s.
func findText(root *wire.SemanticNode, s string) *wire.SemanticNode {
	var found *wire.SemanticNode
	root.Walk(func(n *wire.SemanticNode) bool {
		if (n.Name != nil && strings.Contains(*n.Name, s)) || (n.Text != nil && strings.Contains(*n.Text, s)) {
			found = n
			return false
		}
		return true
	})
	return found
}
