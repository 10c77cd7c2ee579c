package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/e2e-conform/toolkit/protocol/client"
	"github.com/e2e-conform/toolkit/protocol/rpc"
	"github.com/e2e-conform/toolkit/protocol/schema"
	"github.com/e2e-conform/toolkit/protocol/transport"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// runEnv is what specs use to reach the engine under test: fresh connections
// (each spawn connection is a new process), raw connections, attempts, the
// fixture server (fixtureServer), and the run-wide records of frames and
// server messages. The run-wide checks of every message the server writes,
// and the violations the global checks read, are its runChecker's.
type runEnv struct {
	cfg        Config
	tr         transport.Transport
	Transport  string // "spawn" or "socket"
	Manifest   wire.Manifest
	Schemas    *schema.Set
	Artifacts  string // a directory for attempts' artifacts
	cwd        string // the working directory of spawned servers
	FixtureURL string // base URL of the suite's fixture server

	// runChecker applies the run-wide checks and keeps their findings
	// (runcheck.go).
	runChecker
	// guard follows the socket connections (connguard.go); nil over
	// spawn.
	guard *connGuard
	// runWideShared, when the shards of --parallel share the run
	// (Config.ShardClaims), lets one shard alone run the run-wide workload
	// and each run-wide provocation (global_specs.go); nil otherwise.
	runWideShared *shardClaims
	// releaseUnanswered is set once a raw connection's release went
	// unanswered (raw.go): later ones close at once.
	releaseUnanswered atomic.Bool
	// fixtures is the fixture server FixtureURL names (fixtureserver.go).
	fixtures *fixtureServer

	// exchanges records the frames of every connection, the running
	// spec's exchange and what broke under it (exchanges.go).
	exchanges exchangeRecorder
	// trace holds the --trace lines (nil without Config.Trace).
	trace *traceLog

	mu sync.Mutex // guards counter and exercised
	// pool holds the worker connection specs hand on (pool.go).
	pool workerPool
	// stderr keeps the spawned servers' stderr lines (stderr.go).
	stderr stderrRing
	// secrets are the values never to appear in what the server writes,
	// and the redaction of every text the suite shows (secrets.go).
	secrets secretStore
	counter int
	// evidence is the run's and the running spec's observations
	// (evidence.go).
	evidence evidenceRecorder
	// exercised summarises the run-wide workload once it ran (exercise.go).
	exercised string
	// provoked: the server-to-client scenario ran for the applicability
	// of "when it sends" requirements (suite.provoke).
	provoked bool
	// tapModifiersPresent: the manifest has a tapModifiers member that is
	// not true (MAN-008 applies to it).
	tapModifiersPresent bool
	// initRefused is set when lifecycle/init with valid params was
	// answered with an error at the start of the run (probeInit).
	initRefused error
	// latency records the round trips of the suite's calls (latency.go).
	latency latencyRecorder
}

type frameRecord struct {
	dir     rpc.Direction
	content string
}

// describeMessage names a message the server wrote: answer is the request
// it answers ("engine/observe (id 7)"), "" when unknown.
func describeMessage(f *frame, answer string) string {
	switch {
	case f.Msg == nil:
		return "a frame that is not a JSON object"
	case f.IsResponse() && answer != "":
		return "the answer to " + answer
	case f.IsResponse():
		return "the response with id " + orDefault(f.ID(), "(none)")
	}
	if id := f.ID(); id != "" {
		return fmt.Sprintf("the request %s (id %s)", f.Method(), id)
	}
	return "the notification " + f.Method()
}

// newEnv prepares the transport and the fixture server.
func newEnv(cfg Config) (*runEnv, error) {
	e := &runEnv{cfg: cfg}
	e.runChecker = runChecker{run: e, violations: map[string][]violationRec{}, sent: map[string]bool{}, unchecked: map[string]string{}}
	if cfg.Trace != nil {
		e.trace = &traceLog{start: time.Now()}
	}
	// The configured E2E_SECRET_* values go out in every lifecycle/init's
	// env: they are secrets from the first frame on.
	for k, v := range cfg.Env {
		if strings.HasPrefix(k, "E2E_SECRET_") {
			e.Secret(v)
		}
	}
	s, err := schema.Load()
	if err != nil {
		return nil, err
	}
	e.Schemas = s
	e.runChecker.schemas = s
	switch {
	case len(cfg.Spawn) > 0:
		env := map[string]string{}
		for k, v := range cfg.Env {
			env[k] = v
		}
		if _, ok := env["PATH"]; !ok {
			env["PATH"] = os.Getenv("PATH")
		}
		e.tr = transport.Spawn(transport.SpawnOptions{Command: cfg.Spawn[0], Args: cfg.Spawn[1:], Env: env,
			Logger: slog.New(stderrRecorder{e}), Label: strings.Join(maskCommand(cfg.Spawn), " ")})
		e.Transport = "spawn"
	case cfg.Connect != "":
		host, port, err := net.SplitHostPort(cfg.Connect)
		if err != nil {
			return nil, fmt.Errorf("--connect %q: %w", cfg.Connect, err)
		}
		n, err := strconv.Atoi(port)
		if err != nil {
			return nil, fmt.Errorf("--connect %q: bad port", cfg.Connect)
		}
		e.guard = newConnGuard(e, transport.Socket(transport.SocketOptions{Host: host, Port: n, DialTimeout: 5 * time.Second}))
		e.tr = e.guard
		e.Transport = "socket"
	default:
		return nil, fmt.Errorf("no engine: give Spawn or Connect")
	}
	e.cwd, _ = os.Getwd()
	dir, err := os.MkdirTemp("", "e2e-conform-*")
	if err != nil {
		return nil, err
	}
	e.Artifacts = dir
	fx, err := startFixtureServer()
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	e.fixtures, e.FixtureURL = fx, fx.url
	return e, nil
}

func (e *runEnv) close() {
	e.emptyPool()
	if e.fixtures != nil {
		e.fixtures.close()
	}
	os.RemoveAll(e.Artifacts)
}

// stderrRecorder keeps every stderr line of spawned servers (ERR-007).
type stderrRecorder struct{ e *runEnv }

func (s stderrRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (s stderrRecorder) Handle(_ context.Context, r slog.Record) error {
	line := r.Message
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "line" {
			line = a.Value.String()
		}
		return true
	})
	s.e.stderr.keep(line, &s.e.secrets)
	return nil
}

func (s stderrRecorder) WithAttrs([]slog.Attr) slog.Handler { return s }
func (s stderrRecorder) WithGroup(string) slog.Handler      { return s }

// Bounds of the secret machinery (docs/report.md, "Secret requests").
const (
	// maxSecretRequests is how many attempt/resolveSecret requests of one
	// attempt the suite answers and checks. A correct engine asks once
	// per secret an operation fills, and the suite's scenarios fill one
	// secret per attempt; no engine that follows the spec comes near 64.
	// Past it, every request of the attempt is answered SECRET_UNAVAILABLE
	// (what §6.6 has a client answer for a name it does not declare)
	// without being checked, and S2C-004 is reported not verified: §6.6
	// bounds no count, so a flood is not a failure.
	maxSecretRequests = 64
	// maxSecretValues bounds the values registered in a run (canaries,
	// answered secrets, derived forms, fill values).
	maxSecretValues = 2048
	// scanBatch is how many values are searched one by one before the
	// automaton is rebuilt over all of them.
	scanBatch = 32
)

// secretRequest counts an attempt/resolveSecret read on mc's connection
// for attempt and reports whether it is within maxSecretRequests. The
// first request past the bound is recorded against S2C-004.
func (e *runEnv) secretRequest(mc msgCtx, attempt string) bool {
	n := mc.conn.askSecret(attempt)
	if n <= maxSecretRequests {
		return true
	}
	note := ""
	if n == maxSecretRequests+1 {
		note = e.Redact(fmt.Sprintf("the server sent more than %d attempt/resolveSecret requests in attempt %q (%s): an engine asks once per secret an operation fills, and §6.6 bounds no count, so this is no failure; the suite answered every request of that attempt past the %dth with SECRET_UNAVAILABLE (as a client answers a name it does not declare) without checking its params",
			maxSecretRequests, attempt, mc.conn.label(), maxSecretRequests))
	}
	e.flooded("S2C-004", note)
	return false
}

// nextID names attempts and runs uniquely within the run.
func (e *runEnv) nextID(prefix string) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.counter++
	return fmt.Sprintf("%s-%d", prefix, e.counter)
}

// discover reads the engine's manifest over a raw connection. The manifest
// is decoded leniently: one that breaks its schema is still the engine's,
// and the MAN specs report what is wrong with it; only an engine that does
// not answer initialize with a manifest at all is unreachable.
func (e *runEnv) discover(ctx context.Context) (wire.Manifest, error) {
	var m wire.Manifest
	r, err := e.openRaw(ctx)
	if err != nil {
		return m, fmt.Errorf("%w: %w", errEngineUnreachable, err)
	}
	defer r.Close(5 * time.Second)
	f, err := r.Call(ctx, "0", wire.MethodInitialize, initializeParams(wire.RoleWorker))
	if err != nil && f != nil {
		// Answered under another id: WIRE-008's breach, not LIFE-001's
		// (markUnreachable).
		return m, &initIDError{got: f.ID(), content: e.Redact(clip(string(f.Content)))}
	}
	if err != nil {
		diag := r.Conn().Diagnostics() // waits for the exit status after EOF
		if r.exitedSilent(ctx) {
			// Nothing of the engine was seen: a misspelt script, a
			// missing module. The run failed, not the engine (exit 4).
			return m, fmt.Errorf("%w: the engine exited before answering its first initialize, having written nothing on stdout: %s", errEngineUnreachable, diag)
		}
		return m, fmt.Errorf("initialize: %w; %s", err, diag)
	}
	if eo := f.Error(); eo != nil {
		return m, fmt.Errorf("initialize failed: %d %s", eo.Code, eo.Message)
	}
	var res struct {
		Manifest json.RawMessage `json:"manifest"`
	}
	if err := json.Unmarshal(f.Result(), &res); err != nil || len(res.Manifest) == 0 {
		return m, fmt.Errorf("initialize result %s has no manifest", clip(string(f.Result())))
	}
	var loose struct {
		Name, Version, Platform string
		SPIVersion              int `json:"spiVersion"`
		Workers                 *int64
		Methods, Actions        []string
		PointerActions          []string `json:"pointerActions"`
		TapModifiers            any      `json:"tapModifiers"`
	}
	if err := json.Unmarshal(res.Manifest, &loose); err != nil {
		return m, fmt.Errorf("the manifest cannot be read: %v", err)
	}
	m = wire.Manifest{Name: loose.Name, Version: loose.Version, SPIVersion: loose.SPIVersion, Platform: loose.Platform,
		Workers: loose.Workers, Methods: loose.Methods, Actions: loose.Actions, PointerActions: loose.PointerActions}
	m.TapModifiers = loose.TapModifiers == true
	if loose.TapModifiers != nil && loose.TapModifiers != true {
		e.tapModifiersPresent = true
	}
	if m.Name == "" {
		m.Name = "(unnamed engine)" // Manifest.Name marks a discovered manifest
	}
	return m, nil
}

// Dial opens a transport connection (no handshake).
func (e *runEnv) Dial(ctx context.Context) (transport.Conn, error) {
	return e.tr.Open(ctx, transport.Context{Role: wire.RoleWorker, Env: e.cfg.Env, Cwd: e.cwd})
}

// openRaw opens a raw connection.
func (e *runEnv) openRaw(ctx context.Context) (*rawConn, error) {
	tc, err := e.Dial(ctx)
	if err != nil {
		return nil, err
	}
	return e.newRaw(tc, e.newConn(roleRaw)), nil
}

// notifications collects the server-to-client messages of a client connection.
type notifications struct {
	mu    sync.Mutex
	Items []string // "method attemptId line-or-text"
}

// reset forgets what was received (a pooled connection handed to the next
// spec).
func (m *notifications) reset() {
	m.mu.Lock()
	m.Items = nil
	m.mu.Unlock()
}

func (m *notifications) add(s string) {
	m.mu.Lock()
	m.Items = append(m.Items, s)
	m.mu.Unlock()
}

// All returns what was received.
func (m *notifications) All() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.Items...)
}

// Open opens a client connection (handshake done, the manifest checked to
// be valid and equal to the discovered one). Its frames are recorded and
// checked like a rawConn's.
func (e *runEnv) Open(ctx context.Context, role string) (*client.Conn, *notifications, error) {
	cc, err := e.openClient(ctx, role)
	if cc == nil {
		return nil, nil, err
	}
	return cc.c, cc.msgs, err
}

// clientConn is a client connection the suite opened, with what it
// records of it.
type clientConn struct {
	c       *client.Conn
	msgs    *notifications
	pending *requestMethods
}

// openClient is Open, returning the connection's records too (nil when the
// connection could not be made at all).
func (e *runEnv) openClient(ctx context.Context, role string) (*clientConn, error) {
	msgs := &notifications{}
	pending := &requestMethods{methods: map[string]pendingRequest{}}
	conn := e.newConn(roleClient)
	m := e.Manifest
	cc := client.ConnConfig{
		Transport: e.tr, Context: transport.Context{Role: role, Env: e.cfg.Env, Cwd: e.cwd},
		Manifest: &m, ClientInfo: wire.ClientInfo{Name: "e2e-conform"}, Schemas: e.Schemas,
		Trace: func(dir rpc.Direction, content []byte) {
			now := time.Now()
			e.recordFrame(conn, dir, content)
			if dir == rpc.Sent {
				pending.sent(content, now)
				conn.suiteWrote(content)
				conn.sentMaybeStart(content)
			}
			if dir == rpc.Received {
				f := &frame{Content: content}
				_ = json.Unmarshal(content, &f.Msg)
				method, took, answered := pending.answered(f, now)
				answer := ""
				if answered {
					answer = fmt.Sprintf("%s (id %s)", method, f.ID())
				}
				mc := msgCtx{conn: conn, where: describeMessage(f, answer)}
				e.checkServerMessage(f, mc)
				if pending.stray(f, answered) {
					e.violationIn(mc, "WIRE-008", "a response with id %s answers no request pending on this client connection: a second response to one request, or one to a request never sent (§1.4: exactly one response per request)", orDefault(f.ID(), "(none)"))
				}
				// Results on client connections are validated like raw
				// ones (WIRE-012, WIRE-013): the client library decodes
				// leniently, and a void method answering {} or an
				// observation without viewport must not pass unseen.
				if answered {
					e.latency.record(method, took, f.Error() != nil)
				}
				if answered && f.Error() == nil && (wire.IsEngineMethod(method) || method == wire.MethodInitialize || method == wire.MethodShutdown) {
					e.checkResult(method, f.Result(), mc)
				}
				if f.Msg == nil && len(content) > 0 && content[0] == '[' {
					e.checkBatch(content, mc)
				}
			}
		},
		Handlers: client.Handlers{
			EngineLog:   func(line string) { msgs.add("engine/log " + line) },
			AppLog:      func(id string, en wire.AppLogEntry) { msgs.add("attempt/appLog " + id + " " + en.Text) },
			Navigation:  func(id, line string) { msgs.add("attempt/navigation " + id + " " + line) },
			Environment: func(id string, facts map[string]any) { msgs.add(fmt.Sprintf("attempt/environment %s %v", id, facts)) },
			Screen:      func(id string, s *wire.EngineSnapshot) { msgs.add("attempt/screen " + id) },
			Secret: func(ctx context.Context, name string) (string, bool, error) {
				// Past the attempt's bound (or the run's), SECRET_UNAVAILABLE.
				if conn.answerSecret() > maxSecretRequests {
					return "", false, nil
				}
				v := "s3cr3t-canary-" + name
				if !e.canary(v) {
					return "", false, nil
				}
				return v, true, nil
			},
			Redact: func(id, name string, values []string) {
				for _, v := range values {
					e.Secret(v)
				}
			},
		},
	}
	if e.Manifest.Name == "" {
		cc.Manifest = nil // discovery
	}
	c, err := client.Open(ctx, cc)
	if c == nil {
		return nil, err
	}
	e.usedBySpec(c)
	return &clientConn{c: c, msgs: msgs, pending: pending}, err
}

// usedBySpec notes that the running spec uses client connection c.
func (e *runEnv) usedBySpec(c *client.Conn) {
	e.exchanges.usedBy(c)
}

// Attempt runs lifecycle/init and lifecycle/startAttempt (those listed) on
// c and returns the operation identity to use inside the attempt.
func (e *runEnv) Attempt(ctx context.Context, c *client.Conn) (client.Op, error) {
	return e.attemptWith(ctx, c, false)
}

// attemptWith is Attempt with the startAttempt's screens flag.
func (e *runEnv) attemptWith(ctx context.Context, c *client.Conn, screens bool) (client.Op, error) {
	run, err := e.initWorker(ctx, c)
	if err != nil {
		return client.Op{}, err
	}
	return e.startAttempt(ctx, c, run, screens)
}

// initWorker sends lifecycle/init (when listed) on c and returns the run id
// it gave.
func (e *runEnv) initWorker(ctx context.Context, c *client.Conn) (string, error) {
	run := e.nextID("run")
	if e.Manifest.Lists(wire.MethodInit) {
		if err := c.Init(ctx, wire.InitParams{RunID: run, TargetName: "conformance", ProjectRoot: e.Artifacts,
			Env: e.cfg.Env, WorkerSlot: 0}); err != nil {
			e.skipWhenInitErr(err)
			return "", fmt.Errorf("lifecycle/init: %w", err)
		}
	}
	return run, nil
}

// startAttempt sends lifecycle/startAttempt (when listed) on c, a worker
// connection of run, and returns the attempt's operation identity.
func (e *runEnv) startAttempt(ctx context.Context, c *client.Conn, run string, screens bool) (client.Op, error) {
	attempt := e.nextID("attempt")
	dir, err := os.MkdirTemp(e.Artifacts, attempt+"-")
	if err != nil {
		return client.Op{}, err
	}
	if err := c.StartAttempt(ctx, wire.StartAttemptParams{AttemptID: attempt, ArtifactsDir: dir, Screens: screens}); err != nil {
		return client.Op{}, fmt.Errorf("lifecycle/startAttempt: %w", err)
	}
	return client.Op{RunID: run, AttemptID: attempt}, nil
}

// checkSecrets records a canary found in what the server wrote (ERR-007):
// raw or encoded (leaks.go), one automaton pass over the text (leakscan.go).
func (e *runEnv) checkSecrets(where, text string) {
	m, tail := e.secrets.scanner()
	if m == nil && len(tail) == 0 {
		return
	}
	lt := newLeakText(text)
	for _, h := range m.findIn(lt) {
		e.violation("ERR-007", "a secret value appears in %s (%s)", where, h.form)
	}
	for _, s := range tail {
		if form, ok := lt.find(s); ok {
			e.violation("ERR-007", "a secret value appears in %s (%s)", where, form)
		}
	}
}

// requestMethods maps the ids of a client connection's pending requests to
// their methods, so that responses can be validated against the method's
// result schema, and to when they were written (the round trip's latency).
type requestMethods struct {
	mu      sync.Mutex
	methods map[string]pendingRequest
	// overflow marks a connection that had more requests pending than
	// the bound: an unknown id then proves nothing.
	overflow bool
	// answer is closed (and replaced) at each answer read, for drained.
	answer chan struct{}
}

// drained waits up to d until no request is pending, and reports whether
// none is (false too when the bound overflowed: what is pending is then
// unknown).
func (r *requestMethods) drained(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	for {
		r.mu.Lock()
		n, overflow := len(r.methods), r.overflow
		if r.answer == nil {
			r.answer = make(chan struct{})
		}
		answer := r.answer
		r.mu.Unlock()
		if overflow {
			return false
		}
		if n == 0 {
			return true
		}
		select {
		case <-answer:
		case <-t.C:
			return false
		}
	}
}

// pendingRequest is a request written and not yet answered.
type pendingRequest struct {
	method string
	at     time.Time
}

// sent notes a request the client wrote at at.
func (r *requestMethods) sent(content []byte, at time.Time) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(content, &m) != nil || len(m.ID) == 0 || m.Method == "" {
		return
	}
	r.mu.Lock()
	if len(r.methods) < 4096 {
		r.methods[string(m.ID)] = pendingRequest{m.Method, at}
	} else {
		r.overflow = true
	}
	r.mu.Unlock()
}

// answered returns the method of the request response f (read at now)
// answers and how long before it was written, and forgets it.
func (r *requestMethods) answered(f *frame, now time.Time) (string, time.Duration, bool) {
	if !f.IsResponse() {
		return "", 0, false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	p, ok := r.methods[f.ID()]
	delete(r.methods, f.ID())
	if r.answer != nil {
		close(r.answer)
		r.answer = nil
	}
	return p.method, now.Sub(p.at), ok
}

// stray reports whether response f answers no request pending on the
// connection (a second answer, or one to a request never sent): "The
// server sends exactly one response per request" (§1.4, WIRE-008).
func (r *requestMethods) stray(f *frame, answered bool) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return f.IsResponse() && !answered && !r.overflow
}
