package schema

import (
	"testing"
)

// FuzzValidateManifest checks, for any input, that ValidateManifest never
// panics, rejects exactly what the manifest schema rejects, reports every
// violation at a pointer that resolves in the instance (or ""), never needs
// its fallback message, and is deterministic; and that ManifestRules finds
// nothing in a manifest the schema accepts.
func FuzzValidateManifest(f *testing.F) {
	for _, c := range manifestCases() {
		f.Add([]byte(c.raw))
	}
	f.Add([]byte(`{"name":"a","version":"1","spiVersion":1,"methods":["engine/observe","engine/perform","engine/performAt","keyboard/type","keyboard/press","keyboard/dismiss","state/capture","state/restore","artifacts/screenshot","artifacts/startVideo","artifacts/stopVideo"],"actions":["tap"],"pointerActions":["swipeTo"],"tapModifiers":true,"workers":1,"platform":"ios"}`))
	f.Add([]byte(`{"name":"a","version":"1","spiVersion":1,"methods":[null,true,{},[],1e400,"engine/observe","engine/observe"],"actions":[1,1],"pointerActions":{},"workers":1e2}`))
	f.Add([]byte(`{"name":"\u3000","version":"\t","spiVersion":1e0,"methods":[],"workers":-0}`))
	s := testSet(f)
	f.Fuzz(func(t *testing.T, raw []byte) {
		checkAgreement(t, s, raw)
	})
}
