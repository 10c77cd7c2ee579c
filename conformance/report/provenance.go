package report

import (
	"time"
)

// Provenance says exactly what a report is about: which suite tested
// which engine, against which specification, where and when. Upstream's
// withdrawn conformance spec required the tested artifact's SHA-256, as
// certification programs do.
type Provenance struct {
	// SuiteVersion is the suite's version (SuiteVersion); SuiteModule,
	// SuiteRevision and SuiteModified the binary's build (VCS revision,
	// a tree with uncommitted changes); GoVersion its toolchain.
	SuiteVersion  string `json:"suiteVersion"`
	SuiteModule   string `json:"suiteModule,omitempty"`
	SuiteBuild    string `json:"suiteBuild,omitempty"`
	SuiteRevision string `json:"suiteRevision,omitempty"`
	SuiteModified bool   `json:"suiteModified,omitempty"`
	GoVersion     string `json:"goVersion,omitempty"`
	// SpecVersion is the protocol version the suite checks; Catalog the
	// SHA-256 of the requirement catalog (§11) it was built from, which
	// tells two revisions of the same version apart.
	SpecVersion string `json:"specVersion"`
	Catalog     string `json:"catalogSha256"`
	// EngineCommand is the spawned command (secrets redacted);
	// EngineAddress the socket address.
	EngineCommand []string `json:"engineCommand,omitempty"`
	EngineAddress string   `json:"engineAddress,omitempty"`
	// EngineBinary is the file the spawn command starts, resolved like
	// the transport resolves it, and EngineSHA256 its digest ("" when it
	// could not be read). For an interpreter (node engine.js) it is the
	// interpreter's, and EngineScript names the script.
	EngineBinary string `json:"engineBinary,omitempty"`
	EngineSHA256 string `json:"engineSha256,omitempty"`
	// EngineScript is, when the spawn command's program is an interpreter
	// (python3, node, ruby, sh, perl…: interpreters) and its first
	// argument that is no option names a regular file (python3 -u
	// engine.py), that file's absolute path, and EngineScriptSHA256 its
	// digest: what the vendor wrote, where EngineSHA256 is the
	// interpreter's.
	EngineScript       string `json:"engineScript,omitempty"`
	EngineScriptSHA256 string `json:"engineScriptSha256,omitempty"`
	// Host is the suite's GOOS/GOARCH; StartedAt when the run began.
	Host      string    `json:"host"`
	StartedAt time.Time `json:"startedAt"`
}

// Selection is what part of the suite a run ran: its Only and Skip, and
// its shard with the specs it held (the run-wide checks among them).
type Selection struct {
	Only  []string `json:"only,omitempty"`
	Skip  []string `json:"skip,omitempty"`
	Shard *Shard   `json:"shard,omitempty"`
	// Held lists, for a shard, the texts of the specs it held.
	Held []string `json:"held,omitempty"`
	// Claimed says the shards shared the specs by claiming them as they
	// went (e2e-conform --parallel, Config.ShardClaims) rather than by
	// the fixed rule (Shard.Holds): Held is then the only record of which
	// shard held a spec.
	Claimed bool `json:"claimed,omitempty"`
	// MergedShards is, for a report Merge wrote, how many shards it
	// combined.
	MergedShards int `json:"mergedShards,omitempty"`
}
