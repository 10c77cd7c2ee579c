package rpc

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

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

// ErrTooLarge is wrapped by errors for messages above the size limit.
var ErrTooLarge = errors.New("message exceeds the size limit")

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
	r      *bufio.Reader
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
	return &Stream{r: bufio.NewReaderSize(r, 64<<10), w: w, closer: closer, opts: opts, limit: limit}
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

// readFrame reads one header part and its content (strict: spec §1.1).
func (s *Stream) readFrame() ([]byte, error) {
	length, err := ReadHeader(s.r, s.limit)
	if err != nil {
		return nil, err
	}
	content, err := readContent(s.r, length)
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, &FrameError{Kind: FaultHeader, Msg: fmt.Sprintf("stream ended inside a %d-byte content part", length), Err: io.ErrUnexpectedEOF}
		}
		return nil, err
	}
	return content, nil
}

// ReadHeader reads one header part from r and returns its Content-Length
// (spec §1.1, §1.3). It never consumes or waits for more than
// wire.MaxHeaderBytes bytes of header: a longer header part is a
// FaultHeader as soon as its first 4096 bytes are buffered. A Content-Length
// above limit is a FaultSize, returned before any content is read. io.EOF
// means the stream ended cleanly before a frame.
//
// Implements: WIRE-003, WIRE-007.
func ReadHeader(r *bufio.Reader, limit int) (int, error) {
	end, err := headerEnd(r)
	if err != nil {
		return 0, err
	}
	head, _ := r.Peek(end)
	length := -1
	for len(head) > 0 {
		i := bytes.IndexByte(head, '\n')
		line := head[:i+1]
		head = head[i+1:]
		if len(line) < 2 || line[len(line)-2] != '\r' {
			return 0, &FrameError{Kind: FaultHeader, Msg: fmt.Sprintf("header line %q does not end with CRLF", clip(line))}
		}
		text := line[:len(line)-2]
		if len(text) == 0 {
			break
		}
		for _, c := range text {
			if c >= 0x80 {
				return 0, &FrameError{Kind: FaultHeader, Msg: "header part is not ASCII"}
			}
		}
		name, value, ok := bytes.Cut(text, []byte(":"))
		if !ok {
			return 0, &FrameError{Kind: FaultHeader, Msg: fmt.Sprintf("header line %q is not \"Name: value\"", clip(line))}
		}
		value = bytes.TrimSpace(value)
		name = bytes.TrimSpace(name)
		switch {
		case bytes.EqualFold(name, []byte("content-length")):
			n, ok := parseLength(value)
			if !ok {
				return 0, &FrameError{Kind: FaultHeader, Msg: fmt.Sprintf("Content-Length %q is not a decimal integer", clip(value))}
			}
			if n > int64(limit) {
				return 0, &FrameError{Kind: FaultSize, Msg: fmt.Sprintf("Content-Length %d exceeds the limit of %d bytes", n, limit), Err: ErrTooLarge}
			}
			length = int(n)
		case bytes.EqualFold(name, []byte("content-type")):
			if cs, ok := charset(string(value)); ok && cs != "utf-8" && cs != "utf8" {
				return 0, &FrameError{Kind: FaultHeader, Msg: fmt.Sprintf("Content-Type charset %q is not utf-8", cs)}
			}
		}
	}
	if _, err := r.Discard(end); err != nil {
		return 0, err
	}
	if length < 0 {
		return 0, &FrameError{Kind: FaultHeader, Msg: "header part has no Content-Length"}
	}
	return length, nil
}

// headerEnd buffers the header part and returns its length, CRLFCRLF
// included, without consuming it. A line that ends in a bare LF also ends
// the search: the caller reports it.
func headerEnd(r *bufio.Reader) (int, error) {
	scanned := 0
	for {
		n := r.Buffered()
		if n <= scanned {
			n = scanned + 1 // wait for one byte more
		}
		n = min(n, wire.MaxHeaderBytes)
		buf, err := r.Peek(n)
		for i := scanned; i < len(buf); i++ {
			if buf[i] != '\n' {
				continue
			}
			if i == 0 || buf[i-1] != '\r' || i == 1 || (i >= 3 && buf[i-2] == '\n' && buf[i-3] == '\r') {
				return i + 1, nil
			}
		}
		scanned = len(buf)
		if scanned >= wire.MaxHeaderBytes {
			return 0, &FrameError{Kind: FaultHeader, Msg: fmt.Sprintf("header part longer than %d bytes", wire.MaxHeaderBytes)}
		}
		if err != nil {
			switch {
			case len(buf) == 0 && errors.Is(err, io.EOF):
				return 0, io.EOF
			case errors.Is(err, io.EOF):
				return 0, &FrameError{Kind: FaultHeader, Msg: "stream ended inside a header part", Err: io.ErrUnexpectedEOF}
			}
			return 0, err
		}
	}
}

func parseLength(b []byte) (int64, bool) {
	v := string(b)
	if v == "" || len(v) > 18 {
		if len(v) > 18 && strings.Trim(v, "0123456789") == "" {
			return 1 << 62, true // absurdly large: refused by the limit
		}
		return 0, false
	}
	for i := 0; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(v, 10, 64)
	return n, err == nil
}

// charset extracts the lowercased charset parameter of a media type.
func charset(v string) (string, bool) {
	for _, p := range strings.Split(v, ";")[1:] {
		k, val, ok := strings.Cut(strings.TrimSpace(p), "=")
		if ok && strings.EqualFold(strings.TrimSpace(k), "charset") {
			return strings.ToLower(strings.Trim(strings.TrimSpace(val), `"`)), true
		}
	}
	return "", false
}

func clip(b []byte) string {
	if len(b) > 64 {
		return string(b[:64]) + "…"
	}
	return string(b)
}
