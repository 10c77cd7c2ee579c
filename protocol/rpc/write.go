package rpc

import (
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
)

// headRoom is the space kept before a frame's content for its header
// ("Content-Length: " + up to 20 digits + CRLFCRLF), so that a frame is
// built in one buffer and written with one Write, without a copy.
const headRoom = 48

// maxPooled is the largest buffer kept for reuse.
const maxPooled = 1 << 20

// frameBuf is a pooled buffer a frame is built in: the content from
// headRoom on, the header written right-aligned before it. Its encoder
// writes into it.
type frameBuf struct {
	b   []byte
	enc *json.Encoder
}

// Write appends p (the encoder's output).
func (f *frameBuf) Write(p []byte) (int, error) {
	f.b = append(f.b, p...)
	return len(p), nil
}

// appender is a value that appends its own JSON, byte for byte what
// encoding/json writes (the wire package's hot messages: observe params,
// snapshots); false leaves the value to encoding/json.
type appender interface {
	AppendJSON(b []byte) ([]byte, bool)
}

// value appends v as JSON: raw bytes as they are (json.RawMessage is the
// caller's own JSON), an appender's own encoding, anything else through
// encoding/json.
func (f *frameBuf) value(v any) error {
	switch x := v.(type) {
	case nil:
		f.b = append(f.b, "null"...)
		return nil
	case json.RawMessage:
		if len(x) == 0 {
			f.b = append(f.b, "null"...)
			return nil
		}
		f.b = append(f.b, x...)
		return nil
	case appender:
		n := len(f.b)
		b, ok := x.AppendJSON(f.b)
		if ok {
			f.b = b
			return nil
		}
		f.b = b[:n] // what it wrote before it gave up
	}
	if err := f.enc.Encode(v); err != nil {
		return err
	}
	f.b = f.b[:len(f.b)-1] // Encode's newline
	return nil
}

// str appends s as a JSON string.
func (f *frameBuf) str(s string) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			_ = f.enc.Encode(s)
			f.b = f.b[:len(f.b)-1]
			return
		}
	}
	f.b = append(f.b, '"')
	f.b = append(f.b, s...)
	f.b = append(f.b, '"')
}

// bufPool is a Stream's pool of frame buffers.
type bufPool struct{ p sync.Pool }

func (bp *bufPool) get() *frameBuf {
	if f, ok := bp.p.Get().(*frameBuf); ok {
		f.b = f.b[:headRoom]
		return f
	}
	f := &frameBuf{b: make([]byte, headRoom, 512)}
	f.enc = json.NewEncoder(f)
	return f
}

func (bp *bufPool) put(f *frameBuf) {
	if cap(f.b) <= maxPooled {
		bp.p.Put(f)
	}
}

// send frames the content built in f and writes it with one Write.
//
// Implements: WIRE-001, WIRE-002.
func (s *Stream) send(f *frameBuf) error {
	defer s.pool.put(f)
	content := f.b[headRoom:]
	if len(content) > s.limit {
		return &FrameError{Kind: FaultWrite, Msg: fmt.Sprintf("%d-byte message exceeds the limit of %d bytes", len(content), s.limit), Err: ErrTooLarge}
	}
	var num [20]byte
	digits := strconv.AppendInt(num[:0], int64(len(content)), 10)
	start := headRoom - len("Content-Length: ") - len(digits) - 4
	h := f.b[start:headRoom]
	n := copy(h, "Content-Length: ")
	n += copy(h[n:], digits)
	copy(h[n:], "\r\n\r\n")
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.opts.Trace != nil {
		s.opts.Trace(Sent, append([]byte(nil), content...))
	}
	_, err := s.w.Write(f.b[start:])
	return err
}

// The layouts are those sourcegraph/jsonrpc2 wrote (members of a request
// in sorted order; a response's id, result or error, then jsonrpc), so
// that what the toolkit writes stayed byte for byte what it wrote before.

// WriteRequest writes a request with the integer id; params nil is absent.
func (s *Stream) WriteRequest(id uint64, method string, params any) error {
	f := s.pool.get()
	f.b = append(f.b, `{"id":`...)
	f.b = strconv.AppendUint(f.b, id, 10)
	f.b = append(f.b, `,"jsonrpc":"2.0"`...)
	return s.finishCall(f, method, params)
}

// WriteNotification writes a notification; params nil is absent.
func (s *Stream) WriteNotification(method string, params any) error {
	f := s.pool.get()
	f.b = append(f.b, `{"jsonrpc":"2.0"`...)
	return s.finishCall(f, method, params)
}

func (s *Stream) finishCall(f *frameBuf, method string, params any) error {
	f.b = append(f.b, `,"method":`...)
	f.str(method)
	if params != nil {
		f.b = append(f.b, `,"params":`...)
		if err := f.value(params); err != nil {
			s.pool.put(f)
			return &FrameError{Kind: FaultEncode, Msg: "encoding the params of " + method, Err: err}
		}
	}
	f.b = append(f.b, '}')
	return s.send(f)
}

// WriteResult writes a response with result (nil is null) to the request
// whose raw id is id.
func (s *Stream) WriteResult(id json.RawMessage, result any) error {
	f := s.pool.get()
	f.b = append(f.b, `{"id":`...)
	f.b = append(f.b, id...)
	f.b = append(f.b, `,"result":`...)
	if err := f.value(result); err != nil {
		s.pool.put(f)
		return &FrameError{Kind: FaultEncode, Msg: "encoding a result", Err: err}
	}
	f.b = append(f.b, `,"jsonrpc":"2.0"}`...)
	return s.send(f)
}

// WriteError writes an error response; id nil is null, data nil is absent.
func (s *Stream) WriteError(id json.RawMessage, code int64, message string, data json.RawMessage) error {
	f := s.pool.get()
	f.b = append(f.b, `{"id":`...)
	f.id(id)
	f.errorObject(code, message, data)
	f.b = append(f.b, `,"jsonrpc":"2.0"}`...)
	return s.send(f)
}

func (f *frameBuf) id(id json.RawMessage) {
	if id == nil {
		f.b = append(f.b, "null"...)
		return
	}
	f.b = append(f.b, id...)
}

// Implements: WIRE-008, WIRE-012.
func (f *frameBuf) errorObject(code int64, message string, data json.RawMessage) {
	f.b = append(f.b, `,"error":{"code":`...)
	f.b = strconv.AppendInt(f.b, code, 10)
	f.b = append(f.b, `,"message":`...)
	f.str(message)
	if len(data) > 0 {
		f.b = append(f.b, `,"data":`...)
		f.b = append(f.b, data...)
	}
	f.b = append(f.b, '}')
}

// WriteRaw writes content, which must be one JSON-RPC message, as one frame.
// Tests and tools use it to send exact bytes.
func (s *Stream) WriteRaw(content []byte) error {
	f := s.pool.get()
	f.b = append(f.b, content...)
	return s.send(f)
}

// answer writes an error response for a message the stream refused.
// Its layout is the one the stream always wrote: jsonrpc, id, error.
func (s *Stream) answer(id json.RawMessage, code int64, msg string) error {
	f := s.pool.get()
	f.b = append(f.b, `{"jsonrpc":"2.0","id":`...)
	f.id(id)
	f.errorObject(code, msg, nil)
	f.b = append(f.b, '}')
	return s.send(f)
}
