package rpc

import (
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
)

// chunks returns b in reads of at most n bytes.
type chunks struct {
	b []byte
	n int
}

func (c *chunks) Read(p []byte) (int, error) {
	if len(c.b) == 0 {
		return 0, io.EOF
	}
	k := copy(p[:min(len(p), c.n)], c.b)
	c.b = c.b[k:]
	return k, nil
}

// A frame that announces the largest content part and sends a few bytes
// of it makes the reader allocate about what arrived, not the 64 MiB it
// announced (issue 12: 50 such slowloris connections held 1.5 GB of the
// example engine's RSS).
func TestAnnouncedContentIsNotAllocatedUpFront(t *testing.T) {
	in := "Content-Length: 67108864\r\n\r\n{\"jsonrpc\":\"2.0\""
	s := NewStream(strings.NewReader(in), io.Discard, nil, StreamOptions{Mode: ServerMode})
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := s.ReadMessage()
	runtime.ReadMemStats(&after)
	var fe *FrameError
	if !errors.As(err, &fe) || fe.Kind != FaultHeader || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("error %v, want a header fault wrapping io.ErrUnexpectedEOF", err)
	}
	if !strings.Contains(err.Error(), "stream ended inside a 67108864-byte content part") {
		t.Errorf("error %q does not say where the stream ended", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
		t.Errorf("reading 16 bytes of an announced 64 MiB part allocated %d bytes, want at most 1 MiB", got)
	}
}
