package transport

import (
	"io"
	"sync"
)

// PipeBufferBytes bounds the bytes a [Pipe] buffers in each direction.
const PipeBufferBytes = 1 << 20

// Pipe returns two connected in-memory, buffered, full-duplex ends: what one
// end writes, the other reads. It is what [Loopback] uses, exported for
// tests of other packages.
//
// Each direction buffers at most [PipeBufferBytes] (the bytes are copied
// once in and once out): a Write that does not fit blocks until the reader
// has drained enough, so a peer that writes and never reads holds at most
// that much memory, as over a socket or an OS pipe (backpressure). A Write
// is written whole before another Write starts: writes are never
// interleaved, also when one blocks half way. Read blocks until data is
// available and returns what is buffered, up to len(p).
//
// Closing one end is a full close of that end: the other end's Read returns
// the remaining buffered data and then io.EOF, and its Write fails with
// io.ErrClosedPipe (a Write blocked on a full buffer at once, with the bytes
// it had written); Read and Write of the closed end itself fail with
// [ErrClosed], including calls blocked at the time of Close. Close is
// idempotent. All methods are safe for concurrent use.
func Pipe() (client, server io.ReadWriteCloser) {
	a, b := newHalf(PipeBufferBytes), newHalf(PipeBufferBytes)
	return &pipeEnd{in: a, out: b}, &pipeEnd{in: b, out: a}
}

// pipeEnd is one end of a Pipe: it reads from in and writes to out.
type pipeEnd struct {
	in, out *half
}

func (e *pipeEnd) Read(p []byte) (int, error)  { return e.in.read(p) }
func (e *pipeEnd) Write(p []byte) (int, error) { return e.out.write(p) }

// Close closes this end: the peer reads EOF after the buffered data, and
// the peer's writes fail.
func (e *pipeEnd) Close() error {
	e.out.closeWriter()
	e.in.closeReader(true)
	return nil
}

// half is one direction of a pipe: a byte queue with one writing side and one
// reading side.
type half struct {
	wmu  sync.Mutex // held by a write from start to end: writes never interleave
	mu   sync.Mutex
	cond sync.Cond // signalled when data arrives, space frees up or a side closes
	buf  []byte    // buffered bytes are buf[off:]
	off  int
	// limit, when > 0, bounds the buffered bytes: write blocks while the
	// buffer is full.
	limit        int
	writerClosed bool  // the writing side closed: read returns EOF (or err) after the data
	readerClosed bool  // the reading side closed: read and write fail
	err          error // what read returns after the data once writerClosed; nil means io.EOF
}

// shrinkAbove is the capacity above which an emptied buffer is released
// rather than kept for reuse.
const shrinkAbove = 1 << 20

func newHalf(limit int) *half {
	h := &half{limit: limit}
	h.cond.L = &h.mu
	return h
}

func (h *half) write(p []byte) (int, error) {
	h.wmu.Lock()
	defer h.wmu.Unlock()
	h.mu.Lock()
	defer h.mu.Unlock()
	written := 0
	for {
		switch {
		case h.writerClosed:
			return written, ErrClosed
		case h.readerClosed:
			return written, io.ErrClosedPipe
		}
		if len(p) == 0 {
			return written, nil
		}
		n := len(p)
		if h.limit > 0 {
			space := h.limit - (len(h.buf) - h.off)
			if space <= 0 {
				h.cond.Wait()
				continue
			}
			n = min(n, space)
		}
		h.appendLocked(p[:n])
		p = p[n:]
		written += n
		h.cond.Broadcast()
	}
}

// appendLocked appends p to the buffer, moving the unread bytes to the front
// first when that avoids growing it.
func (h *half) appendLocked(p []byte) {
	if h.off > 0 && len(h.buf)+len(p) > cap(h.buf) {
		n := copy(h.buf, h.buf[h.off:])
		h.buf = h.buf[:n]
		h.off = 0
	}
	h.buf = append(h.buf, p...)
}

func (h *half) read(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for {
		if h.off < len(h.buf) { // only when not discarded by closeReader
			if len(p) == 0 {
				return 0, nil
			}
			n := copy(p, h.buf[h.off:])
			h.off += n
			if h.off == len(h.buf) {
				if cap(h.buf) > shrinkAbove {
					h.buf = nil
				} else {
					h.buf = h.buf[:0]
				}
				h.off = 0
			}
			if h.limit > 0 {
				h.cond.Broadcast() // space for a blocked writer
			}
			return n, nil
		}
		if h.readerClosed {
			return 0, ErrClosed
		}
		if h.writerClosed {
			if h.err != nil {
				return 0, h.err
			}
			return 0, io.EOF
		}
		if len(p) == 0 {
			return 0, nil
		}
		h.cond.Wait()
	}
}

// closeWriter ends the stream: read returns the buffered data, then io.EOF.
func (h *half) closeWriter() { h.closeWriterErr(nil) }

// closeWriterErr ends the stream: read returns the buffered data, then err
// (io.EOF when err is nil). Only the first call counts.
func (h *half) closeWriterErr(err error) {
	h.mu.Lock()
	if !h.writerClosed {
		h.writerClosed = true
		h.err = err
		h.cond.Broadcast()
	}
	h.mu.Unlock()
}

// closeReader closes the reading side: write fails with io.ErrClosedPipe,
// and read with ErrClosed, at once when discard is set, else once the
// buffered data has been read.
func (h *half) closeReader(discard bool) {
	h.mu.Lock()
	if !h.readerClosed {
		h.readerClosed = true
		h.cond.Broadcast()
	}
	if discard {
		h.buf, h.off = nil, 0
	}
	h.mu.Unlock()
}
