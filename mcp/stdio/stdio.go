// Package stdio is e2e-mcp's MCP transport on a byte stream (stdin and
// stdout): newline-delimited JSON-RPC 2.0, as the SDK's mcp.IOTransport,
// except that a line that is not a valid message does not end the session.
// The SDK's transport (go-sdk v1.8.0) decodes the whole stream with one
// json.Decoder and stops at the first line it cannot read, so one malformed
// line (invalid JSON or UTF-8, a batch, nesting over 1000 levels,
// "jsonrpc":"1.0", a line over 16 MiB) ended the server with exit 0. Here
// each line is read on its own, with a bounded buffer: a line that is not a
// message is answered with a JSON-RPC error (-32700 parse error, -32600
// invalid request; id null when it cannot be read) and skipped, and reading
// goes on at the next newline. A line over the bound is answered and
// skipped without being buffered whole. The session ends only when the
// stream does (EOF or a read or write error: the client disconnected,
// spec mcp.md §7.2).
//
// JSON-RPC batches are answered with one -32600 error: MCP removed them in
// protocol version 2025-06-18 and no client sends them.
//
// This package is dropped when the SDK fixes upstream issue
// modelcontextprotocol/go-sdk#1209 (fix proposed in PR #1210).
package stdio

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultMaxLine bounds one line (one message), as the SDK's
// DefaultMaxLineLength.
const DefaultMaxLine = 16 << 20

// DefaultMaxInFlight is the default cap on the requests read and not yet
// answered (Transport.MaxInFlight), as the engine protocol server's.
const DefaultMaxInFlight = 256

// MaxDepth is the deepest nesting of arrays and objects a message may have
// (the SDK's decoder refuses more).
const MaxDepth = 1000

// Transport is an mcp.Transport on Reader and Writer. Connect may be
// called once.
type Transport struct {
	Reader io.ReadCloser
	Writer io.WriteCloser
	// MaxLine bounds a line in bytes; 0 is DefaultMaxLine.
	MaxLine int
	// Logger gets one warning per refused line (its number and why, never
	// its content); nil logs nothing.
	Logger *slog.Logger
	// MaxInFlight caps the requests read and not yet answered; 0 is
	// DefaultMaxInFlight. At the cap reading stops until an answer has been
	// written (backpressure). The SDK runs every call but initialize in a
	// goroutine of its own and queues without bound, so without the cap a
	// client that sends requests and never reads the answers had one
	// goroutine blocked on the full stdout per request, as many as it cared
	// to send (issue 12). Notifications are not counted: the SDK handles
	// them at once, and none writes an answer. A request reusing the id of
	// one in flight takes no slot (the SDK refuses it).
	MaxInFlight int

	// atCap, set by tests, is told each time reading stops at the cap,
	// with the number of requests in flight.
	atCap func(inFlight int)

	disconnected atomic.Bool
}

// Disconnected reports whether the stream ended (EOF, or a read or write
// error): the client went away.
func (t *Transport) Disconnected() bool { return t.disconnected.Load() }

// Connect implements mcp.Transport.
func (t *Transport) Connect(context.Context) (mcp.Connection, error) {
	max := t.MaxLine
	if max <= 0 {
		max = DefaultMaxLine
	}
	log := t.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	capacity := t.MaxInFlight
	if capacity <= 0 {
		capacity = DefaultMaxInFlight
	}
	c := &conn{t: t, r: t.Reader, w: t.Writer, log: log, incoming: make(chan msgOrErr), closed: make(chan struct{}),
		slots: make(chan struct{}, capacity), flight: map[jsonrpc.ID]bool{}}
	go c.readLoop(max)
	return c, nil
}

type msgOrErr struct {
	msg jsonrpc.Message
	err error
}

type conn struct {
	t        *Transport
	r        io.ReadCloser
	w        io.WriteCloser
	log      *slog.Logger
	wmu      sync.Mutex
	incoming chan msgOrErr
	closed   chan struct{}
	once     sync.Once
	closeErr error

	slots  chan struct{} // one token per request read and not yet answered
	fmu    sync.Mutex
	flight map[jsonrpc.ID]bool // ids of the requests holding a slot
}

// take gives request id a slot before it is handed to the SDK, waiting at
// the cap until an answer is written; false once the connection closed.
func (c *conn) take(id jsonrpc.ID) bool {
	c.fmu.Lock()
	dup := c.flight[id]
	c.fmu.Unlock()
	if dup {
		return true
	}
	select {
	case c.slots <- struct{}{}:
	default:
		if c.t.atCap != nil {
			c.t.atCap(len(c.slots))
		}
		select {
		case c.slots <- struct{}{}:
		case <-c.closed:
			return false
		}
	}
	c.fmu.Lock()
	c.flight[id] = true
	c.fmu.Unlock()
	return true
}

// answered frees the slot of request id once its answer was written.
func (c *conn) answered(id jsonrpc.ID) {
	c.fmu.Lock()
	defer c.fmu.Unlock()
	if c.flight[id] {
		delete(c.flight, id)
		<-c.slots
	}
}

// readLoop reads lines until the stream ends, answers the ones that are
// not messages, and hands the others to Read.
func (c *conn) readLoop(max int) {
	br := bufio.NewReaderSize(c.r, 64<<10)
	for n := 1; ; n++ {
		line, long, err := readLine(br, max)
		if len(bytes.TrimSpace(line)) > 0 || long {
			msg, refusal := parse(line, long, max)
			if refusal != nil {
				c.log.Warn(fmt.Sprintf("client line %d refused: %s", n, refusal.msg), "code", refusal.code)
				if werr := c.writeRaw(refusal.encode()); werr != nil {
					c.deliver(msgOrErr{err: werr})
					return
				}
			} else if req, ok := msg.(*jsonrpc.Request); ok && req.ID.IsValid() && !c.take(req.ID) {
				return
			} else if !c.deliver(msgOrErr{msg: msg}) {
				return
			}
		}
		if err != nil {
			c.t.disconnected.Store(true)
			c.deliver(msgOrErr{err: err})
			return
		}
	}
}

// deliver hands m to Read; false once the connection is closed.
func (c *conn) deliver(m msgOrErr) bool {
	select {
	case c.incoming <- m:
		return true
	case <-c.closed:
		return false
	}
}

// readLine reads one line without its newline. A line longer than max is
// not kept: long is set and the rest of it is read and dropped. err is
// the stream's error (io.EOF at its end) after the last line.
func readLine(br *bufio.Reader, max int) (line []byte, long bool, err error) {
	for {
		chunk, rerr := br.ReadSlice('\n')
		if !long {
			if len(line)+len(chunk) > max+1 { // +1: the newline
				long, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		switch {
		case rerr == nil:
			return bytes.TrimSuffix(line, []byte{'\n'}), long, nil
		case errors.Is(rerr, bufio.ErrBufferFull):
			continue
		default:
			return line, long, rerr
		}
	}
}

// refusal is the error answer to a line that is not a valid message.
type refusal struct {
	id   json.RawMessage // nil: null
	code int64
	msg  string
}

func (r *refusal) encode() []byte {
	id := r.id
	if id == nil {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: r.code, Message: r.msg}})
	return append(b, '\n')
}

func parseError(format string, args ...any) *refusal {
	return &refusal{code: jsonrpc.CodeParseError, msg: "Parse error: " + fmt.Sprintf(format, args...)}
}

func invalidRequest(id json.RawMessage, format string, args ...any) *refusal {
	return &refusal{id: id, code: jsonrpc.CodeInvalidRequest, msg: "Invalid Request: " + fmt.Sprintf(format, args...)}
}

// parse checks one line and decodes it, or says why it is refused. The
// reasons name byte offsets, never the line's content.
func parse(line []byte, long bool, max int) (jsonrpc.Message, *refusal) {
	if long {
		return nil, parseError("the line is longer than %d bytes; it was skipped", max)
	}
	line = bytes.TrimSuffix(line, []byte{'\r'})
	if !utf8.Valid(line) {
		off := 0
		for off < len(line) {
			r, n := utf8.DecodeRune(line[off:])
			if r == utf8.RuneError && n == 1 {
				break
			}
			off += n
		}
		return nil, parseError("the line is not UTF-8 at byte offset %d", off)
	}
	if d, at := depth(line); d > MaxDepth {
		return nil, parseError("the line nests arrays and objects deeper than %d levels (at byte offset %d)", MaxDepth, at)
	}
	var v any
	if err := json.Unmarshal(line, &v); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) && se.Offset < int64(len(line)) {
			return nil, parseError("the line is not valid JSON at byte offset %d", se.Offset-1)
		}
		return nil, parseError("the line is not valid JSON: it ends before its value is complete")
	}
	var members map[string]json.RawMessage
	switch v.(type) {
	case []any:
		return nil, invalidRequest(nil, "JSON-RPC batches are not supported (MCP removed them in 2025-06-18); send one message per line")
	case map[string]any:
		_ = json.Unmarshal(line, &members)
	default:
		return nil, invalidRequest(nil, "a message is a JSON object")
	}
	id, hasID := members["id"]
	var idv any
	if hasID {
		_ = json.Unmarshal(id, &idv)
		switch idv.(type) {
		case string, float64:
		case nil:
			id = nil
		default:
			return nil, invalidRequest(nil, "id must be a string, a number or null")
		}
	}
	var version string
	if json.Unmarshal(members["jsonrpc"], &version) != nil || version != "2.0" {
		return nil, invalidRequest(id, `"jsonrpc" must be "2.0"`)
	}
	method, hasMethod := members["method"]
	if hasMethod {
		var m string
		if json.Unmarshal(method, &m) != nil {
			return nil, invalidRequest(id, `"method" must be a string`)
		}
	} else {
		_, res := members["result"]
		_, er := members["error"]
		if !res && !er {
			return nil, invalidRequest(id, `a message has a "method" (a request or notification) or a "result" or "error" (a response)`)
		}
		if id == nil {
			return nil, invalidRequest(nil, "a response needs the id of its request")
		}
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		return nil, invalidRequest(id, "the message does not decode as JSON-RPC 2.0")
	}
	return msg, nil
}

// depth is the deepest nesting of arrays and objects in b, and the byte
// offset where it first exceeds MaxDepth.
func depth(b []byte) (deepest, at int) {
	d := 0
	inString, escaped := false, false
	for i, c := range b {
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			d++
			if d > deepest {
				deepest = d
				if d == MaxDepth+1 {
					return deepest, i
				}
			}
		case '}', ']':
			d--
		}
	}
	return deepest, 0
}

// Read implements mcp.Connection.
func (c *conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case m := <-c.incoming:
		return m.msg, m.err
	case <-c.closed:
		return nil, io.EOF
	}
}

// Write implements mcp.Connection.
func (c *conn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if resp, ok := msg.(*jsonrpc.Response); ok {
		defer c.answered(resp.ID) // written or not, it is no longer in flight
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encode message: %w", err)
	}
	return c.writeRaw(append(b, '\n'))
}

func (c *conn) writeRaw(b []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if _, err := c.w.Write(b); err != nil {
		c.t.disconnected.Store(true)
		return fmt.Errorf("write: %w", err)
	}
	return nil
}

// Close implements mcp.Connection: it closes the reader and the writer.
func (c *conn) Close() error {
	c.once.Do(func() {
		close(c.closed)
		c.closeErr = errors.Join(c.r.Close(), c.w.Close())
	})
	return c.closeErr
}

// SessionID implements mcp.Connection (stdio has none).
func (c *conn) SessionID() string { return "" }
