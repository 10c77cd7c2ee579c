package transport

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"testing"
)

// buffered is how many bytes h holds.
func (h *half) buffered() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.buf) - h.off
}

// waitFull yields until h holds PipeBufferBytes bytes, failing if it ever holds more.
func waitFull(t *testing.T, h *half, done <-chan struct{}) {
	t.Helper()
	for {
		n := h.buffered()
		if n > PipeBufferBytes {
			t.Fatalf("the pipe buffers %d bytes, above its bound of %d", n, PipeBufferBytes)
		}
		if n == PipeBufferBytes {
			return
		}
		select {
		case <-done:
			t.Fatalf("the write of more than the bound returned with %d bytes buffered, nobody reading", n)
		default:
		}
		runtime.Gosched()
	}
}

type result struct {
	n   int
	err error
}

// A writer to a reader that does not read fills the bound and blocks; the
// reader draining it lets the write finish whole, in order.
func TestPipeWriteBlocksUntilDrained(t *testing.T) {
	c, s := Pipe()
	defer c.Close()
	defer s.Close()
	h := c.(*pipeEnd).out
	data := bytes.Repeat([]byte("0123456789abcdef"), 3*PipeBufferBytes/16+5)
	res := make(chan result, 1)
	done := make(chan struct{})
	go func() {
		n, err := c.Write(data)
		res <- result{n, err}
		close(done)
	}()
	waitFull(t, h, done)
	select {
	case <-done:
		t.Fatal("the write returned while the buffer was full")
	default:
	}
	got := make([]byte, len(data))
	if _, err := io.ReadFull(s, got); err != nil {
		t.Fatal(err)
	}
	if r := <-res; r.n != len(data) || r.err != nil || !bytes.Equal(got, data) {
		t.Fatalf("Write = %d, %v; the bytes read equal: %v", r.n, r.err, bytes.Equal(got, data))
	}
}

// Closing either end unblocks a write blocked on the bound, with the bytes
// it wrote and an error that says which end closed.
func TestPipeCloseUnblocksABlockedWrite(t *testing.T) {
	for _, tc := range []struct {
		name   string
		closer func(c, s io.Closer)
		want   error
	}{
		{"the reader closes", func(c, s io.Closer) { s.Close() }, io.ErrClosedPipe},
		{"the writer's own end closes", func(c, s io.Closer) { c.Close() }, ErrClosed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, s := Pipe()
			defer c.Close()
			defer s.Close()
			res := make(chan result, 1)
			done := make(chan struct{})
			go func() {
				n, err := c.Write(make([]byte, 2*PipeBufferBytes))
				res <- result{n, err}
				close(done)
			}()
			waitFull(t, c.(*pipeEnd).out, done)
			tc.closer(c, s)
			r := <-res
			if !errors.Is(r.err, tc.want) || r.n != PipeBufferBytes {
				t.Fatalf("Write = %d, %v; want %d, %v", r.n, r.err, PipeBufferBytes, tc.want)
			}
		})
	}
}

// A Read blocked on an empty pipe ends with io.EOF when the writer closes.
func TestPipeCloseUnblocksABlockedRead(t *testing.T) {
	c, s := Pipe()
	defer s.Close()
	res := make(chan result, 1)
	go func() {
		n, err := s.Read(make([]byte, 8))
		res <- result{n, err}
	}()
	c.Close()
	if r := <-res; r.n != 0 || r.err != io.EOF {
		t.Fatalf("Read = %d, %v; want 0, EOF", r.n, r.err)
	}
}
