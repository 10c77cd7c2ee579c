package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/e2e-conform/toolkit/conformance/report"
	scan "github.com/e2e-conform/toolkit/protocol/frame"
	"github.com/e2e-conform/toolkit/protocol/rpc"
	"github.com/e2e-conform/toolkit/protocol/transport"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// frame is one message read off the wire by a rawConn.
type frame struct {
	Header  []string // header lines, without CRLF
	Content []byte
	Msg     map[string]json.RawMessage // nil when Content is not a JSON object
	// At is when the reader finished reading the frame off the wire: the
	// time bounds are measured to it, not to when a spec got around to
	// looking (the suite's own scheduling and GC stay out of them).
	At time.Time
	// conn is the connection it was read on.
	conn *connInfo
	// pastBound: an attempt/resolveSecret past maxSecretRequests in its
	// attempt, to be answered SECRET_UNAVAILABLE, unchecked.
	pastBound bool
	// stray: a response with an id the suite never wrote on its
	// connection. §1.4: "A response whose id matches no pending request is
	// ignored; the client records it in its diagnostics": Response passes
	// over it, and the run-wide WIRE-008 check reports it.
	stray bool
}

// answerCtx names the frame, the answer to a request for method, for
// violations found in it.
func (f *frame) answerCtx(method string) msgCtx {
	return msgCtx{conn: f.conn, where: describeMessage(f, fmt.Sprintf("%s (id %s)", method, f.ID()))}
}

// Method is the message's method, "" for a response.
func (f *frame) Method() string {
	var s string
	_ = json.Unmarshal(f.Msg["method"], &s)
	return s
}

// ID is the message's raw id ("" when absent).
func (f *frame) ID() string { return string(f.Msg["id"]) }

// IsResponse reports whether the frame is a response.
func (f *frame) IsResponse() bool { _, ok := f.Msg["method"]; return !ok && f.Msg != nil }

// Error decodes the error member of a response, nil when it has none.
func (f *frame) Error() *wire.ErrorObject {
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
func (f *frame) Result() json.RawMessage { return f.Msg["result"] }

// rawConn is a connection the suite drives byte by byte, bypassing the client
// library (the raw-wire specs). Every frame read is checked for framing
// (WIRE-001, WIRE-002) and recorded.
type rawConn struct {
	env    *runEnv
	conn   *connInfo
	tc     transport.Conn
	frames chan *frame
	done   chan struct{}
	mu     sync.Mutex
	err    error // why reading stopped
	wmu    sync.Mutex
	// pending maps the raw ids of the requests written and not yet
	// answered to their methods (WIRE-008's id check, and the method a
	// violation names).
	pending map[string]string
	// outstanding counts, per id (idKey), the requests written and not
	// yet answered (the suite may reuse an id); answeredIDs holds the ids
	// answered, so that a second response is told from one to a request
	// never sent. untracked is set once the suite wrote bytes it could not
	// read as frames (a request split across writes, a bad header): a
	// response to no tracked request is then not reported as never sent.
	outstanding map[string]int
	answeredIDs map[string]string
	untracked   bool
	// handshaken is set once an initialize request got a result;
	// closeBegun once the suite wrote shutdown or exit (release).
	handshaken bool
	closeBegun bool
	// lost is set once a content part did not parse: what follows may be
	// out of step with the frames (read only by the reader goroutine);
	// lostAt describes it.
	lost   bool
	lostAt string
	// closing is set once the suite closes the connection.
	closing atomic.Bool
	// received counts the frames read (exitedSilent).
	received atomic.Int64
}

func (e *runEnv) newRaw(tc transport.Conn, conn *connInfo) *rawConn {
	r := &rawConn{env: e, conn: conn, tc: tc, frames: make(chan *frame, 256), done: make(chan struct{}), pending: map[string]string{},
		outstanding: map[string]int{}, answeredIDs: map[string]string{}}
	go r.read()
	return r
}

// read delivers the frames the server writes. Once the stream is broken
// (a header part that does not parse, or content that is not UTF-8 JSON
// or does not match its Content-Length: WIRE-001), nothing after it can be
// trusted to be a frame: the frames channel closes at once with the reason
// ("the stream broke at …"), so that no spec waits its budget for an
// answer that cannot come, and the rest is read and discarded until the
// server closes its side (so that it never blocks writing).
func (r *rawConn) read() {
	defer close(r.done)
	br := scan.NewReader(r.tc, scan.Options{Mode: scan.Lenient, Limit: wire.MaxMessageBytes})
	for {
		f, err := r.readFrame(br)
		if f != nil {
			f.At = time.Now()
			f.conn = r.conn
		}
		if err != nil {
			var be *brokenStream
			if errors.As(err, &be) {
				r.env.streamBroke(be.Error())
			}
			r.mu.Lock()
			r.err = err
			r.mu.Unlock()
			close(r.frames)
			if be != nil {
				_, _ = io.Copy(io.Discard, br)
			}
			return
		}
		r.received.Add(1)
		r.env.recordFrame(r.conn, rpc.Received, f.Content)
		r.env.checkServerMessage(f, msgCtx{conn: r.conn, where: describeMessage(f, r.answers(f))})
		r.checkID(f)
		r.frames <- f
		if r.lost {
			be := &brokenStream{conn: r.conn, at: r.lostAt}
			r.env.streamBroke(be.Error())
			r.mu.Lock()
			r.err = be
			r.mu.Unlock()
			close(r.frames)
			_, _ = io.Copy(io.Discard, br)
			return
		}
	}
}

// brokenStream is the end of a raw connection's frames after a framing
// fault of the server's.
type brokenStream struct {
	conn *connInfo
	at   string // the fault, with the bytes around it
}

func (b *brokenStream) Error() string {
	return "the stream broke at " + b.at + " on " + b.conn.label()
}

// answers is the request a response answers, "engine/observe (id 7)", ""
// when it is not a response to a request the suite wrote.
func (r *rawConn) answers(f *frame) string {
	if !f.IsResponse() {
		return ""
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if m, ok := r.pending[f.ID()]; ok {
		return fmt.Sprintf("%s (id %s)", m, f.ID())
	}
	return ""
}

// awaited names the requests written and not yet answered, for a fault
// found while reading ("while the answer to engine/observe (id 7) was
// awaited").
func (r *rawConn) awaited() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var l []string
	for id, m := range r.pending {
		l = append(l, fmt.Sprintf("%s (id %s)", m, id))
	}
	if len(l) == 0 {
		return "reading the server's next frame"
	}
	sort.Strings(l)
	if len(l) > 3 {
		l = append(l[:3], "…")
	}
	return "reading the frame after the suite's request " + strings.Join(l, ", ")
}

// violation records a framing violation found on this connection.
func (r *rawConn) violation(id, format string, args ...any) {
	r.env.violationIn(msgCtx{conn: r.conn, where: r.awaited()}, id, format, args...)
}

// headerFault records the violation of a header part the server wrote
// that breaks §1.1 and its line in the trace and the exchange (it is no
// frame, so nothing else shows it), and returns the error that ends the
// stream. f.Header holds the fields read before the fault.
func (r *rawConn) headerFault(f *frame, fe *scan.Error) error {
	line := string(fe.Line)
	text := strings.TrimSuffix(line, "\r\n")
	read := f.Header
	var what string
	switch fe.Fault {
	case scan.FaultHeaderEOF:
		return fmt.Errorf("reading a header: %w", io.EOF)
	case scan.FaultHeaderTooLong:
		// §1.1: the header part is at most 4096 bytes. A longer one is
		// refused once that much is read, so an endless header line costs
		// the reader no more than 4096 bytes.
		r.violation("WIRE-001", "the header part runs past %d bytes without ending (§1.1: at most %d bytes, the final CRLF CRLF included): a header part longer than %d bytes, %d bytes read", wire.MaxHeaderBytes, wire.MaxHeaderBytes, wire.MaxHeaderBytes, len(fe.Before)+len(fe.Line))
		what = fmt.Sprintf("a header part longer than %d bytes", wire.MaxHeaderBytes)
	case scan.FaultLineEnd:
		r.violation("WIRE-001", "header line %q does not end with CRLF", clip(line))
		what = "a header line without CRLF"
	case scan.FaultNotField:
		r.violation("WIRE-001", "header line %q is not Name: value", clip(text))
		read, line, what = append(read, text), text, "a header line that is not Name: value"
	case scan.FaultLength:
		r.violation("WIRE-001", "Content-Length %q is not a decimal integer", fe.Value)
		line, what = text, "a Content-Length that is not a decimal integer"
	case scan.FaultSecondLength:
		// WIRE-001: "a header part with Content-Length equal to the
		// content's byte length": of two that differ, one is not.
		r.violation("WIRE-001", "the header part carries two Content-Length fields, %d and %d (%q)", fe.Previous, fe.Declared, append(f.Header, text))
		line, what = text, fmt.Sprintf("a second Content-Length field (%d, after %d)", fe.Declared, fe.Previous)
	case scan.FaultNoLength:
		r.violation("WIRE-001", "a header part without Content-Length: %q", f.Header)
		read, line, what = f.Header[:max(len(f.Header)-1, 0)], strings.Join(f.Header, "\r\n"), "a header part without Content-Length"
	case scan.FaultSize:
		length := strconv.FormatInt(fe.Declared, 10)
		if len(fe.Value) > 18 {
			length = string(fe.Value) // more digits than an int64 holds
		}
		r.violation("WIRE-001", "Content-Length %s exceeds the message limit", length)
		return &brokenStream{conn: r.conn, at: fmt.Sprintf("a Content-Length of %s bytes, above the message limit", length)}
	default:
		// Faults of the strict mode only (the lenient scanner reports
		// none of them), named as the scanner names them.
		r.violation("WIRE-001", "%s", fe.Msg())
		what = fe.Msg()
	}
	r.env.recordFrame(r.conn, rpc.Received, []byte(strings.Join(append(read, line), "\r\n")))
	return &brokenStream{conn: r.conn, at: fmt.Sprintf("%s: %q", what, clip(line))}
}

// readFrame reads one frame with the lenient scanner (package frame),
// which keeps the facts of every fault: the suite names them.
func (r *rawConn) readFrame(fr *scan.Reader) (*frame, error) {
	f := &frame{}
	h, err := fr.ReadHeader()
	var fe *scan.Error
	if err != nil && !errors.As(err, &fe) {
		if err == io.EOF {
			return nil, io.EOF
		}
		return nil, fmt.Errorf("reading a header: %w", err)
	}
	raw := h.Raw
	if fe != nil {
		raw = fe.Before
	}
	// The fields read before the end of the header part or its fault, in
	// the order they arrived.
	for _, fd := range scan.Fields(raw) {
		f.Header = append(f.Header, fd.Line)
		// Field names are matched without regard to letter case: §1.1 says
		// receivers SHOULD, the toolkit's do, and a server writing
		// "content-length" writes the Content-Length field.
		switch {
		case strings.EqualFold(fd.Name, "Content-Length"):
		case strings.EqualFold(fd.Name, "Content-Type"):
			// §1.1: "a receiver accepts utf-8 and utf8 in any letter case";
			// the charset is the media type's parameter of that name (a
			// value merely containing "charset=utf-8" names none).
			if cs, ok := scan.Charset(fd.Value); !ok || (cs != "utf-8" && cs != "utf8") {
				r.violation("WIRE-002", "Content-Type %q does not name charset utf-8", fd.Value)
			}
		default:
			if r.lost {
				// The previous content did not match its Content-Length:
				// this "field" is likely the rest of that content, and the
				// fault is WIRE-001's, not a header field the server wrote.
				r.violation("WIRE-001", "after content that did not match its Content-Length, the stream is out of step: header line %q", clip(fd.Line))
				continue
			}
			r.violation("WIRE-002", "the server wrote the header field %q", fd.Name)
		}
	}
	if fe != nil {
		return nil, r.headerFault(f, fe)
	}
	length := h.Length
	// The content is held as it arrives: a server announcing 64 MiB and
	// sending little costs the suite about what it sent.
	content, err := fr.ReadContent(length)
	f.Content = content
	if n := len(content); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) && !r.closing.Load() {
			// The server ended its side inside a content part: the frame
			// it wrote is shorter than its Content-Length (§1.1). Not when
			// the suite was closing the connection (an engine killed at
			// the end of its close budget may be cut mid-write).
			at := fmt.Sprintf("a content part of Content-Length %d that ended after %d bytes (%q), the server closing its side", length, n, clip(string(f.Content[:n])))
			r.violation("WIRE-001", "%s", at)
			return nil, &brokenStream{conn: r.conn, at: at}
		}
		return nil, fmt.Errorf("reading %d content bytes: %w", length, err)
	}
	if fault := contentFault(f.Content); fault != "" {
		r.violation("WIRE-001", "content is not UTF-8 JSON, or Content-Length (%d) does not match it: %s", length, fault)
		r.lost = true
		r.lostAt = fmt.Sprintf("a frame of Content-Length %d whose content is not UTF-8 JSON: %s", length, fault)
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
		r.env.checkBatch(f.Content, msgCtx{conn: r.conn, where: "a batch"})
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

// Write writes bytes as they are. The requests among them are tracked
// when the bytes are whole frames.
func (r *rawConn) Write(b []byte) error {
	r.env.recordFrame(r.conn, rpc.Sent, b)
	contents, ok := splitFrames(b)
	for _, c := range contents {
		r.track(c)
		r.conn.suiteWrote(c)
	}
	if !ok {
		r.mu.Lock()
		r.untracked = true
		r.mu.Unlock()
		if gc, guarded := r.tc.(*guardedConn); guarded {
			gc.wroteUnframed()
		}
	}
	return r.write(b)
}

// splitFrames reads b as whole frames with the lenient scanner; ok is
// false when b is anything else (a part of a frame, a header the suite
// wrote wrong on purpose).
func splitFrames(b []byte) (contents [][]byte, ok bool) {
	for len(b) > 0 {
		f, n, err := scan.Split(b, scan.Options{Mode: scan.Lenient, Limit: wire.MaxMessageBytes})
		if err != nil {
			return contents, false
		}
		contents = append(contents, f.Content)
		b = b[n:]
	}
	return contents, true
}

// idKey is the form under which an id is counted: a number by its value
// (a server may write 7.0 for 7), anything else as written.
func idKey(raw string) string {
	raw = strings.TrimSpace(raw)
	if f, err := strconv.ParseFloat(raw, 64); err == nil {
		return "n:" + strconv.FormatFloat(f, 'g', -1, 64)
	}
	return raw
}

// write writes b; a failure says what could not be written and what the
// server did (closed its side, its exit status and last stderr lines).
func (r *rawConn) write(b []byte) error {
	r.wmu.Lock()
	defer r.wmu.Unlock()
	_, err := r.tc.Write(b)
	if err == nil {
		return nil
	}
	state := "the connection is still open"
	select {
	case <-r.done:
		state = "the server had closed the connection"
	default:
	}
	r.mu.Lock()
	if r.err != nil && r.err != io.EOF {
		state += "; reading had stopped: " + r.err.Error()
	}
	r.mu.Unlock()
	return fmt.Errorf("writing %d bytes (%q) on %s failed, %s: %w; %s", len(b), r.env.Redact(clip(string(b))), r.conn.label(), state, err, r.tc.Diagnostics())
}

// framed returns content framed with a correct header.
func framed(content string) []byte {
	return []byte("Content-Length: " + strconv.Itoa(len(content)) + "\r\n\r\n" + content)
}

// Send writes one framed message.
func (r *rawConn) Send(content string) error {
	r.env.recordFrame(r.conn, rpc.Sent, []byte(content))
	r.track([]byte(content))
	r.conn.suiteWrote([]byte(content))
	return r.write(framed(content))
}

// track records the id of a request the suite writes (of each element,
// for a batch: a server that answers them breaks WIRE-006, not WIRE-008).
func (r *rawConn) track(content []byte) {
	if t := bytes.TrimSpace(content); len(t) > 0 && t[0] == '[' {
		var batch []json.RawMessage
		if json.Unmarshal(t, &batch) == nil {
			for _, el := range batch {
				r.track(el)
			}
		}
		return
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(content, &m) != nil {
		return
	}
	if _, isMsg := m["method"]; !isMsg {
		return
	}
	var method string
	if json.Unmarshal(m["method"], &method) != nil {
		method = string(m["method"])
	}
	if method == wire.MethodShutdown || method == wire.MethodExit {
		r.mu.Lock()
		r.closeBegun = true
		r.mu.Unlock()
	}
	if m["id"] == nil {
		return
	}
	r.mu.Lock()
	if len(r.pending) < 4096 {
		r.pending[string(m["id"])] = method
		r.outstanding[idKey(string(m["id"]))]++
	} else {
		r.untracked = true
	}
	r.mu.Unlock()
}

// checkID files a response against the requests written: a response whose
// id matches none but would match one in another JSON type ("1" for 1) is
// a WIRE-008 violation ("the request's id in the same JSON type and value";
// §1.4 "A receiver echoes an id unchanged, with the same JSON type and
// value").
func (r *rawConn) checkID(f *frame) {
	if !f.IsResponse() {
		return
	}
	id := f.ID()
	r.mu.Lock()
	defer r.mu.Unlock()
	key := idKey(id)
	if r.outstanding[key] > 0 {
		r.outstanding[key]--
		m := r.pending[id]
		if r.outstanding[key] == 0 {
			delete(r.outstanding, key)
			delete(r.pending, id)
		}
		if len(r.answeredIDs) < 4096 {
			r.answeredIDs[key] = orDefault(m, "a request")
		}
		if _, ok := f.Msg["result"]; ok && m == wire.MethodInitialize {
			r.handshaken = true
		}
		return
	}
	var other string
	if s, err := strconv.Unquote(id); err == nil && strings.HasPrefix(id, `"`) {
		other = s
	} else {
		other = strconv.Quote(id)
	}
	if m, ok := r.pending[other]; ok {
		r.env.violationIn(msgCtx{conn: r.conn, where: fmt.Sprintf("the answer to %s (id %s)", m, other)}, "WIRE-008", "the response to the request with id %s carries the id %s, another JSON type", other, id)
		return
	}
	// "The server sends exactly one response per request" (§1.4): a
	// response to an id already answered, or (when every byte the suite
	// wrote was read as frames) to one never written. A null id answers
	// what could not be read (§1.3).
	if id == "null" || id == "" {
		return
	}
	if m, ok := r.answeredIDs[key]; ok {
		r.env.violationIn(msgCtx{conn: r.conn, where: fmt.Sprintf("a second answer to %s (id %s)", m, id)}, "WIRE-008", "a second response to the request with id %s, already answered on this connection (§1.4: exactly one response per request): %s", id, r.env.Redact(clip(string(f.Content))))
		return
	}
	if !r.untracked {
		f.stray = true
		r.env.violationIn(msgCtx{conn: r.conn, where: "a response to no request"}, "WIRE-008", "a response with id %s answers no request the suite wrote on this connection (§1.4: a response echoes a request's id): %s", id, r.env.Redact(clip(string(f.Content))))
	}
}

// Next returns the next frame, or an error when the connection ended or ctx
// is done.
func (r *rawConn) Next(ctx context.Context) (*frame, error) {
	select {
	case f, ok := <-r.frames:
		if !ok {
			r.mu.Lock()
			err := r.err
			r.mu.Unlock()
			var be *brokenStream
			if errors.As(err, &be) {
				// The running spec reads a broken stream (perhaps one a
				// scenario opened before it): it ends not verified.
				r.env.streamBroke(be.Error())
				return nil, fmt.Errorf("no frame can follow: %w", be)
			}
			return nil, fmt.Errorf("connection ended: %w", peerEnded(r.tc, err))
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
func (r *rawConn) NextResponse(ctx context.Context) (*frame, error) {
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
func (r *rawConn) Response(ctx context.Context, id string) (*frame, error) {
	waited, method := "id "+id, "the request"
	r.mu.Lock()
	if m, ok := r.pending[id]; ok {
		waited, method = fmt.Sprintf("%s (id %s)", m, id), m
	}
	r.mu.Unlock()
	start := time.Now()
	for {
		f, err := r.Next(ctx)
		if err != nil {
			if ctx.Err() != nil {
				// A silent server: say which request went unanswered, and
				// for how long.
				return nil, &rpc.NoAnswerError{Method: method, ID: id, Waited: time.Since(start), Err: context.Cause(ctx)}
			}
			return nil, fmt.Errorf("waiting for the response to %s: %w", waited, err)
		}
		if !f.IsResponse() || f.stray {
			continue
		}
		if f.ID() != id {
			return f, fmt.Errorf("got a response with id %s (%s) while waiting for the answer to %s", f.ID(), r.env.Redact(clip(string(f.Content))), waited)
		}
		return f, nil
	}
}

// Call sends a request and waits for its response.
func (r *rawConn) Call(ctx context.Context, id, method, params string) (*frame, error) {
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
		r.env.checkResult(method, f.Result(), f.answerCtx(method))
	}
	return f, err
}

// Notify sends a notification.
func (r *rawConn) Notify(method, params string) error {
	msg := `{"jsonrpc":"2.0","method":"` + method + `"`
	if params != "" {
		msg += `,"params":` + params
	}
	return r.Send(msg + "}")
}

// initializeParams are valid initialize params for role.
func initializeParams(role string) string {
	return `{"protocolVersion":1,"clientInfo":{"name":"e2e-conform"},"role":"` + role + `"}`
}

// Initialize runs the handshake (initialize with id 0, then initialized).
func (r *rawConn) Initialize(ctx context.Context) (*frame, error) {
	f, err := r.Call(ctx, "0", "initialize", initializeParams("worker"))
	if err != nil {
		return nil, err
	}
	if eo := f.Error(); eo != nil {
		return f, fmt.Errorf("initialize failed: %d %s", eo.Code, eo.Message)
	}
	return f, r.Notify("initialized", "{}")
}

// Ended is closed when the server closed its side.
func (r *rawConn) Ended() <-chan struct{} { return r.done }

// Conn is the transport connection (for spawn: a transport.SpawnConn).
func (r *rawConn) Conn() transport.Conn { return r.tc }

// Close releases the connection within timeout.
// idle reports whether the connection can be handed on: it still reads,
// the suite wrote only frames it tracks, no request the suite wrote is unanswered, and of what waits
// unread (drained here) nothing is a response.
func (r *rawConn) idle() bool {
	r.mu.Lock()
	ok := r.err == nil && !r.untracked && len(r.pending) == 0
	r.mu.Unlock()
	if !ok || r.closing.Load() {
		return false
	}
	for {
		select {
		case f, open := <-r.frames:
			if !open || f.IsResponse() || f.Msg == nil {
				return false
			}
		default:
			return true
		}
	}
}

func (r *rawConn) Close(timeout time.Duration) error {
	r.closing.Store(true)
	return r.tc.Close(timeout)
}

// releaseBudget bounds the answer to a release's shutdown, and then the
// server's close after its exit.
const releaseBudget = 2 * time.Second

// releaseID is the id of a release's shutdown request.
const releaseID = `"release"`

// release ends r when its spec is done with it. Over a socket, a
// connection whose handshake succeeded, with nothing unanswered, no bytes
// written that were not frames, and on which the spec began no close of
// its own, is ended as a harness ends one (§2.9: shutdown, its result,
// exit, then the transport closes); any other is closed at once, as Close.
//
// Why: "One connection's close does not disturb another's requests"
// (§9.2) is TRN-005's, judged by its own spec, which closes a connection
// without shutdown on purpose. When every raw connection ended so, a
// server that ends every connection when one closes without shutdown
// (saboteur close-kills-all) broke whatever connection another spec held
// at that moment, at random, under requirements it never judged (issue
// 25). A spec's own connection it closes on purpose keeps Close.
//
// Spawned servers are closed as before: each connection is a process of
// its own (§9.1), whose end disturbs no other. Once one release's shutdown
// went unanswered within releaseBudget, the rest of the run closes at
// once, so that an engine that never answers shutdown costs one budget.
func (r *rawConn) release(timeout time.Duration) error {
	if !r.releasable() {
		return r.Close(timeout)
	}
	ctx, cancel := context.WithTimeout(context.Background(), releaseBudget)
	defer cancel()
	f, err := r.Call(ctx, releaseID, wire.MethodShutdown, "")
	switch {
	case err != nil:
		if ctx.Err() != nil {
			r.env.releaseUnanswered.Store(true)
		}
	case f.Error() == nil && r.Notify(wire.MethodExit, "") == nil:
		select {
		case <-r.done:
		case <-ctx.Done():
		}
	}
	return r.Close(timeout)
}

// releasable reports whether release ends r with the close sequence.
func (r *rawConn) releasable() bool {
	if r.env.guard == nil || r.env.releaseUnanswered.Load() || r.closing.Load() {
		return false
	}
	select {
	case <-r.done:
		return false
	default:
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err == nil && r.handshaken && !r.closeBegun && !r.untracked && len(r.pending) == 0
}

func clip(s string) string { return report.Clip(s) }

// contentFault says what is wrong with a content part that is not UTF-8
// JSON, showing the bytes around the fault ("" when it is UTF-8 JSON).
func contentFault(b []byte) string {
	if !utf8.Valid(b) {
		at := 0
		for at < len(b) {
			r, n := utf8.DecodeRune(b[at:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			at += n
		}
		return fmt.Sprintf("byte %d of %d (0x%02x) is not UTF-8: %s", at, len(b), b[at], around(b, at))
	}
	var v any
	err := json.Unmarshal(b, &v)
	if err == nil {
		return ""
	}
	var se *json.SyntaxError
	if errors.As(err, &se) && int(se.Offset) < len(b) {
		at := int(se.Offset)
		if se.Offset > 0 {
			at-- // the offset is past the byte that broke the syntax
		}
		return fmt.Sprintf("%v at byte %d of %d: %s", se, at, len(b), around(b, at))
	}
	// The input ended inside the value: the Content-Length is likely too
	// small (or the server wrote a truncated value).
	return fmt.Sprintf("the content ends (%d bytes) before its JSON value does (%v), so the announced Content-Length is likely short of the value: it ends %s", len(b), err, around(b, len(b)))
}

// around quotes up to 40 bytes on each side of offset at of b, marking the
// offset with ⟦here⟧.
func around(b []byte, at int) string {
	lo, hi := max(at-40, 0), min(at+40, len(b))
	pre, post := "", ""
	if lo > 0 {
		pre = "…"
	}
	if hi < len(b) {
		post = "…"
	}
	return fmt.Sprintf("%s%q⟦here⟧%q%s", pre, b[lo:at], b[at:hi], post)
}

// endErr is why r stopped reading: io.EOF when the server closed cleanly,
// a framing error otherwise, nil while it reads.
func (r *rawConn) endErr() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}
