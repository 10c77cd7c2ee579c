package client_test

import (
	"context"
	"testing"

	"github.com/e2e-conform/toolkit/protocol/client"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// TestDiscoveredManifest: a handle without a declared manifest takes each
// worker's from its server (what the MCP host does): the listed methods
// decide what is sent, and with ResolveLocators a server that lists
// engine/locate still answers Locate itself.
func TestDiscoveredManifest(t *testing.T) {
	m := wire.Manifest{Name: "d", Version: "1", SPIVersion: 1, Methods: []string{wire.MethodObserve, wire.MethodLocate}}
	tr := newScripted(t, func(p *peer) {
		p.handshake(m)
		// No lifecycle/init: the server does not list it.
		p.result(p.expect(wire.MethodLocate), "[]")
	})
	e, err := client.ConnectEngine(client.Config{Transport: tr, ResolveLocators: true, Schemas: schemas})
	if err != nil {
		t.Fatal(err)
	}
	w := e.NewWorker()
	if got := w.Manifest(); got.Name != "" {
		t.Errorf("manifest before Init: %+v", got)
	}
	ctx := context.Background()
	if err := w.Init(ctx, wire.InitParams{RunID: "r", Env: map[string]string{}}); err != nil {
		t.Fatal(err)
	}
	if err := w.StartAttempt(ctx, "a", t.TempDir(), false); err != nil { // operations go inside an attempt (§4.3)
		t.Fatal(err)
	}
	defer w.Dispose(ctx, 1000)
	if got := w.Manifest(); got.Name != "d" || !got.Lists(wire.MethodLocate) {
		t.Errorf("manifest after Init: %+v", got)
	}
	if err := w.Perform(ctx, "agent", wire.NodeRef{ID: "n1"}, wire.LocatorAction{Kind: wire.ActionTap}); err == nil {
		t.Error("perform on a server that lists no engine/perform was sent")
	}
	nodes, err := w.Locate(ctx, "agent", wire.LocatorExpression{Kind: "query", Query: &wire.SemanticQuery{Kind: "role", Value: wire.StringPattern("button", true)}})
	if err != nil || len(nodes) != 0 {
		t.Fatalf("locate: %v %v", nodes, err)
	}
}
