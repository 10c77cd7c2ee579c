package server_test

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/e2e-conform/toolkit/fixtures/saboteur"
	"github.com/e2e-conform/toolkit/protocol/transport"
)

// TestMoreErrorCodes provokes the codes of the spec's error table (§5)
// that TestErrorCodes does not; the real-engine ones (ACTION_FAILED,
// APP_UNREACHABLE from the browser) are in TestWebEngineErrors, the
// engine-code mapping (APP_NOT_OPEN, …) in package session's unit tests.
func TestMoreErrorCodes(t *testing.T) {
	t.Run("ENGINE_IN_USE", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		served := make(chan error, 1)
		go func() { served <- saboteur.ServeListener(ctx, l, saboteur.Config{}) }()
		t.Cleanup(func() {
			cancel()
			<-served
		})
		cfg := `{"targets":[{"name":"remote","engine":{"connect":"` + l.Addr().String() + `"},"app":{"url":"$APP/counter"}}]}`
		e := newEnv(t, envOpts{config: cfg})
		first, _ := e.open(nil)
		errCode(t, e, "open_session", nil, "ENGINE_IN_USE",
			`target "remote" connects to the engine server at `+l.Addr().String(), "session "+first+" is driving it", "close_session "+first+" first")
		// The refused open left nothing behind; after the close the claim is free.
		e.call("close_session", nil)
		second, _ := e.open(nil)
		if second == first {
			t.Error("same id")
		}
	})
	t.Run("INVALID_APP_URL and APP_URL_REQUIRED", func(t *testing.T) {
		e := newEnv(t, envOpts{})
		errCode(t, e, "open_session", map[string]any{"engine": "web", "app": map[string]any{"url": "ftp://example.com/"}}, "INVALID_APP_URL", `app url "ftp://example.com/"`)
		_, text := e.open(map[string]any{"engine": "web"})
		if strings.Contains(text, "App: ") {
			t.Errorf("no app URL, yet:\n%s", text)
		}
		res, isErr, _ := e.call("call", map[string]any{"tool": "navigate", "args": map[string]any{"url": "/form"}})
		if !isErr {
			t.Fatal(res)
		}
		mustMatch(t, res, `^navigate /form failed: APP_URL_REQUIRED: `)
	})
	t.Run("ENGINE_FAILURE", func(t *testing.T) {
		e := newEnv(t, envOpts{config: `{"targets":[{"name":"k","engine":{"command":"./no-such-engine"}}]}`})
		errCode(t, e, "open_session", nil, "ENGINE_FAILURE", "no-such-engine")
	})
	t.Run("SECRET_UNAVAILABLE and AUTH_CREDENTIAL_UNAVAILABLE", func(t *testing.T) {
		e := newEnv(t, envOpts{config: strings.Replace(oneTarget, "$APP/counter", "$APP/form", 1), getenv: func(string) string { return "" }})
		_, text := e.open(nil)
		name := nodeID(t, text, `textbox "Name"`)
		password := nodeID(t, text, `textbox "Password"`)
		res, isErr, _ := e.call("call", map[string]any{"tool": "type_secret", "args": map[string]any{"target": name, "name": "apiKey"}})
		if !isErr {
			t.Fatal(res)
		}
		mustMatch(t, res, `^type_secret "apiKey" into #`+name+` failed: SECRET_UNAVAILABLE: secret "apiKey" has no value`)
		res, isErr, _ = e.call("call", map[string]any{"tool": "type_secret", "args": map[string]any{"target": password, "name": "admin"}})
		if !isErr {
			t.Fatal(res)
		}
		mustMatch(t, res, `^type_secret "admin" into #`+password+` failed: AUTH_CREDENTIAL_UNAVAILABLE: credential "admin" \(username "admin"\) has no password`)
		// Nothing was filled, so pixels still flow.
		if _, isErr, imgs := e.call("call", map[string]any{"tool": "screenshot"}); isErr || imgs != 1 {
			t.Errorf("screenshot after failed fills: isError=%v images=%d", isErr, imgs)
		}
	})
	t.Run("APP_UNREACHABLE", func(t *testing.T) {
		e := newEnv(t, envOpts{config: `{"targets":[{"name":"web","engine":{"builtin":"web"},"app":{"url":"$APP/counter","command":"true","readyUrl":"http://127.0.0.1:1/"}}]}`})
		errCode(t, e, "open_session", nil, "APP_UNREACHABLE", `app command "true" exited before http://127.0.0.1:1/ answered`)
		if n := e.host.Apps().Running(); n != 0 {
			t.Errorf("%d app processes left", n)
		}
	})
	t.Run("LAUNCH_TIMEOUT", func(t *testing.T) {
		e := newEnv(t, envOpts{ready: 200 * time.Millisecond,
			config: `{"targets":[{"name":"web","engine":{"builtin":"web"},"app":{"url":"$APP/counter","command":"sleep","args":["300"],"readyUrl":"http://127.0.0.1:1/"}}]}`})
		errCode(t, e, "open_session", nil, "LAUNCH_TIMEOUT", `app command "sleep" started, but http://127.0.0.1:1/ did not answer within 200ms`)
		if n := e.host.Apps().Running(); n != 0 {
			t.Errorf("%d app processes left after LAUNCH_TIMEOUT", n)
		}
	})
	t.Run("CLEANUP_TIMEOUT", func(t *testing.T) {
		late := func(bool) transport.Transport {
			tr, err := saboteur.Transport(saboteur.Config{Faults: []string{"late-answer"}})
			if err != nil {
				t.Fatal(err)
			}
			return tr
		}
		e := newEnv(t, envOpts{config: oneTarget, builtin: late, cleanup: 300 * time.Millisecond})
		e.open(nil)
		closed, isErr, _ := e.call("close_session", nil)
		if isErr {
			t.Fatal(closed)
		}
		mustMatch(t, closed, `^Session \S+ closed \(closed by the agent\); 0 tool calls ran\.\nCleanup: CLEANUP_TIMEOUT: endAttempt overran the 300ms cleanup budget: the engine answered after \d+\.\d s\nCleanup: CLEANUP_TIMEOUT: dispose overran `)
	})
	t.Run("CONFIG_LOAD_FAILED on an unreadable file", func(t *testing.T) {
		e := newEnv(t, envOpts{config: oneTarget})
		dir := filepath.Join(e.dir, "cfgdir.json")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		errCode(t, e, "open_session", map[string]any{"config": "cfgdir.json"}, "CONFIG_NOT_FOUND")
	})
}
