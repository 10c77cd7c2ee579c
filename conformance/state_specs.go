package conformance

import (
	"context"
	"encoding/json"
	"time"

	. "github.com/onsi/gomega"

	"github.com/e2e-conform/toolkit/protocol/wire"
)

// State capture and restore: spec §4.15, §5.10; catalog STATE.
func stateSpecs(s *suite) {
	// expiresAt is read as any RFC 3339 date-time (the statement's words;
	// §0.4 writes timestamps in UTC with Z, which the schema run-wide check
	// does not require either). "After the capture" is checked against the
	// moment the suite wrote the capture request, and only when the suite
	// shares the server's clock (as ART-004 does for its times).
	s.spec("state/capture returns {format, version, data} with a non-empty format, a number version, and expiresAt, when present, an RFC 3339 time after the capture",
		[]string{"STATE-001"}, func(ctx context.Context, e *Env) {
			a := e.rawAttempt(ctx)
			a.openFixtureRoot(ctx)
			sent := time.Now()
			st := resultObject(a.call(ctx, wire.MethodCapture, ""), "state/capture")
			var format string
			Expect(json.Unmarshal(st["format"], &format)).To(Succeed(), "format: want a non-empty string, got %s", orDefault(string(st["format"]), "absent"))
			Expect(format).NotTo(BeEmpty(), "format: want a non-empty string, got \"\"")
			var version float64
			Expect(st).To(HaveKey("version"), "version: want a number, got none")
			Expect(json.Unmarshal(st["version"], &version)).To(Succeed(), "version: want a number, got %s", st["version"])
			Expect(string(st["version"])).NotTo(Equal("null"), "version: want a number, got null")
			Expect(st).To(HaveKey("data"), "data: want a JSON value, got none")
			if raw, ok := st["expiresAt"]; ok {
				var v string
				Expect(json.Unmarshal(raw, &v)).To(Succeed(), "expiresAt: want an RFC 3339 string, got %s", raw)
				t, err := parseRFC3339(v)
				Expect(err).NotTo(HaveOccurred(), "expiresAt: want an RFC 3339 date-time, got %q", v)
				if shared, _ := e.sharesHost(); shared {
					Expect(t.After(sent)).To(BeTrue(), "expiresAt: want a time after the capture (request written at %s), got %s", sent.UTC().Format(time.RFC3339Nano), v)
				}
			}
		})

	// Leaving the surface's state unchanged (the other half of D48) is not
	// observable without the storage fixture; the statement asks for the
	// error.
	s.spec("state/restore of a state with an unknown format fails with -32000 e2e configuration SESSION_INVALID",
		[]string{"STATE-005"}, func(ctx context.Context, e *Env) {
			a := e.rawAttempt(ctx)
			what := "state/restore of {format: \"e2e-conform-unknown\", version: 1, data: {}}"
			eo := expectCode(a.call(ctx, wire.MethodRestore, `"state":{"format":"e2e-conform-unknown","version":1,"data":{}}`), wire.CodeEngineError, what)
			d := dataOf(eo)
			Expect(d.Type+" "+d.Category+" "+d.Code).To(Equal("e2e configuration SESSION_INVALID"),
				"%s: want e2e configuration SESSION_INVALID, got type %q category %q code %q (%q)", what, d.Type, d.Category, d.Code, eo.Message)
		})
}
