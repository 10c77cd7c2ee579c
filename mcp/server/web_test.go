package server_test

import (
	"os"
	"testing"

	"github.com/e2e-conform/toolkit/protocol/transport"
	webengine "github.com/e2e-conform/toolkit/reference-engine"
)

// TestWebEngineSession runs the scripted session against the reference web
// engine (open, observe, tap, type, locate, screenshot, record, close). It
// is gated behind E2E_MCP_WEB=1 until the engine lands; the lead removes the
// gate. It uses the saboteur's fixture paths on an httptest server; switch
// the app URL to fixtures/web's Handler once that package exists.
func TestWebEngineSession(t *testing.T) {
	if os.Getenv("E2E_MCP_WEB") != "1" {
		t.Skip("set E2E_MCP_WEB=1 to run against the reference web engine")
	}
	web := func(headed bool) transport.Transport { return webengine.Transport(webengine.Options{Headed: headed}) }
	e := newEnv(t, envOpts{config: oneTarget, builtin: web})
	_, text := e.open(nil)
	tap := nodeID(t, text, `button "Tap"`)
	res, isErr, _ := e.call("call", map[string]any{"tool": "tap", "args": map[string]any{"target": tap}})
	if isErr {
		t.Fatal(res)
	}
	mustMatch(t, res, `^Tapped #\S+\.`)
	res, isErr, _ = e.call("call", map[string]any{"tool": "navigate", "args": map[string]any{"url": "/form"}})
	if isErr {
		t.Fatal(res)
	}
	name := nodeID(t, res, `textbox "Name"`)
	if res, isErr, _ = e.call("call", map[string]any{"tool": "type", "args": map[string]any{"target": name, "value": "Ada"}}); isErr {
		t.Fatal(res)
	}
	loc, _, _ := e.call("call", map[string]any{"tool": "locate", "args": map[string]any{"role": "textbox", "name": "Name"}})
	mustContain(t, loc, "1 node matches")
	if _, _, imgs := e.call("call", map[string]any{"tool": "screenshot"}); imgs != 1 {
		t.Error("no screenshot")
	}
	if res, isErr, _ := e.call("call", map[string]any{"tool": "start_recording"}); isErr {
		t.Log("recording:", res)
	} else {
		e.call("call", map[string]any{"tool": "stop_recording"})
	}
	closed, isErr, _ := e.call("close_session", nil)
	if isErr {
		t.Fatal(closed)
	}
}
