// Package session is the MCP host's session layer (spec mcp.md §4): it
// admits, opens, runs and closes sessions, each with its own engine
// connection and attempt, and runs the catalog tools of `call` inside a
// session's step. It knows nothing of MCP; package server maps the four
// MCP tools onto Host.
package session

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/e2e-conform/toolkit/mcp/apps"
	"github.com/e2e-conform/toolkit/mcp/config"
	"github.com/e2e-conform/toolkit/mcp/policy"
	"github.com/e2e-conform/toolkit/mcp/redact"
	"github.com/e2e-conform/toolkit/protocol/transport"

	"github.com/e2e-conform/toolkit/mcp/mcperr"
)

// Defaults of spec §4.1.
const (
	DefaultIdleTimeout   = 30 * time.Minute
	DefaultTTL           = 4 * time.Hour
	DefaultMaxSessions   = 4
	MaxMaxSessions       = 16
	rememberEnded        = 32
	defaultCleanupBudget = 10 * time.Second
)

// Events of Options.OnStep.
const (
	StepQueued = "queued"
	StepRun    = "run"
)

// Reasons a session ends with.
const (
	ReasonAgent      = "closed by the agent"
	ReasonShutdown   = "server shutdown"
	ReasonDisconnect = "client disconnected"
)

// Options configure a Host.
type Options struct {
	// Cwd is the server's directory: config paths resolve against it and
	// discovery starts there.
	Cwd string
	// ConfigPath is --config; "" discovers.
	ConfigPath string
	// Target is --target.
	Target string
	// Headed is --headed.
	Headed bool
	// MaxSessions is --max-sessions (1..16, default 4).
	MaxSessions int
	// IdleTimeout and TTL default to 30 minutes and 4 hours.
	IdleTimeout, TTL time.Duration
	// Logger receives operator lines (redact them: see package oplog).
	Logger *slog.Logger
	// Redactor holds the secret values; New makes one when nil.
	Redactor *redact.Redactor
	// BuiltinWeb returns the transport of the built-in web engine.
	BuiltinWeb func(headed bool) transport.Transport
	// Getenv reads the environment (secrets); default os.Getenv.
	Getenv func(string) string
	// Version is the host's version, sent as clientInfo.
	Version string
	// OnEnded, when set, is called after a session has fully closed.
	OnEnded func(id, reason string)
	// CleanupBudget bounds each session's teardown (default 10 s); a step
	// that overruns it is reported as CLEANUP_TIMEOUT.
	CleanupBudget time.Duration
	// AppReadyTimeout is how long an app command gets until its readyUrl
	// answers (default apps.DefaultReadyTimeout); then LAUNCH_TIMEOUT.
	AppReadyTimeout time.Duration
	// OnIdle, when set, is called each time the last tool call in flight
	// ends: the stray output's held tail is released then (spec §6.2).
	OnIdle func()
	// OnStep, when set, observes the session steps: it is called with
	// StepQueued when a call waits for its session's previous call, and
	// with StepRun when a call starts to run.
	OnStep func(event, session, tool string)
	// ObservationBytes is the observation byte limit of a session whose
	// config sets no maxObservationBytes (default screen.DefaultMaxBytes).
	ObservationBytes int
	// Clock runs the session timers (idle timeout, TTL) and dates what the
	// host records; default the wall clock.
	Clock Clock
	// SettleQuiet and SettleLimit shape the settling after an action
	// (DefaultSettleQuiet, DefaultSettleLimit when 0): observations
	// SettleQuiet apart until two are the same, for at most SettleLimit. A
	// negative SettleQuiet observes once, without settling.
	SettleQuiet, SettleLimit time.Duration
}

// Host holds the sessions of one MCP server process.
type Host struct {
	opts   Options
	log    *slog.Logger
	clock  Clock
	red    *redact.Redactor
	loader *config.Loader
	apps   *apps.Pool

	mu       sync.Mutex
	sessions map[string]*Session // opening, live and closing
	order    []string            // admission order
	ended    map[string]string
	endedIDs []string
	lastEnd  string
	draining bool
	cfgClaim string // config path the admitted sessions use
	// engClaim maps a shared engine (a connect address) to the session
	// driving it (ENGINE_IN_USE).
	engClaim map[string]string
	calls    int // tool calls in flight
	opening  sync.WaitGroup
	openCanc map[string]context.CancelFunc
	// logged holds the keys of the lines logOnce wrote.
	logged map[string]bool
}

// New returns a Host.
func New(opts Options) (*Host, error) {
	if opts.MaxSessions == 0 {
		opts.MaxSessions = DefaultMaxSessions
	}
	if opts.MaxSessions < 1 || opts.MaxSessions > MaxMaxSessions {
		return nil, fmt.Errorf("max sessions: must be an integer from 1 through %d", MaxMaxSessions)
	}
	if opts.IdleTimeout == 0 {
		opts.IdleTimeout = DefaultIdleTimeout
	}
	if opts.TTL == 0 {
		opts.TTL = DefaultTTL
	}
	if opts.Cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, err
		}
		opts.Cwd = wd
	}
	if opts.Redactor == nil {
		opts.Redactor = redact.New()
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	if opts.CleanupBudget == 0 {
		opts.CleanupBudget = defaultCleanupBudget
	}
	if opts.Clock == nil {
		opts.Clock = systemClock{}
	}
	pool := apps.NewPool()
	if opts.AppReadyTimeout > 0 {
		pool.ReadyTimeout = opts.AppReadyTimeout
	}
	l, err := config.NewLoader()
	if err != nil {
		return nil, err
	}
	return &Host{opts: opts, log: opts.Logger, clock: opts.Clock, red: opts.Redactor, loader: l, apps: pool,
		sessions: map[string]*Session{}, ended: map[string]string{}, openCanc: map[string]context.CancelFunc{},
		engClaim: map[string]string{}, logged: map[string]bool{}}, nil
}

// logOnce logs msg at info level the first time key is seen in the host's
// life.
func (h *Host) logOnce(key, msg string) {
	h.mu.Lock()
	seen := h.logged[key]
	h.logged[key] = true
	h.mu.Unlock()
	if !seen {
		h.log.Info(msg)
	}
}

// Redactor returns the host's redactor.
func (h *Host) Redactor() *redact.Redactor { return h.red }

// Apps returns the app process pool.
func (h *Host) Apps() *apps.Pool { return h.apps }

// OpenRequest is the input of open_session.
type OpenRequest struct {
	Target string
	Config string
	Headed *bool
	// Engine and AppURL are the zero-config form: Engine "web" or a
	// command.
	Engine *EngineArg
	AppURL string
}

// EngineArg is open_session's engine: the built-in web engine or a command.
type EngineArg struct {
	Builtin string
	Command string
	Args    []string
}

// newID returns a UUIDv7 dated now.
func newID(now time.Time) string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	ms := uint64(now.UnixMilli())
	for i := 0; i < 6; i++ {
		b[i] = byte(ms >> (40 - 8*i))
	}
	b[6] = b[6]&0x0f | 0x70
	b[8] = b[8]&0x3f | 0x80
	s := hex.EncodeToString(b[:])
	return s[:8] + "-" + s[8:12] + "-" + s[12:16] + "-" + s[16:20] + "-" + s[20:]
}

// slotsLocked describes the held slots for SESSION_OPEN.
func (h *Host) slotsLocked() string {
	var parts []string
	for _, id := range h.order {
		s := h.sessions[id]
		switch s.state {
		case stateOpening:
			parts = append(parts, "one opening")
		case stateClosing:
			parts = append(parts, fmt.Sprintf("%s on %q (closing)", id, s.target))
		default:
			parts = append(parts, fmt.Sprintf("%s on %q", id, s.target))
		}
	}
	return strings.Join(parts, ", ")
}

// Open opens a session and returns the opening text. ctx cancels the open
// (CANCELLED).
func (h *Host) Open(ctx context.Context, req OpenRequest) (string, error) {
	zero := req.Engine != nil
	var cfgPath string
	if !zero {
		p := req.Config
		if p == "" {
			p = h.opts.ConfigPath
		} else {
			// The agent's path: only a file of the project (the
			// operator's --config is trusted).
			real, err := policy.ConfigPath(policy.ProjectRoot(h.opts.Cwd), h.opts.Cwd, p)
			if err != nil {
				return "", err
			}
			p = real
		}
		var err error
		if cfgPath, err = config.Locate(h.opts.Cwd, p); err != nil {
			return "", err
		}
	}
	id := newID(h.clock.Now())
	s := &Session{h: h, id: id, state: stateOpening, cfgPath: cfgPath, ended: make(chan struct{}), step: make(chan struct{}, 1)}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	h.mu.Lock()
	switch {
	case h.draining:
		h.mu.Unlock()
		return "", mcperr.New(mcperr.SessionOpen, "the server is shutting down; no session can open")
	case len(h.sessions) >= h.opts.MaxSessions:
		msg := fmt.Sprintf("no session slot is free (e2e mcp --max-sessions %d): %s; close_session one first", h.opts.MaxSessions, h.slotsLocked())
		h.mu.Unlock()
		return "", mcperr.New(mcperr.SessionOpen, "%s", msg)
	}
	if !zero {
		if h.cfgClaim != "" && h.cfgClaim != cfgPath {
			holder := ""
			for _, oid := range h.order {
				if h.sessions[oid].cfgPath == h.cfgClaim {
					holder = oid
					break
				}
			}
			h.mu.Unlock()
			return "", mcperr.New(mcperr.ConfigInUse, "session %s is open on config %s; sessions open at once share one config, because credentials and secrets resolve process-wide; open this one on that config, or close every session on it first", holder, h.cfgClaim)
		}
		h.cfgClaim = cfgPath
	}
	h.sessions[id] = s
	h.order = append(h.order, id)
	h.openCanc[id] = func() { cancel(mcperr.New(mcperr.Cancelled, "opening session %s was cancelled", id)) }
	h.opening.Add(1)
	h.mu.Unlock()
	defer h.opening.Done()

	text, err := s.open(ctx, req)
	h.mu.Lock()
	delete(h.openCanc, id)
	h.mu.Unlock()
	if err == nil && ctx.Err() != nil {
		err = context.Cause(ctx)
	}
	if err != nil {
		s.teardown(context.WithoutCancel(ctx))
		h.release(s, "open failed")
		if ctx.Err() != nil {
			return "", mcperr.New(mcperr.Cancelled, "opening session %s was cancelled", id)
		}
		return "", err
	}
	h.mu.Lock()
	s.state = stateLive
	h.mu.Unlock()
	s.touch()
	s.ttl = h.clock.AfterFunc(h.opts.TTL, func() {
		h.closeSession(s, fmt.Sprintf("the session exceeded its %s limit", human(h.opts.TTL)))
	})
	h.log.Info("session opened", "session", id, "target", s.target)
	return text, nil
}

// human renders a duration as "30 minutes", "4 hours" or Go's form.
func human(d time.Duration) string {
	switch {
	case d >= time.Hour && d%time.Hour == 0:
		if d == time.Hour {
			return "1 hour"
		}
		return fmt.Sprintf("%d hours", d/time.Hour)
	case d >= time.Minute && d%time.Minute == 0:
		if d == time.Minute {
			return "1 minute"
		}
		return fmt.Sprintf("%d minutes", d/time.Minute)
	}
	return d.String()
}

// release frees s's slot and claims and remembers why it ended.
func (h *Host) release(s *Session, reason string) {
	h.mu.Lock()
	delete(h.sessions, s.id)
	for i, id := range h.order {
		if id == s.id {
			h.order = append(h.order[:i], h.order[i+1:]...)
			break
		}
	}
	for k, holder := range h.engClaim {
		if holder == s.id {
			delete(h.engClaim, k)
		}
	}
	if s.cfgPath != "" {
		still := false
		for _, o := range h.sessions {
			if o.cfgPath == h.cfgClaim {
				still = true
			}
		}
		if !still {
			h.cfgClaim = ""
		}
	}
	if s.live {
		h.ended[s.id] = reason
		h.endedIDs = append(h.endedIDs, s.id)
		if len(h.endedIDs) > rememberEnded {
			delete(h.ended, h.endedIDs[0])
			h.endedIDs = h.endedIDs[1:]
		}
		h.lastEnd = reason
	}
	empty := len(h.sessions) == 0
	h.mu.Unlock()
	if empty {
		// The secret registry lives while any session does (spec §4.6).
		h.red.Reset()
	}
	if h.opts.OnEnded != nil && s.live {
		h.opts.OnEnded(s.id, reason)
	}
}

// resolve finds the session of a tools, call or close_session request.
func (h *Host) resolve(id string) (*Session, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if id != "" {
		if s, ok := h.sessions[id]; ok {
			switch s.state {
			case stateLive:
				return s, nil
			case stateClosing:
				return s, mcperr.New(mcperr.NoSession, "session %q is closing (%s)", id, s.reason)
			}
		}
		if r, ok := h.ended[id]; ok {
			return nil, mcperr.New(mcperr.NoSession, "session %q ended: %s; call open_session for a new one", id, r)
		}
		live := h.liveLocked()
		if len(live) == 0 {
			return nil, mcperr.New(mcperr.NoSession, "session %q is not open; no session is open", id)
		}
		return nil, mcperr.New(mcperr.NoSession, "session %q is not open; open: %s", id, describe(live))
	}
	live := h.liveLocked()
	switch len(live) {
	case 0:
		msg := "no session is open; call open_session first"
		if h.lastEnd != "" {
			msg += fmt.Sprintf(" (the previous session ended: %s)", h.lastEnd)
		}
		return nil, mcperr.New(mcperr.NoSession, "%s", msg)
	case 1:
		return live[0], nil
	}
	return nil, mcperr.New(mcperr.SessionRequired, "%d sessions are open; pass session to name one: %s", len(live), describe(live))
}

func (h *Host) liveLocked() []*Session {
	var out []*Session
	for _, id := range h.order {
		if s := h.sessions[id]; s.state == stateLive {
			out = append(out, s)
		}
	}
	return out
}

func describe(ss []*Session) string {
	parts := make([]string, len(ss))
	for i, s := range ss {
		parts[i] = fmt.Sprintf("%s on %q", s.id, s.target)
	}
	return strings.Join(parts, ", ")
}

// Tools answers the `tools` tool: the catalog listing, or one tool's
// detail. It does not reset the idle timer.
func (h *Host) Tools(_ context.Context, id, tool string) (string, error) {
	s, err := h.resolve(id)
	if err != nil {
		return "", err
	}
	if tool == "" {
		return s.listing(), nil
	}
	t, err := s.cat.Lookup(tool)
	if err != nil {
		return "", err
	}
	return t.Detail(), nil
}

// Call runs a catalog tool in a session.
func (h *Host) Call(ctx context.Context, id, tool string, args json.RawMessage) (*Result, error) {
	s, err := h.resolve(id)
	if err != nil {
		return nil, err
	}
	t, err := s.cat.Lookup(tool)
	if err != nil {
		return nil, err
	}
	s.touch()
	s.mu.Lock()
	s.calls++
	s.mu.Unlock()
	if _, err := t.Validate(args); err != nil {
		return nil, err
	}
	h.inflight(1)
	defer h.inflight(-1)
	res, err := s.run(ctx, t, args)
	if err != nil && ctx.Err() != nil {
		if me := mcperr.Of(err); me.Code == mcperr.Cancelled {
			h.log.Info(fmt.Sprintf("session %s: %s", s.id, me.Message))
		}
	}
	return res, err
}

// inflight counts the tool calls in flight; when the last one ends,
// Options.OnIdle runs (what project code printed is released then).
func (h *Host) inflight(d int) {
	h.mu.Lock()
	h.calls += d
	idle := h.calls == 0
	h.mu.Unlock()
	if idle && h.opts.OnIdle != nil {
		h.opts.OnIdle()
	}
}

// Close closes a session on the agent's request. With no session named
// and none open it is NO_SESSION (decision 5).
func (h *Host) Close(ctx context.Context, id string) (string, error) {
	s, err := h.resolve(id)
	if err != nil {
		if s != nil && errors.Is(err, mcperr.NoSession) {
			// Closing: share the pending result.
			<-s.ended
			return s.closeText, nil
		}
		return "", err
	}
	return h.closeSession(s, ReasonAgent), nil
}

// closeSession tears s down once; concurrent callers share the result.
func (h *Host) closeSession(s *Session, reason string) string {
	h.mu.Lock()
	if s.state != stateLive {
		h.mu.Unlock()
		<-s.ended
		return s.closeText
	}
	s.state = stateClosing
	s.reason = reason
	h.mu.Unlock()
	if reason != ReasonAgent && reason != ReasonShutdown && reason != ReasonDisconnect {
		h.log.Warn(fmt.Sprintf("session %s ended: %s", s.id, reason))
	}
	s.cancelStep(mcperr.New(mcperr.Cancelled, "session %s closed: %s", s.id, reason))
	s.step <- struct{}{} // waits for the running tool; kept: nothing runs after
	s.mu.Lock()
	calls := s.calls
	s.mu.Unlock()
	var lines []string
	lines = append(lines, fmt.Sprintf("Session %s closed (%s); %d tool calls ran.", s.id, reason, calls))
	lines = append(lines, s.teardown(context.Background())...)
	s.closeText = h.red.String(strings.Join(lines, "\n"))
	h.release(s, reason)
	close(s.ended)
	return s.closeText
}

// CloseAll drains the host: new opens fail, opens in flight are cancelled
// and awaited, and every session closes with reason. It returns the close
// texts.
func (h *Host) CloseAll(reason string) []string {
	h.mu.Lock()
	h.draining = true
	for _, c := range h.openCanc {
		c()
	}
	h.mu.Unlock()
	h.opening.Wait()
	h.mu.Lock()
	var all []*Session
	for _, id := range h.order {
		all = append(all, h.sessions[id])
	}
	h.mu.Unlock()
	out := make([]string, len(all))
	var wg sync.WaitGroup
	for i, s := range all {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = h.closeSession(s, reason)
		}()
	}
	wg.Wait()
	return out
}

// KillAll kills every app process group at once (the second signal).
func (h *Host) KillAll() { h.apps.KillAll() }

// Live lists the ids of the live sessions.
func (h *Host) Live() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, s := range h.liveLocked() {
		out = append(out, s.id)
	}
	return out
}

// selectTarget resolves the target (spec §4.4).
func (h *Host) selectTarget(cfg *config.Config, name string) (*config.Target, error) {
	if name == "" {
		name = h.opts.Target
	}
	if len(cfg.Targets) == 0 {
		return nil, mcperr.New(mcperr.InvalidConfig, "the config declares no targets")
	}
	if name == "" {
		if len(cfg.Targets) == 1 {
			return &cfg.Targets[0], nil
		}
		return nil, mcperr.New(mcperr.TargetRequired, "the config declares several targets (%s); pass target to open_session, or start e2e mcp --target <name>", strings.Join(cfg.TargetNames(), ", "))
	}
	for i := range cfg.Targets {
		if cfg.Targets[i].Name == name {
			return &cfg.Targets[i], nil
		}
	}
	q := make([]string, len(cfg.Targets))
	for i, n := range cfg.TargetNames() {
		q[i] = strconv.Quote(n)
	}
	return nil, mcperr.New(mcperr.UnknownTarget, "unknown target %q; the config declares %s", name, strings.Join(q, ", "))
}

// engineKey names the engine instance a target's sessions would share, ""
// when each session gets its own. A spawned engine is a process per
// session and the built-in engine serves each connection from its own
// engine, but an engine server reached by connect may serve every
// connection from one engine (engine protocol §2.8): sessions on one
// address share it.
func engineKey(t *config.Target) string {
	if t.Engine.Connect == "" {
		return ""
	}
	host, port, err := net.SplitHostPort(t.Engine.Connect)
	if err != nil {
		return "connect " + t.Engine.Connect
	}
	return "connect " + net.JoinHostPort(strings.ToLower(host), port)
}

// claimEngine claims the shared engine of t for s (spec §4.2 step 6).
func (h *Host) claimEngine(s *Session, t *config.Target) error {
	key := engineKey(t)
	if key == "" {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if holder, ok := h.engClaim[key]; ok && holder != s.id {
		return mcperr.New(mcperr.EngineInUse, "target %q connects to the engine server at %s, which may serve every connection from one engine, so every session shares it, and session %s is driving it; give the target its own engine (engine.command or the built-in web engine), or close_session %s first", t.Name, t.Engine.Connect, holder, holder)
	}
	h.engClaim[key] = s.id
	return nil
}

// transportFor makes the engine transport of a target.
func (h *Host) transportFor(t *config.Target, root string, headed bool) (transport.Transport, string, error) {
	e := t.Engine
	switch {
	case e.Builtin != "":
		if h.opts.BuiltinWeb == nil {
			return nil, "", mcperr.New(mcperr.InvalidConfig, "target %q: this host has no built-in web engine", t.Name)
		}
		return h.opts.BuiltinWeb(headed), "web", nil
	case e.Connect != "":
		host, port, err := net.SplitHostPort(e.Connect)
		if err != nil {
			return nil, "", mcperr.New(mcperr.InvalidConfig, "target %q: engine.connect %q: %v", t.Name, e.Connect, err)
		}
		p, err := strconv.Atoi(port)
		if err != nil || p < 1 || p > 65535 {
			return nil, "", mcperr.New(mcperr.InvalidConfig, "target %q: engine.connect %q: bad port", t.Name, e.Connect)
		}
		return transport.Socket(transport.SocketOptions{Host: host, Port: p, DialTimeout: 10 * time.Second}), "", nil
	default:
		dir := root
		if e.Cwd != "" {
			dir = filepath.Join(root, e.Cwd)
		}
		cmd := e.Command
		if strings.ContainsRune(cmd, filepath.Separator) && !filepath.IsAbs(cmd) {
			cmd = filepath.Join(dir, cmd)
		}
		return transport.Spawn(transport.SpawnOptions{Command: cmd, Args: e.Args, Env: e.Env, Dir: dir, Logger: h.log}), "", nil
	}
}

// siteOf is the registrable domain of an app URL (host only here).
func siteOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Hostname()
}

// envMap is the process environment as a map.
func envMap() map[string]string {
	out := map[string]string{}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok && v != "" {
			out[k] = v
		}
	}
	return out
}

// secretList renders the configured secrets for type_secret.
func secretList(cfg *config.Config) []string {
	var out []string
	for _, n := range cfg.SecretNames() {
		out = append(out, fmt.Sprintf("%q (%s)", n, cfg.Secrets[n].PurposeOrDefault()))
	}
	sort.Strings(out)
	return out
}
