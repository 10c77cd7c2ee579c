package monitor

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/e2e-conform/toolkit/conformance/traffic"
	"github.com/e2e-conform/toolkit/protocol/frame"
)

// chunkReader hands out its bytes in reads of at most n bytes.
type chunkReader struct {
	b []byte
	n int
}

func (r *chunkReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	k := min(r.n, len(p), len(r.b))
	copy(p, r.b[:k])
	r.b = r.b[k:]
	return k, nil
}

// TestFloodRelayedAndCounted: with the judge's queue full (no judge runs
// here), the relay still copies every byte, in order, and counts those it
// could not hand to the judge; the report says they were not judged.
func TestFloodRelayedAndCounted(t *testing.T) {
	m, err := New(Config{QueueChunks: 2})
	if err != nil {
		t.Fatal(err)
	}
	var in []byte
	for i := range 100 {
		in = frame.Append(in, []byte(`{"jsonrpc":"2.0","method":"engine/log","params":{"line":"`+strings.Repeat("x", i)+`"}}`))
	}
	var out bytes.Buffer
	c := m.newConn()
	if err := m.relay(&out, &chunkReader{b: in, n: 100}, c, traffic.Engine); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), in) {
		t.Fatalf("the relay changed the bytes: %d in, %d out", len(in), out.Len())
	}
	queued := 0
	for len(m.queue) > 0 {
		ch := <-m.queue
		queued += len(ch.data)
	}
	if !c.lost.Load() || c.bytes.Load() == 0 || int(c.bytes.Load())+queued != len(in) {
		t.Errorf("lost %v, %d bytes counted unjudged + %d queued, want %d", c.lost.Load(), c.bytes.Load(), queued, len(in))
	}
	m.rec.conns[c] = &connRec{id: c.id, unjudged: c}
	r := m.build(0)
	if r.Monitor.UnjudgedBytes != c.bytes.Load() || len(r.Warnings) == 0 {
		t.Errorf("the report does not count the unjudged bytes: %d, %v", r.Monitor.UnjudgedBytes, r.Warnings)
	}
}
