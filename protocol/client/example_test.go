package client_test

import (
	"context"
	"fmt"
	"time"

	"github.com/e2e-conform/toolkit/fixtures/example"
	"github.com/e2e-conform/toolkit/protocol/client"
	"github.com/e2e-conform/toolkit/protocol/server"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// ExampleOpen connects to the example engine (served in-process over the
// loopback transport; transport.Spawn or transport.Socket reach one in
// another process), observes its screen and taps a button.
func ExampleOpen() {
	ctx := context.Background()
	declared := server.DescribeEngine(example.New())
	c, err := client.Open(ctx, client.ConnConfig{
		Transport: server.LoopbackTransport(example.New(), server.Options{}),
		Manifest:  &declared, // the served manifest must match (spec §3.6)
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close(5 * time.Second)

	op := client.Op{RunID: "run-1", AttemptID: "attempt-1"}
	button := wire.LocatorExpression{Kind: "query", Query: &wire.SemanticQuery{
		Kind: "role", Value: wire.StringPattern("button", true), Name: &wire.TextPattern{Kind: "string", Value: "Increment", Exact: true}}}
	nodes, err := c.Locate(ctx, op, button)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := c.Perform(ctx, op, nodes[0].Ref, wire.LocatorAction{Kind: "tap"}); err != nil {
		fmt.Println(err)
		return
	}
	snap, _ := c.Observe(ctx, op, nil)
	fmt.Println(*snap.Root.Children[2].Text)
	// Output: Count: 1
}

// ExampleConnectEngine makes the harness's engine handle and runs one
// worker through init, an attempt and dispose.
func ExampleConnectEngine() {
	ctx := context.Background()
	e, err := client.ConnectEngine(client.Config{
		Transport: server.LoopbackTransport(example.New(), server.Options{}),
		Manifest:  server.DescribeEngine(example.New()),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	w := e.NewWorker()
	if err := w.Init(ctx, wire.InitParams{RunID: "run-1", Env: map[string]string{}}); err != nil {
		fmt.Println(err)
		return
	}
	_ = w.StartAttempt(ctx, "attempt-1", "/tmp", false)
	snap, err := w.Observe(ctx, wire.OriginTest, nil)
	fmt.Println(snap.Root.Ref.ID, err)
	_ = w.EndAttempt(ctx, 5000)
	fmt.Println(w.Dispose(ctx, 5000))
	// Output:
	// root <nil>
	// <nil>
}
