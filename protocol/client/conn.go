package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/e2e-conform/toolkit/protocol/engineerr"
	"github.com/e2e-conform/toolkit/protocol/rpc"
	"github.com/e2e-conform/toolkit/protocol/schema"
	"github.com/e2e-conform/toolkit/protocol/transport"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// DefaultAbortGrace is how long a call waits for its answer after its
// $/abort was sent before failing locally (spec §7.6, D25).
const DefaultAbortGrace = 5 * time.Second

// Handlers receive the server's notifications and secret requests (spec
// §6). Every member is optional. Handlers run on the connection's reading
// goroutine (notifications) or a goroutine per request (secrets): keep
// notification handlers short.
type Handlers struct {
	// EngineLog gets each engine/log line (multi-line text already split).
	EngineLog func(line string)
	// AppLog, Navigation, Environment and Screen get the attempt/*
	// notifications of the open attempt; others are dropped (spec §6.7).
	AppLog      func(attemptID string, entry wire.AppLogEntry)
	Navigation  func(attemptID, line string)
	Environment func(attemptID string, facts map[string]any)
	Screen      func(attemptID string, snapshot *wire.EngineSnapshot)
	// Secret provides a declared secret's value by name; ok false means the
	// name is not declared or the provider has no value (SECRET_UNAVAILABLE).
	// It runs again on every request; nothing is cached.
	Secret func(ctx context.Context, name string) (value string, ok bool, err error)
	// Redact registers values (a secret's plaintext and derived forms) for
	// redaction before the value is answered to the server.
	Redact func(attemptID, name string, values []string)
}

// ConnConfig configures one connection.
type ConnConfig struct {
	Transport transport.Transport
	// Context is the TransportContext: role, environment, working directory.
	Context transport.Context
	// Manifest is the declared manifest; the served one must match it
	// (spec §3.6). Nil accepts any valid manifest (the conformance suite's
	// discovery mode).
	Manifest              *wire.Manifest
	ClientInfo            wire.ClientInfo
	InitializationOptions json.RawMessage
	Handlers              Handlers
	// AbortGrace overrides DefaultAbortGrace.
	AbortGrace time.Duration
	Logger     *slog.Logger
	Schemas    *schema.Set
	// MaxMessageBytes raises the receive limit (lower values: tests only).
	MaxMessageBytes int
	// Trace sees every frame read and written.
	Trace func(dir rpc.Direction, content []byte)
}

// Conn is one initialized connection to an engine server: the handshake is
// done, the manifest checked, and every engine method is a typed Go method.
// It is safe for concurrent use. Close it with Close.
type Conn struct {
	cfg      ConnConfig
	tc       transport.Conn
	stream   *rpc.Stream
	rpc      *rpc.Conn
	schemas  *schema.Set
	log      *slog.Logger
	manifest wire.Manifest
	grace    time.Duration

	nextSignal atomic.Int64 // signal ids 1, 2, 3, …

	mu          sync.Mutex
	attempt     string // the open attempt's id, "" when none
	screens     bool
	closing     bool
	releaseOnce sync.Once
	lost        error // why the connection failed
	diagnosis   []string
	pending     sync.WaitGroup
}

// Open opens a connection over cfg.Transport, runs initialize, checks the
// manifest and sends initialized (spec §2.9 steps 1–2). Any failure is an
// infrastructure ENGINE_FAILURE carrying the transport diagnostics; no
// connection remains.
func Open(ctx context.Context, cfg ConnConfig) (*Conn, error) {
	if cfg.Transport == nil {
		return nil, engineerr.InvalidConfig("no transport configured")
	}
	if cfg.ClientInfo.Name == "" {
		cfg.ClientInfo.Name = "e2e-conform"
	}
	if cfg.Context.Role == "" {
		cfg.Context.Role = wire.RoleWorker
	}
	c := &Conn{cfg: cfg, schemas: cfg.Schemas, log: cfg.Logger, grace: cfg.AbortGrace}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	if c.grace <= 0 {
		c.grace = DefaultAbortGrace
	}
	if c.schemas == nil {
		s, err := schema.Load()
		if err != nil {
			return nil, err
		}
		c.schemas = s
	}
	tc, err := cfg.Transport.Open(ctx, cfg.Context)
	if err != nil {
		return nil, engineerr.Infrastructure("cannot open %s: %v", cfg.Transport.Label(), err)
	}
	c.tc = tc
	c.stream = rpc.NewStream(tc, tc, func() error { return nil }, rpc.StreamOptions{
		Mode: rpc.ClientMode, MaxMessageBytes: cfg.MaxMessageBytes, Trace: cfg.Trace,
	})
	c.rpc = rpc.NewConn(c.stream, handler{c}, rpc.ConnOptions{OnResponse: c.onResponse,
		OnUnknownResponse: func(id json.RawMessage) {
			// Spec §1.4: ignored, and recorded in the diagnostics.
			c.note(fmt.Sprintf("ignoring response %s with no corresponding request", clip(id)))
		}})
	if err := c.handshake(ctx); err != nil {
		c.abandon()
		return nil, err
	}
	return c, nil
}

func (c *Conn) note(s string) {
	c.log.Debug(s)
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.diagnosis) >= 20 {
		c.diagnosis = c.diagnosis[1:]
	}
	c.diagnosis = append(c.diagnosis, s)
}

func (c *Conn) handshake(ctx context.Context) error {
	params := wire.InitializeParams{ProtocolVersion: wire.ProtocolVersion, ClientInfo: c.cfg.ClientInfo,
		Role: c.cfg.Context.Role, InitializationOptions: c.cfg.InitializationOptions}
	var raw json.RawMessage
	if err := c.request(ctx, wire.MethodInitialize, params, &raw, nil); err != nil {
		if errors.Is(err, engineerr.Infrastructure("")) {
			return err
		}
		return engineerr.Infrastructure("initialize failed: %v", err)
	}
	var probe struct {
		ProtocolVersion json.RawMessage `json:"protocolVersion"`
		Manifest        json.RawMessage `json:"manifest"`
	}
	if err := json.Unmarshal(raw, &probe); err != nil || len(raw) == 0 || raw[0] != '{' {
		return engineerr.Infrastructure("initialize result is not an object: %s", clip(raw))
	}
	if string(probe.ProtocolVersion) != "1" {
		return engineerr.Infrastructure("server speaks protocolVersion %s; this client speaks 1", clip(probe.ProtocolVersion))
	}
	if err := c.schemas.ValidateManifest(probe.Manifest); err != nil {
		return engineerr.Infrastructure("the server's manifest is invalid: %v", err)
	}
	var served wire.Manifest
	if err := json.Unmarshal(probe.Manifest, &served); err != nil {
		return engineerr.Infrastructure("the server's manifest cannot be decoded: %v", err)
	}
	if c.cfg.Manifest != nil {
		if diff := Diff(*c.cfg.Manifest, served); diff != "" {
			return engineerr.Infrastructure("the server's manifest differs from the declared one: %s", diff)
		}
	}
	c.manifest = served
	if err := c.rpc.Notify(wire.MethodInitialized, json.RawMessage("{}")); err != nil {
		return c.lostError(wire.MethodInitialized, err)
	}
	return nil
}

// onResponse runs on the reading goroutine when a response arrives, before
// the waiting call sees it: the attempt closes for the client when the
// endAttempt response arrives (spec §6.7), so notifications read after it
// are dropped.
func (c *Conn) onResponse(method string, _ uint64, _ json.RawMessage, _ *rpc.Error) {
	if method != wire.MethodEndAttempt {
		return
	}
	c.mu.Lock()
	c.attempt, c.screens = "", false
	c.mu.Unlock()
}

// Manifest is the manifest the server announced (equal to the declared one
// under §3.6 when one was declared).
func (c *Conn) Manifest() wire.Manifest { return c.manifest }

// Diagnostics describes the connection's state for error messages: the
// transport's diagnostics, a framing fault, and recent protocol notes.
func (c *Conn) Diagnostics() string {
	var b strings.Builder
	if err := c.stream.Err(); err != nil {
		fmt.Fprintf(&b, "%v; ", err)
	}
	c.mu.Lock()
	notes := append([]string(nil), c.diagnosis...)
	c.mu.Unlock()
	if len(notes) > 0 {
		fmt.Fprintf(&b, "notes: %s; ", strings.Join(notes, "; "))
	}
	b.WriteString(c.tc.Diagnostics())
	return b.String()
}

// Sound reports whether the connection still stands, its stream never
// failed, and nothing unexpected was noted on it (a stray response, a
// malformed result or message, an abort that could not be sent): whether a
// caller may hand it on to further work.
func (c *Conn) Sound() bool {
	if c.disconnected() || c.stream.Err() != nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.diagnosis) == 0 && !c.closing
}

// lostError is the infrastructure ENGINE_FAILURE for a call on a lost
// connection (spec §2.6, CLI-003).
func (c *Conn) lostError(method string, cause error) error {
	c.mu.Lock()
	if c.lost == nil {
		c.lost = cause
	}
	c.mu.Unlock()
	if c.disconnected() {
		// The connection is never reused (D42): release the transport now,
		// so that the diagnostics carry the exit status and every stderr
		// line the server wrote before it went away.
		c.releaseOnce.Do(func() { _ = c.tc.Close(time.Second) })
	}
	e := engineerr.Infrastructure("%s failed: the connection to %s was lost: %s", method, c.cfg.Transport.Label(), c.Diagnostics())
	e.Cause = cause
	return e
}

// abandon releases the transport without the shutdown sequence.
func (c *Conn) abandon() {
	c.rpc.Close()
	c.releaseOnce.Do(func() { _ = c.tc.Close(time.Second) })
}

// disconnected reports whether the connection is gone.
func (c *Conn) disconnected() bool {
	select {
	case <-c.rpc.Done():
		return true
	default:
		return false
	}
}

// Signal is one abort signal on the wire (spec §7.1): an id minted by the
// client, and the context whose cancellation aborts it. Pass one to several
// calls with WithSignal to share its id.
type Signal struct {
	id   wire.SignalID
	ctx  context.Context
	once sync.Once // one $/abort per connection; consumed when sent aborted
}

// NewSignal mints a signal for ctx with this connection's next id.
func (c *Conn) NewSignal(ctx context.Context) *Signal {
	return &Signal{id: wire.IntSignalID(c.nextSignal.Add(1)), ctx: ctx}
}

// ID is the signal's id.
func (s *Signal) ID() wire.SignalID { return s.id }

type signalKey struct{}

// WithSignal makes calls with the returned context carry sig instead of a
// signal of their own.
func WithSignal(ctx context.Context, sig *Signal) context.Context {
	return context.WithValue(ctx, signalKey{}, sig)
}

// OperationTimeoutError is the reason sent when an operation's budget runs
// out without a harness reason (spec §7.6, D22).
func OperationTimeoutError(ms int64) *engineerr.EngineError {
	return engineerr.New(engineerr.OperationTimeout, "operation timed out after %d ms", ms)
}

// reason returns the abort reason of a done context: its cause when that is
// a classified error, OPERATION_TIMEOUT for a spent budget, nil for a bare
// cancellation.
func reason(ctx context.Context, budgetMs int64) *wire.ErrorObject {
	cause := context.Cause(ctx)
	var ee *engineerr.EngineError
	var e2 *engineerr.E2EError
	var re *engineerr.RemoteError
	if errors.As(cause, &ee) || errors.As(cause, &e2) || errors.As(cause, &re) {
		return engineerr.Encode(cause)
	}
	if errors.Is(cause, context.DeadlineExceeded) {
		return engineerr.Encode(OperationTimeoutError(budgetMs))
	}
	return nil
}

// ref is the SignalRef to send for sig now.
func ref(sig *Signal, budgetMs int64) wire.SignalRef {
	r := wire.SignalRef{ID: sig.id}
	if sig.ctx.Err() != nil {
		r.Aborted = true
		r.Reason = reason(sig.ctx, budgetMs)
		// The server does not store a signal sent aborted: no $/abort
		// follows for it.
		sig.once.Do(func() {})
	}
	return r
}

// abort sends $/abort for sig once on this connection.
func (c *Conn) abort(sig *Signal, budgetMs int64) {
	sig.once.Do(func() {
		p := wire.AbortParams{ID: sig.id, Reason: reason(sig.ctx, budgetMs)}
		if err := c.rpc.Notify(wire.MethodAbort, p); err != nil {
			c.note(fmt.Sprintf("cannot send $/abort: %v", err))
		}
	})
}

// Notify sends a notification the protocol does not define, an engine's
// own extension (e.g. the reference web engine's "web/dialogs"): a server
// that does not know it ignores it (spec §1.4), so nothing says whether it
// was taken. A request sent after it is read after it. "$/" methods and the
// protocol's own notifications are refused.
func (c *Conn) Notify(method string, params any) error {
	switch {
	case strings.HasPrefix(method, "$/"), method == wire.MethodInitialized, method == wire.MethodExit, method == "":
		return fmt.Errorf("client: %q is not an extension notification", method)
	case c.disconnected():
		return c.lostError(method, rpc.ErrClosed)
	}
	return c.rpc.Notify(method, params)
}

// request sends method and waits for its response. sig, when not nil, is
// the signal the params carry: when its context is cancelled the call sends
// $/abort and waits at most the abort grace before failing locally (spec
// §7.6). The result is validated against the method's result schema before
// it is decoded into result.
func (c *Conn) request(ctx context.Context, method string, params any, result any, sig *Signal) error {
	if c.disconnected() {
		return c.lostError(method, rpc.ErrClosed)
	}
	c.pending.Add(1)
	defer c.pending.Done()
	sent := time.Now()
	call, err := c.rpc.Call(method, params, nil)
	if err != nil {
		if errors.Is(err, rpc.ErrClosed) || c.disconnected() {
			return c.lostError(method, err)
		}
		return engineerr.Infrastructure("cannot send %s: %v", method, err)
	}
	// Waiter.Wait may be called again after its context ends, which is
	// how the abort grace continues the same wait.
	abortCtx := ctx
	if sig != nil {
		abortCtx = sig.ctx
	}
	raw, err := call.Wait(abortCtx)
	if err != nil && abortCtx.Err() != nil && errors.Is(err, abortCtx.Err()) {
		if sig == nil {
			c.rpc.Forget(call)
			na := &rpc.NoAnswerError{Method: method, ID: strconv.FormatUint(call.ID(), 10), Waited: time.Since(sent), Err: context.Cause(ctx)}
			e := engineerr.Infrastructure("%s was cancelled: %v", method, na)
			e.Cause = na
			return e
		}
		budget := budgetOf(params)
		c.abort(sig, budget)
		grace, cancel := context.WithTimeout(context.Background(), c.grace)
		raw, err = call.Wait(grace)
		cancel()
		if err != nil && grace.Err() != nil && errors.Is(err, grace.Err()) {
			c.rpc.Forget(call)
			// D25: fail locally; the late response is discarded.
			if r := reason(sig.ctx, budget); r != nil {
				return engineerr.Decode(r)
			}
			return engineerr.New(engineerr.Cancelled, "%s was aborted and not answered within %s: %v", method, c.grace,
				&rpc.NoAnswerError{Method: method, ID: strconv.FormatUint(call.ID(), 10), Waited: time.Since(sent)})
		}
	}
	return c.outcome(method, err, raw, result)
}

// budgetOf reads operation.timeoutMs from params, for the timeout reason.
func budgetOf(params any) int64 {
	b, err := json.Marshal(params)
	if err != nil {
		return 0
	}
	var p struct {
		Operation *wire.Operation `json:"operation"`
		TimeoutMs *float64        `json:"timeoutMs"`
	}
	_ = json.Unmarshal(b, &p)
	switch {
	case p.Operation != nil:
		return int64(p.Operation.TimeoutMs)
	case p.TimeoutMs != nil:
		return int64(*p.TimeoutMs)
	}
	return 0
}

// outcome classifies a response (spec §8.6).
func (c *Conn) outcome(method string, err error, raw json.RawMessage, result any) error {
	var je *rpc.Error
	switch {
	case errors.As(err, &je):
		eo := &wire.ErrorObject{Code: je.Code, Message: je.Message, Data: je.Data}
		// Decode classifies what it cannot read (a -32000 with unusable
		// data becomes infrastructure ENGINE_FAILURE): no schema run here.
		if je.Code == wire.CodeMethodNotFound && c.manifest.Lists(method) {
			return engineerr.Infrastructure("server does not answer %s although its manifest lists it", method)
		}
		return engineerr.Decode(eo)
	case err != nil:
		return c.lostError(method, err)
	}
	if result == nil {
		return nil
	}
	// Observations can hold thousands of nodes: they are checked by the
	// wire package's fast decoders, which agree with the schema (see
	// schema's FuzzDecodeSnapshot), instead of a schema run.
	switch p := result.(type) {
	case *wire.EngineSnapshot:
		if err := wire.DecodeSnapshotInto(raw, p); err != nil {
			*p = wire.EngineSnapshot{}
			return c.malformed(method, err)
		}
		return nil
	case *[]wire.SemanticNode:
		nodes, err := wire.DecodeNodes(raw)
		if err != nil {
			return c.malformed(method, err)
		}
		*p = nodes
		return nil
	}
	if method != wire.MethodInitialize {
		if verr := c.schemas.ValidateResult(method, raw); verr != nil {
			c.mu.Lock()
			c.lost = verr
			c.mu.Unlock()
			c.note(fmt.Sprintf("malformed %s result: %v", method, verr))
			go c.abandon() // a malformed message fails the connection (D10)
			return engineerr.Infrastructure("malformed %s result: %v", method, verr)
		}
	}
	if p, ok := result.(*json.RawMessage); ok {
		*p = bytes.Clone(raw)
		return nil
	}
	if err := wire.Unmarshal(raw, result); err != nil {
		go c.abandon()
		return engineerr.Infrastructure("malformed %s result: %v", method, err)
	}
	return nil
}

// malformed fails the connection for a malformed result (D10).
func (c *Conn) malformed(method string, err error) error {
	c.mu.Lock()
	if c.lost == nil {
		c.lost = err
	}
	c.mu.Unlock()
	c.note(fmt.Sprintf("malformed %s result: %v", method, err))
	go c.abandon()
	return engineerr.Infrastructure("malformed %s result: %v", method, err)
}

func clip(b []byte) string {
	if len(b) > 120 {
		return string(b[:120]) + "…"
	}
	return string(b)
}
