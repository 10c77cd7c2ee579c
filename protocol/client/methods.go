package client

import (
	"context"
	"errors"
	"math"
	"time"

	"github.com/e2e-conform/toolkit/protocol/engineerr"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// DefaultOperationTimeout is the budget an operation announces when its
// context has no deadline (the harness's actionTimeout default).
const DefaultOperationTimeout = 30 * time.Second

// Op identifies an operation on the wire (spec §5.1) besides its signal and
// budget, which come from the call's context.
type Op struct {
	RunID     string
	AttemptID string // "" uses the connection's open attempt
	Origin    string // "test" (default) or "agent"
}

// operation builds the wire Operation and the signal for a call: the
// context's signal (WithSignal) or a new one, and timeoutMs from the
// context's deadline (an integer ≥ 1, D50).
//
// An operation needs the attempt it belongs to: "Operation methods are
// called inside an attempt, with operation.attemptId equal to the open
// attempt's id […]; the client never sends one" outside (§4.3), and the
// Operation schema wants a non-empty runId and attemptId (§5.13). Without
// op's AttemptID and no attempt open on c (StartAttempt), or without its
// RunID, the call fails with INVALID_STATE (errors.Is ErrNoAttempt) and
// nothing is sent.
func (c *Conn) operation(ctx context.Context, op Op) (wire.Operation, *Signal, error) {
	attempt := op.AttemptID
	if attempt == "" {
		c.mu.Lock()
		attempt = c.attempt
		c.mu.Unlock()
	}
	if attempt == "" || op.RunID == "" {
		e := engineerr.New(engineerr.InvalidState, "%v (run id %q, attempt id %q)", ErrNoAttempt, op.RunID, attempt)
		e.Cause = ErrNoAttempt
		return wire.Operation{}, nil, e
	}
	sig := c.signalFor(ctx)
	budget := int64(DefaultOperationTimeout / time.Millisecond)
	if d, ok := ctx.Deadline(); ok {
		budget = int64(math.Ceil(float64(time.Until(d)) / float64(time.Millisecond)))
		if budget < 1 {
			budget = 1
		}
	}
	origin := op.Origin
	if origin == "" {
		origin = wire.OriginTest
	}
	return wire.Operation{Signal: ref(sig, budget), TimeoutMs: float64(budget), RunID: op.RunID, AttemptID: attempt, Origin: origin}, sig, nil
}

// ErrNoAttempt marks an operation method called with no run id, or with no
// attempt id and no attempt open on the connection: the client sends no
// operation outside an attempt (§4.3).
var ErrNoAttempt = errors.New("an operation method needs a run id and an open attempt's id (§4.3: operation methods are called inside an attempt)")

func (c *Conn) signalFor(ctx context.Context) *Signal {
	if s, ok := ctx.Value(signalKey{}).(*Signal); ok && s != nil {
		return s
	}
	return c.NewSignal(ctx)
}

// Observe sends engine/observe (spec §4.8).
func (c *Conn) Observe(ctx context.Context, op Op, opts *wire.EngineObserveOptions) (*wire.EngineSnapshot, error) {
	o, sig, err := c.operation(ctx, op)
	if err != nil {
		return nil, err
	}
	var s wire.EngineSnapshot
	if err := c.request(ctx, wire.MethodObserve, wire.ObserveParams{Operation: o, Options: opts}, &s, sig); err != nil {
		return nil, err
	}
	return &s, nil
}

// Locate sends engine/locate (spec §4.9).
func (c *Conn) Locate(ctx context.Context, op Op, expr wire.LocatorExpression) ([]wire.SemanticNode, error) {
	o, sig, err := c.operation(ctx, op)
	if err != nil {
		return nil, err
	}
	var nodes []wire.SemanticNode
	if err := c.request(ctx, wire.MethodLocate, wire.LocateParams{Expression: expr, Operation: o}, &nodes, sig); err != nil {
		return nil, err
	}
	if nodes == nil {
		nodes = []wire.SemanticNode{}
	}
	return nodes, nil
}

// Perform sends engine/perform (spec §4.10).
func (c *Conn) Perform(ctx context.Context, op Op, ref wire.NodeRef, action wire.LocatorAction) error {
	o, sig, err := c.operation(ctx, op)
	if err != nil {
		return err
	}
	return c.request(ctx, wire.MethodPerform, wire.PerformParams{Ref: ref, Action: action, Operation: o}, nil, sig)
}

// PerformAt sends engine/performAt (spec §4.11).
func (c *Conn) PerformAt(ctx context.Context, op Op, point wire.ViewportPoint, action wire.PointerAction) error {
	o, sig, err := c.operation(ctx, op)
	if err != nil {
		return err
	}
	return c.request(ctx, wire.MethodPerformAt, wire.PerformAtParams{Point: point, Action: action, Operation: o}, nil, sig)
}

// Type sends keyboard/type (spec §4.12).
func (c *Conn) Type(ctx context.Context, op Op, text string, replace bool) error {
	o, sig, err := c.operation(ctx, op)
	if err != nil {
		return err
	}
	return c.request(ctx, wire.MethodType, wire.TypeParams{Text: text, Options: wire.TypeOptions{Replace: replace}, Operation: o}, nil, sig)
}

// Press sends keyboard/press (spec §4.13).
func (c *Conn) Press(ctx context.Context, op Op, key string) error {
	o, sig, err := c.operation(ctx, op)
	if err != nil {
		return err
	}
	return c.request(ctx, wire.MethodPress, wire.PressParams{Key: key, Operation: o}, nil, sig)
}

// Dismiss sends keyboard/dismiss (spec §4.14).
func (c *Conn) Dismiss(ctx context.Context, op Op) error {
	return c.opOnly(ctx, wire.MethodDismiss, op, nil)
}

// Capture sends state/capture (spec §4.15).
func (c *Conn) Capture(ctx context.Context, op Op) (*wire.EngineState, error) {
	var s wire.EngineState
	if err := c.opOnly(ctx, wire.MethodCapture, op, &s); err != nil {
		return nil, err
	}
	return &s, nil
}

// Restore sends state/restore (spec §4.15).
func (c *Conn) Restore(ctx context.Context, op Op, state wire.EngineState) error {
	o, sig, err := c.operation(ctx, op)
	if err != nil {
		return err
	}
	return c.request(ctx, wire.MethodRestore, wire.RestoreParams{State: state, Operation: o}, nil, sig)
}

// Screenshot sends artifacts/screenshot (spec §4.16); label "" is absent.
func (c *Conn) Screenshot(ctx context.Context, op Op, label string) (*wire.ScreenshotResult, error) {
	o, sig, err := c.operation(ctx, op)
	if err != nil {
		return nil, err
	}
	p := wire.ScreenshotParams{Operation: o}
	if label != "" {
		p.Label = &label
	}
	var r wire.ScreenshotResult
	if err := c.request(ctx, wire.MethodScreenshot, p, &r, sig); err != nil {
		return nil, err
	}
	return &r, nil
}

// StartVideo sends artifacts/startVideo (spec §4.17).
func (c *Conn) StartVideo(ctx context.Context, op Op) error {
	return c.opOnly(ctx, wire.MethodStartVideo, op, nil)
}

// StopVideo sends artifacts/stopVideo (spec §4.17).
func (c *Conn) StopVideo(ctx context.Context, op Op) ([]wire.VideoSegment, error) {
	var segs []wire.VideoSegment
	if err := c.opOnly(ctx, wire.MethodStopVideo, op, &segs); err != nil {
		return nil, err
	}
	return segs, nil
}

// Open sends session/open (spec §4.18).
func (c *Conn) Open(ctx context.Context, op Op, url string) error {
	o, sig, err := c.operation(ctx, op)
	if err != nil {
		return err
	}
	return c.request(ctx, wire.MethodOpen, wire.OpenParams{URL: url, Operation: o}, nil, sig)
}

// Back sends session/back.
func (c *Conn) Back(ctx context.Context, op Op) error { return c.opOnly(ctx, wire.MethodBack, op, nil) }

// Restart sends session/restart.
func (c *Conn) Restart(ctx context.Context, op Op) error {
	return c.opOnly(ctx, wire.MethodRestart, op, nil)
}

// Reset sends session/reset.
func (c *Conn) Reset(ctx context.Context, op Op) error {
	return c.opOnly(ctx, wire.MethodReset, op, nil)
}

func (c *Conn) opOnly(ctx context.Context, method string, op Op, result any) error {
	o, sig, err := c.operation(ctx, op)
	if err != nil {
		return err
	}
	return c.request(ctx, method, wire.OperationParams{Operation: o}, result, sig)
}

// lifecycleSignal is the signal of a lifecycle call: the context's.
func (c *Conn) lifecycleSignal(ctx context.Context, budgetMs int64) (wire.SignalRef, *Signal) {
	sig := c.signalFor(ctx)
	return ref(sig, budgetMs), sig
}

// Prepare sends lifecycle/prepare (spec §4.1); p.Signal is set from ctx.
// A null result is returned as nil.
func (c *Conn) Prepare(ctx context.Context, p wire.PrepareParams) (*wire.PrepareResult, error) {
	var sig *Signal
	p.Signal, sig = c.lifecycleSignal(ctx, 0)
	var res *wire.PrepareResult
	if err := c.request(ctx, wire.MethodPrepare, p, &res, sig); err != nil {
		return nil, err
	}
	return res, nil
}

// Finish sends lifecycle/finish (spec §4.2).
func (c *Conn) Finish(ctx context.Context, p wire.FinishParams) error {
	var sig *Signal
	p.Signal, sig = c.lifecycleSignal(ctx, int64(p.TimeoutMs))
	return c.request(ctx, wire.MethodFinish, p, nil, sig)
}

// Init sends lifecycle/init (spec §4.3).
func (c *Conn) Init(ctx context.Context, p wire.InitParams) error {
	var sig *Signal
	p.Signal, sig = c.lifecycleSignal(ctx, 0)
	return c.request(ctx, wire.MethodInit, p, nil, sig)
}

// StartAttempt opens the attempt on this connection (its attempt/*
// notifications are accepted from now on) and sends lifecycle/startAttempt
// when the manifest lists it (spec §4.4).
func (c *Conn) StartAttempt(ctx context.Context, p wire.StartAttemptParams) error {
	c.mu.Lock()
	c.attempt, c.screens = p.AttemptID, p.Screens
	c.mu.Unlock()
	if !c.manifest.Lists(wire.MethodStartAttempt) {
		return nil
	}
	var sig *Signal
	p.Signal, sig = c.lifecycleSignal(ctx, 0)
	return c.request(ctx, wire.MethodStartAttempt, p, nil, sig)
}

// SettleAttempt sends lifecycle/settleAttempt (spec §4.5).
func (c *Conn) SettleAttempt(ctx context.Context, timeoutMs int64) error {
	if !c.manifest.Lists(wire.MethodSettleAttempt) {
		return nil
	}
	return c.cleanup(ctx, wire.MethodSettleAttempt, timeoutMs)
}

// EndAttempt sends lifecycle/endAttempt when listed and closes the attempt
// once its response arrived (spec §6.7): later attempt/* notifications for
// it are dropped.
func (c *Conn) EndAttempt(ctx context.Context, timeoutMs int64) error {
	var err error
	if c.manifest.Lists(wire.MethodEndAttempt) {
		err = c.cleanup(ctx, wire.MethodEndAttempt, timeoutMs)
	}
	c.mu.Lock()
	c.attempt, c.screens = "", false
	c.mu.Unlock()
	return err
}

// Dispose sends lifecycle/dispose (spec §4.7); reuse, when not nil, is sent
// as reuseSignal.
func (c *Conn) Dispose(ctx context.Context, timeoutMs int64, reuse *Signal) error {
	r, sig := c.lifecycleSignal(ctx, timeoutMs)
	p := wire.DisposeParams{Signal: r, TimeoutMs: float64(timeoutMs)}
	if reuse != nil {
		rr := ref(reuse, 0)
		p.ReuseSignal = &rr
		go func() {
			select {
			case <-reuse.ctx.Done():
				c.abort(reuse, 0)
			case <-c.rpc.Done():
			}
		}()
	}
	return c.request(ctx, wire.MethodDispose, p, nil, sig)
}

func (c *Conn) cleanup(ctx context.Context, method string, timeoutMs int64) error {
	r, sig := c.lifecycleSignal(ctx, timeoutMs)
	return c.request(ctx, method, wire.CleanupParams{Signal: r, TimeoutMs: float64(timeoutMs)}, nil, sig)
}

// Close ends the connection (spec §2.9, close steps 2–5): it waits until no
// other request is pending, sends shutdown and exit, and closes the
// transport, all within budget (at least 1000 ms, D42). A connection that
// was lost is only released. Close is idempotent.
func (c *Conn) Close(budget time.Duration) error {
	if budget < time.Second {
		budget = time.Second
	}
	c.mu.Lock()
	if c.closing {
		c.mu.Unlock()
		return nil
	}
	c.closing = true
	c.mu.Unlock()
	deadline := time.Now().Add(budget)
	if c.disconnected() {
		c.rpc.Close()
		return c.tc.Close(time.Until(deadline))
	}
	done := make(chan struct{})
	go func() { c.pending.Wait(); close(done) }()
	t := time.NewTimer(time.Until(deadline) / 2)
	select {
	case <-done:
	case <-t.C:
	}
	t.Stop()
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	var first error
	if err := c.request(ctx, wire.MethodShutdown, nil, nil, nil); err != nil {
		first = err
	} else if err := c.rpc.Notify(wire.MethodExit, nil); err != nil {
		first = c.lostError(wire.MethodExit, err)
	}
	c.rpc.Close()
	remaining := time.Until(deadline)
	if remaining <= 0 {
		remaining = time.Millisecond
	}
	if err := c.tc.Close(remaining); err != nil && first == nil {
		first = engineerr.Infrastructure("closing %s: %v", c.cfg.Transport.Label(), err)
	}
	return first
}

// Done is closed when the connection has ended.
func (c *Conn) Done() <-chan struct{} { return c.rpc.Done() }
