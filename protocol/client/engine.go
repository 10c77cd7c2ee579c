package client

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/e2e-conform/toolkit/protocol/engineerr"
	"github.com/e2e-conform/toolkit/protocol/locate"
	"github.com/e2e-conform/toolkit/protocol/schema"
	"github.com/e2e-conform/toolkit/protocol/transport"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// SessionHooks replace the server's session methods on the client (spec
// §2.10, §3.4): a set hook runs instead of the method, which is never sent.
type SessionHooks struct {
	Open    func(ctx context.Context, url string) error
	Back    func(ctx context.Context) error
	Restart func(ctx context.Context) error
	Reset   func(ctx context.Context) error
}

// Config configures an engine handle (the client configuration of spec §3).
type Config struct {
	// Transport opens the connections.
	Transport transport.Transport
	// Manifest is the declared manifest, validated when the handle is made.
	// The zero Manifest is discovered: each worker takes the one its
	// server's initialize result carries (Worker.Manifest), and the handle
	// has no run connection.
	Manifest wire.Manifest
	// ResolveLocators answers Locate on the client from one observation
	// (spec §10); it requires engine/observe and forbids engine/locate. With
	// a discovered manifest it applies to a server that lists no
	// engine/locate.
	ResolveLocators bool
	// Session hooks, each optional.
	Session SessionHooks
	// Handlers receive the server's messages and answer secret requests.
	Handlers              Handlers
	ClientInfo            wire.ClientInfo
	InitializationOptions json.RawMessage
	// Cwd is the project root, the transport's working directory.
	Cwd        string
	AbortGrace time.Duration
	Schemas    *schema.Set
	// Conn adjusts every connection's configuration (logging, tracing, limits).
	Conn func(*ConnConfig)
}

// ConnectEngine validates cfg and returns the engine handle (spec §2.9,
// §2.10). No connection opens here: the run connection opens at Prepare
// (only when the manifest lists lifecycle/prepare or lifecycle/finish) and a
// worker connection at its Init. A declared manifest breaking §3.3, or
// resolveLocators without engine/observe or with engine/locate, fails with
// configuration INVALID_CONFIG (CLI-001).
func ConnectEngine(cfg Config) (*Engine, error) {
	if cfg.Schemas == nil {
		s, err := schema.Load()
		if err != nil {
			return nil, err
		}
		cfg.Schemas = s
	}
	m := cfg.Manifest
	if discovered(m) {
		if cfg.Transport == nil {
			return nil, engineerr.InvalidConfig("engine: no transport configured")
		}
		return &Engine{cfg: cfg}, nil
	}
	raw, err := json.Marshal(m)
	if err != nil {
		return nil, engineerr.InvalidConfig("engine %q: manifest cannot be encoded: %v", m.Name, err)
	}
	if err := cfg.Schemas.ValidateManifest(raw); err != nil {
		return nil, engineerr.InvalidConfig("engine %q: %v", m.Name, err)
	}
	if cfg.ResolveLocators {
		if !m.Lists(wire.MethodObserve) {
			return nil, engineerr.InvalidConfig("engine %q: resolveLocators needs engine/observe in the manifest", m.Name)
		}
		if m.Lists(wire.MethodLocate) {
			return nil, engineerr.InvalidConfig("engine %q: resolveLocators with engine/locate in the manifest: two resolvers for one target would be ambiguous", m.Name)
		}
	}
	if cfg.Transport == nil {
		return nil, engineerr.InvalidConfig("engine %q: no transport configured", m.Name)
	}
	return &Engine{cfg: cfg}, nil
}

// discovered reports whether m is the zero manifest of Config.Manifest.
func discovered(m wire.Manifest) bool { return m.Name == "" && m.Version == "" && len(m.Methods) == 0 }

// Engine is the engine handle the harness drives.
type Engine struct {
	cfg Config

	mu  sync.Mutex
	run *Conn
}

// Manifest is the declared manifest.
func (e *Engine) Manifest() wire.Manifest { return e.cfg.Manifest }

func (e *Engine) open(ctx context.Context, role string, env map[string]string) (*Conn, error) {
	m := e.cfg.Manifest
	cc := ConnConfig{
		Transport: e.cfg.Transport, Context: transport.Context{Role: role, Env: env, Cwd: e.cfg.Cwd},
		Manifest: &m, ClientInfo: e.cfg.ClientInfo, InitializationOptions: e.cfg.InitializationOptions,
		Handlers: e.cfg.Handlers, AbortGrace: e.cfg.AbortGrace, Schemas: e.cfg.Schemas,
	}
	if discovered(m) {
		cc.Manifest = nil
	}
	if e.cfg.Conn != nil {
		e.cfg.Conn(&cc)
	}
	return Open(ctx, cc)
}

// Prepare opens the run connection and sends lifecycle/prepare when the
// manifest lists it (spec §2.8, §4.1). With neither prepare nor finish
// listed it does nothing and succeeds (CLI-006).
func (e *Engine) Prepare(ctx context.Context, p wire.PrepareParams) (*wire.PrepareResult, error) {
	m := e.cfg.Manifest
	if !m.Lists(wire.MethodPrepare) && !m.Lists(wire.MethodFinish) {
		return nil, nil
	}
	c, err := e.open(ctx, wire.RoleRun, p.Env)
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	e.run = c
	e.mu.Unlock()
	if !m.Lists(wire.MethodPrepare) {
		return nil, nil
	}
	return c.Prepare(ctx, p)
}

// Finish sends lifecycle/finish when listed and closes the run connection
// (spec §2.9). A run connection that failed is not reopened (D42).
func (e *Engine) Finish(ctx context.Context, p wire.FinishParams) error {
	e.mu.Lock()
	c := e.run
	e.run = nil
	e.mu.Unlock()
	if c == nil {
		return nil
	}
	budget := time.Duration(p.TimeoutMs) * time.Millisecond
	start := time.Now()
	var err error
	if e.cfg.Manifest.Lists(wire.MethodFinish) {
		err = c.Finish(ctx, p)
	}
	cerr := c.Close(budget - time.Since(start))
	if err != nil {
		return err
	}
	return cerr
}

// NewWorker returns a worker handle; its connection opens at Init.
func (e *Engine) NewWorker() *Worker { return &Worker{e: e} }

// Worker is one worker's view of the engine: the span Init..Dispose of one
// worker connection (spec §2.8).
type Worker struct {
	e *Engine

	mu       sync.Mutex
	conn     *Conn
	disposed bool
	runID    string
	attempt  string
	dir      string
	shots    int
}

// Manifest is the engine's manifest: the declared one, or with a
// discovered manifest the one the worker's server sent (zero before Init).
func (w *Worker) Manifest() wire.Manifest {
	if m := w.e.cfg.Manifest; !discovered(m) {
		return m
	}
	if c := w.Conn(); c != nil {
		return c.Manifest()
	}
	return wire.Manifest{}
}

// Conn is the worker's connection, nil outside Init..Dispose.
func (w *Worker) Conn() *Conn {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.conn
}

// Init opens the worker connection and sends lifecycle/init when listed
// (spec §2.9). A failure of lifecycle/init leaves the connection open so
// that Dispose still reaches the server.
func (w *Worker) Init(ctx context.Context, p wire.InitParams) error {
	w.mu.Lock()
	if w.conn != nil {
		w.mu.Unlock()
		return engineerr.New(engineerr.InvalidState, "worker already initialized")
	}
	w.mu.Unlock()
	c, err := w.e.open(ctx, wire.RoleWorker, p.Env)
	if err != nil {
		return err
	}
	w.mu.Lock()
	w.conn, w.disposed, w.runID = c, false, p.RunID
	w.mu.Unlock()
	if m := w.Manifest(); !m.Lists(wire.MethodInit) {
		return nil
	}
	return c.Init(ctx, p)
}

// Dispose sends lifecycle/dispose when listed and closes the connection
// within timeoutMs (floor 1000 ms for the close). A worker that never ran
// Init sends nothing and succeeds (CLI-006).
func (w *Worker) Dispose(ctx context.Context, timeoutMs int64) error {
	m := w.Manifest()
	w.mu.Lock()
	c := w.conn
	w.conn, w.disposed = nil, true
	w.mu.Unlock()
	if c == nil {
		return nil
	}
	start := time.Now()
	var err error
	if m.Lists(wire.MethodDispose) {
		err = c.Dispose(ctx, timeoutMs, nil)
	}
	cerr := c.Close(max(time.Duration(timeoutMs)*time.Millisecond-time.Since(start), time.Second))
	if err != nil {
		return err
	}
	return cerr
}

// live returns the connection for an operation or attempt hook, or
// INVALID_STATE before Init or after Dispose (CLI-005).
func (w *Worker) live(method string) (*Conn, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.conn == nil {
		when := "before init"
		if w.disposed {
			when = "after dispose"
		}
		return nil, engineerr.New(engineerr.InvalidState, "%s called %s", method, when)
	}
	return w.conn, nil
}

// listed returns the connection for an operation whose method must be in
// the manifest, or UNSUPPORTED_CAPABILITY without sending anything.
func (w *Worker) listed(method string) (*Conn, error) {
	if m := w.Manifest(); !m.Lists(method) {
		return nil, engineerr.New(engineerr.UnsupportedCapability, "this engine does not declare %s", method)
	}
	return w.live(method)
}

func (w *Worker) op(origin string) Op {
	w.mu.Lock()
	defer w.mu.Unlock()
	return Op{RunID: w.runID, AttemptID: w.attempt, Origin: origin}
}

// StartAttempt opens an attempt (spec §4.4).
func (w *Worker) StartAttempt(ctx context.Context, attemptID, artifactsDir string, screens bool) error {
	c, err := w.live(wire.MethodStartAttempt)
	if err != nil {
		return err
	}
	w.mu.Lock()
	w.attempt, w.dir, w.shots = attemptID, artifactsDir, 0
	w.mu.Unlock()
	return c.StartAttempt(ctx, wire.StartAttemptParams{AttemptID: attemptID, ArtifactsDir: artifactsDir, Screens: screens})
}

// SettleAttempt sends lifecycle/settleAttempt when listed.
func (w *Worker) SettleAttempt(ctx context.Context, timeoutMs int64) error {
	c, err := w.live(wire.MethodSettleAttempt)
	if err != nil {
		return err
	}
	return c.SettleAttempt(ctx, timeoutMs)
}

// EndAttempt ends the attempt (spec §4.6).
func (w *Worker) EndAttempt(ctx context.Context, timeoutMs int64) error {
	c, err := w.live(wire.MethodEndAttempt)
	if err != nil {
		return err
	}
	err = c.EndAttempt(ctx, timeoutMs)
	w.mu.Lock()
	w.attempt = ""
	w.mu.Unlock()
	return err
}

// Observe sends engine/observe.
func (w *Worker) Observe(ctx context.Context, origin string, opts *wire.EngineObserveOptions) (*wire.EngineSnapshot, error) {
	c, err := w.listed(wire.MethodObserve)
	if err != nil {
		return nil, err
	}
	return c.Observe(ctx, w.op(origin), opts)
}

// Locate sends engine/locate, or with ResolveLocators sends one
// engine/observe without options and resolves on the client (spec §10,
// CLI-012).
func (w *Worker) Locate(ctx context.Context, origin string, expr wire.LocatorExpression) ([]wire.SemanticNode, error) {
	if m := w.Manifest(); w.e.cfg.ResolveLocators && !m.Lists(wire.MethodLocate) {
		c, err := w.listed(wire.MethodObserve)
		if err != nil {
			return nil, err
		}
		snap, err := c.Observe(ctx, w.op(origin), nil)
		if err != nil {
			return nil, err
		}
		found, err := locate.ResolveExpression(&expr, []*wire.SemanticNode{&snap.Root}, locate.Options{})
		if err != nil {
			return nil, err
		}
		out := make([]wire.SemanticNode, len(found))
		for i, n := range found {
			out[i] = *n
		}
		return out, nil
	}
	c, err := w.listed(wire.MethodLocate)
	if err != nil {
		return nil, err
	}
	return c.Locate(ctx, w.op(origin), expr)
}

// Perform sends engine/perform after checking the kind against actions and
// modifiers against tapModifiers (CLI-005).
func (w *Worker) Perform(ctx context.Context, origin string, ref wire.NodeRef, action wire.LocatorAction) error {
	m := w.Manifest()
	if m.Lists(wire.MethodPerform) {
		if !m.HasAction(action.Kind) {
			return engineerr.New(engineerr.UnsupportedCapability, "this engine does not declare the action %s", action.Kind)
		}
		if len(action.Modifiers) > 0 && !m.TapModifiers {
			return engineerr.New(engineerr.UnsupportedCapability, "%s with modifiers needs tapModifiers: true", action.Kind)
		}
	}
	c, err := w.listed(wire.MethodPerform)
	if err != nil {
		return err
	}
	return c.Perform(ctx, w.op(origin), ref, action)
}

// PerformAt sends engine/performAt after checking the kind.
func (w *Worker) PerformAt(ctx context.Context, origin string, point wire.ViewportPoint, action wire.PointerAction) error {
	m := w.Manifest()
	if m.Lists(wire.MethodPerformAt) && !m.HasPointerAction(action.Kind) {
		return engineerr.New(engineerr.UnsupportedCapability, "this engine does not declare the pointer action %s", action.Kind)
	}
	c, err := w.listed(wire.MethodPerformAt)
	if err != nil {
		return err
	}
	return c.PerformAt(ctx, w.op(origin), point, action)
}

// Type sends keyboard/type.
func (w *Worker) Type(ctx context.Context, origin, text string, replace bool) error {
	c, err := w.listed(wire.MethodType)
	if err != nil {
		return err
	}
	return c.Type(ctx, w.op(origin), text, replace)
}

// Press sends keyboard/press.
func (w *Worker) Press(ctx context.Context, origin, key string) error {
	c, err := w.listed(wire.MethodPress)
	if err != nil {
		return err
	}
	return c.Press(ctx, w.op(origin), key)
}

// Dismiss sends keyboard/dismiss.
func (w *Worker) Dismiss(ctx context.Context, origin string) error {
	c, err := w.listed(wire.MethodDismiss)
	if err != nil {
		return err
	}
	return c.Dismiss(ctx, w.op(origin))
}

// Capture sends state/capture.
func (w *Worker) Capture(ctx context.Context, origin string) (*wire.EngineState, error) {
	c, err := w.listed(wire.MethodCapture)
	if err != nil {
		return nil, err
	}
	return c.Capture(ctx, w.op(origin))
}

// Restore sends state/restore.
func (w *Worker) Restore(ctx context.Context, origin string, state wire.EngineState) error {
	c, err := w.listed(wire.MethodRestore)
	if err != nil {
		return err
	}
	return c.Restore(ctx, w.op(origin), state)
}

// Screenshot sends artifacts/screenshot and returns the path relative to the
// attempt's artifact directory: a {data} answer is written as
// screenshots/<nnn>-<slug>.png there (D43, CLI-011); a {path} answer is
// checked to be relative, with "/" and no ".." segment (D44).
func (w *Worker) Screenshot(ctx context.Context, origin, label string) (string, error) {
	c, err := w.listed(wire.MethodScreenshot)
	if err != nil {
		return "", err
	}
	res, err := c.Screenshot(ctx, w.op(origin), label)
	if err != nil {
		return "", err
	}
	if res.Path != "" {
		if !SafeRelative(res.Path) {
			return "", engineerr.Infrastructure("screenshot path %q is not a relative path without \"..\"", res.Path)
		}
		return res.Path, nil
	}
	png, err := DecodeBase64(res.Data)
	if err != nil {
		return "", engineerr.Infrastructure("screenshot data is not base64: %v", err)
	}
	w.mu.Lock()
	w.shots++
	n, dir := w.shots, w.dir
	w.mu.Unlock()
	if dir == "" {
		return "", engineerr.New(engineerr.InvalidState, "no attempt artifact directory to write the screenshot to")
	}
	rel := fmt.Sprintf("screenshots/%03d-%s.png", n, Slug(label))
	full := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		return "", engineerr.Infrastructure("writing screenshot: %v", err)
	}
	if err := os.WriteFile(full, png, 0o644); err != nil {
		return "", engineerr.Infrastructure("writing screenshot: %v", err)
	}
	return rel, nil
}

// StartVideo sends artifacts/startVideo.
func (w *Worker) StartVideo(ctx context.Context, origin string) error {
	c, err := w.listed(wire.MethodStartVideo)
	if err != nil {
		return err
	}
	return c.StartVideo(ctx, w.op(origin))
}

// StopVideo sends artifacts/stopVideo.
func (w *Worker) StopVideo(ctx context.Context, origin string) ([]wire.VideoSegment, error) {
	c, err := w.listed(wire.MethodStopVideo)
	if err != nil {
		return nil, err
	}
	return c.StopVideo(ctx, w.op(origin))
}

// Open runs the session hook or sends session/open.
func (w *Worker) Open(ctx context.Context, origin, url string) error {
	if h := w.e.cfg.Session.Open; h != nil {
		if _, err := w.live(wire.MethodOpen); err != nil {
			return err
		}
		return h(ctx, url)
	}
	c, err := w.listed(wire.MethodOpen)
	if err != nil {
		return err
	}
	return c.Open(ctx, w.op(origin), url)
}

// Back runs the session hook or sends session/back.
func (w *Worker) Back(ctx context.Context, origin string) error {
	return w.session(ctx, origin, wire.MethodBack, w.e.cfg.Session.Back, (*Conn).Back)
}

// Restart runs the session hook or sends session/restart.
func (w *Worker) Restart(ctx context.Context, origin string) error {
	return w.session(ctx, origin, wire.MethodRestart, w.e.cfg.Session.Restart, (*Conn).Restart)
}

// Reset runs the session hook or sends session/reset.
func (w *Worker) Reset(ctx context.Context, origin string) error {
	return w.session(ctx, origin, wire.MethodReset, w.e.cfg.Session.Reset, (*Conn).Reset)
}

func (w *Worker) session(ctx context.Context, origin, method string, hook func(context.Context) error, send func(*Conn, context.Context, Op) error) error {
	if hook != nil {
		if _, err := w.live(method); err != nil {
			return err
		}
		return hook(ctx)
	}
	c, err := w.listed(method)
	if err != nil {
		return err
	}
	return send(c, ctx, w.op(origin))
}

// Slug lowercases label to [a-z0-9-], at most 64 characters, or
// "screenshot" (D43).
func Slug(label string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(label) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
			dash = false
		case !dash && b.Len() > 0:
			b.WriteByte('-')
			dash = true
		}
		if b.Len() >= 64 {
			break
		}
	}
	s := strings.Trim(b.String(), "-")
	if len(s) > 64 {
		s = strings.Trim(s[:64], "-")
	}
	if s == "" {
		return "screenshot"
	}
	return s
}

// SafeRelative reports whether p is a relative path with "/" separators and
// no ".." segment (D44).
func SafeRelative(p string) bool {
	if p == "" || strings.HasPrefix(p, "/") || strings.Contains(p, "\\") || strings.ContainsRune(p, 0) {
		return false
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == ".." {
			return false
		}
	}
	return true
}

// DecodeBase64 decodes standard base64, padded or not, and refuses other
// alphabets and whitespace (spec §1.6, D33).
func DecodeBase64(s string) ([]byte, error) {
	if strings.HasSuffix(s, "=") || len(s)%4 == 0 {
		return base64.StdEncoding.Strict().DecodeString(s)
	}
	return base64.RawStdEncoding.Strict().DecodeString(s)
}
