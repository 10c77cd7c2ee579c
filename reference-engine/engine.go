package webengine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/e2e-conform/toolkit/internal/chromium"
	"github.com/e2e-conform/toolkit/protocol/engineerr"
	"github.com/e2e-conform/toolkit/protocol/server"
	"github.com/e2e-conform/toolkit/protocol/transport"
	"github.com/e2e-conform/toolkit/protocol/wire"
	"github.com/e2e-conform/toolkit/reference-engine/media"
)

// Name and Version are the engine's manifest name and version.
const (
	Name    = "e2e-web-engine"
	Version = "0.1.0"
)

// Defaults of the options.
const (
	DefaultWidth           = 1280
	DefaultHeight          = 720
	DefaultTestIDAttribute = "data-testid"
)

// Options configure the engine. A connection's initializationOptions
// (InitOptions) override them.
type Options struct {
	// ExecutablePath is Chromium's binary; "" means $E2E_CHROMIUM, else
	// the headless shell (/usr/bin/chromium-headless-shell) when it is
	// installed and Headed is false, else /usr/bin/chromium
	// (chromium.DefaultFor: web-engine decision 4, read in the package doc).
	ExecutablePath string
	// Headed shows the browser window.
	Headed bool
	// Width and Height are the viewport in CSS pixels (0: 1280x720).
	Width, Height int
	// TestIDAttribute is the attribute read as testId ("": data-testid).
	TestIDAttribute string
	// FFmpegPath is ffmpeg's binary; "" looks it up in $PATH. Without
	// ffmpeg the engine leaves video out of its manifest and says so once
	// on its logger.
	FFmpegPath string
	// NoVideo leaves video out even when ffmpeg is there.
	NoVideo bool
	// CDPEndpoint, when set, is a remote browser to attach to instead of
	// launching Chromium (a browser pool, web-engine decision 12): a
	// ws:// or wss:// address dialled as given, or an http:// or https://
	// one whose /json/version names the websocket address (its query is
	// kept). It may carry a token: it is never logged unredacted.
	// ExecutablePath and Headed do not apply then.
	CDPEndpoint string
	// CDPHeaders go with every request to CDPEndpoint (the /json/version
	// lookup and the websocket handshake), e.g. Authorization. Never
	// logged.
	CDPHeaders http.Header
	// Logger receives operator diagnostics; nil discards them.
	Logger *slog.Logger

	// poolBudget bounds the back-off on a busy pool (0: poolRetryBudget);
	// tests shorten it.
	poolBudget time.Duration
}

// InitOptions is the JSON shape of initializationOptions this engine reads;
// unknown members are ignored (they may be meant for another engine).
type InitOptions struct {
	ExecutablePath string `json:"executablePath,omitempty"`
	Headed         *bool  `json:"headed,omitempty"`
	Viewport       *struct {
		Width  int `json:"width"`
		Height int `json:"height"`
	} `json:"viewport,omitempty"`
	TestIDAttribute string `json:"testIdAttribute,omitempty"`
	// CDPEndpoint and CDPHeaders are Options.CDPEndpoint and CDPHeaders.
	CDPEndpoint string            `json:"cdpEndpoint,omitempty"`
	CDPHeaders  map[string]string `json:"cdpHeaders,omitempty"`
}

// withDefaults fills unset options.
func (o Options) withDefaults() Options {
	if o.ExecutablePath == "" {
		o.ExecutablePath = os.Getenv("E2E_CHROMIUM")
	}
	if o.Width <= 0 || o.Height <= 0 {
		o.Width, o.Height = DefaultWidth, DefaultHeight
	}
	if o.TestIDAttribute == "" {
		o.TestIDAttribute = DefaultTestIDAttribute
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return o
}

// apply overrides o with initializationOptions (nil: none).
func (o Options) apply(raw []byte) (Options, error) {
	if len(bytes.TrimSpace(raw)) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return o, o.validate()
	}
	var io InitOptions
	if err := json.Unmarshal(raw, &io); err != nil {
		return o, engineerr.InvalidConfig("initializationOptions: %v", err)
	}
	if io.ExecutablePath != "" {
		o.ExecutablePath = io.ExecutablePath
	}
	if io.Headed != nil {
		o.Headed = *io.Headed
	}
	if v := io.Viewport; v != nil {
		if v.Width < 1 || v.Height < 1 || v.Width > 10000 || v.Height > 10000 {
			return o, engineerr.InvalidConfig("initializationOptions/viewport: %dx%d is not a viewport size (1..10000 each)", v.Width, v.Height)
		}
		o.Width, o.Height = v.Width, v.Height
	}
	if io.TestIDAttribute != "" {
		o.TestIDAttribute = io.TestIDAttribute
	}
	if io.CDPEndpoint != "" {
		o.CDPEndpoint = io.CDPEndpoint
	}
	if len(io.CDPHeaders) > 0 {
		o.CDPHeaders = o.CDPHeaders.Clone()
		if o.CDPHeaders == nil {
			o.CDPHeaders = http.Header{}
		}
		for k, v := range io.CDPHeaders {
			o.CDPHeaders.Set(k, v)
		}
	}
	return o, o.validate()
}

// validate refuses a CDP endpoint that is not one (configuration
// INVALID_CONFIG, the address redacted).
func (o Options) validate() error {
	if o.CDPEndpoint == "" {
		return nil
	}
	if _, err := parseEndpoint(o.CDPEndpoint, o.CDPHeaders); err != nil {
		return engineerr.InvalidConfig("cdpEndpoint: %v", err)
	}
	return nil
}

// Engine is one connection's web engine: one browser (a Chromium it
// launches when the first operation needs a page, or a remote browser it
// attaches to; released by lifecycle/dispose) and one browser context per
// attempt. Its methods implement every capability
// interface of package server except video, which VideoEngine adds.
type Engine struct {
	opts   Options
	log    *slog.Logger
	ffmpeg string // "" without video

	ids atomic.Int64 // the last node id handed out (n<k>)

	// closing counts the closes running in the background: a cleanup
	// method answers within its budget and leaves the rest of the close
	// (Chromium's exit, its reaping) to them; Close waits for them.
	closing sync.WaitGroup
	// beforeClose, when set (tests), runs at the start of every background
	// close: a Chromium slow to close.
	beforeClose func()

	mu      sync.Mutex
	dir     *chromium.Dir   // the directory of the engine's Chromiums; nil until the first start
	launch  *launching      // Chromium, started or starting; nil before init and after dispose
	attempt *server.Attempt // the open attempt
	sess    *session
	envSent map[string]bool   // attempt ids whose environment was sent
	dialogs dialogPolicy      // the dialog policy (DialogsMethod) of the attempt it names
	notice  func(line string) // lifecycle/init's engine/log (D29); nil before init
}

// VideoEngine is an Engine that also records video (ffmpeg is there).
type VideoEngine struct{ *Engine }

// New returns an engine for opts (defaults filled in). It starts nothing:
// Chromium starts with the first operation that needs a page.
func New(opts Options) server.Engine {
	e := newEngine(opts.withDefaults())
	if e.ffmpeg != "" {
		return VideoEngine{e}
	}
	return e
}

func newEngine(opts Options) *Engine {
	e := &Engine{opts: opts, log: opts.Logger, envSent: map[string]bool{}}
	if !opts.NoVideo {
		p, err := media.FindFFmpeg(opts.FFmpegPath)
		if err != nil {
			e.log.Warn("video recording is not available: artifacts/startVideo and stopVideo are left out of the manifest", "reason", err)
		} else {
			e.ffmpeg = p
		}
	}
	return e
}

// Info returns the manifest members: every locator and pointer action kind
// and tap modifiers.
func (e *Engine) Info() server.Info {
	return server.Info{
		Name: Name, Version: Version, Platform: "web",
		Actions:        wire.LocatorActionKinds(),
		PointerActions: wire.PointerActionKinds(),
		TapModifiers:   true,
	}
}

// Factory returns a server.Factory building an engine from base and the
// connection's initializationOptions.
func Factory(base Options) server.Factory {
	return func(ctx context.Context, initializationOptions []byte) (server.Engine, error) {
		o, err := base.apply(initializationOptions)
		if err != nil {
			return nil, err
		}
		return New(o), nil
	}
}

// Transport returns a loopback transport serving a new engine on every
// connection: the in-process "built-in web engine".
func Transport(base Options) transport.Transport {
	return transport.Loopback(Name, func(ctx context.Context, rwc io.ReadWriteCloser) error {
		err := server.ServeFactory(ctx, Factory(base), rwc, server.Options{Logger: base.Logger})
		if errors.Is(err, server.ErrClosedWithoutShutdown) {
			return nil
		}
		return err
	})
}

// ---- lifecycle ----

// Init implements server.Initializer: it checks that Chromium is there and
// that a directory for its files can be made (either missing fails init at
// once, with the cause) and starts nothing. Chromium starts
// when the first method that needs a page arrives (TestChromiumStartsOnlyForAPage):
// a connection that never touches a page (lifecycle, wire and manifest
// checks, a pool's health probe) never pays for a browser.
//
// Implements: LIFE-009.
func (e *Engine) Init(ctx context.Context, info server.InitInfo) error {
	e.mu.Lock()
	e.notice = info.Log
	e.mu.Unlock()
	if e.opts.CDPEndpoint != "" {
		info.Log(fmt.Sprintf("%s: ready (worker %d); attaches to the remote browser at %s with the first page", Name, info.WorkerSlot, Redact(e.opts.CDPEndpoint)))
		return nil
	}
	o := e.opts
	if err := checkExecutable(&o); err != nil {
		return err
	}
	// What a start needs besides the binary, known without starting one:
	// a directory for Chromium's files (TMPDIR, or a short directory when
	// TMPDIR is too long for its singleton socket). An engine that cannot
	// start its browser says so here, once, rather than failing every
	// operation that needs a page.
	if err := chromium.CheckDir(""); err != nil {
		return engineerr.Infrastructure("chromium cannot start: %v", err)
	}
	info.Log(fmt.Sprintf("%s: ready (worker %d); %s starts with the first page", Name, info.WorkerSlot, o.ExecutablePath))
	return nil
}

// StartAttempt implements server.AttemptStarter: the attempt gets a fresh
// browser context, created when its first operation needs a page (the
// attempt/environment facts are sent then), in the engine's browser,
// which stays warm across attempts.
//
// Implements: LIFE-011.
func (e *Engine) StartAttempt(ctx context.Context, a *server.Attempt) error {
	e.mu.Lock()
	old := e.sess
	e.sess, e.attempt = nil, a
	e.mu.Unlock()
	if old != nil {
		old.close(ctx)
	}
	return nil
}

// SettleAttempt implements server.AttemptSettler: nothing runs unawaited
// in this engine (dialogs are answered as they open).
//
// Implements: LIFE-014, LIFE-015.
func (e *Engine) SettleAttempt(ctx context.Context, c server.Cleanup) error { return nil }

// EndAttempt implements server.AttemptEnder: the attempt's browser context
// and everything in it closes. Idempotent. It answers within the cleanup's
// budget (timeoutMs, or sooner when its signal aborts): a close that takes
// longer goes on in the background (a later attempt gets a browser context
// of its own).
//
// Implements: LIFE-013, LIFE-016.
func (e *Engine) EndAttempt(ctx context.Context, c server.Cleanup) error {
	e.mu.Lock()
	s := e.sess
	e.sess, e.attempt = nil, nil
	e.mu.Unlock()
	if s == nil {
		return nil
	}
	done := e.inBackground(func() { s.close(context.Background()) })
	if !waitCleanup(ctx, c.TimeoutMs, done) {
		e.log.Warn("lifecycle/endAttempt: the attempt's browser context did not close within the budget; it goes on closing in the background", "timeoutMs", c.TimeoutMs)
	}
	return nil
}

// Dispose implements server.Disposer: the browser is released; a later
// init (and its first page) starts one again. Nothing is kept warm for a
// reuse signal. A launched Chromium is killed at once: its profile is
// thrown away, so an orderly close would buy nothing but time; its
// reaping, the end of the session (video) and the removal of its profile
// finish before the answer when the cleanup's budget (timeoutMs, or sooner
// when its signal aborts) allows, else in the background (Close waits for
// them). A remote browser is left running: the attempt's browser context
// is disposed, then the connection closed (cut when the budget runs out).
//
// Implements: LIFE-010, LIFE-016.
func (e *Engine) Dispose(ctx context.Context, info server.DisposeInfo) error {
	l, done := e.close()
	if !waitCleanup(ctx, info.TimeoutMs, done) && l != nil {
		l.kill()
		e.log.Warn("lifecycle/dispose: the browser did not close within the budget; stopped, the rest goes on in the background", "timeoutMs", info.TimeoutMs)
	}
	return nil
}

// close detaches the session and the browser from the engine and closes
// them in the background. A launched Chromium (or its start) is killed
// first, at once; a remote browser closes in order: the session (its
// browser context), then the connection. It returns the browser's start
// (nil when none) and a channel closed when all is closed.
func (e *Engine) close() (*launching, <-chan struct{}) {
	e.mu.Lock()
	s, l := e.sess, e.launch
	e.sess, e.launch, e.attempt = nil, nil, nil
	e.mu.Unlock()
	if l != nil && !l.remote {
		l.kill()
	}
	done := e.inBackground(func() {
		if s != nil {
			s.close(context.Background())
		}
		if l != nil {
			<-l.done
			if l.br != nil {
				l.br.close()
			}
			l.kill()
		}
	})
	return l, done
}

// inBackground runs fn in a goroutine Close waits for, and returns a
// channel closed when fn returns.
func (e *Engine) inBackground(fn func()) <-chan struct{} {
	done := make(chan struct{})
	e.closing.Add(1)
	go func() {
		defer e.closing.Done()
		defer close(done)
		if e.beforeClose != nil {
			e.beforeClose()
		}
		fn()
	}()
	return done
}

// cleanupMargin is the part of a cleanup's timeoutMs kept for answering
// (at most a fifth of it).
const cleanupMargin = 200 * time.Millisecond

// waitCleanup waits for done within a cleanup method's budget: until its
// signal aborts (ctx) or its timeoutMs, less cleanupMargin, runs out. It
// reports whether done closed in time.
func waitCleanup(ctx context.Context, timeoutMs float64, done <-chan struct{}) bool {
	budget := time.Duration(timeoutMs * float64(time.Millisecond))
	budget -= min(cleanupMargin, budget/5)
	if budget < 0 {
		budget = 0
	}
	t := time.NewTimer(budget)
	defer t.Stop()
	select {
	case <-done:
		return true
	default:
	}
	select {
	case <-done:
		return true
	case <-ctx.Done():
	case <-t.C:
	}
	return false
}

// closeGrace is how long Close lets a remote browser's session close in
// order (its browser context disposed) before it cuts the connection.
const closeGrace = 1000 * time.Millisecond

// Close stops everything the engine started and waits until it has
// stopped (Chromium reaped), background closes included, then removes the
// engine's Chromium directory; the server calls it when the connection
// ends (io.Closer). Nobody waits for an answer then: a launched Chromium
// (or its start) is killed at once, a remote browser's connection gets
// closeGrace to dispose of the session's browser context; the process
// must exit within 5000 ms of its stdin closing (LIFE-008), however slow
// Chromium is to start or to close.
func (e *Engine) Close() error {
	l, done := e.close()
	if l != nil {
		t := time.AfterFunc(closeGrace, l.kill)
		defer t.Stop()
	}
	<-done
	e.closing.Wait()
	e.mu.Lock()
	d := e.dir
	e.dir = nil
	e.mu.Unlock()
	if d != nil {
		if err := d.Remove(); err != nil {
			e.log.Warn("close", "error", err)
		}
	}
	return nil
}

// reserve hands out n fresh node ids and returns the first.
func (e *Engine) reserve(n int) int64 {
	return e.ids.Add(int64(n)) - int64(n) + 1
}
