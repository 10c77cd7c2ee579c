package webengine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/e2e-conform/toolkit/protocol/engineerr"
	"github.com/e2e-conform/toolkit/protocol/server"
)

// errBudget is the cause of an operation context whose timeoutMs ran out.
var errBudget = errors.New("the operation's budget ran out")

func ptr[T any](v T) *T { return &v }

func errorsAs[T any](err error, target *T) bool { return errors.As(err, target) }

func unquote(s string) (string, error) {
	var out string
	err := json.Unmarshal([]byte(s), &out)
	return out, err
}

// opContext bounds ctx (the request's context, cancelled by the signal) by
// the operation's timeoutMs.
//
// Implements: SIG-012.
func opContext(ctx context.Context, op server.Operation) (context.Context, context.CancelFunc) {
	return budgetContext(ctx, op.TimeoutMs)
}

// budgetContext bounds ctx by ms milliseconds (ms <= 0: no bound).
func budgetContext(ctx context.Context, ms float64) (context.Context, context.CancelFunc) {
	if ms <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeoutCause(ctx, time.Duration(ms*float64(time.Millisecond)), errBudget)
}

// begin starts an operation on the operation's page: the page, and a
// context carrying the page's chromedp target that ends with the request's
// signal or the operation's budget; done releases it. A dialog nobody
// handled since the last operation fails this one (web-engine §2.11).
func (e *Engine) begin(ctx context.Context, op server.Operation) (*tab, context.Context, func(), error) {
	// The budget covers everything, waiting for Chromium's start and
	// opening the page included.
	octx, cancel := opContext(ctx, op)
	t, err := e.page(octx, op)
	if err != nil {
		cancel()
		return nil, nil, nil, classify(ctx, octx, "opening the page", false, err)
	}
	if err := t.s.dialog.take(); err != nil {
		cancel()
		return nil, nil, nil, err
	}
	cctx, ccancel := bounded(t.ctx, octx)
	return t, cctx, func() { ccancel(); cancel() }, nil
}

// bounded returns a context carrying base's chromedp target (base has no
// deadline) that ends when op ends, with op's cause.
func bounded(base, op context.Context) (context.Context, context.CancelFunc) {
	c, cancel := context.WithCancelCause(base)
	if d, ok := op.Deadline(); ok {
		var dc context.CancelFunc
		c, dc = context.WithDeadline(c, d)
		stop := context.AfterFunc(op, func() { cancel(context.Cause(op)) })
		return c, func() { stop(); dc(); cancel(context.Canceled) }
	}
	stop := context.AfterFunc(op, func() { cancel(context.Cause(op)) })
	return c, func() { stop(); cancel(context.Canceled) }
}

// staleTexts are CDP and V8 messages of a read racing a navigation.
var staleTexts = []string{
	"Execution context was destroyed",
	"Cannot find context with specified id",
	"Inspected target navigated or closed",
	"frame was detached",
	"Frame was detached",
	"No node with given id found",
	"Node is detached from document",
}

// classify turns err of an operation into the protocol's error: the abort
// reason when the request's signal aborted (ctx), OPERATION_TIMEOUT when the
// budget ran out — ACTION_MAY_HAVE_COMMITTED once input was dispatched —,
// NODE_STALE for a navigation race, classified errors unchanged, and
// ENGINE_FAILURE otherwise. cctx is the bounded context the call ran in.
//
// Implements: SIG-012, ACT-016.
func classify(ctx, cctx context.Context, what string, committed bool, err error) error {
	if err == nil {
		return nil
	}
	var ee *engineerr.EngineError
	var e2 *engineerr.E2EError
	if errors.As(err, &ee) || errors.As(err, &e2) {
		return err
	}
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	if errors.Is(err, errBudget) || errors.Is(err, context.DeadlineExceeded) || (cctx != nil && cctx.Err() != nil) {
		if committed {
			return engineerr.New(engineerr.ActionMayHaveCommitted, "%s timed out before the page answered; its input may have been dispatched", what)
		}
		return engineerr.New(engineerr.OperationTimeout, "%s timed out", what)
	}
	msg := err.Error()
	for _, s := range staleTexts {
		if strings.Contains(msg, s) {
			if committed {
				return engineerr.New(engineerr.ActionMayHaveCommitted, "%s: the page changed while its input was dispatched (%s)", what, s)
			}
			return engineerr.Retryable(engineerr.NodeStale, "%s: the page changed during the call (%s)", what, s)
		}
	}
	if errors.Is(err, errBrowserGone) || strings.Contains(msg, "lost the connection to the browser") {
		return &engineerr.EngineError{Code: engineerr.EngineFailure, Message: fmt.Sprintf("%s: the browser went away", what), Details: engineerr.Details{Cause: err}}
	}
	if committed {
		return &engineerr.EngineError{Code: engineerr.ActionMayHaveCommitted, Message: fmt.Sprintf("%s failed after its input was dispatched: %v", what, err), Details: engineerr.Details{Cause: err}}
	}
	return &engineerr.EngineError{Code: engineerr.EngineFailure, Message: fmt.Sprintf("%s: %v", what, err), Details: engineerr.Details{Cause: err}}
}

// stale is the NODE_STALE error of a reference that names no live element.
//
// Implements: ACT-013.
func stale(id string) error {
	return engineerr.Retryable(engineerr.NodeStale, "node reference %s is stale", id)
}

// jsError is an exception thrown by an evaluated expression.
type jsError struct{ text string }

func (e *jsError) Error() string { return "page script: " + e.text }
