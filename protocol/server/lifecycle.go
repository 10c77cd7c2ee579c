package server

import (
	"context"

	"github.com/e2e-conform/toolkit/protocol/engineerr"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// Implements: LIFE-009, LIFE-010, LIFE-014, LIFE-015, LIFE-016, LIFE-017, LIFE-018, SIG-011.
func (r *request) lifecycle(method string, raw []byte) {
	c := r.c
	e := c.engine
	switch method {
	case wire.MethodPrepare:
		var p wire.PrepareParams
		if !r.decode(raw, &p) {
			return
		}
		c.mu.Lock()
		c.sawPrepare = true
		c.mu.Unlock()
		r.run(p.Signal, false, func(ctx context.Context) (any, error) {
			res, err := e.(Preparer).Prepare(ctx, PrepareInfo{PrepareParams: p, Log: c.engineLog})
			if err != nil || res == nil {
				return nil, err
			}
			return res, nil
		})
	case wire.MethodFinish:
		var p wire.FinishParams
		if !r.decode(raw, &p) {
			return
		}
		c.mu.Lock()
		prepared := c.sawPrepare
		c.mu.Unlock()
		_, hasPrepare := e.(Preparer)
		r.run(p.Signal, false, func(ctx context.Context) (any, error) {
			if hasPrepare && !prepared {
				return nil, nil // §4.2: finish succeeds without a prepare
			}
			return nil, e.(Finisher).Finish(ctx, FinishInfo{FinishParams: p, Log: c.engineLog})
		})
	case wire.MethodInit:
		var p wire.InitParams
		if !r.decode(raw, &p) {
			return
		}
		c.mu.Lock()
		c.sawInit = true
		c.mu.Unlock()
		r.run(p.Signal, false, func(ctx context.Context) (any, error) {
			return nil, e.(Initializer).Init(ctx, InitInfo{InitParams: p, Log: c.engineLog})
		})
	case wire.MethodStartAttempt:
		r.startAttempt(raw)
	case wire.MethodSettleAttempt:
		var p wire.CleanupParams
		if !r.decode(raw, &p) {
			return
		}
		a := c.currentAttempt()
		r.run(p.Signal, false, func(ctx context.Context) (any, error) {
			return nil, e.(AttemptSettler).SettleAttempt(ctx, Cleanup{TimeoutMs: p.TimeoutMs, Attempt: a})
		})
	case wire.MethodEndAttempt:
		r.endAttempt(raw)
	case wire.MethodDispose:
		var p wire.DisposeParams
		if !r.decode(raw, &p) {
			return
		}
		c.mu.Lock()
		cold := !c.sawInit
		c.mu.Unlock()
		_, hasInit := e.(Initializer)
		info := DisposeInfo{TimeoutMs: p.TimeoutMs}
		if p.ReuseSignal != nil {
			// The reuse signal outlives dispose (§4.7): keep a reference
			// until it aborts or the connection ends.
			s := c.signals.acquire(*p.ReuseSignal, false)
			c.mu.Lock()
			c.reuse = append(c.reuse, s)
			c.mu.Unlock()
			info.Reuse = s.ctx
		}
		r.run(p.Signal, false, func(ctx context.Context) (any, error) {
			if hasInit && cold {
				return nil, nil // §4.7: a cold engine answers null
			}
			return nil, e.(Disposer).Dispose(ctx, info)
		})
	default:
		r.replyCode(wire.CodeMethodNotFound, "method not found: %s", method)
	}
}

// Implements: LIFE-011, LIFE-012, WIRE-010.
func (r *request) startAttempt(raw []byte) {
	c := r.c
	var p wire.StartAttemptParams
	if !r.decode(raw, &p) {
		return
	}
	c.mu.Lock()
	if c.attempt != nil {
		cur := c.attempt.ID
		c.mu.Unlock()
		r.replyErr(engineerr.New(engineerr.InvalidState, "attempt %q is still open: endAttempt it before starting %q", cur, p.AttemptID), false)
		return
	}
	// The attempt is open from the receipt of startAttempt (§7.4): its own
	// signal is attempt-scoped.
	sig := c.signals.acquire(p.Signal, true)
	a := &Attempt{ID: p.AttemptID, ArtifactsDir: p.ArtifactsDir, Screens: p.Screens, c: c}
	a.ctx, a.cancel = context.WithCancelCause(sig.ctx)
	c.attempt, c.attemptSig = a, sig
	c.mu.Unlock()
	starter, ok := c.engine.(AttemptStarter)
	r.run(p.Signal, false, func(ctx context.Context) (any, error) {
		if !ok {
			return nil, nil
		}
		return nil, starter.StartAttempt(ctx, a)
	})
}

// Implements: LIFE-013, SIG-010.
func (r *request) endAttempt(raw []byte) {
	c := r.c
	var p wire.CleanupParams
	if !r.decode(raw, &p) {
		return
	}
	c.mu.Lock()
	a, sig := c.attempt, c.attemptSig
	ending := a != nil && !a.ending
	if ending {
		a.ending = true
	}
	c.mu.Unlock()
	ender, hasEnder := c.engine.(AttemptEnder)
	if !ending {
		// §4.6: idempotent — no attempt open, or its end is under way.
		r.run(p.Signal, false, func(context.Context) (any, error) { return nil, nil })
		return
	}
	r.runThen(p.Signal, func(ctx context.Context) (any, error) {
		if !hasEnder {
			return nil, nil
		}
		return nil, ender.EndAttempt(ctx, Cleanup{TimeoutMs: p.TimeoutMs, Attempt: a})
	}, func(answer func()) {
		// Close the attempt and write the response atomically with respect
		// to its notifications (§4.6, §6.7). The bookkeeping comes first, so
		// that a startAttempt the client sends as soon as it reads the
		// response never finds this attempt still open.
		a.mu.Lock()
		a.ended = true
		c.mu.Lock()
		if c.attempt == a {
			c.attempt, c.attemptSig = nil, nil
		}
		c.mu.Unlock()
		c.signals.forgetScoped()
		answer()
		a.mu.Unlock()
		a.cancel(ErrAttemptEnded)
		c.signals.release(sig)
	})
}

// runThen is run with a hook around writing the answer.
func (r *request) runThen(ref wire.SignalRef, fn call, around func(answer func())) {
	c := r.c
	sig := c.signals.acquire(ref, true)
	c.inflight.Add(1)
	go func() {
		defer c.inflight.Done()
		defer c.signals.release(sig)
		o := invoke(sig.ctx, fn)
		around(func() { r.finish(sig.ctx, o) })
	}()
}
