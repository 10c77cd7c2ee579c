package server

import (
	"context"
	"encoding/json"

	"github.com/e2e-conform/toolkit/protocol/wire"
)

// Engine is an engine implementation served by ServeEngine. Info gives its
// static manifest members; each optional interface below that the value
// implements adds the methods of spec §3.2 it answers, and DescribeEngine
// derives the manifest from them.
//
// An engine that implements io.Closer is closed once its connection has
// ended and its calls have drained (or the drain timeout passed): the place
// to stop what it started, whether or not dispose came first.
//
// Engines are called concurrently (spec §1.5, D28): one goroutine per
// request. Every method receives a context that is cancelled when the
// request's signal aborts (context.Cause is the decoded abort reason, or
// engineerr.ErrAborted without one) or when the connection ends without
// shutdown. An engine that returns the cause, or ctx.Err() after the abort,
// is answered with that reason verbatim (or CANCELLED), as spec §7.5 says.
type Engine interface {
	Info() Info
}

// Info holds an engine's static manifest members (spec §3.1, §3.5).
type Info struct {
	Name     string
	Version  string
	Platform string // "" is absent
	Workers  int64  // 0 is absent
	// Actions are the LocatorAction kinds engine/perform honors; required
	// with Performer.
	Actions []string
	// PointerActions are the PointerAction kinds engine/performAt honors;
	// required with PointerPerformer.
	PointerActions []string
	// TapModifiers: tap, doubleTap and secondaryTap may carry modifiers.
	TapModifiers bool
}

// Operation is what an operation method receives besides its arguments (the
// rest of spec §5.1's Operation is the context).
type Operation struct {
	TimeoutMs float64
	RunID     string
	AttemptID string
	Origin    string // "test" or "agent" (an absent origin reads as "agent")
	// Attempt is the open attempt the operation belongs to, nil when none is
	// open.
	Attempt *Attempt
}

// Observer answers engine/observe (spec §4.8).
type Observer interface {
	Observe(ctx context.Context, op Operation, opts wire.EngineObserveOptions) (*wire.EngineSnapshot, error)
}

// Locator answers engine/locate (spec §4.9).
type Locator interface {
	Locate(ctx context.Context, op Operation, expr *wire.LocatorExpression) ([]wire.SemanticNode, error)
}

// NotificationHandler is an optional engine interface for an engine's own
// extension: it receives the client notifications the protocol does not
// define (spec §1.4: a receiver ignores those it does not know, so a client
// may send one to any engine), "$/" ones aside, while the connection is
// initialized and not shut down. It is called on the reading goroutine in
// arrival order, so a request read after the notification is served after
// it was handled; it must not block (store what it carries and return).
type NotificationHandler interface {
	HandleNotification(method string, params json.RawMessage)
}

// Performer answers engine/perform (spec §4.10). The server has already
// refused kinds outside Info.Actions and modifiers without TapModifiers.
type Performer interface {
	Perform(ctx context.Context, op Operation, ref wire.NodeRef, action wire.LocatorAction) error
}

// PointerPerformer answers engine/performAt (spec §4.11). The server has
// already refused kinds outside Info.PointerActions.
type PointerPerformer interface {
	PerformAt(ctx context.Context, op Operation, point wire.ViewportPoint, action wire.PointerAction) error
}

// Keyboard answers keyboard/type and keyboard/press (spec §4.12, §4.13).
// Press receives keys already checked against the key grammar.
type Keyboard interface {
	Type(ctx context.Context, op Operation, text string, opts wire.TypeOptions) error
	Press(ctx context.Context, op Operation, key wire.Key) error
}

// KeyboardDismisser answers keyboard/dismiss (spec §4.14).
type KeyboardDismisser interface {
	Dismiss(ctx context.Context, op Operation) error
}

// StateKeeper answers state/capture and state/restore (spec §4.15).
type StateKeeper interface {
	Capture(ctx context.Context, op Operation) (*wire.EngineState, error)
	Restore(ctx context.Context, op Operation, state wire.EngineState) error
}

// Screenshotter answers artifacts/screenshot (spec §4.16). label is nil
// when absent.
type Screenshotter interface {
	Screenshot(ctx context.Context, op Operation, label *string) (*wire.ScreenshotResult, error)
}

// VideoRecorder answers artifacts/startVideo and artifacts/stopVideo (spec §4.17).
type VideoRecorder interface {
	StartVideo(ctx context.Context, op Operation) error
	StopVideo(ctx context.Context, op Operation) ([]wire.VideoSegment, error)
}

// SessionOpener answers session/open (spec §4.18).
type SessionOpener interface {
	Open(ctx context.Context, op Operation, url string) error
}

// SessionBacker answers session/back.
type SessionBacker interface {
	Back(ctx context.Context, op Operation) error
}

// SessionRestarter answers session/restart.
type SessionRestarter interface {
	Restart(ctx context.Context, op Operation) error
}

// SessionResetter answers session/reset.
type SessionResetter interface {
	Reset(ctx context.Context, op Operation) error
}

// PrepareInfo is lifecycle/prepare's EnginePrepareInfo (spec §4.1).
type PrepareInfo struct {
	wire.PrepareParams
	// Log sends one engine/log line (split at line breaks).
	Log func(line string)
}

// FinishInfo is lifecycle/finish's EngineFinishInfo (spec §4.2).
type FinishInfo struct {
	wire.FinishParams
	Log func(line string)
}

// InitInfo is lifecycle/init's EngineInitInfo (spec §4.3). Log stays
// callable after Init returns (D29).
type InitInfo struct {
	wire.InitParams
	Log func(line string)
}

// Cleanup is the EngineCleanupContext of settleAttempt and endAttempt.
type Cleanup struct {
	TimeoutMs float64
	Attempt   *Attempt // the attempt being settled or ended; nil when none is open
}

// DisposeInfo is lifecycle/dispose's argument (spec §4.7). Reuse is nil
// without a reuseSignal; otherwise it is cancelled when that signal aborts
// (or the connection closes without shutdown), and the engine must then
// release what it kept warm.
type DisposeInfo struct {
	TimeoutMs float64
	Reuse     context.Context
}

// Preparer answers lifecycle/prepare; a nil result is answered as null.
type Preparer interface {
	Prepare(ctx context.Context, info PrepareInfo) (*wire.PrepareResult, error)
}

// Finisher answers lifecycle/finish.
type Finisher interface {
	Finish(ctx context.Context, info FinishInfo) error
}

// Initializer answers lifecycle/init.
type Initializer interface {
	Init(ctx context.Context, info InitInfo) error
}

// AttemptStarter is called on lifecycle/startAttempt. The server itself
// answers startAttempt for engines without it (spec §3.5).
type AttemptStarter interface {
	StartAttempt(ctx context.Context, a *Attempt) error
}

// AttemptSettler answers lifecycle/settleAttempt.
type AttemptSettler interface {
	SettleAttempt(ctx context.Context, c Cleanup) error
}

// AttemptEnder is called on lifecycle/endAttempt; the server answers it
// itself for engines without it, and answers a second endAttempt, or one
// without an open attempt, with null without calling the engine.
type AttemptEnder interface {
	EndAttempt(ctx context.Context, c Cleanup) error
}

// Disposer answers lifecycle/dispose.
type Disposer interface {
	Dispose(ctx context.Context, info DisposeInfo) error
}

// Factory builds an engine at initialize from initializationOptions (nil
// when absent). A factory error is answered as an engine error and the
// server stays uninitialized (spec §2.2).
type Factory func(ctx context.Context, initializationOptions []byte) (Engine, error)
