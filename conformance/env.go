package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/e2e-conform/toolkit/conformance/fixture/web"
	"github.com/e2e-conform/toolkit/protocol/client"
	"github.com/e2e-conform/toolkit/protocol/engineerr"
	"github.com/e2e-conform/toolkit/protocol/rpc"
	"github.com/e2e-conform/toolkit/protocol/schema"
	"github.com/e2e-conform/toolkit/protocol/transport"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// Env is what specs use to reach the engine under test: fresh connections
// (each spawn connection is a new process), raw connections, attempts, the
// fixture server, and the run-wide records of frames, server messages and
// violations that the global checks read.
type Env struct {
	cfg        Config
	tr         transport.Transport
	Transport  string // "spawn" or "socket"
	Manifest   wire.Manifest
	Schemas    *schema.Set
	Artifacts  string // a directory for attempts' artifacts
	cwd        string // the working directory of spawned servers
	FixtureURL string // base URL of the suite's fixture server

	mu         sync.Mutex
	frames     []frameRecord // the last frames exchanged (actLastResult)
	violations map[string][]violationRec
	conns      int // connections opened so far (connInfo ids)
	// specExchange is the running spec's frames, labelled by connection;
	// lastExchange and lastIDs those of the spec that ran last (trace.go).
	specExchange *exchange
	lastExchange *exchange
	lastIDs      []string
	// trace holds the --trace lines (nil without Config.Trace).
	trace *traceLog
	// specBroken is how the stream of a connection the running spec used
	// broke ("" while none did): the spec then ends at once, not verified.
	specBroken string
	// specClients are the client connections the running spec opened.
	specClients []*client.Conn
	sent        map[string]bool
	stderr      []string // the newest stderr lines, bounded (stderrLines, stderrBytes)
	stderrOff   int      // stderr[:stderrOff] are dropped lines not yet released
	stderrSize  int      // bytes in stderr[stderrOff:]
	stderrLeaks []string // lines dropped from stderr that held a registered secret
	secrets     []string // canaries and secret values never to appear (at most maxSecretValues)
	secretSet   map[string]bool
	// secretsDropped counts values not registered past maxSecretValues.
	secretsDropped int
	// scan is the automaton over secrets[:len(scan.values)] (leakscan.go);
	// the values registered after it (fewer than scanBatch) are searched
	// one by one until the next build.
	scan *leakMatcher
	// unchecked holds, per requirement, why part of what it judges was
	// not checked (a secret-request flood): the run-wide spec is then not
	// verified unless it failed.
	unchecked map[string]string
	// floodRequests counts the attempt/resolveSecret requests past
	// maxSecretRequests in their attempt, answered unchecked.
	floodRequests int
	counter       int
	srv           *http.Server
	held          holds // the pages the fixture server holds (hold.go)
	// runEvidence is every observation of the run, specEvidence those of
	// the spec running now (evidence.go).
	runEvidence  Evidence
	specEvidence Evidence
	specIDs      []string // the running spec's requirements
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

// violationRec is one run-wide violation: its message, naming the message
// and connection it was found in, and that connection's recent frames.
type violationRec struct {
	msg      string
	exchange string
}

// msgCtx says where a message the server wrote was read: its connection and
// what it was ("the answer to engine/observe (id 7)"), for violations.
type msgCtx struct {
	conn  *connInfo
	where string
}

// suffix is " (in the answer to engine/observe (id 7), conn 3 (client))".
func (m msgCtx) suffix() string {
	switch {
	case m.where != "" && m.conn != nil:
		return " (in " + m.where + ", " + m.conn.label() + ")"
	case m.conn != nil:
		return " (on " + m.conn.label() + ")"
	case m.where != "":
		return " (in " + m.where + ")"
	}
	return ""
}

// describeMessage names a message the server wrote: answer is the request
// it answers ("engine/observe (id 7)"), "" when unknown.
func describeMessage(f *Frame, answer string) string {
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
func newEnv(cfg Config) (*Env, error) {
	e := &Env{cfg: cfg, violations: map[string][]violationRec{}, sent: map[string]bool{}, runEvidence: Evidence{},
		secretSet: map[string]bool{}, unchecked: map[string]string{}}
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
			Logger: slog.New(stderrRecorder{e})})
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
		e.tr = transport.Socket(transport.SocketOptions{Host: host, Port: n, DialTimeout: 5 * time.Second})
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
	if err := e.startFixtures(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return e, nil
}

func (e *Env) close() {
	if e.srv != nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = e.srv.Shutdown(ctx)
	}
	os.RemoveAll(e.Artifacts)
}

// startFixtures serves the fixture screens (package conformance/fixture/web: every
// screen of conformance/fixture as an HTML page, /slow after
// fixture.SlowDelay) on the loopback interface (spec §11), and the held
// pages (hold.go) under holdPrefix.
func (e *Env) startFixtures() error {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/", web.Handler())
	mux.HandleFunc(holdPrefix, e.serveHold)
	e.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	e.FixtureURL = "http://" + l.Addr().String()
	go e.srv.Serve(l)
	return nil
}

// stderrRecorder keeps every stderr line of spawned servers (ERR-007).
type stderrRecorder struct{ e *Env }

func (s stderrRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (s stderrRecorder) Handle(_ context.Context, r slog.Record) error {
	line := r.Message
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "line" {
			line = a.Value.String()
		}
		return true
	})
	s.e.mu.Lock()
	s.e.keepStderr(line)
	s.e.mu.Unlock()
	return nil
}

// Bounds of the stderr lines the suite keeps: a chatty server's 100k lines
// cost 422 MB when every line was kept, and lines past 100k were no longer
// scanned for secrets.
const (
	stderrLines     = 100000
	stderrBytes     = 8 << 20
	stderrLeakLines = 64
)

// keepStderr adds line to the stderr ring, dropping the oldest lines past
// its bounds; a dropped line that holds a registered secret (raw or
// encoded) is kept among stderrLeaks, so the leak checks still see it
// (ERR-007). e.mu is held.
func (e *Env) keepStderr(line string) {
	e.stderr = append(e.stderr, line)
	e.stderrSize += len(line)
	for len(e.stderr)-e.stderrOff > 1 && (len(e.stderr)-e.stderrOff > stderrLines || e.stderrSize > stderrBytes) {
		old := e.stderr[e.stderrOff]
		e.stderr[e.stderrOff] = ""
		e.stderrSize -= len(old)
		e.stderrOff++
		if len(e.stderrLeaks) >= stderrLeakLines {
			continue
		}
		for _, v := range e.secrets {
			if _, ok := findLeak(old, v); ok {
				e.stderrLeaks = append(e.stderrLeaks, old)
				break
			}
		}
	}
	if e.stderrOff > len(e.stderr)/2 { // release the dropped lines' slots, amortised
		e.stderr = append([]string(nil), e.stderr[e.stderrOff:]...)
		e.stderrOff = 0
	}
}
func (s stderrRecorder) WithAttrs([]slog.Attr) slog.Handler { return s }
func (s stderrRecorder) WithGroup(string) slog.Handler      { return s }

// Secret registers a value that must never appear in what the server
// writes (ERR-007) and is redacted from verbose output. At most
// maxSecretValues are kept (the configured E2E_SECRET_* values first):
// past it a value is dropped, and the suite hands out no canary it could
// not search for (canary).
func (e *Env) Secret(v string) {
	e.register(v)
}

// register is Secret, reporting whether v is registered.
func (e *Env) register(v string) bool {
	if v == "" {
		return false
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.secretSet == nil {
		e.secretSet = map[string]bool{}
	}
	if e.secretSet[v] {
		return true
	}
	if len(e.secrets) >= maxSecretValues {
		e.secretsDropped++
		return false
	}
	e.secretSet[v] = true
	e.secrets = append(e.secrets, v)
	return true
}

// canary registers v, a value the suite is about to answer to an
// attempt/resolveSecret, and reports whether it may: false when the run
// holds maxSecretValues already (the suite then answers
// SECRET_UNAVAILABLE, never a value it does not search for).
func (e *Env) canary(v string) bool { return e.register(v) }

// Redact replaces every registered secret in s, raw and in every encoded
// form the leak checks know (leaks.go) for values long enough that an
// encoded form cannot be ordinary text. One automaton pass (leakscan.go),
// whatever the number of values.
func (e *Env) Redact(s string) string {
	e.mu.Lock()
	m, tail := e.secretScanLocked()
	e.mu.Unlock()
	return redactWith(m, tail, s)
}

// redactWith redacts s: the values of tail one by one (longest first, so
// a derived value registered late goes whole), then every value of m.
func redactWith(m *leakMatcher, tail []string, s string) string {
	if len(tail) > 0 {
		s = redactSecrets(s, tail)
	}
	return m.redact(s)
}

// secretScanLocked returns the automaton over the registered values and
// the values registered since it was built, rebuilding it once more than
// scanBatch are. e.mu is held.
func (e *Env) secretScanLocked() (*leakMatcher, []string) {
	built := 0
	if e.scan != nil {
		built = len(e.scan.values)
	}
	if len(e.secrets)-built > scanBatch {
		e.scan = newLeakMatcher(e.secrets[:len(e.secrets):len(e.secrets)])
		built = len(e.secrets)
	}
	return e.scan, e.secrets[built:len(e.secrets):len(e.secrets)]
}

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
func (e *Env) secretRequest(mc msgCtx, attempt string) bool {
	n := mc.conn.askSecret(attempt)
	if n <= maxSecretRequests {
		return true
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.floodRequests++
	if e.unchecked == nil {
		e.unchecked = map[string]string{}
	}
	if n == maxSecretRequests+1 && e.unchecked["S2C-004"] == "" {
		e.unchecked["S2C-004"] = e.redactLocked(fmt.Sprintf("the server sent more than %d attempt/resolveSecret requests in attempt %q (%s): an engine asks once per secret an operation fills, and §6.6 bounds no count, so this is no failure; the suite answered every request of that attempt past the %dth with SECRET_UNAVAILABLE (as a client answers a name it does not declare) without checking its params",
			maxSecretRequests, attempt, mc.conn.label(), maxSecretRequests))
	}
	return false
}

// uncheckedNote says why part of what requirement id judges was not
// checked, "" when all of it was.
func (e *Env) uncheckedNote(id string) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	note := e.unchecked[id]
	if note != "" && id == "S2C-004" {
		note += fmt.Sprintf(" (%d such requests in the run)", e.floodRequests)
	}
	return note
}

// violation records a failure of a run-wide requirement, found while
// reading what the server sent; the global specs report them.
func (e *Env) violation(id, format string, args ...any) {
	e.violationIn(msgCtx{}, id, format, args...)
}

// violationIn records a violation found in a message read as mc says: the
// message names it and its connection, and keeps the connection's recent
// frames.
func (e *Env) violationIn(mc msgCtx, id, format string, args ...any) {
	rec := violationRec{msg: e.Redact(fmt.Sprintf(format, args...) + mc.suffix()), exchange: mc.conn.recentExchange()}
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.violations[id]) < 20 {
		e.violations[id] = append(e.violations[id], rec)
	}
}

// Violations returns what was recorded against id.
func (e *Env) Violations(id string) []string {
	var out []string
	for _, v := range e.violationRecords(id) {
		out = append(out, v.msg)
	}
	return out
}

// violationRecords returns the violations recorded against id.
func (e *Env) violationRecords(id string) []violationRec {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]violationRec(nil), e.violations[id]...)
}

// markSent records a server-to-client message kind (S2C applicability).
func (e *Env) markSent(what string) {
	e.mu.Lock()
	e.sent[what] = true
	e.mu.Unlock()
}

// Sent reports whether the server sent what during the run.
func (e *Env) Sent(what string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.sent[what]
}

// StderrLines returns the spawned servers' stderr lines so far: the newest
// (up to 100000 lines and 8 MiB), after the older ones that held a
// registered secret.
func (e *Env) StderrLines() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append(append([]string(nil), e.stderrLeaks...), e.stderr[e.stderrOff:]...)
}

// nextID names attempts and runs uniquely within the run.
func (e *Env) nextID(prefix string) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.counter++
	return fmt.Sprintf("%s-%d", prefix, e.counter)
}

// discover reads the engine's manifest over a raw connection. The manifest
// is decoded leniently: one that breaks its schema is still the engine's,
// and the MAN specs report what is wrong with it; only an engine that does
// not answer initialize with a manifest at all is unreachable.
func (e *Env) discover(ctx context.Context) (wire.Manifest, error) {
	var m wire.Manifest
	r, err := e.Raw(ctx)
	if err != nil {
		return m, fmt.Errorf("%w: %w", errEngineUnreachable, err)
	}
	defer r.Close(5 * time.Second)
	f, err := r.Call(ctx, "0", wire.MethodInitialize, InitializeParams(wire.RoleWorker))
	if err != nil {
		return m, fmt.Errorf("initialize: %w; %s", err, r.Conn().Diagnostics())
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
func (e *Env) Dial(ctx context.Context) (transport.Conn, error) {
	return e.tr.Open(ctx, transport.Context{Role: wire.RoleWorker, Env: e.cfg.Env, Cwd: e.cwd})
}

// Raw opens a raw connection.
func (e *Env) Raw(ctx context.Context) (*Raw, error) {
	tc, err := e.Dial(ctx)
	if err != nil {
		return nil, err
	}
	return e.newRaw(tc, e.newConn(roleRaw)), nil
}

// Messages collects the server-to-client messages of a client connection.
type Messages struct {
	mu    sync.Mutex
	Items []string // "method attemptId line-or-text"
}

func (m *Messages) add(s string) {
	m.mu.Lock()
	m.Items = append(m.Items, s)
	m.mu.Unlock()
}

// All returns what was received.
func (m *Messages) All() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.Items...)
}

// Open opens a client connection (handshake done, the manifest checked to
// be valid and equal to the discovered one). Its frames are recorded and
// checked like a Raw connection's.
func (e *Env) Open(ctx context.Context, role string) (*client.Conn, *Messages, error) {
	msgs := &Messages{}
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
				conn.attempts.sent(content)
				conn.sentMaybeStart(content)
			}
			if dir == rpc.Received {
				f := &Frame{Content: content}
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
	if c != nil {
		e.mu.Lock()
		if len(e.specClients) < 64 {
			e.specClients = append(e.specClients, c)
		}
		e.mu.Unlock()
	}
	return c, msgs, err
}

// Attempt runs lifecycle/init and lifecycle/startAttempt (those listed) on
// c and returns the operation identity to use inside the attempt.
func (e *Env) Attempt(ctx context.Context, c *client.Conn) (client.Op, error) {
	return e.attemptWith(ctx, c, false)
}

// attemptWith is Attempt with the startAttempt's screens flag.
func (e *Env) attemptWith(ctx context.Context, c *client.Conn, screens bool) (client.Op, error) {
	run := e.nextID("run")
	if e.Manifest.Lists(wire.MethodInit) {
		if err := c.Init(ctx, wire.InitParams{RunID: run, TargetName: "conformance", ProjectRoot: e.Artifacts,
			Env: e.cfg.Env, WorkerSlot: 0}); err != nil {
			e.skipWhenInitErr(err)
			return client.Op{}, fmt.Errorf("lifecycle/init: %w", err)
		}
	}
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

// checkServerMessage applies the run-wide checks to one message the server
// sent: schema (WIRE-013), no null optional member (WIRE-012), error shapes
// (ERR-001…006), and the server's requests (S2C-004).
func (e *Env) checkServerMessage(f *Frame, mc msgCtx) {
	if f.Msg == nil {
		return
	}
	e.checkAttemptWindow(f, mc)
	if f.IsResponse() {
		e.checkResponseShape(f, mc)
		if eo, ok := f.Msg["error"]; ok {
			e.checkError(eo, mc)
		}
		return
	}
	method := f.Method()
	params := f.Msg["params"]
	e.observed("S2C-004", "server message read")
	e.observed("WIRE-012", method+" params checked")
	e.observed("WIRE-013", method+" params validated")
	switch method {
	case wire.MethodEngineLog, wire.MethodAppLog, wire.MethodNavigation, wire.MethodEnvironment:
		e.observed("S2C-003", method+" checked")
	case wire.MethodScreen:
		e.observed("S2C-002", "attempt/screen validated")
	}
	switch method {
	case wire.MethodResolveSecret:
		e.markSent("attempt/resolveSecret")
		var p struct {
			AttemptID  any             `json:"attemptId"`
			Derivation json.RawMessage `json:"derivation"`
		}
		_ = json.Unmarshal(params, &p)
		attempt, _ := p.AttemptID.(string)
		if !e.secretRequest(mc, attempt) {
			f.pastBound = true // answered SECRET_UNAVAILABLE, unchecked
			return
		}
		if p.Derivation != nil {
			e.markSent("attempt/resolveSecret with derivation")
		}
	case wire.MethodEngineLog, wire.MethodAppLog, wire.MethodNavigation, wire.MethodEnvironment, wire.MethodScreen:
	default:
		if _, isRequest := f.Msg["id"]; isRequest {
			e.violationIn(mc, "S2C-004", "the server sent the request %s", method)
		}
		return
	}
	if err := e.Schemas.ValidateServerMessage(method, params); err != nil {
		e.violationIn(mc, "WIRE-013", "%s params: %v", method, err)
		if strings.Contains(err.Error(), "null") {
			e.violationIn(mc, "WIRE-012", "%s params: %v", method, err)
		}
		if method == wire.MethodAppLog || method == wire.MethodEngineLog || method == wire.MethodNavigation || method == wire.MethodEnvironment {
			e.violationIn(mc, "S2C-003", "%s params: %v", method, err)
		}
		if method == wire.MethodScreen {
			e.violationIn(mc, "S2C-002", "%s params: %v", method, err)
		}
		if method == wire.MethodResolveSecret {
			e.violationIn(mc, "S2C-004", "%s params: %v", method, err)
		}
	}
	e.checkSecrets(mc.where, string(params))
}

// checkResult validates a result against its method's schema (WIRE-012,
// WIRE-013).
func (e *Env) checkResult(method string, raw []byte, mc msgCtx) {
	e.observed("WIRE-012", "result of "+method+" checked")
	e.observed("WIRE-013", "result of "+method+" validated")
	if err := e.Schemas.ValidateResult(method, raw); err != nil {
		e.violationIn(mc, "WIRE-013", "result of %s: %v", method, err)
		if strings.Contains(err.Error(), "null") {
			e.violationIn(mc, "WIRE-012", "result of %s: %v", method, err)
		}
	}
}

// checkSecrets records a canary found in what the server wrote (ERR-007):
// raw or encoded (leaks.go), one automaton pass over the text (leakscan.go).
func (e *Env) checkSecrets(where, text string) {
	e.mu.Lock()
	m, tail := e.secretScanLocked()
	e.mu.Unlock()
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

func (e *Env) checkError(raw json.RawMessage, mc msgCtx) {
	e.observed("WIRE-013", "error object validated")
	e.observed("ERR-005", "error object checked")
	e.observed("ERR-006", "error message checked")
	if err := e.Schemas.ValidateType("ErrorObject", raw); err != nil {
		e.violationIn(mc, "WIRE-013", "error object: %v", err)
	}
	// §0.4: a sender MUST NOT write null for an absent member (WIRE-012);
	// an error object's members, and those of its data and causes, are
	// never null (details, the engine's own object, is not searched).
	e.observed("WIRE-012", "error object checked")
	if where := nullErrorMember(raw, "error"); where != "" {
		e.violationIn(mc, "WIRE-012", "%s is null: an absent member is omitted, never null (§0.4)", where)
	}
	e.checkSecrets("the error object of "+orDefault(mc.where, "a response"), string(raw))
	// The rules the schema cannot state: one verdict, engineerr's.
	c, problems := engineerr.CheckObject(raw)
	if c.Code == wire.CodeEngineError {
		e.observed("ERR-001", "-32000 error checked")
	}
	switch c.Type {
	case "engine":
		e.observed("ERR-002", "engine error "+string(c.Engine))
		if !c.Engine.MayRetry() {
			e.observed("ERR-003", "engine error "+string(c.Engine)+" (retryable must be false)")
		}
	case "e2e":
		e.observed("ERR-004", "e2e error "+string(c.Category)+" "+c.E2ECode)
	}
	for _, p := range problems {
		e.violationIn(mc, p.Requirement, "%s", p.Message)
	}
}

// nullErrorMember returns the path of the first null member of an error
// object (its own members, its data's members but details, and its causes'),
// "" when there is none.
func nullErrorMember(raw json.RawMessage, path string) string {
	var eo map[string]json.RawMessage
	if json.Unmarshal(raw, &eo) != nil {
		return ""
	}
	for _, k := range []string{"code", "message", "data"} {
		if v, ok := eo[k]; ok && string(v) == "null" {
			return path + "." + k
		}
	}
	var d map[string]json.RawMessage
	if json.Unmarshal(eo["data"], &d) != nil {
		return ""
	}
	for k, v := range d {
		if k != "details" && string(v) == "null" {
			return path + ".data." + k
		}
	}
	if c, ok := d["cause"]; ok && strings.Count(path, ".cause") < 8 {
		return nullErrorMember(c, path+".data.cause")
	}
	return ""
}

// checkResponseShape applies WIRE-008 to one response the server wrote:
// "exactly one response with "jsonrpc": "2.0", the request's id …, and
// exactly one of result and error, an error having an integer code and a
// string message" (§1.4).
func (e *Env) checkResponseShape(f *Frame, mc msgCtx) {
	e.observed("WIRE-008", "response shape checked")
	id := f.ID()
	if v := string(f.Msg["jsonrpc"]); v != `"2.0"` {
		if v == "" {
			v = "no jsonrpc member"
		}
		e.violationIn(mc, "WIRE-008", "the response with id %s carries %s, want \"jsonrpc\": \"2.0\"", orDefault(id, "(none)"), v)
	}
	_, hasResult := f.Msg["result"]
	eo, hasError := f.Msg["error"]
	switch {
	case hasResult && hasError:
		e.violationIn(mc, "WIRE-008", "the response with id %s carries both result and error", id)
	case !hasResult && !hasError:
		e.violationIn(mc, "WIRE-008", "the response with id %s carries neither result nor error: %s", id, clip(string(f.Content)))
	}
	if id == "" {
		e.violationIn(mc, "WIRE-008", "a response without an id: %s", clip(string(f.Content)))
	}
	if !hasError {
		return
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(eo, &m) != nil || m == nil {
		e.violationIn(mc, "WIRE-008", "the error of the response with id %s is not an object: %s", id, clip(string(eo)))
		return
	}
	if _, isInt := wire.ParseInteger(m["code"]); !isInt {
		e.violationIn(mc, "WIRE-008", "the error of the response with id %s has code %s, want an integer", id, orDefault(string(m["code"]), "(none)"))
	}
	if msg := m["message"]; len(msg) == 0 || msg[0] != '"' {
		e.violationIn(mc, "WIRE-008", "the error of the response with id %s has message %s, want a string", id, orDefault(string(msg), "(none)"))
	}
}

// checkBatch applies the run-wide checks to content that is a JSON array:
// "Batches MUST NOT be sent (D3)" (§1.4), so a response inside one is not
// the one response its request gets (WIRE-008).
func (e *Env) checkBatch(content []byte, mc msgCtx) {
	var list []map[string]json.RawMessage
	if json.Unmarshal(content, &list) != nil {
		return
	}
	for _, m := range list {
		if _, isMsg := m["method"]; !isMsg && m != nil {
			e.violationIn(mc, "WIRE-008", "the response with id %s came inside a batch, which §1.4 forbids (\"Batches MUST NOT be sent\"): %s", orDefault(string(m["id"]), "(none)"), clip(string(content)))
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
func (r *requestMethods) answered(f *Frame, now time.Time) (string, time.Duration, bool) {
	if !f.IsResponse() {
		return "", 0, false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	p, ok := r.methods[f.ID()]
	delete(r.methods, f.ID())
	return p.method, now.Sub(p.at), ok
}

// stray reports whether response f answers no request pending on the
// connection (a second answer, or one to a request never sent): "The
// server sends exactly one response per request" (§1.4, WIRE-008).
func (r *requestMethods) stray(f *Frame, answered bool) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return f.IsResponse() && !answered && !r.overflow
}
