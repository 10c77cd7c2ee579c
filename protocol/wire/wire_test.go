package wire

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestUnionRoundTrip(t *testing.T) {
	dur := 800.0
	cases := []struct {
		name string
		v    any
		json string
	}{
		{"tap", LocatorAction{Kind: "tap"}, `{"kind":"tap"}`},
		{"tap modifiers", LocatorAction{Kind: "tap", Modifiers: []string{"Shift"}}, `{"kind":"tap","modifiers":["Shift"]}`},
		{"longPress", LocatorAction{Kind: "longPress", DurationMs: &dur}, `{"kind":"longPress","durationMs":800}`},
		{"fill", LocatorAction{Kind: "fill", Value: "x", Sensitive: true}, `{"kind":"fill","value":"x","sensitive":true}`},
		{"fill empty", LocatorAction{Kind: "fill"}, `{"kind":"fill","value":"","sensitive":false}`},
		{"press", LocatorAction{Kind: "press", Key: "Shift++"}, `{"kind":"press","key":"Shift++"}`},
		{"select label string", LocatorAction{Kind: "selectOption", Option: SelectOption{Text: "Red"}}, `{"kind":"selectOption","value":"Red"}`},
		{"select value", LocatorAction{Kind: "selectOption", Option: SelectOption{By: "value", Text: "r"}}, `{"kind":"selectOption","value":{"value":"r"}}`},
		{"select index", LocatorAction{Kind: "selectOption", Option: SelectOption{By: "index", Index: 2}}, `{"kind":"selectOption","value":{"index":2}}`},
		{"files", LocatorAction{Kind: "setInputFiles", Paths: []string{"/a"}}, `{"kind":"setInputFiles","paths":["/a"]}`},
		{"dragTo", LocatorAction{Kind: "dragTo", Target: &NodeRef{ID: "n2"}}, `{"kind":"dragTo","target":{"id":"n2","revision":""}}`},
		{"swipe", LocatorAction{Kind: "swipe", Direction: "down", Momentum: "fast"}, `{"kind":"swipe","direction":"down","momentum":"fast"}`},
		{"pointer swipeTo", PointerAction{Kind: "swipeTo", Target: &ViewportPoint{X: 1, Y: 2}}, `{"kind":"swipeTo","target":{"x":1,"y":2}}`},
		{"pointer hover", PointerAction{Kind: "hover"}, `{"kind":"hover"}`},
		{"string pattern", StringPattern("Save", true), `{"kind":"string","value":"Save","exact":true}`},
		{"regexp pattern", RegexpPattern("^a", "i"), `{"kind":"regexp","source":"^a","flags":"i"}`},
		{"index last", LocatorExpression{Kind: "index", Index: Index{Pos: "last"}, Source: &LocatorExpression{Kind: "selector", Selector: "b"}},
			`{"kind":"index","source":{"kind":"selector","selector":"b"},"index":"last"}`},
		{"frame", LocatorExpression{Kind: "frame", Selector: "iframe", Source: &LocatorExpression{Kind: "query", Query: &SemanticQuery{Kind: "role", Value: StringPattern("button", false)}}},
			`{"kind":"frame","selector":"iframe","source":{"kind":"query","query":{"kind":"role","value":{"kind":"string","value":"button","exact":false}}}}`},
		{"video file", VideoSegment{Path: "v.webm", StartedAt: "2026-01-01T00:00:00Z"}, `{"path":"v.webm","startedAt":"2026-01-01T00:00:00Z"}`},
		{"video link", VideoSegment{URL: "https://x", MediaType: "video/mp4", StartedAt: "t"}, `{"url":"https://x","mediaType":"video/mp4","startedAt":"t"}`},
		{"screenshot path", ScreenshotResult{Path: "a.png"}, `{"path":"a.png"}`},
		{"screenshot data", ScreenshotResult{Data: "AAAA"}, `{"data":"AAAA","mediaType":"image/png"}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := json.Marshal(tc.v)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.json {
				t.Fatalf("marshal:\n got %s\nwant %s", got, tc.json)
			}
			// decode into a fresh value of the same type and marshal again
			var again []byte
			switch tc.v.(type) {
			case LocatorAction:
				var v LocatorAction
				err = Unmarshal(got, &v)
				again, _ = json.Marshal(v)
			case PointerAction:
				var v PointerAction
				err = Unmarshal(got, &v)
				again, _ = json.Marshal(v)
			case TextPattern:
				var v TextPattern
				err = Unmarshal(got, &v)
				again, _ = json.Marshal(v)
			case LocatorExpression:
				var v LocatorExpression
				err = Unmarshal(got, &v)
				again, _ = json.Marshal(v)
			case VideoSegment:
				var v VideoSegment
				err = Unmarshal(got, &v)
				again, _ = json.Marshal(v)
			case ScreenshotResult:
				var v ScreenshotResult
				err = Unmarshal(got, &v)
				again, _ = json.Marshal(v)
			}
			if err != nil {
				t.Fatalf("unmarshal: %v", err)
			}
			if string(again) != tc.json {
				t.Fatalf("round trip:\n got %s\nwant %s", again, tc.json)
			}
		})
	}
}

func TestStrictUnionErrorsNameKindAndPointer(t *testing.T) {
	cases := []struct {
		name, json, pointer, msg string
		v                        any
	}{
		{"unknown action kind", `{"ref":{"id":"a","revision":""},"action":{"kind":"teleport"}}`, "/action/kind", `unknown LocatorAction kind "teleport"`, &PerformParams{}},
		{"missing fill value", `{"action":{"kind":"fill","sensitive":false}}`, "/action/value", `requires value`, &PerformParams{}},
		{"null required", `{"action":{"kind":"press","key":null}}`, "/action/key", `must not be null`, &PerformParams{}},
		{"unknown pointer kind", `{"action":{"kind":"pinch"}}`, "/action/kind", `unknown PointerAction kind "pinch"`, &PerformAtParams{}},
		{"nested expression kind", `{"expression":{"kind":"filter","source":{"kind":"query","query":{"kind":"nope","value":{"kind":"string","value":"x","exact":true}}},"hasText":{"kind":"string","value":"a","exact":false}}}`,
			"/expression/source/query/kind", `unknown SemanticQuery kind "nope"`, &LocateParams{}},
		{"pattern kind", `{"expression":{"kind":"query","query":{"kind":"text","value":{"kind":"glob"}}}}`, "/expression/query/value/kind", `unknown TextPattern kind "glob"`, &LocateParams{}},
		{"filter needs hasText or has", `{"expression":{"kind":"filter","source":{"kind":"selector","selector":"a"}}}`, "/expression", `needs hasText or has`, &LocateParams{}},
		{"bad index", `{"expression":{"kind":"index","source":{"kind":"selector","selector":"a"},"index":-1}}`, "/expression/index", `index must be`, &LocateParams{}},
		{"kind not string", `{"action":{"kind":7}}`, "/action/kind", `kind must be a string`, &PerformParams{}},
		{"action not object", `{"action":[1]}`, "/action", `must be an object`, &PerformParams{}},
		{"select two members", `{"action":{"kind":"selectOption","value":{"label":"a","value":"b"}}}`, "/action/value", `exactly one`, &PerformParams{}},
		{"plain type error", `{"operation":{"timeoutMs":"x"}}`, "/operation/timeoutMs", `cannot use string`, &ObserveParams{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := Unmarshal([]byte(tc.json), tc.v)
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("got %v (%T), want *DecodeError", err, err)
			}
			if de.Pointer != tc.pointer {
				t.Errorf("pointer %q, want %q (%v)", de.Pointer, tc.pointer, de)
			}
			if !strings.Contains(de.Msg, tc.msg) {
				t.Errorf("message %q does not contain %q", de.Msg, tc.msg)
			}
		})
	}
}

func TestOptionalMembersNeverNull(t *testing.T) {
	values := []any{
		SemanticNode{Ref: NodeRef{ID: "root"}},
		EngineSnapshot{Root: SemanticNode{Ref: NodeRef{ID: "root"}}, Viewport: ViewportSize{1, 1}},
		InitializeParams{ProtocolVersion: 1, ClientInfo: ClientInfo{Name: "c"}, Role: "run"},
		Manifest{Name: "n", Version: "1", SPIVersion: 1},
		SignalRef{ID: IntSignalID(0)},
		ScreenshotParams{},
		DisposeParams{},
		EngineState{Format: "f", Data: json.RawMessage(`null`)},
		ResolveSecretParams{AttemptID: "a", Name: "n"},
		InitParams{}, PrepareParams{}, FinishParams{},
	}
	for _, v := range values {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		if _, ok := v.(EngineState); ok {
			s = strings.Replace(s, `"data":null`, "", 1) // data is a JsonValue: null is a value
		}
		if strings.Contains(s, "null") {
			t.Errorf("%T marshals a null: %s", v, b)
		}
	}
	b, _ := json.Marshal(Manifest{Name: "n", Version: "1", SPIVersion: 1})
	if !strings.Contains(string(b), `"methods":[]`) {
		t.Errorf("empty methods must be [], got %s", b)
	}
}

func TestSignalID(t *testing.T) {
	cases := []struct {
		in   string
		want SignalID
		ok   bool
	}{
		{`0`, IntSignalID(0), true},
		{`7`, IntSignalID(7), true},
		{`-3`, IntSignalID(-3), true},
		{`"7"`, StringSignalID("7"), true},
		{`9007199254740991`, IntSignalID(MaxSafeInteger), true},
		{`9007199254740992`, SignalID{}, false},
		{`1.5`, SignalID{}, false},
		{`1e2`, SignalID{}, false},
		{`true`, SignalID{}, false},
		{`01`, SignalID{}, false},
	}
	for _, tc := range cases {
		var id SignalID
		err := json.Unmarshal([]byte(tc.in), &id)
		if (err == nil) != tc.ok {
			t.Errorf("%s: err %v, want ok=%v", tc.in, err, tc.ok)
			continue
		}
		if tc.ok {
			if id != tc.want {
				t.Errorf("%s: got %#v", tc.in, id)
			}
			out, _ := json.Marshal(id)
			if string(out) != tc.in {
				t.Errorf("%s: marshals back as %s", tc.in, out)
			}
		}
	}
	if IntSignalID(1) == StringSignalID("1") {
		t.Error("1 and \"1\" must differ")
	}
}

func TestParseKey(t *testing.T) {
	cases := []struct {
		in   string
		want string // Key.String(), "" for invalid
		mods int
	}{
		{"Enter", "Enter", 0},
		{"Control+a", "Control+a", 1},
		{"Shift+Tab", "Shift+Tab", 1},
		{"$", "$", 0},
		{"+", "+", 0},
		{"Shift++", "Shift++", 1},
		{"Control+Shift++", "Control+Shift++", 2},
		{" ", " ", 0},
		{"é", "é", 0},
		{"😀", "😀", 0},
		{"ControlOrMeta+Enter", "ControlOrMeta+Enter", 1},
		{"F12", "F12", 0},
		{"", "", 0},
		{"a++", "", 0},
		{"Control+Control+a", "", 0},
		{"Ctrl+a", "", 0},
		{"ab", "", 0},
		{"F13", "", 0},
		{"Shift+", "", 0},
		{"\u0007", "", 0},
		{"\u200b", "", 0},     // Cf
		{"\u2028", "", 0},     // Zl
		{"\ue000", "", 0},     // Co
		{"\U000E0080", "", 0}, // Cn (unassigned)
		{"++", "", 0},
		{"Shift+Shift", "", 0},
	}
	for _, tc := range cases {
		k, err := ParseKey(tc.in)
		if tc.want == "" {
			if err == nil {
				t.Errorf("ParseKey(%q) = %v, want invalid", tc.in, k)
			}
			var ke *KeyError
			if err != nil && !errors.As(err, &ke) {
				t.Errorf("ParseKey(%q) error %T, want *KeyError", tc.in, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseKey(%q): %v", tc.in, err)
			continue
		}
		if k.String() != tc.want || len(k.Modifiers) != tc.mods {
			t.Errorf("ParseKey(%q) = %q with %d modifiers, want %q with %d", tc.in, k.String(), len(k.Modifiers), tc.want, tc.mods)
		}
	}
}

func TestManifestNormalized(t *testing.T) {
	m := Manifest{Methods: []string{MethodDispose, MethodObserve, MethodInit}, Actions: []string{"swipe", "tap"}}
	n := m.Normalized()
	if strings.Join(n.Methods, ",") != "engine/observe,lifecycle/init,lifecycle/dispose" {
		t.Errorf("methods %v", n.Methods)
	}
	if strings.Join(n.Actions, ",") != "tap,swipe" {
		t.Errorf("actions %v", n.Actions)
	}
	if m.Methods[0] != MethodDispose {
		t.Error("Normalized changed its receiver")
	}
}

func FuzzParseKey(f *testing.F) {
	for _, s := range []string{"Enter", "Shift++", "+", "a++", "Control+Control+a", "é", "", "ControlOrMeta+F1", "++"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k, err := ParseKey(s)
		if err != nil {
			return
		}
		// A valid key renders back to itself and parses again to the same key.
		if k.String() != s {
			t.Fatalf("ParseKey(%q).String() = %q", s, k.String())
		}
		k2, err := ParseKey(k.String())
		if err != nil || k2.String() != k.String() {
			t.Fatalf("reparse of %q: %v %v", s, k2, err)
		}
	})
}

func FuzzUnmarshalUnions(f *testing.F) {
	for _, s := range []string{
		`{"kind":"tap","modifiers":["Shift"]}`, `{"kind":"fill","value":"x","sensitive":true}`,
		`{"kind":"selectOption","value":{"index":1}}`, `{"kind":"dragTo","target":{"id":"a","revision":""}}`,
		`{"kind":"query","query":{"kind":"role","value":{"kind":"string","value":"button","exact":false}},"scope":{"kind":"selector","selector":"x"}}`,
		`{"kind":"index","source":{"kind":"selector","selector":"x"},"index":"first"}`, `{"kind":"swipeTo","target":{"x":1,"y":2}}`,
		`[]`, `null`, `{"kind":null}`, `{"kind":"filter","source":{"kind":"frame","selector":"f","source":{"kind":"selector","selector":"a"}},"has":{"kind":"selector","selector":"b"}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		check := func(v any, fresh func() any) {
			if err := Unmarshal(data, v); err != nil {
				return
			}
			// What decodes must encode, and decode again to the same encoding.
			b, err := json.Marshal(v)
			if err != nil {
				t.Fatalf("%T decoded from %q does not encode: %v", v, data, err)
			}
			w := fresh()
			if err := Unmarshal(b, w); err != nil {
				t.Fatalf("re-decode of %s: %v", b, err)
			}
			b2, _ := json.Marshal(w)
			if string(b) != string(b2) {
				t.Fatalf("unstable encoding: %s vs %s", b, b2)
			}
		}
		check(&LocatorAction{}, func() any { return &LocatorAction{} })
		check(&PointerAction{}, func() any { return &PointerAction{} })
		check(&LocatorExpression{}, func() any { return &LocatorExpression{} })
		check(&TextPattern{}, func() any { return &TextPattern{} })
	})
}

func TestSwipeDelta(t *testing.T) {
	for _, c := range []struct {
		dir, momentum string
		dx, dy        float64
	}{
		{DirectionDown, "", 0, 360},
		{DirectionDown, MomentumNone, 0, 360},
		{DirectionUp, MomentumSlow, 0, -540},
		{DirectionRight, MomentumFast, 1920, 0},
		{DirectionLeft, "", -640, 0},
	} {
		dx, dy := SwipeDelta(c.dir, c.momentum, 1280, 720)
		if dx != c.dx || dy != c.dy {
			t.Errorf("%s %q: (%v, %v), want (%v, %v)", c.dir, c.momentum, dx, dy, c.dx, c.dy)
		}
	}
}
