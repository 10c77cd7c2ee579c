package frame

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"slices"
)

// readBuffer is the Reader's buffer size when it wraps a plain io.Reader.
const readBuffer = 64 << 10

// Reader reads frames from a stream. It is not safe for concurrent use.
type Reader struct {
	br   *bufio.Reader
	opts Options
}

// NewReader reads frames from r, through a bufio.Reader of at least 64 KiB
// (r itself when it is one).
func NewReader(r io.Reader, o Options) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, readBuffer), opts: o}
}

// NewBufReader reads frames from br, which must buffer at least
// MaxHeaderBytes.
func NewBufReader(br *bufio.Reader, o Options) *Reader {
	return &Reader{br: br, opts: o}
}

// Read reads the stream's bytes past what was scanned (after a fault, to
// drain the peer).
func (r *Reader) Read(p []byte) (int, error) { return r.br.Read(p) }

// ReadHeader reads one header part. It never examines, buffers for or
// waits for more than MaxHeaderBytes bytes of it. io.EOF means the stream
// ended cleanly before a frame; a fault is an *Error (its byte slices the
// caller's own). A fault leaves the header part unread.
func (r *Reader) ReadHeader() (Header, error) {
	s := newScanner(r.opts)
	for {
		n := r.br.Buffered()
		if n <= s.pos {
			n = s.pos + 1 // wait for one byte more
		}
		n = min(n, MaxHeaderBytes)
		buf, err := r.br.Peek(n)
		end, fe := s.step(buf)
		if fe != nil {
			return Header{}, own(fe)
		}
		if end > 0 {
			h := Header{Length: int(s.length), Size: end}
			if r.opts.Mode == Lenient {
				h.Raw = bytes.Clone(buf[:end])
			}
			if _, err := r.br.Discard(end); err != nil {
				return Header{}, err
			}
			return h, nil
		}
		if err != nil {
			switch {
			case len(buf) == 0 && errors.Is(err, io.EOF):
				return Header{}, io.EOF
			case errors.Is(err, io.EOF):
				return Header{}, own(s.fault(buf, FaultHeaderEOF, s.line, len(buf)))
			}
			return Header{}, err
		}
	}
}

// own copies the slices of fe that alias the read buffer.
func own(fe *Error) *Error {
	fe.Line, fe.Before, fe.Value = bytes.Clone(fe.Line), bytes.Clone(fe.Before), bytes.Clone(fe.Value)
	return fe
}

// Next reads one frame: its header part, then its content (ReadContent).
// The stream ending inside the content is a FaultContentEOF with the bytes
// that arrived.
func (r *Reader) Next() (Frame, error) {
	h, err := r.ReadHeader()
	if err != nil {
		return Frame{}, err
	}
	content, err := r.ReadContent(h.Length)
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return Frame{Header: h}, &Error{Fault: FaultContentEOF, Offset: h.Size, Before: h.Raw, Declared: int64(h.Length), Previous: -1, Content: content, Err: io.ErrUnexpectedEOF}
		}
		return Frame{Header: h}, err
	}
	return Frame{Header: h, Content: content}, nil
}

// firstContentChunk is how much of a content part is allocated before any
// of it arrived.
const firstContentChunk = 64 << 10

// ReadContent reads an n-byte content part into a new slice. Past 64 KiB
// the slice grows with the bytes that arrive (it at most doubles what has
// been read), so a peer that announces a large part and sends little of it
// makes the reader hold about what it sent, never what it announced. The
// errors are io.ReadFull's: io.EOF when nothing arrived, io.ErrUnexpectedEOF
// when part of it did (those bytes returned).
func (r *Reader) ReadContent(n int) ([]byte, error) {
	if n <= firstContentChunk {
		buf := make([]byte, n)
		m, err := io.ReadFull(r.br, buf)
		return buf[:m], err
	}
	buf := make([]byte, 0, firstContentChunk)
	for len(buf) < n {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, min(len(buf), n-len(buf)))
		}
		m, err := r.br.Read(buf[len(buf):min(cap(buf), n)])
		buf = buf[:len(buf)+m]
		if err != nil && len(buf) < n {
			if err == io.EOF && len(buf) > 0 {
				err = io.ErrUnexpectedEOF
			}
			return buf, err
		}
	}
	return buf, nil
}

// Buffered is the number of bytes read from the stream and not yet
// scanned.
func (r *Reader) Buffered() int { return r.br.Buffered() }
