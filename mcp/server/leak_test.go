package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/e2e-conform/toolkit/mcp/redact/redacttest"
	"github.com/e2e-conform/toolkit/protocol/engineerr"
	"github.com/e2e-conform/toolkit/protocol/server"
	"github.com/e2e-conform/toolkit/protocol/transport"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// leakyEngine shows every configured secret in every encoding: in node
// names, texts, values, selections and hrefs, in the location, cut at the
// engine's field limits, and in the message of every failed action.
type leakyEngine struct{ nodes []wire.SemanticNode }

func (leakyEngine) Info() server.Info {
	return server.Info{Name: "leaky", Version: "1.0.0", Actions: []string{wire.ActionTap, wire.ActionFill}}
}

func (leakyEngine) Open(context.Context, server.Operation, string) error { return nil }

func (e leakyEngine) Observe(context.Context, server.Operation, wire.EngineObserveOptions) (*wire.EngineSnapshot, error) {
	v := redacttest.Values[0].Value
	return &wire.EngineSnapshot{
		Location: "http://127.0.0.1:1/search?q=" + redacttest.EncodeURIComponent(v) + "&pw=" + redacttest.FormEncode(redacttest.Values[1].Value),
		Root:     wire.SemanticNode{Ref: wire.NodeRef{ID: "root"}, Role: wire.Str("document"), Children: e.nodes},
		Viewport: wire.ViewportSize{Width: 800, Height: 600},
	}, nil
}

func (leakyEngine) Perform(context.Context, server.Operation, wire.NodeRef, wire.LocatorAction) error {
	var forms []string
	for _, v := range redacttest.Values {
		for _, enc := range redacttest.Encodings() {
			forms = append(forms, enc.Encode(v.Value))
		}
	}
	return engineerr.New(engineerr.NotActionable, "the field holds %s", strings.Join(forms, " | "))
}

// cutAt pads s at the front to exactly limit UTF-16 units.
func cutAt(s string, limit int) string {
	n := 0
	for _, r := range s {
		n++
		if r >= 0x10000 {
			n++
		}
	}
	return strings.Repeat(".", limit-n) + s
}

func cutNeed(v string) int { return min(8, (utf8.RuneCountInString(v)+1)/2) }

// leakNodes builds the observation and lists what must never show.
func leakNodes() (nodes []wire.SemanticNode, never []string) {
	id := 0
	node := func(n wire.SemanticNode) {
		id++
		n.Ref = wire.NodeRef{ID: fmt.Sprintf("n%d", id)}
		nodes = append(nodes, n)
	}
	quoted := func(s string) string { b, _ := json.Marshal(s); return string(b[1 : len(b)-1]) }
	for _, v := range redacttest.Values {
		for _, enc := range redacttest.Encodings() {
			form := enc.Encode(v.Value)
			node(wire.SemanticNode{Role: wire.Str("textbox"), Name: wire.Str("in " + form), Text: wire.Str("path /?q=" + form + "&next=1"),
				Value: wire.Str(form), Selection: wire.Str(form), Attributes: map[string]string{"href": "http://elsewhere.example/?q=" + form}})
			cut := enc.Encode(redacttest.Prefix(v.Value, cutNeed(v.Value)))
			node(wire.SemanticNode{Role: wire.Str("link"), Name: wire.Str(cutAt("name "+cut, 256)), Text: wire.Str(cutAt("text "+cut, 512)),
				Attributes: map[string]string{"href": "http://elsewhere.example/p?q=" + cut + "…"}})
			never = append(never, form, quoted(form), cut+`"`, quoted(cut)+`"`, cut+"…")
		}
	}
	return nodes, never
}

// TestNoEncodingLeaks drives a session on leakyEngine: no tool result and
// no log line holds any form of a secret, whole or cut.
func TestNoEncodingLeaks(t *testing.T) {
	nodes, never := leakNodes()
	eng := leakyEngine{nodes: nodes}
	cfg := `{"targets":[{"name":"leaky","engine":{"builtin":"web"},"app":{"url":"$APP/"}}],"secrets":{`
	env := map[string]string{}
	for i, v := range redacttest.Values {
		if i > 0 {
			cfg += ","
		}
		cfg += fmt.Sprintf(`%q:{"env":"S_%s"}`, v.Name, v.Name)
		env["S_"+v.Name] = v.Value
	}
	cfg += "}}"
	e := newEnv(t, envOpts{config: cfg, getenv: func(k string) string { return env[k] },
		builtin: func(bool) transport.Transport { return server.LoopbackTransport(eng, server.Options{}) }})
	var all []string
	_, text := e.open(nil)
	all = append(all, text)
	for _, c := range []map[string]any{
		{"tool": "observe"},
		{"tool": "locate", "args": map[string]any{"role": "textbox"}},
		{"tool": "locate", "args": map[string]any{"role": "link"}},
		{"tool": "tap", "args": map[string]any{"target": "n1"}},
		// Issue 29's tools show nodes and engine messages too.
		{"tool": "observe", "args": map[string]any{"within": "root"}},
		{"tool": "wait_for", "args": map[string]any{"role": "textbox", "timeout": 0.1}},
		{"tool": "wait_for", "args": map[string]any{"text": "never there", "timeout": 0.1}},
		{"tool": "fill_form", "args": map[string]any{"fields": []map[string]any{{"target": "n2", "value": "x"}, {"target": "n1", "value": "y"}}}},
		{"tool": "dialogs", "args": map[string]any{"accept": true}},
	} {
		text, _, _ := e.call("call", c)
		all = append(all, text)
	}
	text, _, _ = e.call("close_session", nil)
	all = append(all, text, e.logs.String())
	if !strings.Contains(all[0], "<secret:canary>") || !strings.Contains(all[0], "path /search?q=<secret:canary>&pw=<secret:hunter>") {
		t.Errorf("the opening observation shows no masked secret:\n%.2000s", all[0])
	}
	for _, out := range all {
		for _, f := range never {
			if strings.Contains(out, f) {
				t.Errorf("%q leaked in:\n%.600s", f, out[max(0, strings.Index(out, f)-300):])
			}
		}
	}
}
