package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/e2e-conform/toolkit/protocol/engineerr"
	"github.com/e2e-conform/toolkit/protocol/rpc"
	"github.com/e2e-conform/toolkit/protocol/schema"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// ErrClosedWithoutShutdown is returned by ServeEngine when the connection
// ended before shutdown was answered (spec §2.6); a spawned server then exits
// with status 1.
var ErrClosedWithoutShutdown = errors.New("connection closed without shutdown")

// Options configure ServeEngine. The zero value is ready to use.
type Options struct {
	// Logger receives the server's own diagnostics; nil discards them.
	Logger *slog.Logger
	// Schemas validates params; nil loads the embedded schemas (share one
	// Set between connections to avoid compiling them per connection).
	Schemas *schema.Set
	// MaxMessageBytes raises the receive and send limit above
	// wire.MaxMessageBytes; lower values are for tests only.
	MaxMessageBytes int
	// Trace sees every frame read and written.
	Trace func(dir rpc.Direction, content []byte)
	// DrainTimeout bounds how long ServeEngine waits, after the connection
	// ended, for engine calls that ignore their cancelled context; 0 means 3 s.
	DrainTimeout time.Duration
	// MaxInFlight caps the requests a connection has read and not yet
	// answered; 0 means DefaultMaxInFlight. At the cap the server stops
	// reading until a response has been written (backpressure: a client
	// that sends requests and never reads the responses holds at most this
	// many, and its writes block once the transport's buffers are full).
	MaxInFlight int

	// atCap, set by tests, is told each time reading stops at the cap,
	// with the number of requests in flight.
	atCap func(inFlight int)
}

// DefaultMaxInFlight is the default cap on a connection's requests in
// flight (Options.MaxInFlight).
const DefaultMaxInFlight = 256

// ServeEngine serves engine over one connection until exit arrives or the
// streams close, then returns: nil after shutdown, ErrClosedWithoutShutdown
// otherwise, or an error if the engine's manifest is invalid (spec §9.4).
// rwc is closed when ServeEngine returns.
func ServeEngine(ctx context.Context, engine Engine, rwc io.ReadWriteCloser, opts Options) error {
	if engine == nil {
		return errors.New("server: nil engine")
	}
	return serve(ctx, engine, nil, rwc, opts)
}

// ServeFactory is ServeEngine for an engine built at initialize by factory
// from initializationOptions (spec §2.2).
func ServeFactory(ctx context.Context, factory Factory, rwc io.ReadWriteCloser, opts Options) error {
	if factory == nil {
		return errors.New("server: nil factory")
	}
	return serve(ctx, nil, factory, rwc, opts)
}

type connState int

const (
	stateNew connState = iota
	stateReady
	stateShutdown
)

type conn struct {
	opts    Options
	log     *slog.Logger
	schemas *schema.Set
	factory Factory
	stream  *rpc.Stream
	rpc     *rpc.Conn
	ctx     context.Context // cancelled (cause ErrAborted) on close without shutdown
	cancel  context.CancelCauseFunc
	signals *signalTable

	mu           sync.Mutex
	state        connState
	engine       Engine
	manifest     wire.Manifest
	attempt      *Attempt
	attemptSig   *liveSignal
	pending      map[string]bool // ids of requests not yet answered
	sawInit      bool
	sawPrepare   bool
	shutdownDone bool
	exited       bool

	noteMu      sync.Mutex // orders notifications; never held while reading
	initialized bool       // the initialized notification arrived (under noteMu)
	queued      []queuedNote

	inflight    sync.WaitGroup // engine calls running
	workers     *workers       // the goroutines engine calls run on
	slots       chan struct{}  // one token per request read and not yet answered
	derivations derivations
	reuse       []*liveSignal
}

type queuedNote struct {
	method string
	params any
}

func serve(ctx context.Context, engine Engine, factory Factory, rwc io.ReadWriteCloser, opts Options) error {
	capacity := opts.MaxInFlight
	if capacity <= 0 {
		capacity = DefaultMaxInFlight
	}
	c := &conn{opts: opts, factory: factory, pending: map[string]bool{}, slots: make(chan struct{}, capacity), workers: newWorkers()}
	c.log = opts.Logger
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	c.schemas = opts.Schemas
	if c.schemas == nil {
		s, err := schema.Load()
		if err != nil {
			rwc.Close()
			return fmt.Errorf("server: loading schemas: %w", err)
		}
		c.schemas = s
	}
	if engine != nil {
		m, err := describeChecked(engine, c.schemas)
		if err != nil {
			rwc.Close()
			return err
		}
		c.engine, c.manifest = engine, m
	}
	c.ctx, c.cancel = context.WithCancelCause(context.WithoutCancel(ctx))
	c.signals = newSignalTable(c.ctx)
	c.stream = rpc.NewStream(rwc, rwc, rwc.Close, rpc.StreamOptions{
		Mode: rpc.ServerMode, MaxMessageBytes: opts.MaxMessageBytes, Trace: opts.Trace,
		OnFault: func(fe *rpc.FrameError) { c.log.Warn("malformed input", "kind", fe.Kind, "error", fe.Error()) },
	})
	c.mu.Lock() // Handle waits until c.rpc is set
	c.rpc = rpc.NewConn(c.stream, c, rpc.ConnOptions{OnResponse: c.received,
		OnUnknownResponse: func(id json.RawMessage) { c.log.Debug("ignoring a response to no pending request", "id", clip(id)) }})
	c.mu.Unlock()
	return c.run(ctx)
}

// received runs on the reading goroutine for every response to the
// server's own requests, before the next message is read. A response to an
// attempt/resolveSecret forgets its derivation there (spec §6.6: "A
// derivation is forgotten once its attempt/resolveSecret is answered"), so
// that an attempt/deriveSecret read after the answer gets -32602 whenever
// the waiting engine call gets to run.
func (c *conn) received(method string, id uint64, _ json.RawMessage, _ *rpc.Error) {
	if method == wire.MethodResolveSecret {
		c.derivations.answered(int64(id))
	}
}

// closeEngine calls the engine's Close when it implements io.Closer: the
// engine releases what it started (browsers, child processes) when its
// connection ends, whether or not dispose and shutdown came first.
func (c *conn) closeEngine() {
	c.mu.Lock()
	e := c.engine
	c.mu.Unlock()
	if cl, ok := e.(io.Closer); ok {
		if err := cl.Close(); err != nil {
			c.log.Warn("closing the engine", "error", err)
		}
	}
}

// run waits for the connection to end, then cleans up.
//
// Implements: LIFE-008, TRN-005.
func (c *conn) run(ctx context.Context) error {
	select {
	case <-c.rpc.Done():
	case <-ctx.Done():
		c.rpc.Close()
	}
	c.mu.Lock()
	clean := c.shutdownDone
	c.mu.Unlock()
	if !clean {
		// §2.6: abort every signal without a reason; responses that can no
		// longer be written are discarded.
		c.cancel(engineerr.ErrAborted)
	}
	done := make(chan struct{})
	go func() { c.inflight.Wait(); close(done) }()
	drain := c.opts.DrainTimeout
	if drain <= 0 {
		drain = 3 * time.Second
	}
	t := time.NewTimer(drain)
	defer t.Stop()
	drained := true
	select {
	case <-done:
	case <-t.C:
		drained = false
		c.log.Warn("engine calls still running after the connection ended; not waiting for them")
	}
	c.workers.stop(drained)
	c.cancel(context.Canceled)
	c.closeEngine()
	if clean {
		return nil
	}
	if err := c.stream.Err(); err != nil {
		return fmt.Errorf("%w: %w", ErrClosedWithoutShutdown, err)
	}
	return ErrClosedWithoutShutdown
}

// Handle is called by the connection for every request and notification,
// in arrival order, on the reading goroutine. It does the protocol checks
// and registers signals synchronously (spec §1.5) and hands engine work to
// a goroutine.
//
// Implements: WIRE-008, WIRE-011, SIG-008.
func (c *conn) Handle(rc *rpc.Conn, req *rpc.Request) {
	if req.Notif() {
		c.handleNotification(req)
		return
	}
	id := idKey(req.ID)
	c.mu.Lock()
	if c.pending[id] {
		c.mu.Unlock()
		c.replyError(rc, req.ID, wire.CodeInvalidRequest, fmt.Sprintf("request id %s is already pending on this connection", clip(req.ID)))
		return
	}
	c.pending[id] = true
	c.mu.Unlock()
	c.acquire()
	r := &request{c: c, rc: rc, req: req, id: id}
	r.dispatch()
}

// acquire takes a slot for a request before it is dispatched; at the cap
// it blocks the reading goroutine until a response has been written.
func (c *conn) acquire() {
	select {
	case c.slots <- struct{}{}:
		return
	default:
	}
	if c.opts.atCap != nil {
		c.opts.atCap(len(c.slots))
	}
	c.slots <- struct{}{}
}

// Implements: LIFE-005, LIFE-007, SIG-007, WIRE-009.
func (c *conn) handleNotification(req *rpc.Request) {
	c.mu.Lock()
	state := c.state
	c.mu.Unlock()
	switch req.Method {
	case wire.MethodExit:
		c.mu.Lock()
		c.exited = true
		c.mu.Unlock()
		go c.rpc.Close() // closing from the reading goroutine is fine, but keep Handle short
	case wire.MethodInitialized:
		if state == stateNew {
			return
		}
		c.noteMu.Lock()
		if !c.initialized {
			c.initialized = true
			q := c.queued
			c.queued = nil
			for _, n := range q {
				c.send(n.method, n.params)
			}
		}
		c.noteMu.Unlock()
	case wire.MethodAbort:
		if state == stateNew {
			return
		}
		var p wire.AbortParams
		if req.Params == nil || json.Unmarshal(req.Params, &p) != nil {
			c.log.Debug("ignoring $/abort with malformed params")
			return
		}
		if err := c.schemas.ValidateParams(wire.MethodAbort, req.Params); err != nil {
			c.log.Debug("ignoring $/abort with invalid params", "error", err)
			return
		}
		c.signals.abort(p.ID, p.Reason)
	default:
		// Unknown notifications, $/cancelRequest included, are ignored,
		// unless the engine takes notifications of its own (an extension
		// outside the protocol's "$/" space).
		if state != stateReady || strings.HasPrefix(req.Method, "$/") {
			return
		}
		c.mu.Lock()
		nh, ok := c.engine.(NotificationHandler)
		c.mu.Unlock()
		if ok {
			func() {
				defer func() {
					if p := recover(); p != nil {
						c.log.Warn("engine panicked on a notification", "method", req.Method, "panic", fmt.Sprint(p))
					}
				}()
				nh.HandleNotification(req.Method, req.Params)
			}()
		}
	}
}

// notify sends a server-to-client notification; before initialized arrives
// it is queued (spec §2.3), after shutdown it is still sent while the
// connection lives.
//
// Implements: LIFE-005.
func (c *conn) notify(method string, params any) {
	c.noteMu.Lock()
	defer c.noteMu.Unlock()
	if !c.initialized {
		if len(c.queued) < 1024 {
			c.queued = append(c.queued, queuedNote{method, params})
		}
		return
	}
	c.send(method, params)
}

// send writes a notification; c.noteMu is held, which keeps order with the
// initialized flush.
func (c *conn) send(method string, params any) {
	if err := c.rpc.Notify(method, params); err != nil && !errors.Is(err, rpc.ErrClosed) {
		c.log.Warn("cannot send notification", "method", method, "error", err)
	}
}

// log sends engine/log lines.
//
// Implements: S2C-003.
func (c *conn) engineLog(line string) {
	for _, l := range splitLines(line) {
		c.notify(wire.MethodEngineLog, wire.EngineLogParams{Line: l})
	}
}

// call sends a server-to-client request (attempt/resolveSecret) with ids
// 1, 2, 3, … and decodes its result or error.
func (c *conn) call(ctx context.Context, method string, params any, result any) error {
	return c.callBound(ctx, method, params, result, nil)
}

// idKey is the form under which a request id is remembered as pending:
// as written, with a string's escapes decoded.
func idKey(raw json.RawMessage) string {
	if len(raw) > 0 && raw[0] == '"' && bytes.IndexByte(raw, '\\') >= 0 {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return strconv.Quote(s)
		}
	}
	return string(raw)
}

// callBound is call; bind, when not nil, learns the request id before the
// request is written.
//
// Implements: S2C-004, S2C-006, S2C-007.
func (c *conn) callBound(ctx context.Context, method string, params any, result any, bind func(id int64)) error {
	c.noteMu.Lock()
	ready := c.initialized
	c.noteMu.Unlock()
	if !ready {
		return engineerr.New(engineerr.InvalidState, "%s before the client sent initialized", method)
	}
	var bindID func(uint64)
	if bind != nil {
		bindID = func(id uint64) { bind(int64(id)) }
	}
	call, err := c.rpc.Call(method, params, bindID)
	if err != nil {
		return engineerr.New(engineerr.EngineFailure, "sending %s: %v", method, err)
	}
	raw, err := call.Wait(ctx)
	var je *rpc.Error
	switch {
	case errors.As(err, &je):
		return engineerr.Decode(&wire.ErrorObject{Code: je.Code, Message: je.Message, Data: je.Data})
	case err != nil && ctx.Err() != nil:
		c.rpc.Forget(call)
		return context.Cause(ctx)
	case err != nil:
		return engineerr.New(engineerr.EngineFailure, "%s: connection closed", method)
	}
	if err := c.schemas.ValidateResult(method, raw); err != nil {
		return engineerr.New(engineerr.EngineFailure, "malformed %s result: %v", method, err)
	}
	return json.Unmarshal(raw, result)
}

func (c *conn) replyError(rc *rpc.Conn, id json.RawMessage, code int64, msg string) {
	if err := rc.ReplyError(id, code, msg, nil); err != nil && !errors.Is(err, rpc.ErrClosed) {
		c.log.Debug("cannot reply", "error", err)
	}
}

// recoverPanic turns a panic in engine code into an engine ENGINE_FAILURE
// carrying the stack. (D36 would answer -32603; the toolkit issue asks for
// ENGINE_FAILURE, which the client classifies the same way, as an
// infrastructure failure, and which keeps the panic's stack in data.)
func recoverPanic(err *error) {
	if p := recover(); p != nil {
		*err = &engineerr.EngineError{Code: engineerr.EngineFailure, Message: fmt.Sprintf("engine panicked: %v", p),
			Details: engineerr.Details{Stack: string(debug.Stack())}}
	}
}
