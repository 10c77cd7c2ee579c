package server_test

import (
	"bytes"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/e2e-conform/toolkit/conformance/fixture/web"
	"github.com/e2e-conform/toolkit/protocol/transport"
	webengine "github.com/e2e-conform/toolkit/reference-engine"
)

func webTransport(headed bool) transport.Transport {
	return webengine.Transport(webengine.Options{Headed: headed})
}

// newWebEnv is an env whose built-in engine is the reference web engine
// (Chromium) and whose app is the HTML fixture screens.
func newWebEnv(t testing.TB, o envOpts) *env {
	t.Helper()
	o.builtin, o.handler = webTransport, web.Handler()
	return newEnv(t, o)
}

// TestWebEngineSession runs the acceptance's scripted session against the
// reference web engine on the fixture screens: open a fixture page,
// observe, tap, type, locate, screenshot, record, close.
func TestWebEngineSession(t *testing.T) {
	e := newWebEnv(t, envOpts{config: oneTarget})
	id, text := e.open(nil)
	mustMatch(t, text, `^Session \S+ open on target "web" \(platform web, engine e2e-web-engine \S+\), headless; config .*e2e\.config\.json\.`)
	mustContain(t, text, "App: "+e.app+"/counter.", "Current screen (revision b1, path /counter, ")
	t.Log(text)

	obs, isErr, _ := e.call("call", map[string]any{"tool": "observe"})
	if isErr {
		t.Fatal(obs)
	}
	mustMatch(t, obs, `^Current screen \(revision b2, path /counter, \d+ nodes\):`)
	tap := nodeID(t, obs, `button "Tap"`)
	res, isErr, _ := e.call("call", map[string]any{"tool": "tap", "args": map[string]any{"target": tap}, "session": id})
	if isErr {
		t.Fatal(res)
	}
	mustMatch(t, res, `^Tapped #`+tap+`\.\n\nScreen changes since revision b2`)
	t.Log(res)

	loc, isErr, _ := e.call("call", map[string]any{"tool": "locate", "args": map[string]any{"role": "button", "name": "Tap"}})
	if isErr {
		t.Fatal(loc)
	}
	mustContain(t, loc, "1 node matches", `Use: screen.getByRole("button", "Tap")`)

	shot, isErr, imgs := e.call("call", map[string]any{"tool": "screenshot"})
	if isErr || imgs != 1 {
		t.Fatalf("screenshot: isError=%v images=%d\n%s", isErr, imgs, shot)
	}
	mustContain(t, shot, "Screenshot attached: 768 by 432 pixels (0.6 per CSS pixel).")

	res, isErr, _ = e.call("call", map[string]any{"tool": "navigate", "args": map[string]any{"url": "/form"}})
	if isErr {
		t.Fatal(res)
	}
	mustContain(t, res, "Navigated to /form.", "path /form")
	obs, _, _ = e.call("call", map[string]any{"tool": "observe"})
	name := nodeID(t, obs, `textbox "Name"`)
	res, isErr, _ = e.call("call", map[string]any{"tool": "type", "args": map[string]any{"target": name, "value": "Ada"}})
	if isErr {
		t.Fatal(res)
	}
	mustMatch(t, res, `^Typed into #`+name+`\.`)
	mustContain(t, res, `value="Ada"`)

	rec, isErr, _ := e.call("call", map[string]any{"tool": "start_recording", "args": map[string]any{"name": "demo"}})
	if isErr {
		t.Fatal(rec)
	}
	mustContain(t, rec, `Recording 1 "demo" started.`)
	obs, _, _ = e.call("call", map[string]any{"tool": "observe"})
	sub := nodeID(t, obs, `checkbox "Subscribe"`)
	if res, isErr, _ = e.call("call", map[string]any{"tool": "check", "args": map[string]any{"target": sub}}); isErr {
		t.Fatal(res)
	}
	stop, isErr, _ := e.call("call", map[string]any{"tool": "stop_recording"})
	if isErr {
		t.Fatal(stop)
	}
	mustMatch(t, stop, `^Recording 1 "demo" stopped after \d+\.\d s\.\n`)
	checkWebM(t, filepath.Join(e.dir, ".e2e", "videos", id, "1-demo.webm"))
	mustContain(t, stop, "- "+filepath.Join(e.dir, ".e2e", "videos", id, "1-demo.webm"))

	closed, isErr, _ := e.call("close_session", nil)
	if isErr {
		t.Fatal(closed)
	}
	mustMatch(t, closed, `^Session \S+ closed \(closed by the agent\); \d+ tool calls ran\.$`)
}

// checkWebM asserts path is a WebM file: it starts with the EBML magic.
func checkWebM(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte{0x1a, 0x45, 0xdf, 0xa3}) {
		t.Errorf("%s (%d bytes) does not start with the EBML magic", path, len(b))
	}
}

// TestWebEngineErrors provokes the failure codes that need a browser:
// ACTION_FAILED (a disabled button) and APP_UNREACHABLE (a refused port).
func TestWebEngineErrors(t *testing.T) {
	e := newWebEnv(t, envOpts{config: oneTarget})
	_, text := e.open(nil)
	disabled := nodeID(t, text, `button "Disabled"`)
	res, isErr, _ := e.call("call", map[string]any{"tool": "tap", "args": map[string]any{"target": disabled}})
	if !isErr {
		t.Fatal(res)
	}
	mustMatch(t, res, `^tap #`+disabled+` failed: ACTION_FAILED: `)
	mustContain(t, res, `status "disabled taps: 0"`)
	// A port nothing listens on (not one Chromium calls unsafe).
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String() + "/"
	l.Close()
	res, isErr, _ = e.call("call", map[string]any{"tool": "navigate", "args": map[string]any{"url": closed}})
	if !isErr {
		t.Fatal(res)
	}
	mustMatch(t, res, `^navigate `+regexp.QuoteMeta(closed)+` failed: APP_UNREACHABLE: `)
}

// TestWebEngineCanary fills secrets into the fixture form with the real
// engine and searches every tool result, log line and artifact file for
// them; pixels are withheld after the fill.
func TestWebEngineCanary(t *testing.T) {
	const canary = "CANARY-w3b-s3cr3t-91ad"
	const pw = "hunter2-web-password"
	getenv := func(k string) string {
		return map[string]string{"API_KEY": canary, "ADMIN_PW": pw}[k]
	}
	e := newWebEnv(t, envOpts{config: strings.Replace(oneTarget, "$APP/counter", "$APP/form", 1), getenv: getenv})
	var all []string
	record := func(text string, _ bool, _ int) string { all = append(all, text); return text }
	_, text := e.open(nil)
	all = append(all, text)
	name := nodeID(t, text, `textbox "Name"`)
	password := nodeID(t, text, `textbox "Password"`)
	if _, isErr, imgs := e.call("call", map[string]any{"tool": "screenshot"}); isErr || imgs != 1 {
		t.Fatalf("screenshot before the fill: isError=%v images=%d", isErr, imgs)
	}
	res := record(e.call("call", map[string]any{"tool": "type_secret", "args": map[string]any{"target": password, "name": "admin"}}))
	mustMatch(t, res, `^Filled secret "admin" into #`+password+`; its value is masked in every observation\.`)
	res = record(e.call("call", map[string]any{"tool": "type_secret", "args": map[string]any{"target": name, "name": "apiKey"}}))
	mustContain(t, res, `Filled secret "apiKey" into #`+name, `value="<secret:apiKey>"`)
	obs := record(e.call("call", map[string]any{"tool": "observe"}))
	mustContain(t, obs, `textbox "Password" testid="password-input" value=<secure>`, `value="<secret:apiKey>"`)
	record(e.call("call", map[string]any{"tool": "locate", "args": map[string]any{"testId": "name-input"}}))
	record(e.call("call", map[string]any{"tool": "locate", "args": map[string]any{"text": canary}}))
	text, isErr, imgs := e.call("call", map[string]any{"tool": "screenshot"})
	all = append(all, text)
	if !isErr || imgs != 0 || !strings.HasPrefix(text, "PIXEL_TAINTED: ") {
		t.Errorf("screenshot after the fill: isError=%v images=%d\n%s", isErr, imgs, text)
	}
	res = record(e.call("call", map[string]any{"tool": "tap", "args": map[string]any{"target": name}}))
	mustContain(t, res, "(PIXEL_TAINTED)")
	record(e.call("close_session", nil))
	<-e.ended
	all = append(all, e.logs.String())
	for _, s := range all {
		if strings.Contains(s, canary) || strings.Contains(s, pw) {
			t.Errorf("a secret leaked into:\n%s", s)
		}
	}
	files := 0
	err := filepath.Walk(e.dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		files++
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if bytes.Contains(b, []byte(canary)) || bytes.Contains(b, []byte(pw)) {
			t.Errorf("secret in artifact %s", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("searched %d tool results and logs, %d files", len(all), files)
}
