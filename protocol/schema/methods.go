package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// methodInfo ties a client-to-server method (§1.7) to the $defs of the
// methods schema that describe its params and, for a request, its result.
type methodInfo struct {
	name   string
	params string // $defs name in engine-methods-v1.schema.json
	result string // $defs name in engine-methods-v1.schema.json; "" for a notification
}

// methodTable lists every message the client sends (§1.7), and the result of
// attempt/resolveSecret, the one request the server sends.
func methodTable() []methodInfo {
	return []methodInfo{
		{"initialize", "InitializeParams", "InitializeResult"},
		{"initialized", "InitializedParams", ""},
		{"shutdown", "ShutdownParams", "ShutdownResult"},
		{"exit", "ExitParams", ""},
		{"$/abort", "AbortParams", ""},
		{"engine/observe", "EngineObserveParams", "EngineObserveResult"},
		{"engine/locate", "EngineLocateParams", "EngineLocateResult"},
		{"engine/perform", "EnginePerformParams", "EnginePerformResult"},
		{"engine/performAt", "EnginePerformAtParams", "EnginePerformAtResult"},
		{"keyboard/type", "KeyboardTypeParams", "KeyboardTypeResult"},
		{"keyboard/press", "KeyboardPressParams", "KeyboardPressResult"},
		{"keyboard/dismiss", "KeyboardDismissParams", "KeyboardDismissResult"},
		{"state/capture", "StateCaptureParams", "StateCaptureResult"},
		{"state/restore", "StateRestoreParams", "StateRestoreResult"},
		{"artifacts/screenshot", "ArtifactsScreenshotParams", "ArtifactsScreenshotResult"},
		{"artifacts/startVideo", "ArtifactsStartVideoParams", "ArtifactsStartVideoResult"},
		{"artifacts/stopVideo", "ArtifactsStopVideoParams", "ArtifactsStopVideoResult"},
		{"session/open", "SessionOpenParams", "SessionOpenResult"},
		{"session/back", "SessionBackParams", "SessionBackResult"},
		{"session/restart", "SessionRestartParams", "SessionRestartResult"},
		{"session/reset", "SessionResetParams", "SessionResetResult"},
		{"lifecycle/prepare", "LifecyclePrepareParams", "LifecyclePrepareResult"},
		{"lifecycle/finish", "LifecycleFinishParams", "LifecycleFinishResult"},
		{"lifecycle/init", "LifecycleInitParams", "LifecycleInitResult"},
		{"lifecycle/startAttempt", "LifecycleStartAttemptParams", "LifecycleStartAttemptResult"},
		{"lifecycle/settleAttempt", "LifecycleSettleAttemptParams", "LifecycleSettleAttemptResult"},
		{"lifecycle/endAttempt", "LifecycleEndAttemptParams", "LifecycleEndAttemptResult"},
		{"lifecycle/dispose", "LifecycleDisposeParams", "LifecycleDisposeResult"},
		{"attempt/deriveSecret", "AttemptDeriveSecretParams", "AttemptDeriveSecretResult"},
		// The server's request: its params are a server message, its result
		// is what the client answers.
		{"attempt/resolveSecret", "", "AttemptResolveSecretResult"},
	}
}

// serverMessage ties a server-to-client message (§6) to its params $defs in
// engine-types-v1.schema.json.
type serverMessage struct {
	name string
	def  string
}

func serverMessageTable() []serverMessage {
	return []serverMessage{
		{"engine/log", "EngineLogParams"},
		{"attempt/appLog", "AppLogParams"},
		{"attempt/navigation", "NavigationParams"},
		{"attempt/environment", "EnvironmentParams"},
		{"attempt/screen", "ScreenParams"},
		{"attempt/resolveSecret", "ResolveSecretParams"},
	}
}

func findMethod(method string) (methodInfo, bool) {
	for _, m := range methodTable() {
		if m.name == method {
			return m, true
		}
	}
	return methodInfo{}, false
}

func findServerMessage(method string) (serverMessage, bool) {
	for _, m := range serverMessageTable() {
		if m.name == method {
			return m, true
		}
	}
	return serverMessage{}, false
}

// ValidateParams validates the params of a message the client sends: a
// request or notification of §1.7 (initialize, initialized, shutdown, exit,
// $/abort, the 23 ENGINE_METHODS members, attempt/deriveSecret). A nil or
// empty raw means params are absent, which only initialized, shutdown and
// exit accept. It returns nil, an *Error listing the violations, or a plain
// error when method is not one of those messages.
func (s *Set) ValidateParams(method string, raw json.RawMessage) error {
	m, ok := findMethod(method)
	if !ok || m.params == "" {
		if _, server := findServerMessage(method); server {
			return fmt.Errorf("schema: %s is a server-to-client message: validate its params with ValidateServerMessage", method)
		}
		return fmt.Errorf("schema: unknown method %q: no params schema", method)
	}
	return s.validate(target{
		subject: "params of " + method,
		schema:  s.methods[m.params],
		absent:  "params",
	}, raw)
}

// ValidateResult validates the result of a request: any request the client
// sends, and attempt/resolveSecret, whose result the client sends. It
// returns nil, an *Error listing the violations, or a plain error when
// method is unknown or a notification (which has no result). A nil or empty
// raw is an absent result, which is a violation (a response always carries
// its result; a void method's is null).
func (s *Set) ValidateResult(method string, raw json.RawMessage) error {
	m, ok := findMethod(method)
	if !ok {
		if _, server := findServerMessage(method); server {
			return fmt.Errorf("schema: %s is a notification: it has no result", method)
		}
		return fmt.Errorf("schema: unknown method %q: no result schema", method)
	}
	if m.result == "" {
		return fmt.Errorf("schema: %s is a notification: it has no result", method)
	}
	if m.result == "NullResult" && string(bytes.TrimSpace(raw)) == "null" {
		return nil // the common void answer, without a validator run
	}
	t := target{subject: "result of " + method, schema: s.methods[m.result], absent: "result"}
	if method == "initialize" {
		t.manifestAt = []string{"/manifest"}
	}
	return s.validate(t, raw)
}

// ValidateServerMessage validates the params of a message the server sends
// (§6): the notifications engine/log, attempt/appLog, attempt/navigation,
// attempt/environment, attempt/screen and the request attempt/resolveSecret.
// It returns nil, an *Error, or a plain error when method is not one of
// them. A nil or empty raw means params are absent, which none accepts.
func (s *Set) ValidateServerMessage(method string, raw json.RawMessage) error {
	m, ok := findServerMessage(method)
	if !ok {
		if _, client := findMethod(method); client {
			return fmt.Errorf("schema: %s is not a server-to-client message: validate its params with ValidateParams", method)
		}
		return fmt.Errorf("schema: unknown server-to-client message %q", method)
	}
	return s.validate(target{subject: "params of " + method, schema: s.types[m.def], absent: "params"}, raw)
}

// ValidateType validates raw against one $defs entry of the types schema
// (engine-types-v1.schema.json), e.g. "EngineSnapshot", "ErrorObject",
// "LocatorExpression". It returns nil, an *Error, or a plain error when
// def is not a $defs name of that schema.
func (s *Set) ValidateType(def string, raw json.RawMessage) error {
	sch, ok := s.types[def]
	if !ok {
		return fmt.Errorf("schema: %s has no $defs entry %q", typesFile, def)
	}
	t := target{subject: def, schema: sch, absent: "value"}
	if def == "InitializeResult" {
		t.manifestAt = []string{"/manifest"}
	}
	return s.validate(t, raw)
}
