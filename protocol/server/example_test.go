package server_test

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/e2e-conform/toolkit/protocol/client"
	"github.com/e2e-conform/toolkit/protocol/server"
	"github.com/e2e-conform/toolkit/protocol/transport"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// hello is a minimal engine: it answers engine/observe with one node.
type hello struct{}

func (hello) Info() server.Info {
	return server.Info{Name: "hello", Version: "0.1.0", Platform: "demo"}
}

func (hello) Observe(ctx context.Context, op server.Operation, o wire.EngineObserveOptions) (*wire.EngineSnapshot, error) {
	return &wire.EngineSnapshot{
		Root:     wire.SemanticNode{Ref: wire.NodeRef{ID: "root"}, Children: []wire.SemanticNode{{Ref: wire.NodeRef{ID: "n1"}, Role: wire.Str("heading"), Name: wire.Str("Hello")}}},
		Viewport: wire.ViewportSize{Width: 800, Height: 600},
	}, nil
}

// ExampleDescribeEngine shows the manifest served for an engine: its static
// members and the methods of the interfaces it implements, plus both
// attempt methods.
func ExampleDescribeEngine() {
	m := server.DescribeEngine(hello{})
	fmt.Println(m.Name, m.Platform, strings.Join(m.Methods, " "))
	// Output: hello demo engine/observe lifecycle/startAttempt lifecycle/endAttempt
}

// ExampleServeEngine serves an engine over one connection. A real server
// passes its stdin and stdout (server.ServeStdio) or accepts TCP
// connections (server.ServeListener); here a client drives it over an
// in-memory transport.
func ExampleServeEngine() {
	tr := transport.Loopback("hello", func(ctx context.Context, rwc io.ReadWriteCloser) error {
		return server.ServeEngine(ctx, hello{}, rwc, server.Options{})
	})
	ctx := context.Background()
	c, err := client.Open(ctx, client.ConnConfig{Transport: tr})
	if err != nil {
		fmt.Println(err)
		return
	}
	snap, err := c.Observe(ctx, client.Op{RunID: "r", AttemptID: "a"}, nil)
	fmt.Println(*snap.Root.Children[0].Name, err)
	fmt.Println(c.Close(5 * time.Second))
	// Output:
	// Hello <nil>
	// <nil>
}
