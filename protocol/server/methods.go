package server

import (
	"context"
	"errors"

	"github.com/e2e-conform/toolkit/protocol/engineerr"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// call is the engine work of one request.
type call func(ctx context.Context) (any, error)

// run registers the request's signal (synchronously, §1.5) and runs fn in
// its own goroutine (a worker's, see workers). An operation whose signal is aborted at send is
// answered at once without calling the engine (§7.5, D24).
//
// Implements: SIG-001, SIG-002, SIG-012.
func (r *request) run(ref wire.SignalRef, operation bool, fn call) {
	c := r.c
	c.mu.Lock()
	open := c.attempt != nil
	c.mu.Unlock()
	sig := c.signals.acquire(ref, open)
	if operation && sig.ctx.Err() != nil {
		r.replyErr(context.Cause(sig.ctx), true)
		c.signals.release(sig)
		return
	}
	c.inflight.Add(1)
	c.workers.do(func() {
		defer c.inflight.Done()
		defer c.signals.release(sig)
		r.finish(sig.ctx, invoke(sig.ctx, fn))
	})
}

type outcome struct {
	result any
	err    error
}

func invoke(ctx context.Context, fn call) (o outcome) {
	defer recoverPanic(&o.err)
	o.result, o.err = fn(ctx)
	return o
}

// finish answers with the outcome; after an abort a context error becomes
// the abort's cause (the reason, or ErrAborted → CANCELLED).
//
// Implements: SIG-004, SIG-005, SIG-006.
func (r *request) finish(ctx context.Context, o outcome) {
	aborted := ctx.Err() != nil
	if o.err != nil {
		err := o.err
		if aborted && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
			if cause := context.Cause(ctx); cause != nil {
				err = cause
			}
		}
		r.replyErr(err, aborted)
		return
	}
	r.replyResult(o.result)
}

func (c *conn) currentAttempt() *Attempt {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.attempt
}

func (c *conn) op(o wire.Operation) Operation {
	origin := o.Origin
	if origin == "" {
		origin = wire.OriginAgent
	}
	return Operation{TimeoutMs: o.TimeoutMs, RunID: o.RunID, AttemptID: o.AttemptID, Origin: origin, Attempt: c.currentAttempt()}
}

// Implements: ACT-015, ACT-018, PTR-005, KEY-005, WIRE-010.
func (r *request) engineMethod(method string, raw []byte) {
	c := r.c
	e := c.engine
	switch method {
	case wire.MethodObserve:
		var p wire.ObserveParams
		if !r.decode(raw, &p) {
			return
		}
		r.observe(p)
	case wire.MethodLocate:
		var p wire.LocateParams
		if !r.decode(raw, &p) {
			return
		}
		op := c.op(p.Operation)
		r.run(p.Operation.Signal, true, func(ctx context.Context) (any, error) {
			nodes, err := e.(Locator).Locate(ctx, op, &p.Expression)
			if nodes == nil {
				nodes = []wire.SemanticNode{}
			}
			return nodes, err
		})
	case wire.MethodPerform:
		var p wire.PerformParams
		if !r.decode(raw, &p) {
			return
		}
		if p.Action.Kind == wire.ActionPress {
			if _, err := wire.ParseKey(p.Action.Key); err != nil {
				r.replyCode(wire.CodeInvalidParams, "invalid params: /action/key: %v", err)
				return
			}
		}
		op := c.op(p.Operation)
		r.run(p.Operation.Signal, true, func(ctx context.Context) (any, error) {
			if !c.manifest.HasAction(p.Action.Kind) {
				return nil, engineerr.New(engineerr.UnsupportedCapability, "action kind %s is not in this engine's actions", p.Action.Kind)
			}
			if len(p.Action.Modifiers) > 0 && !c.manifest.TapModifiers {
				return nil, engineerr.New(engineerr.UnsupportedCapability, "%s with modifiers needs tapModifiers: true, which this engine does not declare", p.Action.Kind)
			}
			return nil, e.(Performer).Perform(ctx, op, p.Ref, p.Action)
		})
	case wire.MethodPerformAt:
		var p wire.PerformAtParams
		if !r.decode(raw, &p) {
			return
		}
		op := c.op(p.Operation)
		r.run(p.Operation.Signal, true, func(ctx context.Context) (any, error) {
			if !c.manifest.HasPointerAction(p.Action.Kind) {
				return nil, engineerr.New(engineerr.UnsupportedCapability, "pointer action kind %s is not in this engine's pointerActions", p.Action.Kind)
			}
			return nil, e.(PointerPerformer).PerformAt(ctx, op, p.Point, p.Action)
		})
	case wire.MethodType:
		var p wire.TypeParams
		if !r.decode(raw, &p) {
			return
		}
		op := c.op(p.Operation)
		r.run(p.Operation.Signal, true, func(ctx context.Context) (any, error) {
			return nil, e.(Keyboard).Type(ctx, op, p.Text, p.Options)
		})
	case wire.MethodPress:
		var p wire.PressParams
		if !r.decode(raw, &p) {
			return
		}
		key, err := wire.ParseKey(p.Key)
		if err != nil {
			r.replyCode(wire.CodeInvalidParams, "invalid params: /key: %v", err)
			return
		}
		op := c.op(p.Operation)
		r.run(p.Operation.Signal, true, func(ctx context.Context) (any, error) {
			return nil, e.(Keyboard).Press(ctx, op, key)
		})
	case wire.MethodDismiss, wire.MethodCapture, wire.MethodStartVideo, wire.MethodStopVideo,
		wire.MethodBack, wire.MethodRestart, wire.MethodReset:
		r.operation(raw, r.operationCall(method))
	case wire.MethodRestore:
		var p wire.RestoreParams
		if !r.decode(raw, &p) {
			return
		}
		op := c.op(p.Operation)
		r.run(p.Operation.Signal, true, func(ctx context.Context) (any, error) {
			return nil, e.(StateKeeper).Restore(ctx, op, p.State)
		})
	case wire.MethodScreenshot:
		var p wire.ScreenshotParams
		if !r.decode(raw, &p) {
			return
		}
		op := c.op(p.Operation)
		r.run(p.Operation.Signal, true, func(ctx context.Context) (any, error) {
			s, err := e.(Screenshotter).Screenshot(ctx, op, p.Label)
			if err == nil && s == nil {
				err = engineerr.New(engineerr.EngineFailure, "the engine returned no screenshot")
			}
			return s, err
		})
	case wire.MethodOpen:
		var p wire.OpenParams
		if !r.decode(raw, &p) {
			return
		}
		op := c.op(p.Operation)
		r.run(p.Operation.Signal, true, func(ctx context.Context) (any, error) {
			return nil, e.(SessionOpener).Open(ctx, op, p.URL)
		})
	default:
		r.lifecycle(method, raw)
	}
}

// operation handles the methods whose params are {operation}.
func (r *request) operation(raw []byte, fn opCall) {
	var p wire.OperationParams
	if !r.decode(raw, &p) {
		return
	}
	r.runOperation(p.Operation, fn)
}

func (r *request) runOperation(o wire.Operation, fn opCall) {
	op := r.c.op(o)
	r.run(o.Signal, true, func(ctx context.Context) (any, error) { return fn(ctx, op) })
}

// opCall is the engine call of a method whose params are {operation}.
type opCall func(ctx context.Context, op Operation) (any, error)

// operationCall is the engine call of method when its params are
// {operation} alone, nil otherwise.
func (r *request) operationCall(method string) opCall {
	e := r.c.engine
	switch method {
	case wire.MethodDismiss:
		return func(ctx context.Context, op Operation) (any, error) {
			return nil, e.(KeyboardDismisser).Dismiss(ctx, op)
		}
	case wire.MethodCapture:
		return func(ctx context.Context, op Operation) (any, error) {
			s, err := e.(StateKeeper).Capture(ctx, op)
			if err == nil && s == nil {
				err = engineerr.New(engineerr.EngineFailure, "the engine returned no state")
			}
			return s, err
		}
	case wire.MethodStartVideo:
		return func(ctx context.Context, op Operation) (any, error) {
			return nil, e.(VideoRecorder).StartVideo(ctx, op)
		}
	case wire.MethodStopVideo:
		return func(ctx context.Context, op Operation) (any, error) {
			segs, err := e.(VideoRecorder).StopVideo(ctx, op)
			if segs == nil {
				segs = []wire.VideoSegment{}
			}
			return segs, err
		}
	case wire.MethodBack:
		return func(ctx context.Context, op Operation) (any, error) {
			return nil, e.(SessionBacker).Back(ctx, op)
		}
	case wire.MethodRestart:
		return func(ctx context.Context, op Operation) (any, error) {
			return nil, e.(SessionRestarter).Restart(ctx, op)
		}
	case wire.MethodReset:
		return func(ctx context.Context, op Operation) (any, error) {
			return nil, e.(SessionResetter).Reset(ctx, op)
		}
	}
	return nil
}

// observe runs engine/observe with its decoded params.
func (r *request) observe(p wire.ObserveParams) {
	e := r.c.engine
	var opts wire.EngineObserveOptions
	if p.Options != nil {
		opts = *p.Options
	}
	op := r.c.op(p.Operation)
	r.run(p.Operation.Signal, true, func(ctx context.Context) (any, error) {
		s, err := e.(Observer).Observe(ctx, op, opts)
		if err == nil && s == nil {
			err = engineerr.New(engineerr.EngineFailure, "the engine returned no snapshot")
		}
		return s, err
	})
}

// strictMethod handles a method whose params have a strict decoder in the
// wire package (engine/observe and the {operation} methods), whose verdict
// is the schema's (schema's FuzzParamsDecoders): params it accepts run
// without a schema run. It returns false when the method has no strict
// decoder or the decoder did not accept the params; the caller then
// validates them with the schema, which words the invalid-params answer.
func (r *request) strictMethod(method string, raw []byte) bool {
	if method == wire.MethodObserve {
		p, err := wire.DecodeObserveParams(raw)
		if err != nil {
			return false
		}
		r.observe(p)
		return true
	}
	fn := r.operationCall(method)
	if fn == nil {
		return false
	}
	p, err := wire.DecodeOperationParams(raw)
	if err != nil {
		return false
	}
	r.runOperation(p.Operation, fn)
	return true
}
