package conformance

import (
	"context"
	"fmt"

	. "github.com/onsi/gomega"

	"github.com/e2e-conform/toolkit/protocol/wire"
)

// Location: spec §4.9, §5.7, §10; catalog LOC.
func locateSpecs(s *suite) {
	// The selectors are CSS that names an id and a frame name no document
	// carries, so they match no nested document on a web surface; a surface
	// without nested documents answers every frame with FRAME_NOT_FOUND
	// (§10.1). A device whose selector language refuses CSS syntax would
	// answer otherwise: the catalog gives no selector that cannot match on
	// every platform, and the web's is the one a selector language most
	// likely speaks. retryable is not checked: it may be true on a surface
	// that can have nested documents and false on one that cannot (§4.9),
	// and ERR-003 checks it run-wide.
	s.spec("a frame expression whose selector matches no nested document fails with FRAME_NOT_FOUND",
		[]string{"LOC-013"}, func(ctx context.Context, e *Env) {
			a := e.rawAttempt(ctx)
			a.openFixtureRoot(ctx)
			for _, sel := range []string{`iframe[name="e2e-conform-no-such-frame"]`, `#e2e-conform-no-such-frame`} {
				expr := fmt.Sprintf(`{"kind":"frame","selector":%q,"source":{"kind":"query","query":{"kind":"role","value":{"kind":"string","value":"button","exact":true}}}}`, sel)
				what := "engine/locate of a frame expression with selector " + sel
				eo := expectCode(a.call(ctx, wire.MethodLocate, `"expression":`+expr), wire.CodeEngineError, what)
				d := dataOf(eo)
				Expect(d.Type+" "+d.Code).To(Equal("engine FRAME_NOT_FOUND"), "%s: want engine FRAME_NOT_FOUND, got %s %s (%q)", what, d.Type, d.Code, eo.Message)
			}
		})
}
