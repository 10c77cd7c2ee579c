package server_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/e2e-conform/toolkit/fixtures/saboteur"
	"github.com/e2e-conform/toolkit/mcp/oplog"
	"github.com/e2e-conform/toolkit/mcp/redact"
	"github.com/e2e-conform/toolkit/mcp/server"
	"github.com/e2e-conform/toolkit/mcp/session"
	"github.com/e2e-conform/toolkit/protocol/transport"

	"github.com/e2e-conform/toolkit/mcp/mcperr"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("net/http.(*persistConn).writeLoop"),
		goleak.IgnoreTopFunction("internal/poll.runtime_pollWait"))
}

// env is one in-memory client/server pair on a project directory.
type env struct {
	t      testing.TB
	dir    string
	app    string // fixture app base URL
	cs     *mcp.ClientSession
	host   *session.Host
	logs   *syncBuf
	ended  chan string
	cancel context.CancelFunc
	done   chan struct{}
}

type syncBuf struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func sabTransport(t testing.TB) func(bool) transport.Transport {
	return func(bool) transport.Transport {
		tr, err := saboteur.Transport(saboteur.Config{})
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
}

type envOpts struct {
	config      string // e2e.config.json content; "" writes none
	maxSessions int
	idle, ttl   time.Duration
	getenv      func(string) string
	builtin     func(bool) transport.Transport
	// handler serves the fixture app; nil answers "ok" on every path.
	handler http.Handler
	// cleanup and ready are the host's CleanupBudget and AppReadyTimeout.
	cleanup, ready time.Duration
	// client configures the client; protocol is its protocol version ("":
	// the SDK's latest).
	client   *mcp.ClientOptions
	protocol string
	// onStep is the host's OnStep.
	onStep func(event, session, tool string)
}

func newEnv(t testing.TB, o envOpts) *env {
	t.Helper()
	handler := o.handler
	if handler == nil {
		handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) })
	}
	app := httptest.NewServer(handler)
	t.Cleanup(app.Close)
	dir := t.TempDir()
	if o.config != "" {
		c := strings.ReplaceAll(o.config, "$APP", app.URL)
		if err := os.WriteFile(filepath.Join(dir, "e2e.config.json"), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, dir: dir, app: app.URL, logs: &syncBuf{}, ended: make(chan string, 16), done: make(chan struct{})}
	red := redact.New()
	builtin := o.builtin
	if builtin == nil {
		builtin = sabTransport(t)
	}
	fw := server.NewForwarder()
	h, err := session.New(session.Options{Cwd: dir, MaxSessions: o.maxSessions, IdleTimeout: o.idle, TTL: o.ttl,
		Redactor: red, Logger: oplog.NewForwarding(e.logs, red, slog.LevelDebug, fw.Log), BuiltinWeb: builtin, Getenv: o.getenv,
		CleanupBudget: o.cleanup, AppReadyTimeout: o.ready, OnStep: o.onStep,
		OnEnded: func(id, reason string) {
			select {
			case e.ended <- reason:
			default:
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	e.host = h
	srv := server.New(server.Options{Host: h, Version: "test", Logger: oplog.New(e.logs, red, slog.LevelInfo)})
	st, ct := mcp.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	e.cancel = cancel
	fdone := make(chan struct{})
	go func() {
		defer close(fdone)
		fw.Run(ctx, srv)
	}()
	go func() {
		defer close(e.done)
		defer func() { <-fdone }()
		_ = server.Serve(ctx, srv, h, st, oplog.New(e.logs, red, slog.LevelInfo))
		cancel()
	}()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, o.client).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: o.protocol})
	if err != nil {
		t.Fatal(err)
	}
	e.cs = cs
	t.Cleanup(e.close)
	return e
}

func (e *env) close() {
	e.cs.Close()
	select {
	case <-e.done:
	case <-time.After(30 * time.Second):
		e.t.Error("server did not stop")
	}
	e.cancel()
}

// call runs an MCP tool and returns its joined text, isError and image count.
func (e *env) call(name string, args map[string]any) (string, bool, int) {
	e.t.Helper()
	res, err := e.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		e.t.Fatalf("%s: %v", name, err)
	}
	var texts []string
	imgs := 0
	for _, c := range res.Content {
		switch v := c.(type) {
		case *mcp.TextContent:
			texts = append(texts, v.Text)
		case *mcp.ImageContent:
			imgs++
		}
	}
	return strings.Join(texts, "\n"), res.IsError, imgs
}

var sessionRe = regexp.MustCompile(`^Session (\S+) open`)

func nodeID(t *testing.T, text, pattern string) string {
	t.Helper()
	re := regexp.MustCompile(`#(n\d+) ` + pattern)
	m := re.FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no node matching %q in:\n%s", pattern, text)
	}
	return m[1]
}

const oneTarget = `{"targets":[{"name":"web","platform":"web","engine":{"builtin":"web"},"app":{"url":"$APP/counter"}}],
 "secrets":{"admin":{"env":"ADMIN_PW","purpose":"password","username":"admin"},"apiKey":{"env":"API_KEY"}}}`

func (e *env) open(args map[string]any) (id, text string) {
	e.t.Helper()
	text, isErr, _ := e.call("open_session", args)
	if isErr {
		e.t.Fatalf("open_session: %s", text)
	}
	m := sessionRe.FindStringSubmatch(text)
	if m == nil {
		e.t.Fatalf("no session id:\n%s", text)
	}
	return m[1], text
}

func mustContain(t *testing.T, text string, subs ...string) {
	t.Helper()
	for _, s := range subs {
		if !strings.Contains(text, s) {
			t.Errorf("text lacks %q:\n%s", s, text)
		}
	}
}

func mustMatch(t *testing.T, text, pattern string) {
	t.Helper()
	if !regexp.MustCompile(pattern).MatchString(text) {
		t.Errorf("text does not match %q:\n%s", pattern, text)
	}
}

// TestScriptedSession is the acceptance session: open a fixture page,
// observe, tap, locate, screenshot, close.
func TestScriptedSession(t *testing.T) {
	e := newEnv(t, envOpts{config: oneTarget})
	id, text := e.open(nil)
	mustMatch(t, text, `^Session \S+ open on target "web" \(platform web, engine saboteur 1\.0\.0\), headless; config .*e2e\.config\.json\.`)
	mustContain(t, text, "App: "+e.app+"/counter.", `Credentials: "admin" (username "admin"`, `Secrets: "apiKey"`,
		`Pass session "`+id+`"`, "Tools (run one with call {tool, args}; tools {tool} shows a tool's arguments):",
		`Node ids ("n42") are valid only for the newest observation`, "Current screen (revision b1, path /counter, 16 nodes):")
	mustContain(t, text, "- tap {target}: Tap or click one node: the gesture for a button, link, menu item, tab, checkbox, row, or field.")

	obs, isErr, _ := e.call("call", map[string]any{"tool": "observe"})
	if isErr {
		t.Fatal(obs)
	}
	mustMatch(t, obs, `^Current screen \(revision b2, path /counter, 16 nodes\):`)
	tap := nodeID(t, obs, `button "Tap"`)

	res, isErr, _ := e.call("call", map[string]any{"tool": "tap", "args": map[string]any{"target": tap}, "session": id})
	if isErr {
		t.Fatal(res)
	}
	mustMatch(t, res, `^Tapped #n\d+\.\n\nScreen changes since revision b2`)
	mustContain(t, res, `changed #n6 status text="taps: 1"`)

	loc, _, _ := e.call("call", map[string]any{"tool": "locate", "args": map[string]any{"role": "button", "name": "Tap"}})
	mustContain(t, loc, "1 node matches", `Use: screen.getByRole("button", "Tap")`)
	loc, _, _ = e.call("call", map[string]any{"tool": "locate", "args": map[string]any{"role": "button"}})
	mustContain(t, loc, "4 nodes match", "LOCATOR_AMBIGUOUS")
	loc, _, _ = e.call("call", map[string]any{"tool": "locate", "args": map[string]any{"role": "button", "name": "ta", "exact": false}})
	mustContain(t, loc, `screen.getByRole("button", "ta", { exact: false })`)
	loc, _, _ = e.call("call", map[string]any{"tool": "locate", "args": map[string]any{"text": "nothing here"}})
	mustContain(t, loc, "0 nodes match", "LOCATOR_NOT_FOUND")

	shot, isErr, imgs := e.call("call", map[string]any{"tool": "screenshot"})
	if isErr || imgs != 1 {
		t.Fatalf("screenshot: %v %d\n%s", isErr, imgs, shot)
	}
	mustContain(t, shot, "Screenshot attached: 80 by 60 pixels (0.1 per CSS pixel).")
	// Pixel mode: later actions carry a screenshot.
	_, _, imgs = e.call("call", map[string]any{"tool": "tap", "args": map[string]any{"target": tap}})
	if imgs != 1 {
		t.Errorf("action in pixel mode carried %d images", imgs)
	}
	// tap_at on the Tap button (its rect, in screenshot pixels at scale 0.1).
	at, isErr, _ := e.call("call", map[string]any{"tool": "tap_at", "args": map[string]any{"x": 5, "y": 7}})
	t.Log(at, isErr)

	closed, isErr, _ := e.call("close_session", nil)
	if isErr {
		t.Fatal(closed)
	}
	mustMatch(t, closed, `^Session \S+ closed \(closed by the agent\); \d+ tool calls ran\.$`)
	if got := <-e.ended; got != session.ReasonAgent {
		t.Errorf("ended %q", got)
	}
	after, isErr, _ := e.call("call", map[string]any{"tool": "observe"})
	if !isErr || !strings.HasPrefix(after, "NO_SESSION: no session is open; call open_session first (the previous session ended: closed by the agent)") {
		t.Errorf("after close: %v %s", isErr, after)
	}
}

func TestProtocolSurface(t *testing.T) {
	e := newEnv(t, envOpts{config: oneTarget})
	ctx := context.Background()
	lt, err := e.cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range lt.Tools {
		names = append(names, tl.Name)
		b, _ := json.Marshal(tl.InputSchema)
		var sch map[string]any
		_ = json.Unmarshal(b, &sch)
		if sch["type"] != "object" || sch["additionalProperties"] != false {
			t.Errorf("%s schema not closed: %s", tl.Name, b)
		}
		if tl.Annotations == nil || tl.Annotations.OpenWorldHint == nil || *tl.Annotations.OpenWorldHint {
			t.Errorf("%s: openWorldHint not false", tl.Name)
		}
		if tl.Annotations.ReadOnlyHint != (tl.Name == "tools") {
			t.Errorf("%s: readOnlyHint %v", tl.Name, tl.Annotations.ReadOnlyHint)
		}
		if tl.Name == "call" {
			mustContain(t, tl.Description, `call {tool: "tap", args: {target: "n42"}, session: "<id>"}`)
		}
	}
	if strings.Join(names, ",") != "open_session,tools,call,close_session" {
		t.Errorf("tools %v", names)
	}
	init := e.cs.InitializeResult()
	if init.ServerInfo.Name != "e2e" || init.Capabilities.Tools == nil || init.Capabilities.Resources == nil || init.Capabilities.Logging == nil {
		t.Errorf("initialize: %+v", init)
	}
	mustContain(t, init.Instructions, "call {tool, args} runs any catalog tool", "Several sessions can be open at once")

	rl, err := e.cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	uris := map[string]bool{}
	for _, r := range rl.Resources {
		uris[r.URI] = true
	}
	for _, u := range []string{"e2e://guide", "e2e://guide/mcp", "e2e://guide/writing-tests"} {
		if !uris[u] {
			t.Errorf("resources/list lacks %s", u)
		}
	}
	tl, err := e.cs.ListResourceTemplates(ctx, nil)
	if err != nil || len(tl.ResourceTemplates) != 1 || tl.ResourceTemplates[0].URITemplate != "e2e://guide/{topic}" {
		t.Errorf("templates: %+v %v", tl, err)
	}
	rr, err := e.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "e2e://guide/mcp"})
	if err != nil || !strings.HasPrefix(rr.Contents[0].Text, "# Driving the app over MCP") {
		t.Errorf("guide/mcp: %v", err)
	}
	rr, err = e.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "e2e://guide"})
	if err != nil || strings.HasPrefix(rr.Contents[0].Text, "---") {
		t.Errorf("guide: %v", err)
	}
	_, err = e.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "e2e://guide/nope"})
	if err == nil || !strings.Contains(err.Error(), "UNKNOWN_TOPIC") || !strings.Contains(err.Error(), "writing-tests") {
		t.Errorf("unknown topic: %v", err)
	}
	if _, err := e.cs.CallTool(ctx, &mcp.CallToolParams{Name: "nope"}); err == nil {
		t.Error("unknown MCP tool: no JSON-RPC error")
	}
	// Undeclared keys on each fixed tool are refused before the handler.
	for tool, key := range map[string]string{"open_session": "headless", "tools": "all", "call": "verbose", "close_session": "force"} {
		args := map[string]any{key: true}
		if tool == "call" {
			args["tool"] = "observe"
		}
		text, isErr, _ := e.call(tool, args)
		if !isErr || !strings.Contains(text, key) {
			t.Errorf("%s {%s}: %v %s", tool, key, isErr, text)
		}
	}
	text, _, _ := e.call("tools", nil)
	mustContain(t, text, "NO_SESSION")
}

func errCode(t *testing.T, e *env, tool string, args map[string]any, code string, subs ...string) string {
	t.Helper()
	text, isErr, _ := e.call(tool, args)
	if !isErr || !strings.HasPrefix(text, code+": ") {
		t.Fatalf("%s %v: want %s, got isError=%v:\n%s", tool, args, code, isErr, text)
	}
	mustContain(t, text, subs...)
	return text
}

func TestErrorCodes(t *testing.T) {
	t.Run("NO_SESSION", func(t *testing.T) {
		e := newEnv(t, envOpts{config: oneTarget})
		errCode(t, e, "tools", nil, "NO_SESSION", "call open_session first")
		errCode(t, e, "call", map[string]any{"tool": "observe"}, "NO_SESSION", "call open_session first")
		errCode(t, e, "close_session", nil, "NO_SESSION")
		errCode(t, e, "call", map[string]any{"tool": "observe", "session": "x"}, "NO_SESSION", `session "x" is not open; no session is open`)
		id, _ := e.open(nil)
		errCode(t, e, "call", map[string]any{"tool": "observe", "session": "x"}, "NO_SESSION", `open: `+id+` on "web"`)
		e.call("close_session", map[string]any{"session": id})
		errCode(t, e, "call", map[string]any{"tool": "observe", "session": id}, "NO_SESSION", "ended: closed by the agent; call open_session for a new one")
	})
	t.Run("SESSION_REQUIRED", func(t *testing.T) {
		e := newEnv(t, envOpts{config: oneTarget})
		a, _ := e.open(nil)
		b, _ := e.open(nil)
		if a == b {
			t.Fatal("same id")
		}
		for _, tool := range []string{"tools", "call", "close_session"} {
			args := map[string]any{}
			if tool == "call" {
				args["tool"] = "observe"
			}
			errCode(t, e, tool, args, "SESSION_REQUIRED", "2 sessions are open; pass session to name one: "+a+` on "web", `+b+` on "web"`)
		}
		text, isErr, _ := e.call("call", map[string]any{"tool": "observe", "session": b})
		if isErr {
			t.Fatal(text)
		}
	})
	t.Run("SESSION_OPEN", func(t *testing.T) {
		e := newEnv(t, envOpts{config: oneTarget, maxSessions: 1})
		id, _ := e.open(nil)
		errCode(t, e, "open_session", nil, "SESSION_OPEN", "no session slot is free (e2e mcp --max-sessions 1): "+id+` on "web"; close_session one first`)
	})
	t.Run("CONFIG_IN_USE", func(t *testing.T) {
		e := newEnv(t, envOpts{config: oneTarget})
		id, _ := e.open(nil)
		other := filepath.Join(e.dir, "other.json")
		// The second config is not evaluated: it is not even valid JSON.
		if err := os.WriteFile(other, []byte("{"), 0o644); err != nil {
			t.Fatal(err)
		}
		errCode(t, e, "open_session", map[string]any{"config": "other.json"}, "CONFIG_IN_USE", "session "+id+" is open on config")
		e.call("close_session", nil)
		errCode(t, e, "open_session", map[string]any{"config": "other.json"}, "CONFIG_LOAD_FAILED")
	})
	t.Run("TARGET_REQUIRED and UNKNOWN_TARGET", func(t *testing.T) {
		e := newEnv(t, envOpts{config: `{"targets":[{"name":"web","engine":{"builtin":"web"}},{"name":"kiosk","engine":{"builtin":"web"}}]}`})
		errCode(t, e, "open_session", nil, "TARGET_REQUIRED", "the config declares several targets (web, kiosk); pass target to open_session, or start e2e mcp --target <name>")
		errCode(t, e, "open_session", map[string]any{"target": "tv"}, "UNKNOWN_TARGET", `unknown target "tv"; the config declares "web", "kiosk"`)
		_, text := e.open(map[string]any{"target": "kiosk", "headed": true})
		mustContain(t, text, `on target "kiosk"`, "), headed; config")
	})
	t.Run("CONFIG_NOT_FOUND and INVALID_CONFIG", func(t *testing.T) {
		e := newEnv(t, envOpts{})
		errCode(t, e, "open_session", nil, "CONFIG_NOT_FOUND")
		errCode(t, e, "open_session", map[string]any{"config": "missing.json"}, "CONFIG_NOT_FOUND")
		if err := os.WriteFile(filepath.Join(e.dir, "bad.json"), []byte(`{"targets":[{"name":"w","engine":{"builtin":"web"},"app":{"url":"ftp://x"}}]}`), 0o644); err != nil {
			t.Fatal(err)
		}
		errCode(t, e, "open_session", map[string]any{"config": "bad.json"}, "INVALID_CONFIG", "/targets/0/app/url")
		if err := os.WriteFile(filepath.Join(e.dir, "none.json"), []byte(`{"targets":[]}`), 0o644); err != nil {
			t.Fatal(err)
		}
		errCode(t, e, "open_session", map[string]any{"config": "none.json"}, "INVALID_CONFIG", "the config declares no targets")
	})
	t.Run("catalog and arguments", func(t *testing.T) {
		e := newEnv(t, envOpts{config: oneTarget})
		_, text := e.open(nil)
		tap := nodeID(t, text, `button "Tap"`)
		errCode(t, e, "call", map[string]any{"tool": "teleport"}, "UNKNOWN_TOOL", `tool "teleport" is not available in this session; tools: observe, tap,`)
		errCode(t, e, "tools", map[string]any{"tool": "teleport"}, "UNKNOWN_TOOL")
		errCode(t, e, "call", map[string]any{"tool": "tap", "args": map[string]any{"target": 42}}, "INVALID_ARGUMENT", "call tap: target: ", `tools {tool: "tap"} shows its arguments`)
		errCode(t, e, "call", map[string]any{"tool": "tap", "args": map[string]any{"target": tap, "force": true}}, "INVALID_ARGUMENT",
			`call tap: Unrecognized key: "force"; tools {tool: "tap"} shows its arguments`)
		errCode(t, e, "call", map[string]any{"tool": "tap"}, "INVALID_ARGUMENT", "target: required")
		errCode(t, e, "call", map[string]any{"tool": "locate", "args": map[string]any{"name": "x"}}, "INVALID_ARGUMENT", "locate needs exactly one of")
		errCode(t, e, "call", map[string]any{"tool": "locate", "args": map[string]any{"text": "x", "name": "y"}}, "INVALID_ARGUMENT", "name only narrows a role query")
		errCode(t, e, "call", map[string]any{"tool": "start_recording", "args": map[string]any{"name": "../escape"}}, "INVALID_ARGUMENT", "call start_recording: name:")
		// Nothing acted: the counter still shows 0.
		obs, _, _ := e.call("call", map[string]any{"tool": "observe"})
		mustContain(t, obs, `text="taps: 0"`)
		detail, _, _ := e.call("tools", map[string]any{"tool": "type_secret"})
		mustContain(t, detail, `"admin" (password)`, `"apiKey" (generic-secret)`, "Arguments (JSON Schema):", `"required"`)
		// A stale id fails without acting, with the re-observed screen.
		res, isErr, _ := e.call("call", map[string]any{"tool": "tap", "args": map[string]any{"target": "n9999"}})
		if !isErr {
			t.Fatal(res)
		}
		mustMatch(t, res, `^tap #n9999 failed: LOCATOR_NOT_FOUND: .*re-observe`)
		mustContain(t, res, "Current screen (revision")
	})
	t.Run("UNSUPPORTED_CAPABILITY", func(t *testing.T) {
		e := newEnv(t, envOpts{config: oneTarget, builtin: exampleTransport})
		_, text := e.open(nil)
		if strings.Contains(text, "- hover ") || strings.Contains(text, "- scroll ") {
			t.Errorf("example engine catalog lists hover or scroll:\n%s", text)
		}
		errCode(t, e, "call", map[string]any{"tool": "hover", "args": map[string]any{"target": "n1"}}, "UNSUPPORTED_CAPABILITY",
			`tool "hover" is not available in this session: the engine of target "web" declares no such action`)
	})
	t.Run("POLICY_DENIED", func(t *testing.T) {
		e := newEnv(t, envOpts{config: oneTarget})
		e.open(nil)
		for _, u := range []string{"javascript:alert(1)", "file:///etc/passwd"} {
			res, isErr, _ := e.call("call", map[string]any{"tool": "navigate", "args": map[string]any{"url": u}})
			if !isErr {
				t.Errorf("navigate %s: %s", u, res)
			}
			mustMatch(t, res, `^navigate `+regexp.QuoteMeta(u)+` failed: POLICY_DENIED: forbidden URL scheme: \w+:`)
		}
		res, isErr, _ := e.call("call", map[string]any{"tool": "navigate", "args": map[string]any{"url": "/form"}})
		if isErr {
			t.Fatal(res)
		}
		mustContain(t, res, "Navigated to /form.", "path /form")
		fileInput := nodeID(t, res, `button "Attachments"`)
		if err := os.WriteFile(filepath.Join(e.dir, "a.txt"), []byte("a"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(e.dir, ".env"), []byte("SECRET=1"), 0o644); err != nil {
			t.Fatal(err)
		}
		for files, want := range map[string]string{"../outside": "POLICY_DENIED", ".env": "POLICY_DENIED", "missing.txt": "INVALID_ARGUMENT"} {
			res, isErr, _ := e.call("call", map[string]any{"tool": "upload", "args": map[string]any{"target": fileInput, "files": []string{files}}})
			if !isErr {
				t.Errorf("upload %s: %s", files, res)
			}
			mustContain(t, res, "upload \""+files+"\" to #"+fileInput+" failed: "+want+":")
		}
		res, isErr, _ = e.call("call", map[string]any{"tool": "upload", "args": map[string]any{"target": fileInput, "files": []string{"a.txt"}}})
		if isErr {
			t.Errorf("upload a.txt: %s", res)
		}
		obs, _, _ := e.call("call", map[string]any{"tool": "observe"})
		name := nodeID(t, obs, `textbox "Name"`)
		res, _, _ = e.call("call", map[string]any{"tool": "type_secret", "args": map[string]any{"target": name, "name": "nope"}})
		mustContain(t, res, `type_secret "nope" into #`+name+` failed: POLICY_DENIED`)
		res, _, _ = e.call("call", map[string]any{"tool": "type_secret", "args": map[string]any{"target": name, "name": "admin"}})
		mustContain(t, res, "failed: POLICY_DENIED", "not a password field")
	})
	t.Run("CANCELLED", func(t *testing.T) {
		cfg := `{"targets":[{"name":"web","engine":{"builtin":"web"},"app":{"url":"$APP/counter","command":"sleep","args":["300"],"readyUrl":"http://127.0.0.1:1/never"}}]}`
		e := newEnv(t, envOpts{config: cfg, maxSessions: 1})
		// waitApp polls the pool until the app command of the open runs.
		waitApp := func() []int {
			t.Helper()
			deadline := time.Now().Add(10 * time.Second)
			for e.host.Apps().Running() == 0 {
				if time.Now().After(deadline) {
					t.Fatal("the app command never started")
				}
				time.Sleep(5 * time.Millisecond) // polling a state, not standing in for it
			}
			return e.host.Apps().Pids()
		}
		checkStopped := func(pids []int) {
			t.Helper()
			if n := e.host.Apps().Running(); n != 0 {
				t.Errorf("%d app processes still running", n)
			}
			for _, pid := range pids {
				if alive(pid) {
					t.Errorf("app process %d survived the cancelled open", pid)
				}
			}
		}
		// 1. The host's answer to a cancelled open (what the handler returns).
		ctx, cancel := context.WithCancel(context.Background())
		errc := make(chan error, 1)
		go func() {
			_, err := e.host.Open(ctx, session.OpenRequest{})
			errc <- err
		}()
		pids := waitApp()
		cancel()
		err := <-errc
		if me := mcperr.Of(err); me.Code != mcperr.Cancelled || !regexp.MustCompile(`^opening session \S+ was cancelled$`).MatchString(me.Message) {
			t.Errorf("cancelled open: %v", err)
		}
		checkStopped(pids) // the answer came after the app command stopped
		// 2. Over MCP: the client cancels the request (notifications/cancelled).
		ctx, cancel = context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			defer close(done)
			_, _ = e.cs.CallTool(ctx, &mcp.CallToolParams{Name: "open_session", Arguments: map[string]any{}})
		}()
		pids = waitApp()
		cancel()
		<-done
		deadline := time.Now().Add(10 * time.Second)
		for e.host.Apps().Running() != 0 && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond) // polling the pool
		}
		checkStopped(pids)
		// 3. Shutdown aborts an open in flight: its MCP result is CANCELLED.
		res := make(chan string, 1)
		go func() {
			text, isErr, _ := e.call("open_session", nil)
			if !isErr {
				text = "not an error: " + text
			}
			res <- text
		}()
		pids = waitApp() // the slot was freed: with max 1 this open got in
		e.host.CloseAll(session.ReasonShutdown)
		mustMatch(t, <-res, `^CANCELLED: opening session \S+ was cancelled$`)
		checkStopped(pids)
		errCode(t, e, "open_session", nil, "SESSION_OPEN", "the server is shutting down; no session can open")
	})
}

func TestPixelTaintAndCanary(t *testing.T) {
	const canary = "CANARY-s3cr3t-7f1c"
	const pw = "hunter2-password"
	getenv := func(k string) string {
		switch k {
		case "API_KEY":
			return canary
		case "ADMIN_PW":
			return pw
		}
		return ""
	}
	e := newEnv(t, envOpts{config: strings.Replace(oneTarget, "$APP/counter", "$APP/form", 1), getenv: getenv})
	var all []string
	record := func(text string, _ bool, _ int) string { all = append(all, text); return text }
	_, text := e.open(nil)
	all = append(all, text)
	name := nodeID(t, text, `textbox "Name"`)
	password := nodeID(t, text, `textbox "Password"`)
	shot := record(e.call("call", map[string]any{"tool": "screenshot"}))
	mustContain(t, shot, "Screenshot attached")
	rec := record(e.call("call", map[string]any{"tool": "start_recording", "args": map[string]any{"name": "demo"}}))
	mustContain(t, rec, `Recording 1 "demo" started.`)
	res := record(e.call("call", map[string]any{"tool": "type_secret", "args": map[string]any{"target": name, "name": "apiKey"}}))
	mustContain(t, res, `Filled secret "apiKey" into #`+name, `value="<secret:apiKey>"`)
	res = record(e.call("call", map[string]any{"tool": "type_secret", "args": map[string]any{"target": password, "name": "admin"}}))
	mustContain(t, res, `Filled secret "admin"`)
	obs := record(e.call("call", map[string]any{"tool": "observe"}))
	mustContain(t, obs, `textbox "Password" testid="password-input" value=<secure>`, `value="<secret:apiKey>"`)
	loc := record(e.call("call", map[string]any{"tool": "locate", "args": map[string]any{"testId": "name-input"}}))
	mustContain(t, loc, `value "<secret:apiKey>"`)
	// Pixels are withheld for the rest of the session.
	text, isErr, imgs := e.call("call", map[string]any{"tool": "screenshot"})
	all = append(all, text)
	if !isErr || imgs != 0 || !strings.HasPrefix(text, "PIXEL_TAINTED: ") {
		t.Errorf("tainted screenshot: %v %d %s", isErr, imgs, text)
	}
	for _, tool := range []string{"tap_at", "hover_at", "type_at", "press_at", "select_at"} {
		args := map[string]any{"x": 1, "y": 1, "value": "v"}
		switch tool {
		case "tap_at", "hover_at":
			args = map[string]any{"x": 1, "y": 1}
		case "press_at":
			args = map[string]any{"x": 1, "y": 1, "key": "a"}
		}
		text, isErr, _ := e.call("call", map[string]any{"tool": tool, "args": args})
		all = append(all, text)
		if !isErr || !strings.HasPrefix(text, "PIXEL_TAINTED: ") {
			t.Errorf("%s: %v %s", tool, isErr, text)
		}
	}
	_, _, imgs = e.call("call", map[string]any{"tool": "tap", "args": map[string]any{"target": name}})
	if imgs != 0 {
		t.Error("action after a fill carried an image")
	}
	stop := record(e.call("call", map[string]any{"tool": "stop_recording"}))
	mustMatch(t, stop, `^Recording 1 "demo" stopped after \d+\.\d s\.\n- \S+1-demo\.saboteur\nA secret was filled`)
	closed := record(e.call("close_session", nil))
	<-e.ended
	all = append(all, e.logs.String())
	for _, s := range all {
		if strings.Contains(s, canary) || strings.Contains(s, pw) {
			t.Errorf("a secret leaked into:\n%s", s)
		}
	}
	_ = closed
	// Artifacts: nothing under the project holds a secret value.
	err := filepath.Walk(e.dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if strings.Contains(string(b), canary) || strings.Contains(string(b), pw) {
			t.Errorf("secret in artifact %s", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestZeroConfigAndIdle(t *testing.T) {
	e := newEnv(t, envOpts{idle: 50 * time.Millisecond})
	id, text := e.open(map[string]any{"engine": "web", "app": map[string]any{"url": e.app + "/counter"}})
	mustContain(t, text, `on target "web"`, "config none (zero config)", "path /counter")
	reason := <-e.ended // the idle timer closes it
	if !strings.HasPrefix(reason, "idle for") {
		t.Errorf("reason %q", reason)
	}
	errCode(t, e, "call", map[string]any{"tool": "observe"}, "NO_SESSION", "(the previous session ended: idle for")
	errCode(t, e, "call", map[string]any{"tool": "observe", "session": id}, "NO_SESSION", "ended: idle for")
	mustContain(t, e.logs.String(), "e2e mcp: [warning] session "+id+" ended: idle for")
	errCode(t, e, "open_session", map[string]any{"app": map[string]any{"url": e.app}}, "INVALID_ARGUMENT")
}

func TestTTL(t *testing.T) {
	e := newEnv(t, envOpts{config: oneTarget, ttl: 50 * time.Millisecond})
	e.open(nil)
	if reason := <-e.ended; !strings.Contains(reason, "exceeded its") {
		t.Errorf("reason %q", reason)
	}
}

func TestConcurrentSessionsAndSharedApp(t *testing.T) {
	cfg := `{"targets":[{"name":"web","engine":{"builtin":"web"},"app":{"url":"$APP/counter","command":"sleep","args":["300"]}}]}`
	e := newEnv(t, envOpts{config: cfg})
	var wg sync.WaitGroup
	ids := make([]string, 2)
	for i := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			text, isErr, _ := e.call("open_session", nil)
			if isErr {
				t.Error(text)
				return
			}
			ids[i] = sessionRe.FindStringSubmatch(text)[1]
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	if n := e.host.Apps().Running(); n != 1 {
		t.Errorf("%d app processes for two sessions on one command", n)
	}
	pids := e.host.Apps().Pids()
	e.call("close_session", map[string]any{"session": ids[0]})
	if n := e.host.Apps().Running(); n != 1 {
		t.Errorf("app stopped while a session uses it")
	}
	e.call("close_session", map[string]any{"session": ids[1]})
	if n := e.host.Apps().Running(); n != 0 {
		t.Errorf("app still running after the last session")
	}
	for _, pid := range pids {
		if alive(pid) {
			t.Errorf("app process %d survived", pid)
		}
	}
}

func newBenchEnv(b *testing.B) *env { return newEnv(b, envOpts{config: oneTarget}) }
