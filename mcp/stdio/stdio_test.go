package stdio

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// client is the far end of a server running on a Transport.
type client struct {
	t    *testing.T
	in   *io.PipeWriter // the server's stdin
	out  *bufio.Reader  // the server's stdout
	done chan error
	tr   *Transport
}

func start(t *testing.T, maxLine int) *client {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	tr := &Transport{Reader: inR, Writer: outW, MaxLine: maxLine}
	s := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	c := &client{t: t, in: inW, out: bufio.NewReaderSize(outR, 1<<20), done: make(chan error, 1), tr: tr}
	go func() { c.done <- s.Run(context.Background(), tr) }()
	t.Cleanup(func() {
		inW.Close()
		go io.Copy(io.Discard, outR) // the server may still write
		<-c.done
		outR.Close()
	})
	return c
}

func (c *client) send(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		c.t.Fatal(err)
	}
}

type answer struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func (c *client) recv() answer {
	c.t.Helper()
	line, err := c.out.ReadString('\n')
	if err != nil {
		c.t.Fatalf("read: %v", err)
	}
	var a answer
	if err := json.Unmarshal([]byte(line), &a); err != nil {
		c.t.Fatalf("answer %q: %v", line, err)
	}
	return a
}

func (c *client) ping(id int) {
	c.t.Helper()
	c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, id))
	if a := c.recv(); string(a.ID) != fmt.Sprint(id) || a.Error != nil || a.Result == nil {
		c.t.Fatalf("ping %d: %+v", id, a)
	}
}

// TestMalformedLinesAnswered: every malformed line gets its JSON-RPC
// error, and a valid request after it is answered (the session goes on).
func TestMalformedLinesAnswered(t *testing.T) {
	const maxLine = 64 << 10
	c := start(t, maxLine)
	c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	if a := c.recv(); a.Error != nil || a.Result == nil {
		t.Fatalf("initialize: %+v", a)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	deep := `{"a":` + strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1) + `}`
	tests := []struct {
		name, line string
		code       int64
		id         string
		msg        string
	}{
		{"invalid JSON", `{bad json`, -32700, "null", "not valid JSON at byte offset 1"},
		{"truncated JSON", `{"jsonrpc":"2.0","id":3,"method":"pi`, -32700, "null", "ends before"},
		{"invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\",\"x\":\"\xff\"}", -32700, "null", "not UTF-8 at byte offset 45"},
		{"nesting over 1000", deep, -32700, "null", "deeper than 1000"},
		{"line over the bound", `{"jsonrpc":"2.0","id":5,"method":"ping","x":"` + strings.Repeat("y", 4*maxLine) + `"}`, -32700, "null", "longer than 65536 bytes"},
		{"batch", `[{"jsonrpc":"2.0","id":6,"method":"ping"}]`, -32600, "null", "batches are not supported"},
		{"empty batch", `[]`, -32600, "null", "batches"},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":7,"method":"ping"}`, -32600, "7", `"jsonrpc" must be "2.0"`},
		{"no jsonrpc", `{"id":"x8","method":"ping"}`, -32600, `"x8"`, `"jsonrpc" must be "2.0"`},
		{"not an object", `42`, -32600, "null", "a JSON object"},
		{"bad id type", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, -32600, "null", "id must be"},
		{"method not a string", `{"jsonrpc":"2.0","id":9,"method":9}`, -32600, "9", `"method" must be a string`},
		{"neither request nor response", `{"jsonrpc":"2.0","id":10}`, -32600, "10", `"method"`},
		{"response without id", `{"jsonrpc":"2.0","result":{}}`, -32600, "null", "needs the id"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c.t = t
			c.send(tt.line)
			a := c.recv()
			if a.Error == nil || a.Error.Code != tt.code || string(a.ID) != tt.id || !strings.Contains(a.Error.Message, tt.msg) {
				t.Errorf("answer %+v %+v, want code %d id %s message with %q", a, a.Error, tt.code, tt.id, tt.msg)
			}
			if strings.Contains(a.Error.Message, "bad json") || strings.Contains(a.Error.Message, "yyyy") {
				t.Errorf("the answer quotes the line: %q", a.Error.Message)
			}
			c.ping(100 + i)
		})
	}
	c.t = t
	// Blank lines and CRLF are not errors.
	c.send("")
	c.send(`{"jsonrpc":"2.0","id":200,"method":"ping"}` + "\r")
	if a := c.recv(); string(a.ID) != "200" || a.Error != nil {
		t.Errorf("CRLF ping: %+v", a)
	}
	// Only the end of the stream ends the session.
	c.in.Close()
	if err := <-c.done; err != nil && err != io.EOF && !strings.Contains(err.Error(), "EOF") {
		t.Errorf("Run: %v", err)
	}
	c.done <- nil // for the cleanup
	if !c.tr.Disconnected() {
		t.Error("the end of stdin is not a disconnect")
	}
}

// A client that sends requests and never reads the answers is held at the
// in-flight cap: reading stops, so what the client manages to write is
// bounded by the cap and the 64 KiB read buffer, whatever it tries to
// send; once it reads, every request is answered. io.Pipe is synchronous:
// a write completes only when the transport has read it.
func TestClientThatNeverReadsIsHeldAtTheCap(t *testing.T) {
	const capN = 8
	const total = 3000
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	stops := make(chan int, total)
	tr := &Transport{Reader: inR, Writer: outW, MaxInFlight: capN, atCap: func(n int) { stops <- n }}
	s := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	done := make(chan error, 1)
	go func() { done <- s.Run(context.Background(), tr) }()
	c := &client{t: t, in: inW, out: bufio.NewReaderSize(outR, 1<<20)}
	c.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	if a := c.recv(); a.Result == nil {
		t.Fatalf("initialize: %+v", a)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	req := func(i int) string { return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`+"\n", i) }
	var written atomic.Int64
	wrote := make(chan struct{})
	go func() {
		defer close(wrote)
		for i := 1000; i < 1000+total; i++ {
			if _, err := io.WriteString(inW, req(i)); err != nil {
				return
			}
			written.Add(1)
		}
	}()
	select {
	case n := <-stops:
		if n != capN {
			t.Errorf("reading stopped with %d requests in flight, want the cap %d", n, capN)
		}
	case <-wrote:
		t.Fatalf("the transport read all %d requests of a client that reads nothing", total)
	}
	// Stopped at the cap with nothing read by the client: no answer can be
	// written, so nothing more is read. What it took in is the cap, the
	// one answer each SDK goroutine may be writing, and what the 64 KiB
	// read buffer holds.
	limit := int64(2*capN + 64<<10/len(req(1000)) + 1)
	if w := written.Load(); w > limit {
		t.Errorf("the client wrote %d requests while none was answered, want at most %d", w, limit)
	}
	for i := 0; i < total; i++ {
		if a := c.recv(); a.Result == nil {
			t.Fatalf("answer %d: %+v", i, a)
		}
	}
	<-wrote
	close(stops)
	for n := range stops {
		if n > capN {
			t.Errorf("%d requests in flight, above the cap %d", n, capN)
		}
	}
	inW.Close()
	go io.Copy(io.Discard, outR)
	<-done
	outR.Close()
}
