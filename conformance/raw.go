package conformance

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/e2e-conform/toolkit/protocol/rpc"
	"github.com/e2e-conform/toolkit/protocol/transport"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// Frame is one message read off the wire by a Raw connection.
type Frame struct {
	Header  []string // header lines, without CRLF
	Content []byte
	Msg     map[string]json.RawMessage // nil when Content is not a JSON object
	// At is when the reader finished reading the frame off the wire: the
	// time bounds are measured to it, not to when a spec got around to
	// looking (the suite's own scheduling and GC stay out of them).
	At time.Time
}

// Method is the message's method, "" for a response.
func (f *Frame) Method() string {
	var s string
	_ = json.Unmarshal(f.Msg["method"], &s)
	return s
}

// ID is the message's raw id ("" when absent).
func (f *Frame) ID() string { return string(f.Msg["id"]) }

// IsResponse reports whether the frame is a response.
func (f *Frame) IsResponse() bool { _, ok := f.Msg["method"]; return !ok && f.Msg != nil }

// Error decodes the error member of a response, nil when it has none.
func (f *Frame) Error() *wire.ErrorObject {
	raw, ok := f.Msg["error"]
	if !ok {
		return nil
	}
	var eo wire.ErrorObject
	if json.Unmarshal(raw, &eo) != nil {
		return &wire.ErrorObject{Code: 0, Message: "(undecodable error member)"}
	}
	return &eo
}

// Result is the raw result member.
func (f *Frame) Result() json.RawMessage { return f.Msg["result"] }

// Raw is a connection the suite drives byte by byte, bypassing the client
// library (the raw-wire specs). Every frame read is checked for framing
// (WIRE-001, WIRE-002) and recorded.
type Raw struct {
	env    *Env
	tc     transport.Conn
	frames chan *Frame
	done   chan struct{}
	mu     sync.Mutex
	err    error // why reading stopped
	wmu    sync.Mutex
	// pending are the raw ids of the requests written and not yet
	// answered (WIRE-008's id check).
	pending map[string]bool
	// lost is set once a content part did not parse: what follows may be
	// out of step with the frames (read only by the reader goroutine).
	lost bool
}

func (e *Env) newRaw(tc transport.Conn) *Raw {
	r := &Raw{env: e, tc: tc, frames: make(chan *Frame, 256), done: make(chan struct{}), pending: map[string]bool{}}
	go r.read()
	return r
}

func (r *Raw) read() {
	defer close(r.done)
	defer close(r.frames)
	br := bufio.NewReader(r.tc)
	for {
		f, err := r.readFrame(br)
		if f != nil {
			f.At = time.Now()
		}
		if err != nil {
			r.mu.Lock()
			r.err = err
			r.mu.Unlock()
			return
		}
		r.env.recordFrame(rpc.Received, f.Content)
		r.env.checkServerMessage(f)
		r.checkID(f)
		r.frames <- f
	}
}

func (r *Raw) readFrame(br *bufio.Reader) (*Frame, error) {
	f := &Frame{}
	length := -1
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			if err == io.EOF && len(f.Header) == 0 && line == "" {
				return nil, io.EOF
			}
			return nil, fmt.Errorf("reading a header: %w", err)
		}
		if !strings.HasSuffix(line, "\r\n") {
			r.env.violation("WIRE-001", "header line %q does not end with CRLF", clip(line))
			return nil, fmt.Errorf("header line %q does not end with CRLF", clip(line))
		}
		line = strings.TrimSuffix(line, "\r\n")
		if line == "" {
			break
		}
		f.Header = append(f.Header, line)
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			r.env.violation("WIRE-001", "header line %q is not Name: value", clip(line))
			return nil, fmt.Errorf("header line %q is not Name: value", clip(line))
		}
		value = strings.TrimSpace(value)
		// Field names are matched without regard to letter case: §1.1 says
		// receivers SHOULD, the toolkit's do, and a server writing
		// "content-length" writes the Content-Length field.
		switch {
		case strings.EqualFold(name, "Content-Length"):
			n, err := strconv.Atoi(value)
			if err != nil || n < 0 || strings.HasPrefix(value, "+") {
				r.env.violation("WIRE-001", "Content-Length %q is not a decimal integer", value)
				return nil, fmt.Errorf("bad Content-Length %q", value)
			}
			// WIRE-001: "a header part with Content-Length equal to the
			// content's byte length": of two that differ, one is not.
			if length >= 0 && n != length {
				r.env.violation("WIRE-001", "the header part carries two Content-Length fields, %d and %d (%q)", length, n, f.Header)
				return nil, fmt.Errorf("conflicting Content-Length fields %d and %d", length, n)
			}
			length = n
		case strings.EqualFold(name, "Content-Type"):
			// §1.1: "a receiver accepts utf-8 and utf8 in any letter case".
			cs := strings.ToLower(strings.NewReplacer(" ", "", "\t", "", `"`, "").Replace(value))
			if !strings.Contains(cs, "charset=utf-8") && !strings.Contains(cs, "charset=utf8") {
				r.env.violation("WIRE-002", "Content-Type %q does not name charset utf-8", value)
			}
		default:
			if r.lost {
				// The previous content did not match its Content-Length:
				// this "field" is likely the rest of that content, and the
				// fault is WIRE-001's, not a header field the server wrote.
				r.env.violation("WIRE-001", "after content that did not match its Content-Length, the stream is out of step: header line %q", clip(line))
				continue
			}
			r.env.violation("WIRE-002", "the server wrote the header field %q", name)
		}
	}
	if length < 0 {
		r.env.violation("WIRE-001", "a header part without Content-Length: %q", f.Header)
		return nil, fmt.Errorf("header without Content-Length")
	}
	if length > wire.MaxMessageBytes {
		r.env.violation("WIRE-001", "Content-Length %d exceeds the message limit", length)
		return nil, fmt.Errorf("oversized message")
	}
	f.Content = make([]byte, length)
	if _, err := io.ReadFull(br, f.Content); err != nil {
		return nil, fmt.Errorf("reading %d content bytes: %w", length, err)
	}
	if !utf8.Valid(f.Content) || !json.Valid(f.Content) {
		r.env.violation("WIRE-001", "content is not UTF-8 JSON, or Content-Length does not match it: %q", clip(string(f.Content)))
		r.lost = true
		return f, nil
	}
	r.env.observed("WIRE-001", "frame read and framed")
	r.env.observed("WIRE-002", "header part read")
	if nonASCII(f.Content) {
		// The content was read by its byte length and is UTF-8 JSON: a
		// server counting characters or UTF-16 units would have failed
		// above (WIRE-001's boundary; spec §1.1 "the length of the content
		// part in bytes").
		r.env.observed("WIRE-001", "non-ASCII frame from the server")
	}
	r.lost = false
	_ = json.Unmarshal(f.Content, &f.Msg)
	if f.Msg == nil && len(f.Content) > 0 && f.Content[0] == '[' {
		r.env.checkBatch(f.Content)
	}
	return f, nil
}

// nonASCII reports whether b holds a byte outside ASCII.
func nonASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return true
		}
	}
	return false
}

// Write writes bytes as they are.
func (r *Raw) Write(b []byte) error {
	r.env.recordFrame(rpc.Sent, b)
	return r.write(b)
}

func (r *Raw) write(b []byte) error {
	r.wmu.Lock()
	defer r.wmu.Unlock()
	_, err := r.tc.Write(b)
	return err
}

// Frame returns content framed with a correct header.
func Framed(content string) []byte {
	return []byte("Content-Length: " + strconv.Itoa(len(content)) + "\r\n\r\n" + content)
}

// Send writes one framed message.
func (r *Raw) Send(content string) error {
	r.env.recordFrame(rpc.Sent, []byte(content))
	r.track([]byte(content))
	return r.write(Framed(content))
}

// track records the id of a request the suite writes.
func (r *Raw) track(content []byte) {
	var m map[string]json.RawMessage
	if json.Unmarshal(content, &m) != nil {
		return
	}
	if _, isMsg := m["method"]; !isMsg || m["id"] == nil {
		return
	}
	r.mu.Lock()
	r.pending[string(m["id"])] = true
	r.mu.Unlock()
}

// checkID files a response against the requests written: a response whose
// id matches none but would match one in another JSON type ("1" for 1) is
// a WIRE-008 violation ("the request's id in the same JSON type and value";
// §1.4 "A receiver echoes an id unchanged, with the same JSON type and
// value").
func (r *Raw) checkID(f *Frame) {
	if !f.IsResponse() {
		return
	}
	id := f.ID()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.pending[id] {
		delete(r.pending, id)
		return
	}
	var other string
	if s, err := strconv.Unquote(id); err == nil && strings.HasPrefix(id, `"`) {
		other = s
	} else {
		other = strconv.Quote(id)
	}
	if r.pending[other] {
		r.env.violation("WIRE-008", "the response to the request with id %s carries the id %s, another JSON type", other, id)
	}
}

// Next returns the next frame, or an error when the connection ended or ctx
// is done.
func (r *Raw) Next(ctx context.Context) (*Frame, error) {
	select {
	case f, ok := <-r.frames:
		if !ok {
			r.mu.Lock()
			defer r.mu.Unlock()
			return nil, fmt.Errorf("connection ended: %v", r.err)
		}
		return f, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("no message: %w", context.Cause(ctx))
	}
}

// NextResponse returns the next response, passing over the server's
// notifications and requests: after initialized the spec allows engine/log
// at any time (§6.7, D29) and attempt/* messages inside an attempt, so a
// raw read that waits for an answer must not take one of them for it. What
// they carry is checked by the run-wide checks on every frame; LIFE-005,
// which forbids them before initialized, reads frames with Next.
func (r *Raw) NextResponse(ctx context.Context) (*Frame, error) {
	for {
		f, err := r.Next(ctx)
		if err != nil {
			return nil, err
		}
		if f.IsResponse() || f.Msg == nil {
			return f, nil
		}
	}
}

// Response waits for the response with id (raw JSON, e.g. `7` or `"x"`),
// passing over notifications; a response with another id is an error.
func (r *Raw) Response(ctx context.Context, id string) (*Frame, error) {
	for {
		f, err := r.Next(ctx)
		if err != nil {
			return nil, fmt.Errorf("waiting for the response to id %s: %w", id, err)
		}
		if !f.IsResponse() {
			continue
		}
		if f.ID() != id {
			return f, fmt.Errorf("got a response with id %s while waiting for id %s", f.ID(), id)
		}
		return f, nil
	}
}

// Call sends a request and waits for its response.
func (r *Raw) Call(ctx context.Context, id, method, params string) (*Frame, error) {
	msg := `{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `"`
	if params != "" {
		msg += `,"params":` + params
	}
	start := time.Now()
	if err := r.Send(msg + "}"); err != nil {
		return nil, err
	}
	f, err := r.Response(ctx, id)
	if err == nil {
		r.env.latency.record(method, f.At.Sub(start), f.Error() != nil)
	}
	if err == nil && f.Error() == nil && (wire.IsEngineMethod(method) || method == wire.MethodInitialize || method == wire.MethodShutdown) {
		r.env.checkResult(method, f.Result())
	}
	return f, err
}

// Notify sends a notification.
func (r *Raw) Notify(method, params string) error {
	msg := `{"jsonrpc":"2.0","method":"` + method + `"`
	if params != "" {
		msg += `,"params":` + params
	}
	return r.Send(msg + "}")
}

// InitializeParams are valid initialize params for role.
func InitializeParams(role string) string {
	return `{"protocolVersion":1,"clientInfo":{"name":"e2e-conform"},"role":"` + role + `"}`
}

// Initialize runs the handshake (initialize with id 0, then initialized).
func (r *Raw) Initialize(ctx context.Context) (*Frame, error) {
	f, err := r.Call(ctx, "0", "initialize", InitializeParams("worker"))
	if err != nil {
		return nil, err
	}
	if eo := f.Error(); eo != nil {
		return f, fmt.Errorf("initialize failed: %d %s", eo.Code, eo.Message)
	}
	return f, r.Notify("initialized", "{}")
}

// Ended is closed when the server closed its side.
func (r *Raw) Ended() <-chan struct{} { return r.done }

// Conn is the transport connection (for spawn: a transport.SpawnConn).
func (r *Raw) Conn() transport.Conn { return r.tc }

// Close releases the connection within timeout.
func (r *Raw) Close(timeout time.Duration) error { return r.tc.Close(timeout) }

func clip(s string) string {
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}
