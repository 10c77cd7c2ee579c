package schema

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

const op = `{"signal":{"id":7},"timeoutMs":30000,"runId":"run-1","attemptId":"att-1","origin":"test"}`

// withOp adds "operation" to a params object given without braces.
func withOp(members string) string {
	if members == "" {
		return `{"operation":` + op + `}`
	}
	return `{` + members + `,"operation":` + op + `}`
}

// validParams holds one valid params object per client-to-server message.
// A "" value means absent params.
func validParams() map[string]string {
	return map[string]string{
		"initialize":              `{"protocolVersion":1,"clientInfo":{"name":"harness","version":"0.9.0"},"role":"worker","initializationOptions":{"headless":true}}`,
		"initialized":             `{}`,
		"shutdown":                "",
		"exit":                    "",
		"$/abort":                 `{"id":41,"reason":{"code":-32000,"message":"test timed out after 120000 ms","data":{"type":"e2e","category":"test","code":"TEST_TIMEOUT","retryable":false}}}`,
		"lifecycle/prepare":       `{"runId":"run-1","targetName":"web","projectRoot":"/work/p","app":{"site":"app.test","bundleId":"com.x","appPath":"build/app","launchArguments":["-v"],"permissions":{"camera":"grant","location":"reset"}},"slots":2,"env":{"E2E_SECRET_PW":"x"},"signal":{"id":1}}`,
		"lifecycle/finish":        `{"runId":"run-1","targetName":"web","env":{},"signal":{"id":2},"timeoutMs":30000}`,
		"lifecycle/init":          `{"runId":"run-1","targetName":"web","projectRoot":"/work/p","app":{},"env":{"A":"b"},"headed":false,"workerSlot":0,"signal":{"id":"s-3"}}`,
		"lifecycle/startAttempt":  `{"attemptId":"att-1","artifactsDir":"/tmp/att-1","signal":{"id":4},"screens":true}`,
		"lifecycle/settleAttempt": `{"signal":{"id":5},"timeoutMs":30000}`,
		"lifecycle/endAttempt":    `{"signal":{"id":5,"aborted":true,"reason":{"code":-32000,"message":"cleanup budget spent","data":{"type":"engine","code":"OPERATION_TIMEOUT","retryable":false}}},"timeoutMs":0}`,
		"lifecycle/dispose":       `{"signal":{"id":6},"timeoutMs":30000,"reuseSignal":{"id":8}}`,
		"engine/observe":          withOp(`"options":{"pixels":true,"pixelFallback":false}`),
		"engine/locate":           withOp(`"expression":{"kind":"index","index":"first","source":{"kind":"filter","hasText":{"kind":"string","value":"Total","exact":false},"has":{"kind":"selector","selector":"span"},"source":{"kind":"query","query":{"kind":"role","value":{"kind":"string","value":"button","exact":true},"name":{"kind":"regexp","source":"^Save","flags":"gi"},"states":{"disabled":false},"level":2,"visible":true},"scope":{"kind":"frame","selector":"iframe#pay","source":{"kind":"query","query":{"kind":"testId","value":{"kind":"string","value":"form","exact":true}}}}}}}`),
		"engine/perform":          withOp(`"ref":{"id":"n12","revision":"b3"},"action":{"kind":"tap","modifiers":["Shift","ControlOrMeta"]}`),
		"engine/performAt":        withOp(`"point":{"x":10,"y":20.5},"action":{"kind":"swipeTo","target":{"x":0,"y":300},"durationMs":250}`),
		"keyboard/type":           withOp(`"text":"hello","options":{"replace":false}`),
		"keyboard/press":          withOp(`"key":"Shift++"`),
		"keyboard/dismiss":        withOp(""),
		"state/capture":           withOp(""),
		"state/restore":           withOp(`"state":{"format":"web-storage","version":1,"data":{"cookies":[],"origins":null},"expiresAt":"2026-03-01T12:00:00.000Z"}`),
		"artifacts/screenshot":    withOp(`"label":"after login"`),
		"artifacts/startVideo":    withOp(""),
		"artifacts/stopVideo":     withOp(""),
		"session/open":            withOp(`"url":"http://127.0.0.1:8080/"`),
		"session/back":            withOp(""),
		"session/restart":         withOp(""),
		"session/reset":           withOp(""),
		"attempt/deriveSecret":    `{"derivation":{"form":"basic-auth"},"plaintext":"s3cret"}`,
	}
}

func rawOf(s string) json.RawMessage {
	if s == "" {
		return nil
	}
	return json.RawMessage(s)
}

func TestValidParams(t *testing.T) {
	s := testSet(t)
	valid := validParams()
	for _, m := range methodTable() {
		if m.params == "" {
			continue
		}
		raw, ok := valid[m.name]
		if !ok {
			t.Errorf("%s: no valid params in the test table", m.name)
			continue
		}
		if err := s.ValidateParams(m.name, rawOf(raw)); err != nil {
			t.Errorf("%s: %v", m.name, err)
		}
	}
}

// TestParamsUnknownMembersIgnored: params objects are open (§1.6).
func TestParamsUnknownMembersIgnored(t *testing.T) {
	s := testSet(t)
	for method, raw := range validParams() {
		if raw == "" || raw == "{}" {
			raw = `{"future":1}`
		} else {
			raw = `{"future":{"x":null},` + raw[1:]
		}
		if err := s.ValidateParams(method, json.RawMessage(raw)); err != nil {
			t.Errorf("%s with an unknown member: %v", method, err)
		}
	}
}

// TestParamsNullEverywhere replaces each object member of every valid params
// object, at any depth, by null: each must fail, where the type names no
// null.
func TestParamsNullEverywhere(t *testing.T) {
	s := testSet(t)
	allowed := map[string]bool{
		"initialize /initializationOptions":          true, // JsonValue
		"initialize /initializationOptions/headless": true,
		"state/restore /state/data":                  true, // JsonValue
		"state/restore /state/data/origins":          true, // inside opaque data
		"state/restore /state/data/cookies":          true,
		"attempt/deriveSecret /derivation/form":      true, // inside an opaque derivation
	}
	for method, raw := range validParams() {
		if raw == "" {
			continue
		}
		inst, err := decode([]byte(raw))
		if err != nil {
			t.Fatal(err)
		}
		for _, ptr := range memberPointers(inst, "") {
			mutated := setNull(inst, tokensOf(ptr))
			b, _ := json.Marshal(mutated)
			err := s.ValidateParams(method, b)
			if allowed[method+" "+ptr] {
				if err != nil {
					t.Errorf("%s %s null: %v", method, ptr, err)
				}
				continue
			}
			e := asError(t, err)
			if e == nil {
				t.Errorf("%s: null at %s accepted", method, ptr)
				continue
			}
			checkViolations(t, e, string(b))
		}
	}
}

// memberPointers lists the pointers of every object member under v.
func memberPointers(v any, prefix string) []string {
	var out []string
	switch c := v.(type) {
	case map[string]any:
		for k, x := range c {
			p := prefix + "/" + escapeToken(k)
			out = append(out, p)
			out = append(out, memberPointers(x, p)...)
		}
	case []any:
		for i, x := range c {
			out = append(out, memberPointers(x, prefix+"/"+itoa(i))...)
		}
	}
	slices.Sort(out)
	return out
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// setNull returns a deep copy of v with the member at tokens set to null.
func setNull(v any, tokens []string) any {
	if len(tokens) == 0 {
		return nil
	}
	switch c := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(c))
		for k, x := range c {
			out[k] = x
		}
		out[tokens[0]] = setNull(c[tokens[0]], tokens[1:])
		return out
	case []any:
		out := slices.Clone(c)
		for i := range out {
			if itoa(i) == tokens[0] {
				out[i] = setNull(out[i], tokens[1:])
			}
		}
		return out
	}
	return v
}

func TestInvalidParams(t *testing.T) {
	s := testSet(t)
	cases := []struct {
		method, raw, ptr, msg string
	}{
		// initialize
		{"initialize", `{"protocolVersion":"1","clientInfo":{"name":"h"},"role":"run"}`, "/protocolVersion", `got "1", want 1`},
		{"initialize", `{"protocolVersion":2,"clientInfo":{"name":"h"},"role":"run"}`, "/protocolVersion", "want 1"},
		{"initialize", `{"protocolVersion":1,"clientInfo":{"name":""},"role":"run"}`, "/clientInfo/name", "non-empty"},
		{"initialize", `{"protocolVersion":1,"clientInfo":"h","role":"run"}`, "/clientInfo", `got string "h", want object`},
		{"initialize", `{"protocolVersion":1,"role":"run"}`, "", `missing member "clientInfo"`},
		{"initialize", `{"protocolVersion":1,"clientInfo":{"name":"h","version":null},"role":"run"}`, "/clientInfo/version", "got null, want string"},
		{"initialize", `{"protocolVersion":1,"clientInfo":{"name":"h"},"role":"runner"}`, "/role", `got "runner", want one of "run", "worker"`},
		{"initialize", ``, "", "params absent"},
		// none-params methods
		{"shutdown", `[]`, "", "got array, want null or object"},
		{"exit", `"bye"`, "", "want null or object"},
		{"initialized", `[]`, "", "want null or object"},
		// $/abort
		{"$/abort", `{}`, "", `missing member "id"`},
		{"$/abort", `{"id":null}`, "/id", "got null, want integer or string"},
		{"$/abort", `{"id":1.5}`, "/id", "got number 1.5, want integer or string"},
		{"$/abort", `{"id":1,"reason":{"code":-32000,"message":"x"}}`, "/reason", `missing member "data"`},
		{"$/abort", `{"id":1,"reason":{"code":-32000,"message":"x","data":{"type":"engine","code":"NOT_ACTIONABLE","retryable":true}}}`, "/reason/data/code", "only those may be retryable"},
		{"$/abort", `{"id":1,"reason":{"code":-32000,"message":"x","data":{"type":"mystery"}}}`, "/reason/data/type", `unknown ErrorObject data type "mystery"`},
		{"$/abort", `{"id":1,"reason":{"code":-32601,"message":"x","data":{"type":"engine"}}}`, "/reason/data/type", "unknown member"},
		{"$/abort", `{"id":1,"reason":{"code":-32603,"message":""}}`, "/reason/message", "non-empty"},
		// lifecycle
		{"lifecycle/prepare", `{"runId":"r","targetName":"t","projectRoot":"/p","app":{},"slots":-1,"env":{},"signal":{"id":1}}`, "/slots", "got -1, want at least 0"},
		{"lifecycle/prepare", `{"runId":"r","targetName":"t","projectRoot":"/p","app":{},"slots":1.5,"env":{},"signal":{"id":1}}`, "/slots", "want integer"},
		{"lifecycle/prepare", `{"runId":"r","targetName":"t","projectRoot":"/p","app":{},"slots":1,"env":{"A":1},"signal":{"id":1}}`, "/env/A", "got number 1, want string"},
		{"lifecycle/prepare", `{"runId":"r","targetName":"t","projectRoot":"/p","app":{"permissions":{"camera":"allow"}},"slots":1,"env":{},"signal":{"id":1}}`, "/app/permissions/camera", `got "allow"`},
		{"lifecycle/prepare", `{"runId":"r","targetName":"t","projectRoot":"/p","app":{},"slots":1,"env":{}}`, "", `missing member "signal"`},
		{"lifecycle/finish", `{"runId":"r","targetName":"t","env":{},"signal":{"id":1},"timeoutMs":"30s"}`, "/timeoutMs", "want number"},
		{"lifecycle/init", `{"runId":"r","targetName":"t","projectRoot":"/p","app":{},"env":{},"headed":"yes","workerSlot":0,"signal":{"id":1}}`, "/headed", "want boolean"},
		{"lifecycle/init", `{"runId":"r","targetName":"t","projectRoot":"/p","app":{},"env":{},"headed":true,"signal":{"id":1}}`, "", `missing member "workerSlot"`},
		{"lifecycle/startAttempt", `{"attemptId":"","artifactsDir":"/a","signal":{"id":1},"screens":false}`, "/attemptId", "non-empty"},
		{"lifecycle/startAttempt", `{"attemptId":"a","artifactsDir":"/a","signal":{"id":1}}`, "", `missing member "screens"`},
		{"lifecycle/settleAttempt", `{"signal":null,"timeoutMs":1}`, "/signal", "got null, want object"},
		{"lifecycle/endAttempt", `{"signal":{"id":1},"timeoutMs":-5}`, "/timeoutMs", "got -5, want at least 0"},
		{"lifecycle/dispose", `{"signal":{"id":1},"timeoutMs":1,"reuseSignal":null}`, "/reuseSignal", "got null"},
		{"lifecycle/dispose", `{"signal":{"id":1,"aborted":"yes"},"timeoutMs":1}`, "/signal/aborted", "want boolean"},
		// operation
		{"engine/observe", `{}`, "", `missing member "operation"`},
		{"engine/observe", `[]`, "", "got array, want object"},
		{"engine/observe", `null`, "", "got null, want object"},
		{"engine/observe", ``, "", "params absent, want an object"},
		{"engine/observe", `{"operation":null}`, "/operation", "got null, want object"},
		{"engine/observe", `{"operation":{"signal":{"id":1},"timeoutMs":1,"runId":"r","attemptId":""}}`, "/operation/attemptId", "non-empty"},
		{"engine/observe", `{"operation":{"signal":{"id":1},"timeoutMs":1,"runId":"r","attemptId":"a","origin":"human"}}`, "/operation/origin", `got "human", want one of "test", "agent"`},
		{"engine/observe", `{"operation":{"timeoutMs":1,"runId":"r","attemptId":"a"}}`, "/operation", `missing member "signal"`},
		{"engine/observe", withOp(`"options":{"pixels":"yes"}`), "/options/pixels", "want boolean"},
		{"engine/observe", withOp(`"options":null`), "/options", "got null, want object"},
		// locate
		{"engine/locate", withOp(`"expression":{"kind":"query","query":{"kind":"text","value":{"kind":"regexp","source":"x","flags":"ig"}}}`), "/expression/query/value/flags", `got "ig"`},
		{"engine/locate", withOp(`"expression":{"kind":"query","query":{"kind":"text","value":{"kind":"regexp","source":"x","flags":"uv"}}}`), "/expression/query/value/flags", "never both u and v"},
		{"engine/locate", withOp(`"expression":{"kind":"query","query":{"kind":"text","value":{"kind":"regexp","source":"x","flags":"gg"}}}`), "/expression/query/value/flags", ""},
		{"engine/locate", withOp(`"expression":{"kind":"query","query":{"kind":"role","value":{"kind":"regexp","source":"butt.*","flags":""}}}`), "/expression/query/value/kind", "a role query takes a string pattern"},
		{"engine/locate", withOp(`"expression":{"kind":"query","query":{"kind":"role","value":{"kind":"string","value":"button","exact":true},"level":0}}`), "/expression/query/level", "got 0, want at least 1"},
		{"engine/locate", withOp(`"expression":{"kind":"query","query":{"kind":"role","value":{"kind":"string","value":"button","exact":true},"states":{"focused":true}}}`), "/expression/query/states/focused", `unknown state "focused"`},
		{"engine/locate", withOp(`"expression":{"kind":"query","query":{"kind":"alt","value":{"kind":"string","value":"x","exact":true}}}`), "/expression/query/kind", `got "alt"`},
		{"engine/locate", withOp(`"expression":{"kind":"query","query":{"kind":"text","value":{"kind":"glob","value":"x"}}}`), "/expression/query/value/kind", `unknown TextPattern kind "glob"`},
		{"engine/locate", withOp(`"expression":{"kind":"query","query":{"kind":"text","value":{"kind":"string","value":"x"}}}`), "/expression/query/value", `missing member "exact"`},
		{"engine/locate", withOp(`"expression":{"kind":"xpath","selector":"//a"}`), "/expression/kind", `unknown LocatorExpression kind "xpath"`},
		{"engine/locate", withOp(`"expression":{"selector":"a"}`), "/expression", `missing member "kind"`},
		{"engine/locate", withOp(`"expression":{"kind":"selector","selector":""}`), "/expression/selector", "non-empty"},
		{"engine/locate", withOp(`"expression":{"kind":"filter","source":{"kind":"selector","selector":"a"}}`), "/expression", `missing member "hasText" or "has"`},
		{"engine/locate", withOp(`"expression":{"kind":"index","source":{"kind":"selector","selector":"a"},"index":-1}`), "/expression/index", "matches no form"},
		{"engine/locate", withOp(`"expression":{"kind":"index","source":{"kind":"selector","selector":"a"},"index":"middle"}`), "/expression/index", `"middle"`},
		{"engine/locate", withOp(`"expression":{"kind":"query","query":{"kind":"text","value":{"kind":"string","value":"x","exact":true}},"scope":{"kind":"bogus"}}`), "/expression/scope/kind", `unknown LocatorExpression kind "bogus"`},
		{"engine/locate", withOp(`"expression":{"kind":"frame","selector":"iframe","source":{"kind":"filter","source":{"kind":"selector","selector":"a"},"has":{"kind":"index","source":{"kind":"selector","selector":"b"},"index":1.5}}}`), "/expression/source/has/index", "matches no form"},
		{"engine/locate", withOp(`"expression":null`), "/expression", "got null, want object"},
		// perform
		{"engine/perform", withOp(`"ref":{"id":"n1","revision":""},"action":{"kind":"teleport"}`), "/action/kind", `unknown LocatorAction kind "teleport"`},
		{"engine/perform", withOp(`"ref":{"id":"n1","revision":""},"action":{"kind":7}`), "/action/kind", "unknown LocatorAction kind 7"},
		{"engine/perform", withOp(`"ref":{"id":"n1","revision":""},"action":{}`), "/action", `missing member "kind"`},
		{"engine/perform", withOp(`"ref":{"id":"n1","revision":""},"action":"tap"`), "/action", `got string "tap", want object`},
		{"engine/perform", withOp(`"ref":{"id":"n1","revision":""},"action":{"kind":"fill","value":"x"}`), "/action", `missing member "sensitive"`},
		{"engine/perform", withOp(`"ref":{"id":"n1","revision":""},"action":{"kind":"fill","value":null,"sensitive":false}`), "/action/value", "got null, want string"},
		{"engine/perform", withOp(`"ref":{"id":"n1","revision":""},"action":{"kind":"tap","modifiers":["Shift","Shift"]}`), "/action/modifiers/1", "duplicate of item 0"},
		{"engine/perform", withOp(`"ref":{"id":"n1","revision":""},"action":{"kind":"tap","modifiers":["Ctrl"]}`), "/action/modifiers/0", `got "Ctrl"`},
		{"engine/perform", withOp(`"ref":{"id":"n1","revision":""},"action":{"kind":"longPress","durationMs":0}`), "/action/durationMs", "got 0, want more than 0"},
		{"engine/perform", withOp(`"ref":{"id":"n1","revision":""},"action":{"kind":"press","key":""}`), "/action/key", "non-empty"},
		{"engine/perform", withOp(`"ref":{"id":"n1","revision":""},"action":{"kind":"selectOption","value":{"label":"a","value":"b"}}`), "/action/value", "want at most 1"},
		{"engine/perform", withOp(`"ref":{"id":"n1","revision":""},"action":{"kind":"selectOption","value":{"index":-1}}`), "/action/value/index", "got -1, want at least 0"},
		{"engine/perform", withOp(`"ref":{"id":"n1","revision":""},"action":{"kind":"selectOption","value":5}`), "/action/value", "got number 5, want string or object"},
		{"engine/perform", withOp(`"ref":{"id":"n1","revision":""},"action":{"kind":"setInputFiles","paths":[]}`), "/action/paths", "empty array"},
		{"engine/perform", withOp(`"ref":{"id":"n1","revision":""},"action":{"kind":"setInputFiles","paths":["/a"," "]}`), "/action/paths/1", "non-whitespace"},
		{"engine/perform", withOp(`"ref":{"id":"n1","revision":""},"action":{"kind":"dragTo","target":{"id":"n2"}}`), "/action/target", `missing member "revision"`},
		{"engine/perform", withOp(`"ref":{"id":"n1","revision":""},"action":{"kind":"swipe","direction":"north"}`), "/action/direction", `got "north"`},
		{"engine/perform", withOp(`"ref":{"id":"n1","revision":""},"action":{"kind":"swipe","direction":"up","momentum":"huge"}`), "/action/momentum", `got "huge"`},
		{"engine/perform", withOp(`"ref":{"id":"","revision":""},"action":{"kind":"tap"}`), "/ref/id", "non-empty"},
		{"engine/perform", withOp(`"action":{"kind":"tap"}`), "", `missing member "ref"`},
		// performAt
		{"engine/performAt", withOp(`"point":{"x":1,"y":1},"action":{"kind":"fill"}`), "/action/kind", `unknown PointerAction kind "fill"`},
		{"engine/performAt", withOp(`"point":{"x":-1,"y":1},"action":{"kind":"tap"}`), "/point/x", "got -1, want at least 0"},
		{"engine/performAt", withOp(`"point":{"x":1,"y":1},"action":{"kind":"dragTo","target":{"x":1}}`), "/action/target", `missing member "y"`},
		{"engine/performAt", withOp(`"point":{"x":1,"y":1},"action":{"kind":"swipeTo","target":{"x":1,"y":1},"durationMs":-1}`), "/action/durationMs", "more than 0"},
		// keyboard
		{"keyboard/type", withOp(`"text":"a"`), "", `missing member "options"`},
		{"keyboard/type", withOp(`"text":"a","options":{}`), "/options", `missing member "replace"`},
		{"keyboard/type", withOp(`"text":5,"options":{"replace":true}`), "/text", "want string"},
		{"keyboard/press", withOp(`"key":""`), "/key", "non-empty"},
		{"keyboard/press", withOp(``), "", `missing member "key"`},
		{"keyboard/dismiss", `{"operation":{}}`, "/operation", `missing member "attemptId"`},
		// state, artifacts, session
		{"state/restore", withOp(`"state":{"format":"x","data":{}}`), "/state", `missing member "version"`},
		{"state/restore", withOp(`"state":{"format":"","version":1,"data":1}`), "/state/format", "non-empty"},
		{"state/restore", withOp(`"state":{"format":"x","version":1,"data":1,"expiresAt":"tomorrow"}`), "/state/expiresAt", "RFC 3339"},
		{"state/capture", `{"operation":[]}`, "/operation", "got array, want object"},
		{"artifacts/screenshot", withOp(`"label":null`), "/label", "got null, want string"},
		{"artifacts/screenshot", withOp(`"label":3`), "/label", "got number 3, want string"},
		{"artifacts/startVideo", `{}`, "", `missing member "operation"`},
		{"artifacts/stopVideo", `{"operation":{"signal":{"id":true},"timeoutMs":1,"runId":"r","attemptId":"a"}}`, "/operation/signal/id", "got boolean true"},
		{"session/open", withOp(`"url":5`), "/url", "want string"},
		{"session/open", withOp(``), "", `missing member "url"`},
		{"session/back", `{"operation":{"signal":{"id":1},"timeoutMs":-1,"runId":"r","attemptId":"a"}}`, "/operation/timeoutMs", "want at least 0"},
		{"session/restart", `[]`, "", "got array"},
		{"session/reset", `{"operation":{"signal":{"id":1},"timeoutMs":1,"runId":"","attemptId":"a"}}`, "/operation/runId", "non-empty"},
		// deriveSecret
		{"attempt/deriveSecret", `{"derivation":null,"plaintext":"x"}`, "/derivation", "got null"},
		{"attempt/deriveSecret", `{"derivation":1}`, "", `missing member "plaintext"`},
		// invalid JSON
		{"engine/observe", `{"operation":`, "", "invalid JSON"},
		{"engine/observe", "{\"operation\":\"\xc3\"}", "", "UTF-8"},
	}
	for _, c := range cases {
		t.Run(c.method+" "+c.ptr, func(t *testing.T) {
			err := s.ValidateParams(c.method, rawOf(c.raw))
			e := asError(t, err)
			if e == nil {
				t.Fatalf("%s accepted", c.raw)
			}
			if e.Subject != "params of "+c.method {
				t.Errorf("subject %q", e.Subject)
			}
			if !hasViolation(e, c.ptr, "", c.msg) {
				t.Errorf("%s\nno violation at %q containing %q in\n%v", c.raw, c.ptr, c.msg, e)
			}
			checkViolations(t, e, c.raw)
		})
	}
}

// TestTaggedUnionsReportOneForm checks that a known kind reports only its
// own form's violations and an unknown kind exactly one violation.
func TestTaggedUnionsReportOneForm(t *testing.T) {
	s := testSet(t)
	e := asError(t, s.ValidateParams("engine/perform", json.RawMessage(withOp(`"ref":{"id":"n1","revision":""},"action":{"kind":"teleport","value":1}`))))
	if len(e.Violations) != 1 || e.Violations[0].Pointer != "/action/kind" || e.Violations[0].Message != `unknown LocatorAction kind "teleport"` {
		t.Errorf("got %v", e)
	}
	e = asError(t, s.ValidateParams("engine/perform", json.RawMessage(withOp(`"ref":{"id":"n1","revision":""},"action":{"kind":"fill","value":1}`))))
	want := []Violation{
		{Pointer: "/action", Message: `missing member "sensitive"`},
		{Pointer: "/action/value", Message: "got number 1, want string"},
	}
	if !slices.Equal(e.Violations, want) {
		t.Errorf("got %v\nwant %v", e.Violations, want)
	}
	want2 := `params of engine/perform: /action: missing member "sensitive"; /action/value: got number 1, want string`
	if e.Error() != want2 {
		t.Errorf("Error() = %q", e.Error())
	}
}

func TestParamsUnknownMethod(t *testing.T) {
	s := testSet(t)
	for _, m := range []string{"engine/teleport", "", "engine/log", "attempt/resolveSecret", "Engine/observe"} {
		err := s.ValidateParams(m, json.RawMessage(`{}`))
		if err == nil {
			t.Errorf("%q: accepted", m)
			continue
		}
		if _, ok := err.(*Error); ok {
			t.Errorf("%q: got *Error, want a plain error", m)
		}
		if !strings.Contains(err.Error(), m) {
			t.Errorf("%q: error %q does not name it", m, err)
		}
	}
}

func TestNoneParamsAccepted(t *testing.T) {
	s := testSet(t)
	for _, m := range []string{"shutdown", "exit", "initialized"} {
		for _, raw := range []string{"", "null", "{}", `{"x":1}`} {
			if err := s.ValidateParams(m, rawOf(raw)); err != nil {
				t.Errorf("%s %q: %v", m, raw, err)
			}
		}
	}
	if err := s.ValidateParams("shutdown", json.RawMessage{}); err != nil {
		t.Errorf("empty raw: %v", err)
	}
}

func TestIntegersByValue(t *testing.T) {
	s := testSet(t)
	for _, raw := range []string{
		`{"protocolVersion":1.0,"clientInfo":{"name":"h"},"role":"run"}`,
		`{"protocolVersion":1e0,"clientInfo":{"name":"h"},"role":"run"}`,
	} {
		if err := s.ValidateParams("initialize", json.RawMessage(raw)); err != nil {
			t.Errorf("%s: %v", raw, err)
		}
	}
	if err := s.ValidateParams("initialize", json.RawMessage(`{"protocolVersion":1.000001,"clientInfo":{"name":"h"},"role":"run"}`)); err == nil {
		t.Error("1.000001 accepted")
	}
	// 2^53+1 is exact with json.Number, and an integer.
	if err := s.ValidateParams("$/abort", json.RawMessage(`{"id":9007199254740993}`)); err != nil {
		t.Errorf("large id: %v", err)
	}
}
