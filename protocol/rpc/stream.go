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
	"unicode/utf8"

	"github.com/sourcegraph/jsonrpc2"

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
	if e.Kind == FaultWrite {
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

// Stream is a jsonrpc2.ObjectStream with the protocol's framing rules.
type Stream struct {
	r      *bufio.Reader
	w      io.Writer
	closer func() error
	opts   StreamOptions
	limit  int

	wmu sync.Mutex // serialises writes

	mu     sync.Mutex
	err    error                      // the fatal fault, if any
	mapped map[string]json.RawMessage // synthetic string id -> original raw id
}

var _ jsonrpc2.ObjectStream = (*Stream)(nil)

// NewStream frames messages read from r and written to w. closer, if not
// nil, is called by Close (jsonrpc2 calls Close when the connection ends).
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

// ReadObject reads the next well-formed JSON-RPC message into v.
func (s *Stream) ReadObject(v any) error {
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
					s.answer(nil, code, fe.Error())
				}
				return s.fatal(fe)
			}
			return err
		}
		if s.opts.Trace != nil {
			s.opts.Trace(Received, content)
		}
		fe, id := s.check(content)
		if fe == nil {
			if len(id) > 0 && id[0] == '-' {
				content = s.mapID(content, id)
			}
			if err := json.Unmarshal(content, v); err != nil {
				fe = &FrameError{Kind: FaultEnvelope, Msg: err.Error()}
			}
		}
		if fe == nil {
			return nil
		}
		if s.opts.Mode == ClientMode {
			return s.fatal(fe)
		}
		if s.opts.OnFault != nil {
			s.opts.OnFault(fe)
		}
		code := int64(wire.CodeInvalidRequest)
		if fe.Kind == FaultJSON {
			code = wire.CodeParseError
		}
		if err := s.answer(id, code, fe.Error()); err != nil {
			return s.fatal(&FrameError{Kind: FaultWrite, Msg: "answering a malformed message", Err: err})
		}
	}
}

// readFrame reads one header part and its content.
func (s *Stream) readFrame() ([]byte, error) {
	length := -1
	total := 0
	for first := true; ; first = false {
		line, err := s.r.ReadSlice('\n')
		total += len(line)
		if total > wire.MaxHeaderBytes {
			return nil, &FrameError{Kind: FaultHeader, Msg: fmt.Sprintf("header part longer than %d bytes", wire.MaxHeaderBytes)}
		}
		if err != nil {
			if errors.Is(err, bufio.ErrBufferFull) {
				return nil, &FrameError{Kind: FaultHeader, Msg: "header line too long"}
			}
			if first && len(line) == 0 && errors.Is(err, io.EOF) {
				return nil, io.EOF
			}
			if errors.Is(err, io.EOF) {
				return nil, &FrameError{Kind: FaultHeader, Msg: "stream ended inside a header part", Err: io.ErrUnexpectedEOF}
			}
			return nil, err
		}
		if len(line) < 2 || line[len(line)-2] != '\r' {
			return nil, &FrameError{Kind: FaultHeader, Msg: fmt.Sprintf("header line %q does not end with CRLF", clip(line))}
		}
		text := string(line[:len(line)-2])
		if text == "" {
			break
		}
		name, value, ok := strings.Cut(text, ":")
		if !ok {
			return nil, &FrameError{Kind: FaultHeader, Msg: fmt.Sprintf("header line %q is not \"Name: value\"", clip(line))}
		}
		for i := 0; i < len(text); i++ {
			if text[i] >= 0x80 {
				return nil, &FrameError{Kind: FaultHeader, Msg: "header part is not ASCII"}
			}
		}
		value = strings.TrimSpace(value)
		switch strings.ToLower(strings.TrimSpace(name)) {
		case "content-length":
			n, ok := parseLength(value)
			if !ok {
				return nil, &FrameError{Kind: FaultHeader, Msg: fmt.Sprintf("Content-Length %q is not a decimal integer", clip([]byte(value)))}
			}
			if n > int64(s.limit) {
				return nil, &FrameError{Kind: FaultSize, Msg: fmt.Sprintf("Content-Length %d exceeds the limit of %d bytes", n, s.limit), Err: ErrTooLarge}
			}
			length = int(n)
		case "content-type":
			if cs, ok := charset(value); ok && cs != "utf-8" && cs != "utf8" {
				return nil, &FrameError{Kind: FaultHeader, Msg: fmt.Sprintf("Content-Type charset %q is not utf-8", cs)}
			}
		}
	}
	if length < 0 {
		return nil, &FrameError{Kind: FaultHeader, Msg: "header part has no Content-Length"}
	}
	content := make([]byte, length)
	if _, err := io.ReadFull(s.r, content); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, &FrameError{Kind: FaultHeader, Msg: fmt.Sprintf("stream ended inside a %d-byte content part", length), Err: io.ErrUnexpectedEOF}
		}
		return nil, err
	}
	return content, nil
}

func parseLength(v string) (int64, bool) {
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

type envelope struct {
	JSONRPC json.RawMessage `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  json.RawMessage `json:"method"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// check classifies content; on a fault it returns the id to answer with
// (nil for null).
func (s *Stream) check(content []byte) (*FrameError, json.RawMessage) {
	if !utf8.Valid(content) {
		return &FrameError{Kind: FaultJSON, Msg: "content is not valid UTF-8"}, nil
	}
	trimmed := bytes.TrimLeft(content, " \t\r\n")
	if len(trimmed) > 0 && trimmed[0] == '[' {
		if !json.Valid(content) {
			return &FrameError{Kind: FaultJSON, Msg: "content is not valid JSON"}, nil
		}
		return &FrameError{Kind: FaultBatch, Msg: "batches are not supported"}, nil
	}
	if len(trimmed) == 0 || trimmed[0] != '{' {
		if !json.Valid(content) {
			return &FrameError{Kind: FaultJSON, Msg: "content is not valid JSON"}, nil
		}
		return &FrameError{Kind: FaultEnvelope, Msg: "message is not a JSON object"}, nil
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(content, &members); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return &FrameError{Kind: FaultJSON, Msg: "content is not valid JSON: " + err.Error()}, nil
		}
		return &FrameError{Kind: FaultEnvelope, Msg: err.Error()}, nil
	}
	// Member names are case-sensitive; encoding/json (and so jsonrpc2)
	// matches them without regard to case, so refuse look-alikes.
	for k := range members {
		switch k {
		case "jsonrpc", "id", "method", "params", "result", "error":
			continue
		}
		for _, known := range []string{"jsonrpc", "id", "method", "params", "result", "error"} {
			if strings.EqualFold(k, known) {
				return &FrameError{Kind: FaultEnvelope, Msg: fmt.Sprintf("member %q is not %q", k, known)}, nil
			}
		}
	}
	env := envelope{JSONRPC: members["jsonrpc"], ID: members["id"], Method: members["method"],
		Result: members["result"], Error: members["error"]}
	var id json.RawMessage
	idOK := env.ID != nil && validID(env.ID)
	if idOK {
		id = env.ID
	}
	bad := func(format string, args ...any) (*FrameError, json.RawMessage) {
		return &FrameError{Kind: FaultEnvelope, Msg: fmt.Sprintf(format, args...)}, id
	}
	if string(env.JSONRPC) != `"2.0"` {
		return bad(`"jsonrpc" must be "2.0"`)
	}
	nullID := string(env.ID) == "null"
	if env.ID != nil && !idOK && !(nullID && env.Method == nil && env.Error != nil) {
		return bad("id %s is neither an integer nor a string", clip(env.ID))
	}
	if env.Method != nil {
		if env.Method[0] != '"' {
			return bad(`"method" must be a string`)
		}
		return nil, id
	}
	// A response.
	if env.ID == nil {
		return bad("message has neither method nor id")
	}
	if (env.Result == nil) == (env.Error == nil) {
		return bad("response must have exactly one of result and error")
	}
	if env.Error != nil {
		var eo struct {
			Code    json.RawMessage `json:"code"`
			Message json.RawMessage `json:"message"`
		}
		if err := json.Unmarshal(env.Error, &eo); err != nil || len(env.Error) == 0 || env.Error[0] != '{' {
			return bad("error must be an object")
		}
		if _, ok := wire.ParseInteger(eo.Code); !ok {
			return bad("error code must be an integer")
		}
		if len(eo.Message) == 0 || eo.Message[0] != '"' {
			return bad("error message must be a string")
		}
	}
	return nil, id
}

func validID(raw json.RawMessage) bool {
	if len(raw) == 0 {
		return false
	}
	if raw[0] == '"' {
		return true
	}
	_, ok := wire.ParseInteger(raw)
	return ok
}

// syntheticPrefix marks string ids standing in for integer ids that
// jsonrpc2's ID type cannot hold (negative integers).
const syntheticPrefix = "\x00e2e-id:"

// mapID replaces a negative integer id by a synthetic string id, remembered
// so that the response is written with the original id.
func (s *Stream) mapID(content []byte, id json.RawMessage) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(content, &m) != nil {
		return content
	}
	syn := syntheticPrefix + string(id)
	s.mu.Lock()
	if s.mapped == nil {
		s.mapped = map[string]json.RawMessage{}
	}
	s.mapped[syn] = id
	s.mu.Unlock()
	m["id"], _ = json.Marshal(syn)
	out, err := json.Marshal(m)
	if err != nil {
		return content
	}
	return out
}

// unmapID restores a synthetic id in an outgoing response.
func (s *Stream) unmapID(data []byte) []byte {
	s.mu.Lock()
	n := len(s.mapped)
	s.mu.Unlock()
	if n == 0 || !bytes.Contains(data, []byte(`\u0000e2e-id:`)) {
		return data
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(data, &m) != nil {
		return data
	}
	var id string
	if json.Unmarshal(m["id"], &id) != nil {
		return data
	}
	s.mu.Lock()
	orig, ok := s.mapped[id]
	if ok {
		delete(s.mapped, id)
	}
	s.mu.Unlock()
	if !ok {
		return data
	}
	m["id"] = orig
	out, err := json.Marshal(m)
	if err != nil {
		return data
	}
	return out
}

// answer writes an error response for a message the stream refused.
func (s *Stream) answer(id json.RawMessage, code int64, msg string) error {
	if id == nil {
		id = json.RawMessage("null")
	}
	resp := struct {
		JSONRPC string           `json:"jsonrpc"`
		ID      json.RawMessage  `json:"id"`
		Error   wire.ErrorObject `json:"error"`
	}{"2.0", id, wire.ErrorObject{Code: code, Message: msg}}
	data, err := json.Marshal(resp)
	if err != nil {
		return err
	}
	return s.writeContent(data)
}

// WriteObject marshals obj and writes it as one frame.
func (s *Stream) WriteObject(obj any) error {
	data, err := json.Marshal(obj)
	if err != nil {
		return &FrameError{Kind: FaultWrite, Msg: "encoding", Err: err}
	}
	data = s.unmapID(data)
	return s.writeContent(data)
}

// WriteRaw writes content, which must be one JSON-RPC message, as one frame.
// Tests and tools use it to send exact bytes.
func (s *Stream) WriteRaw(content []byte) error { return s.writeContent(content) }

func (s *Stream) writeContent(data []byte) error {
	if len(data) > s.limit {
		return &FrameError{Kind: FaultWrite, Msg: fmt.Sprintf("%d-byte message exceeds the limit of %d bytes", len(data), s.limit), Err: ErrTooLarge}
	}
	buf := make([]byte, 0, len(data)+32)
	buf = append(buf, "Content-Length: "...)
	buf = strconv.AppendInt(buf, int64(len(data)), 10)
	buf = append(buf, "\r\n\r\n"...)
	buf = append(buf, data...)
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.opts.Trace != nil {
		s.opts.Trace(Sent, data)
	}
	_, err := s.w.Write(buf)
	return err
}
