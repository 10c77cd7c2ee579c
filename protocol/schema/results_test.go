package schema

import (
	"encoding/json"
	"strings"
	"testing"
)

const (
	snapshot = `{"location":"http://127.0.0.1:8080/","root":{"ref":{"id":"root","revision":""},"role":"main","children":[
		{"ref":{"id":"n1","revision":""},"role":"textbox","name":"Password","inputPurpose":"password","states":{"secure":true,"focused":true},"rect":{"x":0,"y":0,"width":100,"height":20},"attributes":{"placeholder":"pw"}},
		{"ref":{"id":"n2","revision":""},"role":"heading","level":1,"text":"Hi","selector":"#h","framePath":["iframe#a"]}]},
		"viewport":{"width":1280,"height":720},"truncated":false,
		"pixels":{"data":"iVBORw0KGgo=","mediaType":"image/png","width":2560,"height":1440,"scale":2},"maskedRegionCount":1}`
	fallbackSnapshot = `{"root":{"ref":{"id":"root","revision":""}},"viewport":{"width":1,"height":1},"treeUnavailable":true,
		"pixels":{"data":"AAAA","mediaType":"image/png","width":1,"height":1,"scale":1}}`
)

func TestResults(t *testing.T) {
	s := testSet(t)
	initResult := `{"protocolVersion":1,"manifest":` + exampleManifest + `}`
	cases := []struct {
		method, raw string
		valid       bool
		ptr, msg    string
	}{
		{method: "initialize", raw: initResult, valid: true},
		{method: "initialize", raw: `{"protocolVersion":1,"manifest":` + exampleManifest + `,"serverInfo":{"name":"x"}}`, valid: true},
		{method: "initialize", raw: `{"protocolVersion":2,"manifest":` + exampleManifest + `}`, ptr: "/protocolVersion", msg: "want 1"},
		{method: "initialize", raw: `{"protocolVersion":1}`, ptr: "", msg: `missing member "manifest"`},
		{method: "initialize", raw: `{"protocolVersion":1,"manifest":{"name":"k","version":"1","spiVersion":1,"methods":["engine/perform"],"zz":1}}`, ptr: "/manifest/methods/0", msg: "manifest lists engine/perform without actions"},
		{method: "shutdown", raw: `null`, valid: true},
		{method: "shutdown", raw: `{}`, ptr: "", msg: "got an empty object, want null"},
		{method: "lifecycle/prepare", raw: `null`, valid: true},
		{method: "lifecycle/prepare", raw: `{}`, valid: true},
		{method: "lifecycle/prepare", raw: `{"workers":2,"env":{"MODEL_KEY":"k"}}`, valid: true},
		{method: "lifecycle/prepare", raw: `{"workers":0}`, ptr: "/workers", msg: "got 0, want at least 1"},
		{method: "lifecycle/prepare", raw: `{"env":{"A":null}}`, ptr: "/env/A", msg: "got null, want string"},
		{method: "lifecycle/prepare", raw: `"none"`, ptr: "", msg: `got string "none", want null or object`},
		{method: "lifecycle/finish", raw: `null`, valid: true},
		{method: "lifecycle/init", raw: `null`, valid: true},
		{method: "lifecycle/startAttempt", raw: `null`, valid: true},
		{method: "lifecycle/settleAttempt", raw: `false`, ptr: "", msg: "got false, want null"},
		{method: "lifecycle/endAttempt", raw: `null`, valid: true},
		{method: "lifecycle/dispose", raw: `null`, valid: true},
		{method: "engine/observe", raw: snapshot, valid: true},
		{method: "engine/observe", raw: fallbackSnapshot, valid: true},
		{method: "engine/observe", raw: `{"viewport":{"width":1,"height":1}}`, ptr: "", msg: `missing member "root"`},
		{method: "engine/observe", raw: `{"root":{"ref":{"id":"r","revision":""}},"viewport":{"width":0,"height":1}}`, ptr: "/viewport/width", msg: "got 0, want more than 0"},
		{method: "engine/observe", raw: `{"root":{"ref":{"id":"r","revision":""},"states":{"secure":true},"value":"hunter2"},"viewport":{"width":1,"height":1}}`, ptr: "/root", msg: "carries neither value nor selection"},
		{method: "engine/observe", raw: `{"root":{"ref":{"id":"r","revision":""},"states":{"visible":true}},"viewport":{"width":1,"height":1}}`, ptr: "/root/states/visible", msg: `unknown state "visible"`},
		{method: "engine/observe", raw: `{"root":{"ref":{"id":"r","revision":""},"children":[{"ref":{"id":"c","revision":""},"level":0}]},"viewport":{"width":1,"height":1}}`, ptr: "/root/children/0/level", msg: "got 0, want at least 1"},
		{method: "engine/observe", raw: `{"root":{"ref":{"id":"r","revision":""},"role":null},"viewport":{"width":1,"height":1}}`, ptr: "/root/role", msg: "got null, want string"},
		{method: "engine/observe", raw: `{"root":{"ref":{"id":"r","revision":""},"name":"x"},"viewport":{"width":1,"height":1},"treeUnavailable":true,"pixels":{"data":"AAAA","mediaType":"image/png","width":1,"height":1,"scale":1}}`, ptr: "/root/name", msg: "with treeUnavailable the root holds only ref"},
		{method: "engine/observe", raw: `{"root":{"ref":{"id":"r","revision":""}},"viewport":{"width":1,"height":1},"treeUnavailable":true}`, ptr: "", msg: `missing member "pixels"`},
		{method: "engine/observe", raw: `{"root":{"ref":{"id":"r","revision":""}},"viewport":{"width":1,"height":1},"treeUnavailable":false}`, ptr: "/treeUnavailable", msg: "want true"},
		{method: "engine/observe", raw: `{"root":{"ref":{"id":"r","revision":""}},"viewport":{"width":1,"height":1},"pixels":{"data":"AAA","mediaType":"image/png","width":1,"height":1,"scale":1}}`, ptr: "/pixels/data", msg: "want at least 4"},
		{method: "engine/observe", raw: `{"root":{"ref":{"id":"r","revision":""}},"viewport":{"width":1,"height":1},"pixels":{"data":"AA-_","mediaType":"image/png","width":1,"height":1,"scale":1}}`, ptr: "/pixels/data", msg: "standard base64 with padding"},
		{method: "engine/observe", raw: `{"root":{"ref":{"id":"r","revision":""}},"viewport":{"width":1,"height":1},"maskedRegionCount":-1}`, ptr: "/maskedRegionCount", msg: "got -1, want at least 0"},
		{method: "engine/locate", raw: `[]`, valid: true},
		{method: "engine/locate", raw: `[{"ref":{"id":"n1","revision":""}},{"ref":{"id":"n2","revision":""},"text":"x"}]`, valid: true},
		{method: "engine/locate", raw: `[{"ref":{"revision":""}}]`, ptr: "/0/ref", msg: `missing member "id"`},
		{method: "engine/locate", raw: `{}`, ptr: "", msg: "got object, want array"},
		{method: "engine/perform", raw: `null`, valid: true},
		{method: "engine/perform", raw: `{}`, ptr: "", msg: "want null"},
		{method: "engine/performAt", raw: `null`, valid: true},
		{method: "keyboard/type", raw: `null`, valid: true},
		{method: "keyboard/press", raw: `0`, ptr: "", msg: "got 0, want null"},
		{method: "keyboard/dismiss", raw: `null`, valid: true},
		{method: "state/capture", raw: `{"format":"web-storage","version":1.5,"data":null}`, valid: true},
		{method: "state/capture", raw: `{"format":"web-storage","version":1,"data":{},"expiresAt":"2026-03-01T12:00:00Z"}`, valid: true},
		{method: "state/capture", raw: `{"format":"web-storage","version":"1","data":{}}`, ptr: "/version", msg: "want number"},
		{method: "state/capture", raw: `{"format":"web-storage","version":1}`, ptr: "", msg: `missing member "data"`},
		{method: "state/restore", raw: `null`, valid: true},
		{method: "artifacts/screenshot", raw: `{"path":"screenshots/001-login.png"}`, valid: true},
		{method: "artifacts/screenshot", raw: `{"data":"iVBORw0KGgo=","mediaType":"image/png"}`, valid: true},
		{method: "artifacts/screenshot", raw: `{"path":"a.png","data":"AAAA","mediaType":"image/png"}`, ptr: "", msg: "path or data, never both"},
		{method: "artifacts/screenshot", raw: `{"data":"AAAA","mediaType":"image/jpeg"}`, ptr: "/mediaType", msg: `got "image/jpeg", want "image/png"`},
		{method: "artifacts/screenshot", raw: `{"path":""}`, ptr: "/path", msg: "non-empty"},
		{method: "artifacts/screenshot", raw: `{}`, ptr: "", msg: "matches no form of ScreenshotResult"},
		{method: "artifacts/screenshot", raw: `null`, ptr: "", msg: "got null, want object"},
		{method: "artifacts/startVideo", raw: `null`, valid: true},
		{method: "artifacts/stopVideo", raw: `[]`, valid: true},
		{method: "artifacts/stopVideo", raw: `[{"path":"video/1.webm","startedAt":"2026-03-01T12:00:00.000Z"},{"url":"https://cdn.test/v","mediaType":"text/html","startedAt":"2026-03-01T12:00:05Z"}]`, valid: true},
		{method: "artifacts/stopVideo", raw: `[{"path":"v.webm"}]`, ptr: "/0", msg: `missing member "startedAt"`},
		{method: "artifacts/stopVideo", raw: `[{"path":"v.webm","startedAt":"yesterday"}]`, ptr: "/0/startedAt", msg: "RFC 3339"},
		{method: "artifacts/stopVideo", raw: `[{"url":"ftp://x/v","mediaType":"video/mp4","startedAt":"2026-03-01T12:00:00Z"}]`, ptr: "/0/url", msg: "http: or https: URL"},
		{method: "artifacts/stopVideo", raw: `[{"path":"v","url":"https://x","mediaType":"video/mp4","startedAt":"2026-03-01T12:00:00Z"}]`, ptr: "/0", msg: "matches more than one form of VideoSegment"},
		{method: "artifacts/stopVideo", raw: `[{}]`, ptr: "/0", msg: "matches no form of VideoSegment"},
		{method: "session/open", raw: `null`, valid: true},
		{method: "session/back", raw: `null`, valid: true},
		{method: "session/restart", raw: `null`, valid: true},
		{method: "session/reset", raw: `{"ok":true}`, ptr: "", msg: "want null"},
		{method: "attempt/deriveSecret", raw: `{"values":["Basic dTpw"]}`, valid: true},
		{method: "attempt/deriveSecret", raw: `{"values":[1]}`, ptr: "/values/0", msg: "want string"},
		{method: "attempt/resolveSecret", raw: `{"value":"s3cret"}`, valid: true},
		{method: "attempt/resolveSecret", raw: `{"value":null}`, ptr: "/value", msg: "got null, want string"},
		{method: "engine/observe", raw: ``, ptr: "", msg: "result absent"},
		{method: "shutdown", raw: ``, ptr: "", msg: "result absent"},
	}
	for _, c := range cases {
		t.Run(c.method, func(t *testing.T) {
			err := s.ValidateResult(c.method, rawOf(c.raw))
			if c.valid {
				if err != nil {
					t.Fatalf("%s: %v", c.raw, err)
				}
				return
			}
			e := asError(t, err)
			if e == nil {
				t.Fatalf("%s accepted", c.raw)
			}
			if e.Subject != "result of "+c.method {
				t.Errorf("subject %q", e.Subject)
			}
			if !hasViolation(e, c.ptr, "", c.msg) && !hasViolation(e, c.ptr, "M2", c.msg) {
				t.Errorf("%s\nno violation at %q containing %q in\n%v", c.raw, c.ptr, c.msg, e)
			}
			checkViolations(t, e, c.raw)
		})
	}
	// Every request has a result schema; notifications have none.
	for _, m := range append(engineMethods(), "initialize", "shutdown", "attempt/deriveSecret", "attempt/resolveSecret") {
		err := s.ValidateResult(m, json.RawMessage(`"surely wrong"`))
		if e := asError(t, err); e == nil {
			t.Errorf("%s: a string result accepted", m)
		}
	}
	for _, m := range []string{"initialized", "exit", "$/abort", "engine/log", "attempt/screen", "nope"} {
		err := s.ValidateResult(m, json.RawMessage(`null`))
		if _, ok := err.(*Error); err == nil || ok {
			t.Errorf("%s: got %v, want a plain error", m, err)
		}
	}
}

func TestInitializeResultManifestRules(t *testing.T) {
	s := testSet(t)
	raw := `{"protocolVersion":1,"manifest":{"name":"k","version":"1","spiVersion":1,"methods":["engine/locate"],"workers":0}}`
	for _, err := range []error{
		s.ValidateResult("initialize", json.RawMessage(raw)),
		s.ValidateType("InitializeResult", json.RawMessage(raw)),
	} {
		e := asError(t, err)
		if !hasViolation(e, "/manifest/methods/0", "M6", "located nodes share the observation id space") ||
			!hasViolation(e, "/manifest/workers", "M12", "") {
			t.Errorf("got %v", e)
		}
		for _, v := range e.Violations {
			if v.Rule == "" {
				t.Errorf("raw schema violation %v", v)
			}
		}
	}
}

func TestServerMessages(t *testing.T) {
	s := testSet(t)
	cases := []struct {
		method, raw string
		valid       bool
		ptr, msg    string
	}{
		{method: "engine/log", raw: `{"line":"downloading emulator image 40 %"}`, valid: true},
		{method: "engine/log", raw: `{"line":"two\nlines"}`, ptr: "/line", msg: "one line, without CR or LF"},
		{method: "engine/log", raw: `{"line":null}`, ptr: "/line", msg: "got null, want string"},
		{method: "engine/log", raw: `{}`, ptr: "", msg: `missing member "line"`},
		{method: "attempt/appLog", raw: `{"attemptId":"a","entry":{"source":"console","level":"warning","text":"deprecated"}}`, valid: true},
		{method: "attempt/appLog", raw: `{"attemptId":"a","entry":{"source":"console","level":"debug","text":"x"}}`, ptr: "/entry/level", msg: `got "debug"`},
		{method: "attempt/appLog", raw: `{"attemptId":"a","entry":{"source":"console","level":"info","text":"a\rb"}}`, ptr: "/entry/text", msg: "one line"},
		{method: "attempt/navigation", raw: `{"attemptId":"a","line":"navigated to https://app.test/checkout"}`, valid: true},
		{method: "attempt/navigation", raw: `{"attemptId":"","line":"x"}`, ptr: "/attemptId", msg: "non-empty"},
		{method: "attempt/environment", raw: `{"attemptId":"a","facts":{"browser":"chromium 131","deviceScaleFactor":2,"headless":true}}`, valid: true},
		{method: "attempt/environment", raw: `{"attemptId":"a","facts":{"x":null}}`, ptr: "/facts/x", msg: "got null"},
		{method: "attempt/environment", raw: `{"attemptId":"a","facts":{"x":{"y":1}}}`, ptr: "/facts/x", msg: "got object"},
		{method: "attempt/environment", raw: `{"attemptId":"a","facts":{"":1}}`, ptr: "/facts/", msg: "empty member name"},
		{method: "attempt/screen", raw: `{"attemptId":"a","snapshot":` + snapshot + `}`, valid: true},
		{method: "attempt/screen", raw: `{"attemptId":"a"}`, ptr: "", msg: `missing member "snapshot"`},
		{method: "attempt/screen", raw: `{"attemptId":"a","snapshot":{"root":{"ref":{"id":"","revision":""}},"viewport":{"width":1,"height":1}}}`, ptr: "/snapshot/root/ref/id", msg: "non-empty"},
		{method: "attempt/resolveSecret", raw: `{"attemptId":"a","name":"password"}`, valid: true},
		{method: "attempt/resolveSecret", raw: `{"attemptId":"a","name":"password","derivation":{"kind":"basic"}}`, valid: true},
		{method: "attempt/resolveSecret", raw: `{"attemptId":"a","name":"password","derivation":null}`, ptr: "/derivation", msg: "got null"},
		{method: "attempt/resolveSecret", raw: `{"attemptId":"a","name":""}`, ptr: "/name", msg: "non-empty"},
		{method: "attempt/resolveSecret", raw: ``, ptr: "", msg: "params absent"},
	}
	for _, c := range cases {
		t.Run(c.method, func(t *testing.T) {
			err := s.ValidateServerMessage(c.method, rawOf(c.raw))
			if c.valid {
				if err != nil {
					t.Fatalf("%s: %v", c.raw, err)
				}
				return
			}
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
	for _, m := range []string{"engine/observe", "initialize", "attempt/deriveSecret", "nope"} {
		err := s.ValidateServerMessage(m, json.RawMessage(`{}`))
		if _, ok := err.(*Error); err == nil || ok || !strings.Contains(err.Error(), m) {
			t.Errorf("%s: got %v, want a plain error naming it", m, err)
		}
	}
}

func TestValidateType(t *testing.T) {
	s := testSet(t)
	cases := []struct {
		def, raw string
		valid    bool
		ptr, msg string
	}{
		{def: "ErrorObject", raw: `{"code":-32000,"message":"stale","data":{"type":"engine","code":"NODE_STALE","retryable":true}}`, valid: true},
		{def: "ErrorObject", raw: `{"code":-32000,"message":"m","data":{"type":"e2e","category":"configuration","code":"INVALID_CONFIG","retryable":false,"details":{"k":1},"cause":{"code":-32603,"message":"inner"}}}`, valid: true},
		{def: "ErrorObject", raw: `{"code":-32603,"message":"boom","data":{"stack":"at x","errno":"ECONNREFUSED"}}`, valid: true},
		{def: "ErrorObject", raw: `{"code":-32601,"message":"no"}`, valid: true},
		{def: "ErrorObject", raw: `{"code":-32000,"message":"m","data":{"type":"engine","code":"ACTION_MAY_HAVE_COMMITTED","retryable":true}}`, ptr: "/data/code", msg: "only those may be retryable"},
		{def: "ErrorObject", raw: `{"code":-32000,"message":"m","data":{"type":"engine","code":"TELEPORTED","retryable":false}}`, ptr: "/data/code", msg: `got "TELEPORTED"`},
		{def: "ErrorObject", raw: `{"code":-32000,"message":"m","data":{"type":"e2e","category":"cosmic","code":"X","retryable":false}}`, ptr: "/data/category", msg: `got "cosmic"`},
		{def: "ErrorObject", raw: `{"code":-32000,"message":"m","data":{"code":"X"}}`, ptr: "/data", msg: `missing member "type"`},
		{def: "ErrorObject", raw: `{"code":-32000,"message":"m","data":{"type":"engine","code":"CANCELLED","retryable":false,"cause":{"code":1.5,"message":"x"}}}`, ptr: "/data/cause/code", msg: "want integer"},
		{def: "ErrorObject", raw: `{"code":"-32000","message":"m"}`, ptr: "/code", msg: "want integer"},
		{def: "SignalRef", raw: `{"id":"s1","aborted":true}`, valid: true},
		{def: "SignalRef", raw: `{"id":[1]}`, ptr: "/id", msg: "got array, want integer or string"},
		{def: "TextPattern", raw: `{"kind":"regexp","source":"a","flags":"dgimsuy"}`, valid: true},
		{def: "TextPattern", raw: `{"kind":"regexp","source":"a","flags":"dgimsvy"}`, valid: true},
		{def: "TextPattern", raw: `{"kind":"regexp","source":"a","flags":"ig"}`, ptr: "/flags", msg: `got "ig"`},
		{def: "TextPattern", raw: `{"kind":"regexp","source":"a"}`, ptr: "", msg: `missing member "flags"`},
		{def: "SemanticQuery", raw: `{"kind":"label","value":{"kind":"regexp","source":"x","flags":""}}`, valid: true},
		{def: "LocatorAction", raw: `{"kind":"selectOption","value":"Blue"}`, valid: true},
		{def: "LocatorAction", raw: `{"kind":"selectOption","value":{"value":"b"}}`, valid: true},
		{def: "LocatorAction", raw: `{"kind":"check"}`, valid: true},
		{def: "LocatorAction", raw: `{"kind":"swipe","direction":"down","momentum":"fast"}`, valid: true},
		{def: "PointerAction", raw: `{"kind":"teleport"}`, ptr: "/kind", msg: `unknown PointerAction kind "teleport"`},
		{def: "PointerAction", raw: `{"kind":"hover"}`, valid: true},
		{def: "SelectOption", raw: `{"index":2}`, valid: true},
		{def: "SelectOption", raw: `{"index":2,"label":"x"}`, ptr: "", msg: "want at most 1"},
		{def: "EngineState", raw: `{"format":"x","version":2,"data":[1,2]}`, valid: true},
		{def: "EngineSnapshot", raw: snapshot, valid: true},
		{def: "EngineManifest", raw: `{}`},
		{def: "InitializeResult", raw: `{"protocolVersion":1,"manifest":` + exampleManifest + `}`, valid: true},
		{def: "Rect", raw: `{"x":-5,"y":-5,"width":0,"height":0}`, valid: true},
		{def: "Rect", raw: `{"x":0,"y":0,"width":-1,"height":0}`, ptr: "/width", msg: "got -1, want at least 0"},
		{def: "NodeStates", raw: `{"secure":"yes"}`, ptr: "/secure", msg: "want boolean"},
		{def: "EnvironmentParams", raw: `{"attemptId":"a","facts":{"a~b/c":true}}`, valid: true},
		{def: "EnvironmentParams", raw: `{"attemptId":"a","facts":{"a~b/c":[]}}`, ptr: "/facts/a~0b~1c", msg: "got array"},
	}
	for _, c := range cases {
		t.Run(c.def, func(t *testing.T) {
			err := s.ValidateType(c.def, json.RawMessage(c.raw))
			if c.def == "EngineManifest" {
				if err == nil || strings.Contains(err.Error(), "EngineManifest") == false {
					t.Fatalf("EngineManifest is no $defs of the types schema: got %v", err)
				}
				return
			}
			if c.valid {
				if err != nil {
					t.Fatalf("%s: %v", c.raw, err)
				}
				return
			}
			e := asError(t, err)
			if e == nil {
				t.Fatalf("%s accepted", c.raw)
			}
			if e.Subject != c.def {
				t.Errorf("subject %q", e.Subject)
			}
			if !hasViolation(e, c.ptr, "", c.msg) {
				t.Errorf("%s\nno violation at %q containing %q in\n%v", c.raw, c.ptr, c.msg, e)
			}
			checkViolations(t, e, c.raw)
		})
	}
}

// TestDeterministicMessages validates instances whose errors come from map
// iteration many times and expects the same text each time.
func TestDeterministicMessages(t *testing.T) {
	s := testSet(t)
	raw := json.RawMessage(`{"root":{"ref":{"id":"","revision":1},"states":{"a":true,"b":1,"c":true,"secure":true},"value":"x","selection":"y","z":null,"name":5,"text":6,"level":0},"viewport":{"width":0,"height":-1},"q":1,"maskedRegionCount":1.5}`)
	first := s.ValidateResult("engine/observe", raw).Error()
	for i := 0; i < 50; i++ {
		if got := s.ValidateResult("engine/observe", raw).Error(); got != first {
			t.Fatalf("run %d:\n%s\nfirst:\n%s", i, got, first)
		}
	}
	m := []byte(`{"a":1,"b":2,"c":3,"d":4,"name":"","version":"","spiVersion":0,"methods":["x","y","engine/perform","keyboard/type"],"actions":[],"workers":"w"}`)
	firstM := s.ValidateManifest(m).Error()
	for i := 0; i < 50; i++ {
		if got := s.ValidateManifest(m).Error(); got != firstM {
			t.Fatalf("manifest run %d:\n%s\nfirst:\n%s", i, got, firstM)
		}
	}
}
