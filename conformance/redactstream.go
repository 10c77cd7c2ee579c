package conformance

import (
	"bytes"
	"io"
)

// redactChunk bounds how much of a line copyRedacted holds; redactHold is
// the tail it keeps back when a line is longer, so that a secret (or one of
// its encoded forms, up to 6 bytes per byte) cut by the bound is still
// whole in the next round.
const (
	redactChunk = 64 << 10
	redactHold  = 4 << 10
)

// copyRedacted copies src to dst line by line through redact, holding at
// most redactChunk+redactHold bytes.
func copyRedacted(dst io.Writer, src io.Reader, redact func(string) string) {
	buf := make([]byte, 0, redactChunk+redactHold)
	chunk := make([]byte, redactChunk)
	flush := func(n int) {
		_, _ = io.WriteString(dst, redact(string(buf[:n])))
		buf = append(buf[:0], buf[n:]...)
	}
	for {
		n, err := src.Read(chunk[:redactChunk-min(len(buf), redactChunk-1)])
		buf = append(buf, chunk[:n]...)
		if i := bytes.LastIndexByte(buf, '\n'); i >= 0 {
			flush(i + 1)
		} else if len(buf) >= redactChunk {
			flush(len(buf) - redactHold)
		}
		if err != nil {
			if len(buf) > 0 {
				flush(len(buf))
			}
			return
		}
	}
}
