package rpc

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"sync"

	scan "github.com/e2e-conform/toolkit/protocol/frame"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// Mode says how a Stream handles malformed input (spec §1.3).
type Mode int

const (
	// ServerMode answers content faults and keeps reading.
	ServerMode Mode = iota
	// ClientMode treats every fault as fatal.
	ClientMode
)

// Direction of a traced frame.
type Direction int

const (
	// Received is a frame read from the peer.
	Received Direction = iota
	// Sent is a frame written to the peer.
	Sent
)

func (d Direction) String() string {
	if d == Sent {
		return "send"
	}
	return "recv"
}

// FaultKind classifies a framing or message fault.
type FaultKind string

// The fault kinds.
const (
	FaultHeader   FaultKind = "header"   // unreadable header part (fatal)
	FaultSize     FaultKind = "size"     // Content-Length above the limit (fatal)
	FaultJSON     FaultKind = "json"     // content not UTF-8 JSON
	FaultBatch    FaultKind = "batch"    // a JSON array
	FaultEnvelope FaultKind = "envelope" // JSON but not a JSON-RPC 2.0 message
	FaultWrite    FaultKind = "write"    // an outgoing message could not be written
	FaultEncode   FaultKind = "encode"   // an outgoing value could not be encoded as JSON
)

// FrameError is a fault in the bytes a peer sent, or in a message this side
// tried to send.
type FrameError struct {
	Kind FaultKind
	Msg  string
	Err  error // the underlying I/O error, if any
}

func (e *FrameError) Error() string {
	s := "malformed " + string(e.Kind) + ": " + e.Msg
	if e.Kind == FaultWrite || e.Kind == FaultEncode {
		s = "cannot send message: " + e.Msg
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *FrameError) Unwrap() error { return e.Err }

// ErrTooLarge is wrapped by errors for messages above the size limit (it
// is frame.ErrTooLarge).
var ErrTooLarge = scan.ErrTooLarge

// StreamOptions configure a Stream.
type StreamOptions struct {
	Mode Mode
	// MaxMessageBytes is the receive and send limit for a content part;
	// 0 means wire.MaxMessageBytes. The spec makes 64 MiB the floor for a
	// conforming receiver: lower values exist for tests.
	MaxMessageBytes int
	// Trace, when set, sees every well-framed content part read or written.
	Trace func(dir Direction, content []byte)
	// OnFault, when set, is told of every fault, fatal or answered.
	OnFault func(*FrameError)
}

// Stream reads and writes the protocol's frames (spec §1.1–§1.4) on one
// connection. Reads are not safe for concurrent use (one reading goroutine);
// writes are, and a frame is always written with one Write.
type Stream struct {
	fr     *scan.Reader
	w      io.Writer
	closer func() error
	opts   StreamOptions
	limit  int

	wmu  sync.Mutex // serialises writes
	pool bufPool

	mu  sync.Mutex
	err error // the fatal fault, if any
}

// Message is one well-formed JSON-RPC 2.0 message, its members kept raw
// (sub-slices of Content, which the message owns).
type Message struct {
	Method string          // a request's or notification's method; "" for a response
	ID     json.RawMessage // nil when absent (a notification)
	Params json.RawMessage // nil when absent
	Result json.RawMessage // a response's result, nil when absent
	Error  json.RawMessage // a response's error object, nil when absent
	// Content is the whole content part.
	Content []byte
}

// IsResponse reports whether m is a response.
func (m *Message) IsResponse() bool { return m.Method == "" }

// NewStream frames messages read from r and written to w. closer, if not
// nil, is called by Close.
func NewStream(r io.Reader, w io.Writer, closer func() error, opts StreamOptions) *Stream {
	limit := opts.MaxMessageBytes
	if limit <= 0 {
		limit = wire.MaxMessageBytes
	}
	fr := scan.NewReader(r, scan.Options{Mode: scan.Strict, Limit: limit})
	return &Stream{fr: fr, w: w, closer: closer, opts: opts, limit: limit}
}

// Err returns the fatal fault that ended reading, if any.
func (s *Stream) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Close calls the closer given to NewStream.
func (s *Stream) Close() error {
	if s.closer != nil {
		return s.closer()
	}
	return nil
}

func (s *Stream) fatal(fe *FrameError) error {
	s.mu.Lock()
	if s.err == nil {
		s.err = fe
	}
	s.mu.Unlock()
	if s.opts.OnFault != nil {
		s.opts.OnFault(fe)
	}
	return fe
}

// ReadMessage reads the next well-formed JSON-RPC message. A server stream
// answers content faults itself and goes on reading; a fatal fault (any
// fault of a client stream, a header fault of a server stream, after its
// one answer) ends reading with a *FrameError. io.EOF is a clean end
// between frames.
//
// Implements: WIRE-004, WIRE-005, WIRE-006, WIRE-007.
func (s *Stream) ReadMessage() (*Message, error) {
	for {
		content, err := s.readFrame()
		if err != nil {
			var fe *FrameError
			if errors.As(err, &fe) {
				if s.opts.Mode == ServerMode {
					code := int64(wire.CodeParseError)
					if fe.Kind == FaultSize {
						code = wire.CodeInvalidRequest
					}
					_ = s.answer(nil, code, fe.Error())
				}
				return nil, s.fatal(fe)
			}
			return nil, err
		}
		if s.opts.Trace != nil {
			s.opts.Trace(Received, content)
		}
		m := &Message{Content: content}
		fe, id := parse(content, m)
		if fe == nil {
			return m, nil
		}
		if s.opts.Mode == ClientMode {
			return nil, s.fatal(fe)
		}
		if s.opts.OnFault != nil {
			s.opts.OnFault(fe)
		}
		code := int64(wire.CodeInvalidRequest)
		if fe.Kind == FaultJSON {
			code = wire.CodeParseError
		}
		if err := s.answer(id, code, fe.Error()); err != nil {
			return nil, s.fatal(&FrameError{Kind: FaultWrite, Msg: "answering a malformed message", Err: err})
		}
	}
}

// buffered is the number of bytes read and not yet framed.
func (s *Stream) buffered() int { return s.fr.Buffered() }

// readFrame reads one header part and its content (strict: spec §1.1).
func (s *Stream) readFrame() ([]byte, error) {
	f, err := s.fr.Next()
	if err != nil {
		return nil, frameError(err)
	}
	return f.Content, nil
}

// ReadHeader reads one header part from r and returns its Content-Length
// (spec §1.1, §1.3), with the strict scanner of package frame. It never
// consumes or waits for more than wire.MaxHeaderBytes bytes of header: a
// longer header part is a FaultHeader as soon as its first 4096 bytes are
// buffered. A Content-Length above limit is a FaultSize, returned before
// any content is read. io.EOF means the stream ended cleanly before a
// frame.
//
// Implements: WIRE-003, WIRE-007.
func ReadHeader(r *bufio.Reader, limit int) (int, error) {
	h, err := scan.NewBufReader(r, scan.Options{Mode: scan.Strict, Limit: limit}).ReadHeader()
	if err != nil {
		return 0, frameError(err)
	}
	return h.Length, nil
}

// frameError is a scanner fault as a *FrameError (the scanner's text, the
// kind FaultSize or FaultHeader); other errors are returned as they are.
func frameError(err error) error {
	var fe *scan.Error
	if !errors.As(err, &fe) {
		return err
	}
	kind := FaultHeader
	if fe.Fault == scan.FaultSize {
		kind = FaultSize
	}
	return &FrameError{Kind: kind, Msg: fe.Msg(), Err: fe.Err}
}

func clip(b []byte) string { return scan.Clip(b) }
