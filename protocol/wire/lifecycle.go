package wire

import "encoding/json"

// ClientInfo identifies the client in initialize (spec §2.2, D1).
type ClientInfo struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
}

// InitializeParams are the params of initialize (spec §2.2).
type InitializeParams struct {
	ProtocolVersion       int             `json:"protocolVersion"`
	ClientInfo            ClientInfo      `json:"clientInfo"`
	Role                  string          `json:"role"`
	InitializationOptions json.RawMessage `json:"initializationOptions,omitempty"`
}

// InitializeResult is the result of initialize (spec §2.2).
type InitializeResult struct {
	ProtocolVersion int      `json:"protocolVersion"`
	Manifest        Manifest `json:"manifest"`
}

// EngineAppInfo is the target's app as the harness resolved it (spec §5.3).
type EngineAppInfo struct {
	Site            string            `json:"site,omitempty"`
	BundleID        string            `json:"bundleId,omitempty"`
	AppPath         string            `json:"appPath,omitempty"`
	LaunchArguments []string          `json:"launchArguments,omitempty"`
	Permissions     map[string]string `json:"permissions,omitempty"`
}

// PrepareParams are the params of lifecycle/prepare (spec §4.1).
type PrepareParams struct {
	RunID       string            `json:"runId"`
	TargetName  string            `json:"targetName"`
	ProjectRoot string            `json:"projectRoot"`
	App         EngineAppInfo     `json:"app"`
	Slots       int64             `json:"slots"`
	Env         map[string]string `json:"env"`
	Signal      SignalRef         `json:"signal"`
}

// PrepareResult is the non-null result of lifecycle/prepare (spec §5.3).
type PrepareResult struct {
	Workers *int64            `json:"workers,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
}

// FinishParams are the params of lifecycle/finish (spec §4.2).
type FinishParams struct {
	RunID      string            `json:"runId"`
	TargetName string            `json:"targetName"`
	Env        map[string]string `json:"env"`
	Signal     SignalRef         `json:"signal"`
	TimeoutMs  float64           `json:"timeoutMs"`
}

// InitParams are the params of lifecycle/init (spec §4.3).
type InitParams struct {
	RunID       string            `json:"runId"`
	TargetName  string            `json:"targetName"`
	ProjectRoot string            `json:"projectRoot"`
	App         EngineAppInfo     `json:"app"`
	Env         map[string]string `json:"env"`
	Headed      bool              `json:"headed"`
	WorkerSlot  int64             `json:"workerSlot"`
	Signal      SignalRef         `json:"signal"`
}

// StartAttemptParams are the params of lifecycle/startAttempt (spec §4.4).
type StartAttemptParams struct {
	AttemptID    string    `json:"attemptId"`
	ArtifactsDir string    `json:"artifactsDir"`
	Signal       SignalRef `json:"signal"`
	Screens      bool      `json:"screens"`
}

// CleanupParams are the params of lifecycle/settleAttempt and
// lifecycle/endAttempt, the EngineCleanupContext (spec §4.5, §4.6).
type CleanupParams struct {
	Signal    SignalRef `json:"signal"`
	TimeoutMs float64   `json:"timeoutMs"`
}

// DisposeParams are the params of lifecycle/dispose (spec §4.7).
type DisposeParams struct {
	Signal      SignalRef  `json:"signal"`
	TimeoutMs   float64    `json:"timeoutMs"`
	ReuseSignal *SignalRef `json:"reuseSignal,omitempty"`
}

func emptyIfNil(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

// MarshalJSON writes a nil env as {} (env is required, never null).
func (p PrepareParams) MarshalJSON() ([]byte, error) {
	type plain PrepareParams
	q := plain(p)
	q.Env = emptyIfNil(q.Env)
	return json.Marshal(q)
}

// MarshalJSON writes a nil env as {} (env is required, never null).
func (p FinishParams) MarshalJSON() ([]byte, error) {
	type plain FinishParams
	q := plain(p)
	q.Env = emptyIfNil(q.Env)
	return json.Marshal(q)
}

// MarshalJSON writes a nil env as {} (env is required, never null).
func (p InitParams) MarshalJSON() ([]byte, error) {
	type plain InitParams
	q := plain(p)
	q.Env = emptyIfNil(q.Env)
	return json.Marshal(q)
}
