package frame

import (
	"bufio"
	"bytes"
	"errors"
	"io"
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

// Next reads one frame: its header part, then its content into a new
// slice. The stream ending inside the content is a FaultContentEOF with
// the bytes that arrived.
func (r *Reader) Next() (Frame, error) {
	h, err := r.ReadHeader()
	if err != nil {
		return Frame{}, err
	}
	content := make([]byte, h.Length)
	if n, err := io.ReadFull(r.br, content); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return Frame{Header: h}, &Error{Fault: FaultContentEOF, Offset: h.Size, Before: h.Raw, Declared: int64(h.Length), Previous: -1, Content: content[:n], Err: io.ErrUnexpectedEOF}
		}
		return Frame{Header: h}, err
	}
	return Frame{Header: h, Content: content}, nil
}
