package server_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/e2e-conform/toolkit/protocol/server"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// quiet answers engine/observe at once.
type quiet struct{}

func (quiet) Info() server.Info { return server.Info{Name: "quiet", Version: "1"} }

func (quiet) Observe(context.Context, server.Operation, wire.EngineObserveOptions) (*wire.EngineSnapshot, error) {
	return &wire.EngineSnapshot{Root: wire.SemanticNode{Ref: wire.NodeRef{ID: "root"}}, Viewport: wire.ViewportSize{Width: 1, Height: 1}}, nil
}

// readFrame reads one frame's content from r.
func readFrame(t *testing.T, r *bufio.Reader) []byte {
	t.Helper()
	length := -1
	for {
		line, err := r.ReadSlice('\n')
		if err != nil {
			t.Fatalf("reading a header: %v", err)
		}
		if len(line) <= 2 {
			break
		}
		if v, ok := bytes.CutPrefix(line, []byte("Content-Length: ")); ok {
			length, _ = strconv.Atoi(string(bytes.TrimSpace(v)))
		}
	}
	content := make([]byte, length)
	if _, err := io.ReadFull(r, content); err != nil {
		t.Fatalf("reading content: %v", err)
	}
	return content
}

// A client that sends requests and never reads the responses is held at
// the in-flight cap: the server stops reading, so what the client manages
// to write is bounded by the cap and the server's read buffer, whatever it
// tries to send; once it reads, every request is answered. net.Pipe is
// synchronous: a write completes only when the server has read it, so the
// count of completed writes is the count of requests the server took in.
func TestClientThatNeverReadsIsHeldAtTheCap(t *testing.T) {
	const capN = 8
	const total = 2000
	cli, srv := net.Pipe()
	opts := server.Options{Schemas: schemas, MaxInFlight: capN}
	stops := make(chan int, total)
	server.SetAtCap(&opts, func(n int) { stops <- n })
	served := make(chan error, 1)
	go func() { served <- server.ServeEngine(context.Background(), quiet{}, srv, opts) }()

	br := bufio.NewReader(cli)
	write := func(content string) {
		if _, err := fmt.Fprintf(cli, "Content-Length: %d\r\n\r\n%s", len(content), content); err != nil {
			t.Errorf("write: %v", err)
		}
	}
	write(fmt.Sprintf(initReq, "0"))
	readFrame(t, br)
	write(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)

	req := func(i int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"engine/observe","params":{"operation":%s}}`, i, op(`{"id":1}`))
	}
	frameLen := len(fmt.Sprintf("Content-Length: %d\r\n\r\n", len(req(1000)))) + len(req(1000))
	var written atomic.Int64
	wrote := make(chan struct{})
	go func() {
		defer close(wrote)
		for i := 1000; i < 1000+total; i++ {
			write(req(i))
			written.Add(1)
		}
	}()
	select {
	case n := <-stops:
		if n != capN {
			t.Errorf("reading stopped with %d requests in flight, want the cap %d", n, capN)
		}
	case <-wrote:
		t.Fatalf("the server read all %d requests of a client that reads nothing", total)
	}
	// The server is blocked at the cap and the client reads nothing: no
	// response can be written, so nothing more is read. What it took in is
	// the cap plus what its 64 KiB read buffer holds.
	limit := int64(capN + 64<<10/frameLen + 1)
	if w := written.Load(); w > limit {
		t.Errorf("the client wrote %d requests while none was answered, want at most %d", w, limit)
	}
	// Draining answers everything.
	for i := 0; i < total; i++ {
		if c := readFrame(t, br); !bytes.Contains(c, []byte(`"result"`)) {
			t.Fatalf("response %d: %s", i, c)
		}
	}
	<-wrote
	close(stops)
	for n := range stops {
		if n > capN {
			t.Errorf("%d requests in flight, above the cap %d", n, capN)
		}
	}
	cli.Close()
	<-served
}
