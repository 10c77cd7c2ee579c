package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/e2e-conform/toolkit/mcp/apps"
	"github.com/e2e-conform/toolkit/mcp/catalog"
	"github.com/e2e-conform/toolkit/mcp/config"
	"github.com/e2e-conform/toolkit/mcp/policy"
	"github.com/e2e-conform/toolkit/mcp/screen"
	"github.com/e2e-conform/toolkit/protocol/client"
	"github.com/e2e-conform/toolkit/protocol/wire"

	"github.com/e2e-conform/toolkit/mcp/mcperr"
)

type state int

const (
	stateOpening state = iota
	stateLive
	stateClosing
)

// Session is one open session: its engine connection, attempt, catalog and
// what the agent last saw.
type Session struct {
	h       *Host
	id      string
	state   state // guarded by h.mu
	reason  string
	cfgPath string
	live    bool // reached live once

	target   string
	platform string
	headed   bool
	root     string
	output   string
	cfg      *config.Config
	secrets  map[string]string // name -> value (only available ones)
	appURL   string
	lease    *apps.Lease
	w        *client.Worker // the engine, through one worker connection
	manifest wire.Manifest
	cat      *catalog.Catalog
	runID    string
	attempt  string
	artDir   string

	stepCtx    context.Context
	stepCancel context.CancelCauseFunc

	idleMu sync.Mutex
	idle   Timer
	ttl    Timer

	// trace records the attempt's trace under traceMode (spec §3.8).
	trace     tracer
	traceMode config.TraceMode

	// step holds the session's step: a tool call holds it while it runs,
	// so calls run one at a time; close takes it for good.
	step chan struct{}
	// mu guards calls.
	mu    sync.Mutex
	calls int
	// The fields below are used by the call holding step.
	rev       int
	scr       *screen.Screen // the screen the agent last received
	pixelMode bool
	tainted   bool
	shot      *shotInfo
	rec       *recording
	recCount  int

	ended     chan struct{}
	closeText string

	// agent holds the app log and the dialog policy (agent.go).
	agent agentState
}

type shotInfo struct {
	w, h  int
	scale float64 // image pixels per CSS pixel
	vp    wire.ViewportSize
}

type recording struct {
	n       int
	name    string
	started time.Time
}

// touch resets the idle timer.
func (s *Session) touch() {
	s.idleMu.Lock()
	defer s.idleMu.Unlock()
	if s.idle != nil {
		s.idle.Stop()
	}
	h := s.h
	s.idle = h.clock.AfterFunc(h.opts.IdleTimeout, func() {
		h.closeSession(s, "idle for "+human(h.opts.IdleTimeout))
	})
}

func (s *Session) stopTimers() {
	s.idleMu.Lock()
	if s.idle != nil {
		s.idle.Stop()
	}
	s.idleMu.Unlock()
	if s.ttl != nil {
		s.ttl.Stop()
	}
}

func (s *Session) cancelStep(cause error) {
	if s.stepCancel != nil {
		s.stepCancel(cause)
	}
}

// open runs open_session's steps after admission (spec §4.2 steps 4–10).
func (s *Session) open(ctx context.Context, req OpenRequest) (string, error) {
	h := s.h
	s.headed = h.opts.Headed
	if req.Headed != nil {
		s.headed = *req.Headed
	}
	var tgt *config.Target
	if req.Engine != nil {
		cfg := &config.Config{Root: h.opts.Cwd, Output: config.DefaultOutput}
		t := config.Target{Name: "web", App: config.App{URL: req.AppURL}}
		if req.Engine.Builtin != "" {
			t.Engine.Builtin = req.Engine.Builtin
		} else {
			t.Name = "engine"
			t.Engine.Command, t.Engine.Args = req.Engine.Command, req.Engine.Args
		}
		cfg.Targets = []config.Target{t}
		s.cfg, tgt = cfg, &cfg.Targets[0]
	} else {
		cfg, err := h.loader.Load(s.cfgPath)
		if err != nil {
			return "", err
		}
		s.cfg = cfg
		if tgt, err = h.selectTarget(cfg, req.Target); err != nil {
			return "", err
		}
	}
	s.root, s.output = s.cfg.Root, s.cfg.Output
	if !filepath.IsAbs(s.output) {
		s.output = filepath.Join(s.root, s.output)
	}
	s.target, s.platform = tgt.Name, tgt.Platform
	if err := h.claimEngine(s, tgt); err != nil {
		return "", err
	}
	if tgt.App.URL != "" {
		u, err := policy.ResolveURL(tgt.App.URL, "")
		if err != nil {
			return "", mcperr.New(mcperr.InvalidAppURL, "target %q: app url %q: %v", tgt.Name, tgt.App.URL, err)
		}
		s.appURL = u
	}
	// Secrets: resolve and register for redaction before anything runs.
	s.secrets = map[string]string{}
	for _, name := range s.cfg.SecretNames() {
		v, ok, err := config.ResolveSecret(s.root, name, s.cfg.Secrets[name], h.opts.Getenv)
		if err != nil {
			return "", err
		}
		if ok {
			s.secrets[name] = v
			h.red.Add(name, v)
		}
	}
	s.runID = "mcp-" + s.id
	s.attempt = "session-" + s.id
	s.artDir = filepath.Join(s.output, "artifacts", s.target, "sessions", s.id)
	if err := os.MkdirAll(s.artDir, 0o755); err != nil {
		return "", mcperr.New(mcperr.EngineFailure, "create the artifact directory: %v", err)
	}
	// The app command, shared between sessions.
	if tgt.App.Command != "" {
		dir := s.root
		if tgt.App.Cwd != "" {
			dir = filepath.Join(s.root, tgt.App.Cwd)
		}
		logf, err := os.OpenFile(filepath.Join(s.artDir, "command.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return "", mcperr.New(mcperr.EngineFailure, "open the app command log: %v", err)
		}
		defer logf.Close()
		lease, err := h.apps.Acquire(ctx, apps.Spec{Command: tgt.App.Command, Args: tgt.App.Args, Env: tgt.App.Env, Dir: dir, ReadyURL: tgt.App.ReadyURL, Log: logf})
		if err != nil {
			if ctx.Err() != nil {
				return "", context.Cause(ctx)
			}
			return "", err
		}
		s.lease = lease
		h.log.Info("app command running", "session", s.id, "command", tgt.App.Command, "pids", fmt.Sprint(h.apps.Pids()))
	}
	tr, builtin, err := h.transportFor(tgt, s.root, s.headed)
	if err != nil {
		return "", err
	}
	env := envMap()
	// The manifest is discovered, and a locate on an engine that lists no
	// engine/locate resolves on the client from one observation.
	eng, err := client.ConnectEngine(client.Config{
		Transport:             tr,
		Cwd:                   s.root,
		ResolveLocators:       true,
		ClientInfo:            wire.ClientInfo{Name: "e2e-mcp", Version: h.opts.Version},
		InitializationOptions: tgt.Options,
		Conn:                  func(cc *client.ConnConfig) { cc.Logger = h.log },
		Handlers: client.Handlers{
			EngineLog: func(line string) { h.log.Debug("engine: " + line) },
			Secret: func(_ context.Context, name string) (string, bool, error) {
				v, ok := s.secrets[name]
				return v, ok, nil
			},
			Redact: func(_, name string, values []string) {
				for _, v := range values {
					h.red.Add(name, v)
				}
			},
			Screen: func(_ string, snap *wire.EngineSnapshot) {
				s.trace.add(traceRecord{Kind: traceScreen, Source: "engine", Text: screen.New(snap, "", s.screenOptions()).Full()})
			},
			Navigation: func(_, line string) {
				s.trace.add(traceRecord{Kind: traceNavigation, Text: h.red.String(line)})
				s.onNavigation()
			},
			AppLog: func(_ string, e wire.AppLogEntry) { s.onAppLog(e) },
		},
	})
	if err != nil {
		return "", err
	}
	s.w = eng.NewWorker()
	// Init opens the connection, and sends lifecycle/init when listed.
	if err := s.w.Init(ctx, wire.InitParams{RunID: s.runID, TargetName: s.target, ProjectRoot: s.root,
		App: wire.EngineAppInfo{Site: siteOf(s.appURL)}, Env: env, Headed: s.headed}); err != nil {
		return "", err
	}
	s.manifest = s.w.Manifest()
	if s.platform == "" {
		s.platform = s.manifest.Platform
	}
	if s.platform == "" && builtin == "web" {
		s.platform = "web"
	}
	screens, err := s.startTrace()
	if err != nil {
		return "", mcperr.New(mcperr.EngineFailure, "%v", err)
	}
	if err := s.w.StartAttempt(ctx, s.attempt, s.artDir, screens); err != nil {
		return "", err
	}
	s.stepCtx, s.stepCancel = context.WithCancelCause(context.Background())
	if s.cat, err = catalog.New(s.manifest, catalog.Options{Target: s.target, Secrets: secretList(s.cfg)}); err != nil {
		return "", mcperr.New(mcperr.EngineFailure, "%v", err)
	}
	// First screen.
	var first string
	if s.appURL != "" && s.manifest.Lists(wire.MethodOpen) {
		if err := s.w.Open(ctx, wire.OriginAgent, s.appURL); err != nil {
			if ctx.Err() != nil {
				return "", context.Cause(ctx)
			}
			first = fmt.Sprintf("Opening %s failed: %s\nUse navigate once the app is reachable.\n\n", s.appURL, mcperr.Of(err).Message)
		}
	}
	scr, err := s.observe(ctx, false)
	if err != nil {
		return "", err
	}
	s.scr = scr
	s.live = true
	return s.h.red.String(s.openingText() + "\n\n" + first + scr.Full()), nil
}

func (s *Session) openingText() string {
	var b strings.Builder
	mode := "headless"
	if s.headed {
		mode = "headed"
	}
	cfg := s.cfgPath
	if cfg == "" {
		cfg = "none (zero config)"
	}
	platform := s.platform
	if platform == "" {
		platform = "unknown"
	}
	fmt.Fprintf(&b, "Session %s open on target %q (platform %s, engine %s %s), %s; config %s.", s.id, s.target, platform, s.manifest.Name, s.manifest.Version, mode, cfg)
	if s.appURL != "" {
		fmt.Fprintf(&b, "\nApp: %s.", s.appURL)
	}
	var creds, secs []string
	for _, n := range s.cfg.SecretNames() {
		sec := s.cfg.Secrets[n]
		if sec.PurposeOrDefault() == "password" && sec.Username != "" {
			creds = append(creds, fmt.Sprintf("%q (username %q, password secret %q)", n, sec.Username, n))
		} else {
			secs = append(secs, fmt.Sprintf("%q", n))
		}
	}
	if len(creds) > 0 {
		fmt.Fprintf(&b, "\nCredentials: %s. Type the username with type; fill the password with type_secret and its password secret's name.", strings.Join(creds, ", "))
	}
	if len(secs) > 0 {
		fmt.Fprintf(&b, "\nSecrets: %s. Fill one into any input with type_secret and its name; you never see the value.", strings.Join(secs, ", "))
	}
	fmt.Fprintf(&b, "\nPass session %q to every tools, call, and close_session; with several sessions open, a call without it fails.", s.id)
	b.WriteString("\nTools (run one with call {tool, args}; tools {tool} shows a tool's arguments):")
	for _, l := range s.cat.Lines() {
		b.WriteString("\n" + l)
	}
	b.WriteString("\nNode ids (\"n42\") are valid only for the newest observation; every action reports what changed on screen, and observe shows the whole screen. Call close_session when you are done.")
	return b.String()
}

func (s *Session) listing() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Session %s on target %q: %d tools. Run one with call {tool, args}; tools {tool} shows a tool's arguments.", s.id, s.target, len(s.cat.Tools))
	for _, l := range s.cat.Lines() {
		b.WriteString("\n" + l)
	}
	return b.String()
}

// observe sends engine/observe and renders the next revision.
func (s *Session) observe(ctx context.Context, pixels bool) (*screen.Screen, error) {
	scr, err := s.look(ctx, pixels)
	if err != nil {
		return nil, err
	}
	s.commit(scr)
	return scr, nil
}

// screenOptions redact what the engine observed with the host's redactor,
// cut strings as cut (spec §6.2).
func (s *Session) screenOptions() screen.Options {
	return screen.Options{Redact: s.h.red.String, Cut: s.h.red.Cut, AppURL: s.appURL, MaxBytes: s.maxBytes()}
}

// maxBytes is the resolved observation byte limit: the config's
// maxObservationBytes, else the host's Options.ObservationBytes, else
// screen.DefaultMaxBytes.
func (s *Session) maxBytes() int {
	if s.cfg != nil && s.cfg.MaxObservationBytes > 0 {
		return s.cfg.MaxObservationBytes
	}
	if s.h.opts.ObservationBytes > 0 {
		return s.h.opts.ObservationBytes
	}
	return screen.DefaultMaxBytes
}

// teardown ends what the session started and returns the cleanup lines.
func (s *Session) teardown(ctx context.Context) []string {
	s.stopTimers()
	var lines []string
	budget := s.h.opts.CleanupBudget
	ctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	// cleanup runs one step. A step still running when the budget ran out
	// is CLEANUP_TIMEOUT even if the engine answered later (it ignored the
	// step's signal); later steps still run, so nothing is left behind.
	cleanup := func(step string, f func() error) {
		start := time.Now()
		err := f()
		switch {
		case ctx.Err() != nil && err == nil:
			lines = append(lines, fmt.Sprintf("Cleanup: %s: %s overran the %s cleanup budget: the engine answered after %.1f s", mcperr.CleanupTimeout, step, budget, time.Since(start).Seconds()))
		case ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded):
			lines = append(lines, fmt.Sprintf("Cleanup: %s: %s did not finish within the %s cleanup budget: %s", mcperr.CleanupTimeout, step, budget, mcperr.Text(err)))
		case err != nil:
			lines = append(lines, "Cleanup: "+mcperr.Text(err))
		}
	}
	if s.w != nil && s.w.Conn() != nil {
		if s.rec != nil {
			lines = append(lines, s.stopRecording(ctx)...)
		}
		ms := budget.Milliseconds()
		cleanup("endAttempt", func() error { return s.w.EndAttempt(ctx, ms) })
		lines = append(lines, s.endTrace()...)
		// Dispose runs even when endAttempt used up the budget: it is what
		// stops the engine's browser or device. It sends lifecycle/dispose
		// when listed, then closes the connection, which ends an engine
		// that did not dispose.
		if s.manifest.Lists(wire.MethodDispose) {
			cleanup("dispose", func() error { return s.w.Dispose(ctx, ms) })
		} else if err := s.w.Dispose(ctx, ms); err != nil {
			lines = append(lines, "Cleanup: "+mcperr.Text(err))
		}
	}
	if s.stepCancel != nil {
		s.stepCancel(nil)
	}
	if s.lease != nil {
		s.lease.Release()
	}
	return lines
}

// Result is the outcome of a catalog tool.
type Result = catalog.Result

// Image is one image part of a Result.
type Image = catalog.Image
