package report

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// TraceRecord is one line of a `--trace` file (JSON Lines, docs/report.md
// "Trace"): one frame, written by the suite or by `e2e-conform monitor`.
type TraceRecord struct {
	T      int64           `json:"t"` // µs since the run (or the monitored session) started
	Conn   int             `json:"conn"`
	Role   string          `json:"role"`
	Dir    string          `json:"dir"`
	Method string          `json:"method,omitempty"`
	ID     json.RawMessage `json:"id,omitempty"`
	// Spec is the requirement IDs of the spec running then ("" between
	// specs, and in the monitor's traces).
	Spec string `json:"spec,omitempty"`
	// Frame is the frame's JSON, or, when it is not JSON (NotJSON), a
	// string of its text; secrets redacted either way.
	Frame   json.RawMessage `json:"frame"`
	NotJSON bool            `json:"notJSON,omitempty"`
}

// TraceLine returns rec, with content (a frame's content part, secrets
// already redacted) as its Frame, its method and id, as one JSON line
// (without the newline). Content that is not UTF-8 JSON (WIRE-004 sends
// such) is written as a string, its bad bytes as U+FFFD, so that every
// line is UTF-8 JSON.
func TraceLine(rec TraceRecord, content []byte) ([]byte, error) {
	var compact bytes.Buffer
	if utf8.Valid(content) && json.Compact(&compact, content) == nil {
		rec.Frame = compact.Bytes()
		var m struct {
			Method string          `json:"method"`
			ID     json.RawMessage `json:"id"`
		}
		if json.Unmarshal(rec.Frame, &m) == nil {
			rec.Method, rec.ID = m.Method, m.ID
		}
	} else {
		s, _ := json.Marshal(string(content)) // invalid UTF-8 becomes U+FFFD
		rec.Frame, rec.NotJSON = s, true
	}
	return json.Marshal(rec)
}
