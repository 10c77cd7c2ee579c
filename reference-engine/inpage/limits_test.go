package inpage

import "testing"

// TestReaderLimitsAreGenerated: reader.js's limits are protocol/wire's
// (run `go generate ./reference-engine/inpage` after changing them).
func TestReaderLimitsAreGenerated(t *testing.T) {
	want, err := WithLimits(readerJS)
	if err != nil {
		t.Fatal(err)
	}
	if want != readerJS {
		t.Fatal("reader.js's generated block differs from protocol/wire's limits: run go generate ./reference-engine/inpage")
	}
}
