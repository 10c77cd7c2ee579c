package conformance

import (
	"encoding/json"
	"testing"

	"github.com/e2e-conform/toolkit/protocol/schema"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// TestValidParamsForValidate: the params the WIRE-010 shape spec wraps in
// a one-element array are valid for every ENGINE_METHODS member, so the
// wrapped form breaks nothing but the params' shape; and every shape of
// nonObjectParams breaks each method's schema (absent params as null, the
// way the server reads them).
func TestValidParamsForValidate(t *testing.T) {
	set, err := schema.Load()
	if err != nil {
		t.Fatal(err)
	}
	ss := &pipelinedConn{e: &runEnv{Artifacts: "/tmp/artifacts"}}
	for _, m := range wire.EngineMethods() {
		valid := validParamsFor(ss, m, "7", "http://127.0.0.1:1/watched")
		if err := set.ValidateParams(m, json.RawMessage(valid)); err != nil {
			t.Errorf("%s: validParamsFor gives %s, which its schema refuses: %v", m, valid, err)
		}
		for _, c := range nonObjectParams() {
			p := c.params
			switch p {
			case wrappedValid:
				p = "[" + valid + "]"
			case "":
				p = "null"
			}
			if set.ValidateParams(m, json.RawMessage(p)) == nil {
				t.Errorf("%s with %s (%s): the schema accepts it, want it refused", m, c.what, p)
			}
		}
	}
}
