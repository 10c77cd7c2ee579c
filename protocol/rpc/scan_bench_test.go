package rpc

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"testing"
)

// BenchmarkScan reads 1 KiB frames (header and content, strict) from a
// stream, as a Stream reads them before decoding.
func BenchmarkScan(b *testing.B) {
	content := `{"jsonrpc":"2.0","id":12345,"method":"engine/observe","params":{"x":"` + strings.Repeat("a", 960) + `"}}`
	one := fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(content), content)
	s := NewStream(&repeatReader{b: []byte(one)}, nil, nil, StreamOptions{Mode: ClientMode})
	b.SetBytes(int64(len(one)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.readFrame(); err != nil {
			b.Fatal(err)
		}
	}
}

// repeatReader yields b over and over.
type repeatReader struct {
	b   []byte
	off int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		c := copy(p[n:], r.b[r.off:])
		n += c
		r.off = (r.off + c) % len(r.b)
	}
	return n, nil
}

// BenchmarkScanFloor reads the same frames knowing their layout (no
// header parsing): the floor BenchmarkScan is measured against.
func BenchmarkScanFloor(b *testing.B) {
	content := `{"jsonrpc":"2.0","id":12345,"method":"engine/observe","params":{"x":"` + strings.Repeat("a", 960) + `"}}`
	one := fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(content), content)
	br := bufio.NewReaderSize(&repeatReader{b: []byte(one)}, 64<<10)
	head := len(one) - len(content)
	b.SetBytes(int64(len(one)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := br.Discard(head); err != nil {
			b.Fatal(err)
		}
		if _, err := io.ReadFull(br, make([]byte, len(content))); err != nil {
			b.Fatal(err)
		}
	}
}
