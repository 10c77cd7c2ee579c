package conformance

import (
	"context"
	"strings"

	. "github.com/onsi/gomega"
)

// Run-wide checks: every message the server sent during the run, through
// raw and client connections alike, was checked as it arrived; these specs
// report what was found. They run last.
func globalSpecs(s *suite) {
	for _, c := range []struct {
		text string
		id   string
	}{
		{"every message the server wrote framed correctly, with Content-Length equal to its UTF-8 JSON content", "WIRE-001"},
		{"the server wrote no header field but Content-Length and Content-Type (charset utf-8)", "WIRE-002"},
		{"every response the server wrote carried \"jsonrpc\": \"2.0\", its request's id in the same JSON type, exactly one of result and error, an integer code and a string message, and none came inside a batch", "WIRE-008"},
		{"no message the server sent carried null for an optional member", "WIRE-012"},
		{"every result, error and server message validated against its schema", "WIRE-013"},
		{"every -32000 error had data.type engine or e2e", "ERR-001"},
		{"engine error data had a known code and a boolean retryable", "ERR-002"},
		{"retryable: true appeared only with NODE_STALE or FRAME_NOT_FOUND", "ERR-003"},
		{"e2e error data had a known category, a code, a boolean retryable and object details", "ERR-004"},
		{"stack, errno and cause had their types and cause nested at most 8 levels", "ERR-005"},
		{"every error message was non-empty", "ERR-006"},
		{"attempt/appLog, engine/log, attempt/navigation and attempt/environment messages had valid shapes", "S2C-003"},
		{"the only request the server sent was a valid attempt/resolveSecret", "S2C-004"},
	} {
		c := c
		s.spec(c.text, []string{c.id}, func(ctx context.Context, e *Env) {
			v := e.Violations(c.id)
			Expect(v).To(BeEmpty(), "during the run: %s", strings.Join(v, "; "))
		})
	}
}
