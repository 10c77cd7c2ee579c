package catalog_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/e2e-conform/toolkit/mcp/catalog"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// full is a manifest with every method and action kind.
func full() wire.Manifest {
	return wire.Manifest{Name: "e", Version: "1", Methods: wire.EngineMethods(), Actions: wire.LocatorActionKinds(), PointerActions: wire.PointerActionKinds()}
}

func without(list []string, drop ...string) []string {
	return slices.DeleteFunc(slices.Clone(list), func(s string) bool { return slices.Contains(drop, s) })
}

func TestDerivation(t *testing.T) {
	secrets := []string{`"admin" (password)`}
	web := []string{"observe", "tap", "double_tap", "long_press", "right_click", "hover", "scroll_to", "type", "press",
		"dismiss_keyboard", "select", "check", "drag", "upload", "scroll", "navigate", "back", "screenshot", "tap_at", "hover_at", "type_at",
		"press_at", "select_at", "type_secret", "locate", "start_recording", "stop_recording",
		"fill_form", "wait_for", "dialogs"}
	tests := []struct {
		name     string
		manifest func() wire.Manifest
		secrets  []string
		absent   []string
		present  []string
	}{
		{name: "everything", manifest: full, secrets: secrets},
		{name: "no hover action", manifest: func() wire.Manifest { m := full(); m.Actions = without(m.Actions, wire.ActionHover); return m },
			secrets: secrets, absent: []string{"hover"}, present: []string{"hover_at"}},
		{name: "no swipe: no scroll", manifest: func() wire.Manifest { m := full(); m.Actions = without(m.Actions, wire.ActionSwipe); return m },
			secrets: secrets, absent: []string{"scroll"}},
		{name: "no back", manifest: func() wire.Manifest { m := full(); m.Methods = without(m.Methods, wire.MethodBack); return m },
			secrets: secrets, absent: []string{"back"}},
		{name: "check needs uncheck too", manifest: func() wire.Manifest { m := full(); m.Actions = without(m.Actions, wire.ActionUncheck); return m },
			secrets: secrets, absent: []string{"check"}},
		{name: "no video", manifest: func() wire.Manifest {
			m := full()
			m.Methods = without(m.Methods, wire.MethodStartVideo, wire.MethodStopVideo)
			return m
		}, secrets: secrets, absent: []string{"start_recording", "stop_recording"}},
		{name: "no keyboard dismiss", manifest: func() wire.Manifest { m := full(); m.Methods = without(m.Methods, wire.MethodDismiss); return m },
			secrets: secrets, absent: []string{"dismiss_keyboard"}},
		{name: "no secrets: no type_secret", manifest: full, absent: []string{"type_secret"}},
		{name: "no fill: no type_secret", manifest: func() wire.Manifest { m := full(); m.Actions = without(m.Actions, wire.ActionFill); return m },
			secrets: secrets, absent: []string{"type_secret"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := catalog.New(tc.manifest(), catalog.Options{Target: "web", Secrets: tc.secrets})
			if err != nil {
				t.Fatal(err)
			}
			names := c.Names()
			if tc.name == "everything" && !slices.Equal(names, web) {
				t.Errorf("full catalog:\n got %v\nwant %v", names, web)
			}
			// Order is the spec's, whatever is left out.
			if want := without(web, tc.absent...); tc.name != "everything" && !isSubsequence(names, want) {
				t.Errorf("order: %v not a subsequence of %v", names, want)
			}
			for _, a := range tc.absent {
				if slices.Contains(names, a) {
					t.Errorf("%s listed", a)
				}
				_, err := c.Lookup(a)
				if err == nil || !strings.HasPrefix(err.Error(), "UNSUPPORTED_CAPABILITY: ") {
					t.Errorf("lookup %s: %v", a, err)
				}
			}
			for _, p := range tc.present {
				if !slices.Contains(names, p) {
					t.Errorf("%s not listed", p)
				}
			}
			if _, err := c.Lookup("teleport"); err == nil || !strings.HasPrefix(err.Error(), "UNKNOWN_TOOL: tool \"teleport\" is not available in this session; tools: observe, ") {
				t.Errorf("unknown tool: %v", err)
			}
		})
	}
	if _, err := catalog.New(wire.Manifest{Name: "blind"}, catalog.Options{}); err == nil {
		t.Error("a manifest without engine/observe gave a catalog")
	}
}

// isSubsequence reports whether got lists only names of want, in want's order.
func isSubsequence(got, want []string) bool {
	i := 0
	for _, g := range got {
		for i < len(want) && want[i] != g {
			i++
		}
		if i == len(want) {
			return false
		}
		i++
	}
	return true
}

func TestLinesAndDetail(t *testing.T) {
	c, err := catalog.New(full(), catalog.Options{Target: "web", Secrets: []string{`"admin" (password)`, `"apiKey" (generic-secret)`}})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Join(c.Lines(), "\n")
	for _, want := range []string{
		"- tap {target}: Tap or click one node: the gesture for a button, link, menu item, tab, checkbox, row, or field.",
		"- locate {role?, name?, text?, label?, placeholder?, testId?, exact?}: ",
		"- back: ",
	} {
		if !strings.Contains(lines, want) {
			t.Errorf("lines lack %q:\n%s", want, lines)
		}
	}
	for _, l := range c.Lines() {
		ro := strings.HasSuffix(l, " [read-only]")
		name := strings.Fields(strings.TrimPrefix(l, "- "))[0]
		name = strings.TrimSuffix(name, ":")
		if want := name == "observe" || name == "locate" || name == "screenshot" || name == "wait_for"; ro != want {
			t.Errorf("%s: read-only %v", l, ro)
		}
	}
	ts, _ := c.Lookup("type_secret")
	d := ts.Detail()
	for _, want := range []string{`"admin" (password)`, `"apiKey" (generic-secret)`, "\n\nArguments (JSON Schema):\n", `"required"`} {
		if !strings.Contains(d, want) {
			t.Errorf("detail lacks %q:\n%s", want, d)
		}
	}
	var sch map[string]any
	if err := json.Unmarshal(ts.SchemaJSON(), &sch); err != nil || sch["additionalProperties"] != false {
		t.Errorf("schema not closed: %s", ts.SchemaJSON())
	}
}

func TestValidate(t *testing.T) {
	c, _ := catalog.New(full(), catalog.Options{})
	tap, _ := c.Lookup("tap")
	tests := []struct {
		args, want string
	}{
		{`{"target":"n1"}`, ""},
		{`{"target":42}`, "INVALID_ARGUMENT: call tap: target: "},
		{`{"target":"n1","force":true}`, `INVALID_ARGUMENT: call tap: Unrecognized key: "force"; tools {tool: "tap"} shows its arguments`},
		{`{}`, "INVALID_ARGUMENT: call tap: target: required"},
		{``, "INVALID_ARGUMENT: call tap: target: required"},
	}
	for _, tc := range tests {
		_, err := tap.Validate(json.RawMessage(tc.args))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.args, err)
		case tc.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.want)):
			t.Errorf("%s: got %v, want prefix %q", tc.args, err, tc.want)
		}
	}
	obs, _ := c.Lookup("observe")
	if _, err := obs.Validate(nil); err != nil {
		t.Errorf("observe without args: %v", err)
	}
}

func TestFirstSentence(t *testing.T) {
	long := strings.Repeat("word ", 40) + "end."
	tests := []struct{ in, want string }{
		{"Tap one node. Then more.", "Tap one node."},
		{"  Spread\n over   lines.  More", "Spread over lines."},
		{"Open a menu, e.g. the context menu. Rest.", "Open a menu, e.g. the context menu."},
		{"Compare a vs. b, i.e. both, etc. and so on. Rest.", "Compare a vs. b, i.e. both, etc. and so on."},
		{"Really? Yes.", "Really?"},
		{"Version 1.5 is fine. Rest.", "Version 1.5 is fine."},
		{"No end mark", "No end mark"},
		{"", ""},
	}
	for _, tc := range tests {
		if got := catalog.FirstSentence(tc.in); got != tc.want {
			t.Errorf("FirstSentence(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	got := catalog.FirstSentence(long)
	if n := utf8.RuneCountInString(got); n > catalog.MaxSentence || !strings.HasSuffix(got, "word…") {
		t.Errorf("long: %d runes %q", n, got)
	}
	commas := strings.Repeat("abcdefghi, ", 20)
	if got := catalog.FirstSentence(commas); !strings.HasSuffix(got, "abcdefghi…") {
		t.Errorf("trailing comma kept: %q", got)
	}
}
