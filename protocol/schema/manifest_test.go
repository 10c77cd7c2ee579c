package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// exampleManifest is the example of §3.8.
const exampleManifest = `{
  "name": "web-reference", "version": "1.4.0", "spiVersion": 1, "platform": "web",
  "methods": ["engine/observe", "engine/locate", "engine/perform", "keyboard/type", "keyboard/press",
              "artifacts/screenshot", "session/open", "session/back", "session/restart", "session/reset",
              "lifecycle/init", "lifecycle/startAttempt", "lifecycle/endAttempt", "lifecycle/dispose"],
  "actions": ["tap", "doubleTap", "fill", "clear", "press", "check", "uncheck", "focus", "hover",
              "scrollIntoView", "selectOption", "swipe"],
  "tapModifiers": true
}`

// rawManifestSchema is the manifest schema compiled on its own, without this
// package's error handling: the reference for "the schema accepts it".
var rawManifestSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.UseLoader(refusingLoader{})
	c.UseRegexpEngine(compileECMARegexp)
	b, err := fs.ReadFile(Files(), "schemas/"+manifestFile)
	if err != nil {
		return nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	if err := c.AddResource("https://example.invalid/"+manifestFile, doc); err != nil {
		return nil, err
	}
	return c.Compile("https://example.invalid/" + manifestFile)
})

// schemaAccepts reports whether the raw manifest schema accepts raw, and
// whether raw is JSON at all.
func schemaAccepts(tb testing.TB, raw []byte) (valid, isJSON bool) {
	tb.Helper()
	sch, err := rawManifestSchema()
	if err != nil {
		tb.Fatal(err)
	}
	if !utf8.Valid(raw) {
		return false, false
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return false, false
	}
	return sch.Validate(inst) == nil, true
}

// manifestOf builds a valid manifest's name, version and spiVersion with the
// given methods (nil is none) and extra members (JSON text without braces).
func manifestOf(methods []string, extra string) string {
	if methods == nil {
		methods = []string{}
	}
	ms, _ := json.Marshal(methods)
	s := `{"name":"kiosk","version":"1.0.0","spiVersion":1,"methods":` + string(ms)
	if extra != "" {
		s += "," + extra
	}
	return s + "}"
}

type manifestCase struct {
	name string
	raw  string
	// For an invalid manifest: one violation that must be present.
	rule, ptr, msg string
	valid          bool
}

func manifestCases() []manifestCase {
	all := engineMethods()
	allKinds, _ := json.Marshal(locatorActionKinds())
	allPointer, _ := json.Marshal(pointerActionKinds())
	obs := "engine/observe"
	return []manifestCase{
		{name: "spec example", raw: exampleManifest, valid: true},
		{name: "minimal", raw: manifestOf([]string{}, ""), valid: true},
		{name: "everything", raw: manifestOf(all, `"platform":"web","workers":4,"actions":`+string(allKinds)+`,"pointerActions":`+string(allPointer)+`,"tapModifiers":true`), valid: true},
		{name: "workers 2.0 is an integer", raw: manifestOf(nil, `"workers":2.0`), valid: true},
		{name: "workers max", raw: manifestOf(nil, `"workers":9007199254740991`), valid: true},
		{name: "spiVersion 1.0", raw: `{"name":"a","version":"1","spiVersion":1.0,"methods":[]}`, valid: true},
		{name: "tapModifiers false alone", raw: manifestOf(nil, `"tapModifiers":false`), valid: true},
		{name: "startAttempt alone (M11 withdrawn)", raw: manifestOf([]string{"lifecycle/startAttempt"}, ""), valid: true},
		{name: "endAttempt alone (M11 withdrawn)", raw: manifestOf([]string{"lifecycle/endAttempt"}, ""), valid: true},
		{name: "keyboard complete", raw: manifestOf([]string{obs, "keyboard/type", "keyboard/press", "keyboard/dismiss"}, ""), valid: true},
		{name: "video complete", raw: manifestOf([]string{"artifacts/screenshot", "artifacts/stopVideo", "artifacts/startVideo"}, ""), valid: true},
		{name: "name with inner space", raw: `{"name":" a b ","version":"v","spiVersion":1,"methods":[]}`, valid: true},

		{name: "M1 unknown method", raw: manifestOf([]string{obs, "engine/teleport"}, ""), rule: "M1", ptr: "/methods/1", msg: `unknown method "engine/teleport"`},
		{name: "M1 wrong case", raw: manifestOf([]string{"Engine/observe"}, ""), rule: "M1", ptr: "/methods/0"},
		{name: "M1 duplicate", raw: manifestOf([]string{obs, "engine/locate", obs}, ""), rule: "M1", ptr: "/methods/2", msg: "twice"},
		{name: "M1 methods missing", raw: `{"name":"a","version":"1","spiVersion":1}`, rule: "M1", ptr: ""},
		{name: "M1 methods not an array", raw: `{"name":"a","version":"1","spiVersion":1,"methods":"engine/observe"}`, rule: "M1", ptr: "/methods"},
		{name: "M1 methods null", raw: `{"name":"a","version":"1","spiVersion":1,"methods":null}`, rule: "M1", ptr: "/methods"},
		{name: "M1 method not a string", raw: `{"name":"a","version":"1","spiVersion":1,"methods":[5]}`, rule: "M1", ptr: "/methods/0"},
		{name: "M2 perform without observe", raw: manifestOf([]string{"engine/perform"}, `"actions":["tap"]`), rule: "M2", ptr: "/methods/0", msg: "action targets are observation refs"},
		{name: "M2 perform without actions", raw: manifestOf([]string{obs, "engine/perform"}, ""), rule: "M2", ptr: "/methods/1", msg: "manifest lists engine/perform without actions: list the action kinds the surface honors"},
		{name: "M2 actions without perform", raw: manifestOf([]string{obs}, `"actions":["tap"]`), rule: "M2", ptr: "/actions"},
		{name: "M3 actions empty", raw: manifestOf([]string{obs, "engine/perform"}, `"actions":[]`), rule: "M3", ptr: "/actions"},
		{name: "M3 unknown kind", raw: manifestOf([]string{obs, "engine/perform"}, `"actions":["tap","teleport"]`), rule: "M3", ptr: "/actions/1", msg: `"teleport"`},
		{name: "M3 swipeTo is no locator action", raw: manifestOf([]string{obs, "engine/perform"}, `"actions":["swipeTo"]`), rule: "M3", ptr: "/actions/0"},
		{name: "M3 duplicate kind", raw: manifestOf([]string{obs, "engine/perform"}, `"actions":["tap","fill","tap"]`), rule: "M3", ptr: "/actions/2"},
		{name: "M3 actions not an array", raw: manifestOf([]string{obs, "engine/perform"}, `"actions":"tap"`), rule: "M3", ptr: "/actions"},
		{name: "M4 performAt without observe", raw: manifestOf([]string{"engine/performAt"}, `"pointerActions":["tap"]`), rule: "M4", ptr: "/methods/0", msg: "a point is read off the observation pixels"},
		{name: "M4 performAt without pointerActions", raw: manifestOf([]string{obs, "engine/performAt"}, ""), rule: "M4", ptr: "/methods/1"},
		{name: "M4 pointerActions without performAt", raw: manifestOf([]string{obs}, `"pointerActions":["tap"]`), rule: "M4", ptr: "/pointerActions"},
		{name: "M5 pointerActions empty", raw: manifestOf([]string{obs, "engine/performAt"}, `"pointerActions":[]`), rule: "M5", ptr: "/pointerActions"},
		{name: "M5 fill is no pointer action", raw: manifestOf([]string{obs, "engine/performAt"}, `"pointerActions":["fill"]`), rule: "M5", ptr: "/pointerActions/0"},
		{name: "M5 duplicate", raw: manifestOf([]string{obs, "engine/performAt"}, `"pointerActions":["tap","tap"]`), rule: "M5", ptr: "/pointerActions/1"},
		{name: "M6 locate without observe", raw: manifestOf([]string{"engine/locate"}, ""), rule: "M6", ptr: "/methods/0", msg: "located nodes share the observation id space"},
		{name: "M7 type without press", raw: manifestOf([]string{obs, "keyboard/type"}, ""), rule: "M7", ptr: "/methods/1"},
		{name: "M7 press without type", raw: manifestOf([]string{obs, "keyboard/press"}, ""), rule: "M7", ptr: "/methods/1"},
		{name: "M7 keyboard without observe", raw: manifestOf([]string{"keyboard/type", "keyboard/press"}, ""), rule: "M7", ptr: "/methods/0", msg: "the focused field is read off the observation"},
		{name: "M7 dismiss alone", raw: manifestOf([]string{obs, "keyboard/dismiss"}, ""), rule: "M7", ptr: "/methods/1"},
		{name: "M8 capture without restore", raw: manifestOf([]string{"state/capture"}, ""), rule: "M8", ptr: "/methods/0"},
		{name: "M8 restore without capture", raw: manifestOf([]string{"state/restore"}, ""), rule: "M8", ptr: "/methods/0"},
		{name: "M9 startVideo without stopVideo", raw: manifestOf([]string{"artifacts/screenshot", "artifacts/startVideo"}, ""), rule: "M9", ptr: "/methods/1"},
		{name: "M9 stopVideo without startVideo", raw: manifestOf([]string{"artifacts/screenshot", "artifacts/stopVideo"}, ""), rule: "M9", ptr: "/methods/1"},
		{name: "M9 video without screenshot", raw: manifestOf([]string{"artifacts/startVideo", "artifacts/stopVideo"}, ""), rule: "M9", ptr: "/methods/0", msg: "without artifacts/screenshot"},
		{name: "M10 tapModifiers not boolean", raw: manifestOf([]string{obs, "engine/perform"}, `"actions":["tap"],"tapModifiers":"yes"`), rule: "M10", ptr: "/tapModifiers"},
		{name: "M10 tapModifiers null", raw: manifestOf(nil, `"tapModifiers":null`), rule: "M10", ptr: "/tapModifiers"},
		{name: "M10 tapModifiers true without perform", raw: manifestOf([]string{obs}, `"tapModifiers":true`), rule: "M10", ptr: "/tapModifiers"},
		{name: "M12 spiVersion 2", raw: `{"name":"a","version":"1","spiVersion":2,"methods":[]}`, rule: "M12", ptr: "/spiVersion"},
		{name: "M12 spiVersion string", raw: `{"name":"a","version":"1","spiVersion":"1","methods":[]}`, rule: "M12", ptr: "/spiVersion"},
		{name: "M12 spiVersion missing", raw: `{"name":"a","version":"1","methods":[]}`, rule: "M12", ptr: ""},
		{name: "M12 name blank", raw: `{"name":"  ","version":"1","spiVersion":1,"methods":[]}`, rule: "M12", ptr: "/name", msg: `"  "`},
		{name: "M12 name empty", raw: `{"name":"","version":"1","spiVersion":1,"methods":[]}`, rule: "M12", ptr: "/name"},
		{name: "M12 name no-break spaces", raw: `{"name":"\u00a0\u3000","version":"1","spiVersion":1,"methods":[]}`, rule: "M12", ptr: "/name"},
		{name: "M12 name missing", raw: `{"version":"1","spiVersion":1,"methods":[]}`, rule: "M12", ptr: ""},
		{name: "M12 version number", raw: `{"name":"a","version":1,"spiVersion":1,"methods":[]}`, rule: "M12", ptr: "/version"},
		{name: "M12 platform null", raw: manifestOf(nil, `"platform":null`), rule: "M12", ptr: "/platform", msg: "null"},
		{name: "M12 platform empty", raw: manifestOf(nil, `"platform":""`), rule: "M12", ptr: "/platform"},
		{name: "M12 workers 0", raw: manifestOf(nil, `"workers":0`), rule: "M12", ptr: "/workers"},
		{name: "M12 workers 1.5", raw: manifestOf(nil, `"workers":1.5`), rule: "M12", ptr: "/workers", msg: "1.5"},
		{name: "M12 workers string", raw: manifestOf(nil, `"workers":"2"`), rule: "M12", ptr: "/workers", msg: `"2"`},
		{name: "M12 workers too large", raw: manifestOf(nil, `"workers":9007199254740992`), rule: "M12", ptr: "/workers"},
		{name: "M12 workers negative", raw: manifestOf(nil, `"workers":-3`), rule: "M12", ptr: "/workers"},
		{name: "M13 unknown member", raw: manifestOf(nil, `"x":1`), rule: "M13", ptr: "/x", msg: `unknown member "x"`},
		{name: "M13 member case", raw: manifestOf(nil, `"Platform":"web"`), rule: "M13", ptr: "/Platform"},
		{name: "M13 escaped member", raw: manifestOf(nil, `"a/b~c":1`), rule: "M13", ptr: "/a~1b~0c"},
		{name: "not an object", raw: `[]`, rule: "", ptr: "", msg: "got array, want object"},
		{name: "null", raw: `null`, rule: "", ptr: "", msg: "got null, want object"},
		{name: "invalid JSON", raw: `{"name":`, rule: "", ptr: "", msg: "invalid JSON"},
		{name: "trailing data", raw: `{} {}`, rule: "", ptr: "", msg: "invalid JSON"},
		{name: "invalid UTF-8", raw: "{\"name\":\"\xff\"}", rule: "", ptr: "", msg: "UTF-8"},
	}
}

func TestValidateManifestTable(t *testing.T) {
	s := testSet(t)
	for _, c := range manifestCases() {
		t.Run(c.name, func(t *testing.T) {
			err := s.ValidateManifest([]byte(c.raw))
			if c.valid {
				if err != nil {
					t.Fatalf("got %v, want valid", err)
				}
				return
			}
			e := asError(t, err)
			if e == nil {
				t.Fatalf("got valid, want %s at %q", c.rule, c.ptr)
			}
			if e.Subject != "manifest" {
				t.Errorf("subject %q", e.Subject)
			}
			if !hasViolation(e, c.ptr, c.rule, c.msg) {
				t.Errorf("no violation rule %q at %q containing %q in\n%v", c.rule, c.ptr, c.msg, e)
			}
			checkViolations(t, e, c.raw)
		})
	}
}

// checkViolations checks what every Error must satisfy.
func checkViolations(tb testing.TB, e *Error, raw string) {
	tb.Helper()
	if len(e.Violations) == 0 {
		tb.Fatalf("%s: no violations", e.Subject)
	}
	inst, derr := decode([]byte(raw))
	for i, v := range e.Violations {
		if v.Message == "" {
			tb.Errorf("violation %d has no message", i)
		}
		if strings.HasPrefix(v.Message, "does not validate against") {
			tb.Errorf("fallback violation: %v", e)
		}
		if derr == nil {
			if _, ok := resolvePointer(inst, v.Pointer); !ok {
				tb.Errorf("pointer %q does not resolve in %s", v.Pointer, raw)
			}
		} else if v.Pointer != "" {
			tb.Errorf("invalid JSON reported at %q", v.Pointer)
		}
		if i > 0 {
			p := e.Violations[i-1]
			if c := comparePointers(p.Pointer, v.Pointer); c > 0 || (c == 0 && compareRules(p.Rule, v.Rule) > 0) {
				tb.Errorf("violations out of order: %v before %v", p, v)
			}
		}
		if v.Rule != "" && (v.Rule == "M11" || !strings.HasPrefix(v.Rule, "M")) {
			tb.Errorf("bad rule %q", v.Rule)
		}
	}
}

// TestManifestAgreesWithSchema checks, on the table, that ValidateManifest
// rejects exactly what the raw schema rejects, and that ManifestRules finds
// nothing in what the schema accepts.
func TestManifestAgreesWithSchema(t *testing.T) {
	s := testSet(t)
	cases := manifestCases()
	if len(cases) < 40 {
		t.Fatalf("only %d manifests", len(cases))
	}
	for _, c := range cases {
		checkAgreement(t, s, []byte(c.raw))
	}
}

func checkAgreement(tb testing.TB, s *Set, raw []byte) {
	tb.Helper()
	valid, isJSON := schemaAccepts(tb, raw)
	err := s.ValidateManifest(raw)
	if (err == nil) != valid {
		tb.Fatalf("%q: schema valid %v, ValidateManifest %v", raw, valid, err)
	}
	if !isJSON {
		return
	}
	inst, _ := decode(raw)
	if m, ok := inst.(map[string]any); ok {
		rules := ManifestRules(m)
		if valid && len(rules) > 0 {
			tb.Fatalf("%q: schema accepts, rules report %v", raw, rules)
		}
	}
	if err != nil {
		e := asError(tb, err)
		checkViolations(tb, e, string(raw))
		if _, isObject := inst.(map[string]any); isObject {
			// The rules cover the whole schema: every violation of an
			// object manifest names its rule.
			for _, v := range e.Violations {
				if v.Rule == "" {
					tb.Fatalf("%q: violation without a rule: %v", raw, v)
				}
			}
		}
		if again := s.ValidateManifest(raw); again.Error() != err.Error() {
			tb.Fatalf("not deterministic:\n%v\n%v", err, again)
		}
	}
}

func TestManifestRulesMessages(t *testing.T) {
	var m map[string]any
	d := json.NewDecoder(strings.NewReader(manifestOf([]string{"engine/observe", "engine/perform"}, "")))
	d.UseNumber()
	if err := d.Decode(&m); err != nil {
		t.Fatal(err)
	}
	got := ManifestRules(m)
	want := []Violation{{Pointer: "/methods/1", Rule: "M2", Message: "manifest lists engine/perform without actions: list the action kinds the surface honors"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
	// float64 numbers (a decoder without UseNumber) work too.
	if vs := ManifestRules(map[string]any{"name": "a", "version": "1", "spiVersion": 1.0, "methods": []any{}, "workers": 2.0}); len(vs) != 0 {
		t.Errorf("float64 manifest: %v", vs)
	}
	if vs := ManifestRules(map[string]any{"name": "a", "version": "1", "spiVersion": 1.0, "methods": []any{}, "workers": 2.5}); len(vs) != 1 || vs[0].Rule != "M12" {
		t.Errorf("float64 workers 2.5: %v", vs)
	}
	// M11 is withdrawn: never reported.
	for _, c := range manifestCases() {
		inst, err := decode([]byte(c.raw))
		if err != nil {
			continue
		}
		if m, ok := inst.(map[string]any); ok {
			for _, v := range ManifestRules(m) {
				if v.Rule == "M11" {
					t.Errorf("%s: M11 reported", c.name)
				}
				if !strings.Contains(v.Message, ": ") {
					t.Errorf("%s: message without reason: %q", c.name, v.Message)
				}
			}
		}
	}
}

func TestValidateManifestNoRawDependencyErrors(t *testing.T) {
	s := testSet(t)
	// Only dependency problems: every violation carries a rule.
	for _, raw := range []string{
		manifestOf([]string{"engine/perform"}, ""),
		manifestOf([]string{"keyboard/dismiss", "state/restore", "artifacts/startVideo"}, `"tapModifiers":true,"pointerActions":["tap"]`),
	} {
		e := asError(t, s.ValidateManifest([]byte(raw)))
		for _, v := range e.Violations {
			if v.Rule == "" {
				t.Errorf("%s: raw schema violation %v", raw, v)
			}
		}
	}
	// Rule and schema flag the same pointer: only the rule is kept.
	e := asError(t, s.ValidateManifest([]byte(manifestOf(nil, `"workers":0`))))
	if len(e.Violations) != 1 || e.Violations[0].Rule != "M12" {
		t.Errorf("got %v", e)
	}
}

func TestValidateManifestAbsent(t *testing.T) {
	s := testSet(t)
	for _, raw := range [][]byte{nil, {}} {
		e := asError(t, s.ValidateManifest(raw))
		if e == nil || len(e.Violations) != 1 || e.Violations[0].Pointer != "" {
			t.Errorf("%q: got %v", raw, e)
		}
	}
}
