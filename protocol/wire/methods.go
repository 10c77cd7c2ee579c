package wire

import "encoding/json"

// ObserveParams are the params of engine/observe (spec §4.8).
type ObserveParams struct {
	Operation Operation             `json:"operation"`
	Options   *EngineObserveOptions `json:"options,omitempty"`
}

// LocateParams are the params of engine/locate (spec §4.9).
type LocateParams struct {
	Expression LocatorExpression `json:"expression"`
	Operation  Operation         `json:"operation"`
}

// PerformParams are the params of engine/perform (spec §4.10).
type PerformParams struct {
	Ref       NodeRef       `json:"ref"`
	Action    LocatorAction `json:"action"`
	Operation Operation     `json:"operation"`
}

// PerformAtParams are the params of engine/performAt (spec §4.11).
type PerformAtParams struct {
	Point     ViewportPoint `json:"point"`
	Action    PointerAction `json:"action"`
	Operation Operation     `json:"operation"`
}

// TypeOptions are the options of keyboard/type (spec §4.12).
type TypeOptions struct {
	Replace bool `json:"replace"`
}

// TypeParams are the params of keyboard/type (spec §4.12).
type TypeParams struct {
	Text      string      `json:"text"`
	Options   TypeOptions `json:"options"`
	Operation Operation   `json:"operation"`
}

// PressParams are the params of keyboard/press (spec §4.13).
type PressParams struct {
	Key       string    `json:"key"`
	Operation Operation `json:"operation"`
}

// OperationParams are the params of the operation methods that take only an
// operation: keyboard/dismiss, state/capture, artifacts/startVideo,
// artifacts/stopVideo, session/back, session/restart and session/reset.
type OperationParams struct {
	Operation Operation `json:"operation"`
}

// RestoreParams are the params of state/restore (spec §4.15).
type RestoreParams struct {
	State     EngineState `json:"state"`
	Operation Operation   `json:"operation"`
}

// ScreenshotParams are the params of artifacts/screenshot (spec §4.16).
type ScreenshotParams struct {
	Label     *string   `json:"label,omitempty"`
	Operation Operation `json:"operation"`
}

// OpenParams are the params of session/open (spec §4.18).
type OpenParams struct {
	URL       string    `json:"url"`
	Operation Operation `json:"operation"`
}

// EngineLogParams are the params of engine/log (spec §6.1).
type EngineLogParams struct {
	Line string `json:"line"`
}

// AppLogParams are the params of attempt/appLog (spec §6.2).
type AppLogParams struct {
	AttemptID string      `json:"attemptId"`
	Entry     AppLogEntry `json:"entry"`
}

// NavigationParams are the params of attempt/navigation (spec §6.3).
type NavigationParams struct {
	AttemptID string `json:"attemptId"`
	Line      string `json:"line"`
}

// EnvironmentParams are the params of attempt/environment (spec §6.4);
// fact values are strings, numbers or booleans.
type EnvironmentParams struct {
	AttemptID string         `json:"attemptId"`
	Facts     map[string]any `json:"facts"`
}

// ScreenParams are the params of attempt/screen (spec §6.5).
type ScreenParams struct {
	AttemptID string         `json:"attemptId"`
	Snapshot  EngineSnapshot `json:"snapshot"`
}

// ResolveSecretParams are the params of attempt/resolveSecret (spec §6.6).
// Derivation is an opaque non-null JSON value, nil when absent.
type ResolveSecretParams struct {
	AttemptID  string          `json:"attemptId"`
	Name       string          `json:"name"`
	Derivation json.RawMessage `json:"derivation,omitempty"`
}

// ResolveSecretResult is the result of attempt/resolveSecret (spec §6.6).
type ResolveSecretResult struct {
	Value string `json:"value"`
}

// DeriveSecretParams are the params of attempt/deriveSecret (spec §6.6).
type DeriveSecretParams struct {
	Derivation json.RawMessage `json:"derivation"`
	Plaintext  string          `json:"plaintext"`
}

// DeriveSecretResult is the result of attempt/deriveSecret (spec §6.6).
type DeriveSecretResult struct {
	Values []string `json:"values"`
}
