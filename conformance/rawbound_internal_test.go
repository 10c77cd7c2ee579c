package conformance

import (
	"bytes"
	"strings"
	"testing"
)

// A server that writes a header line without end (1 MiB here) breaks the
// stream at 4096 bytes (§1.1): WIRE-001 names the bound, and the reader
// holds no more than its fixed buffer instead of the whole line.
func TestAnEndlessHeaderLineIsRefusedAt4096Bytes(t *testing.T) {
	e := testEnv()
	e.beginSpec([]string{"WIRE-001"})
	r, serverOut, _ := fakeServer(t, e)
	go func() {
		_, _ = serverOut.Write(append([]byte("Content-Length: 5\r\nX-Long: "), bytes.Repeat([]byte("a"), 1<<20)...))
		serverOut.Close()
	}()
	if _, err := r.Next(t.Context()); err == nil || !strings.Contains(err.Error(), "longer than 4096 bytes") {
		t.Fatalf("Next: %v, want the stream broken at a header part longer than 4096 bytes", err)
	}
	v := e.Violations("WIRE-001")
	if len(v) != 1 || !strings.Contains(v[0], "longer than 4096 bytes") {
		t.Errorf("WIRE-001 violations: %q", v)
	}
}
