package client_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/e2e-conform/toolkit/protocol/client"
	"github.com/e2e-conform/toolkit/protocol/server"
	"github.com/e2e-conform/toolkit/protocol/transport"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// noop answers engine/observe with a fixed one-node snapshot: the round
// trip is all protocol work.
type noop struct{}

func (noop) Info() server.Info { return server.Info{Name: "noop", Version: "1"} }

func (noop) Observe(ctx context.Context, op server.Operation, o wire.EngineObserveOptions) (*wire.EngineSnapshot, error) {
	return &wire.EngineSnapshot{Root: wire.SemanticNode{Ref: wire.NodeRef{ID: "root"}}, Viewport: wire.ViewportSize{Width: 1280, Height: 720}}, nil
}

// The bytes of one observe exchange, as the client and server write them;
// the raw baselines move exactly these.
var (
	observeRequest  = `{"jsonrpc":"2.0","id":12,"method":"engine/observe","params":{"operation":{"signal":{"id":12},"timeoutMs":30000,"runId":"r","attemptId":"a","origin":"test"}}}`
	observeResponse = `{"jsonrpc":"2.0","id":12,"result":{"root":{"ref":{"id":"root","revision":""}},"viewport":{"width":1280,"height":720}}}`
)

func frameOf(s string) []byte { return []byte(fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(s), s)) }

// echoFrames reads frames from r and answers each with resp: the raw
// baseline's server.
func echoFrames(r io.Reader, w io.Writer, resp []byte) {
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return
		}
		n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "Content-Length: ")))
		br.ReadString('\n')
		if _, err := br.Discard(n); err != nil {
			return
		}
		if _, err := w.Write(resp); err != nil {
			return
		}
	}
}

// pingPong writes the request frame and reads the response frame, n times.
func pingPong(b *testing.B, w io.Writer, r io.Reader) {
	req := frameOf(observeRequest)
	respLen := len(frameOf(observeResponse))
	buf := make([]byte, respLen)
	b.SetBytes(int64(len(req) + respLen))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := w.Write(req); err != nil {
			b.Fatal(err)
		}
		if _, err := io.ReadFull(r, buf); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRawLoopback is the loopback baseline: the same bytes over the
// in-memory pipe, answered by a goroutine that only frames.
func BenchmarkRawLoopback(b *testing.B) {
	c, s := transport.Pipe()
	go echoFrames(s, s, frameOf(observeResponse))
	defer c.Close()
	defer s.Close()
	pingPong(b, c, c)
}

// BenchmarkRawSpawn is the spawn baseline: the same bytes through a child
// process's stdin and stdout, answered by a child that only frames.
func BenchmarkRawSpawn(b *testing.B) {
	tc, err := spawnSelf(b, "echo-frames").Open(context.Background(), transport.Context{})
	if err != nil {
		b.Fatal(err)
	}
	defer tc.Close(2e9)
	pingPong(b, tc, tc)
}

func benchObserve(b *testing.B, tr transport.Transport) {
	m := server.DescribeEngine(noop{})
	c := open(b, tr, func(cc *client.ConnConfig) { cc.Manifest = &m })
	ctx := context.Background()
	op := client.Op{RunID: "r", AttemptID: "a"}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := c.Observe(ctx, op, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkObserveLoopback is a no-op engine/observe round trip over
// loopback: client and server in this process, every message framed.
func BenchmarkObserveLoopback(b *testing.B) {
	benchObserve(b, server.LoopbackTransport(noop{}, server.Options{Schemas: schemas}))
}

// BenchmarkObserveSpawn is the same round trip with the server in a child
// process over stdin and stdout.
func BenchmarkObserveSpawn(b *testing.B) { benchObserve(b, spawnSelf(b, "noop")) }

// BenchmarkObservePipelined keeps 16 observes in flight on one loopback
// connection; ns/op is per observe.
func BenchmarkObservePipelined(b *testing.B) {
	m := server.DescribeEngine(noop{})
	c := open(b, server.LoopbackTransport(noop{}, server.Options{Schemas: schemas}), func(cc *client.ConnConfig) { cc.Manifest = &m })
	ctx := context.Background()
	op := client.Op{RunID: "r", AttemptID: "a"}
	const depth = 16
	b.ReportAllocs()
	b.ResetTimer()
	var wg sync.WaitGroup
	work := make(chan struct{}, b.N)
	for i := 0; i < b.N; i++ {
		work <- struct{}{}
	}
	close(work)
	for w := 0; w < depth; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range work {
				if _, err := c.Observe(ctx, op, nil); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func serveNoopOrEcho(mode string) bool {
	switch mode {
	case "noop":
		os.Exit(server.ServeStdio(noop{}, server.Options{}))
	case "echo-frames":
		echoFrames(os.Stdin, os.Stdout, frameOf(observeResponse))
		os.Exit(0)
	}
	return false
}
