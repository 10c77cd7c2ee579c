package server_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/e2e-conform/toolkit/protocol/server"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// noting is a probe that takes the notifications the protocol does not
// define (server.NotificationHandler) and records them.
type noting struct {
	*probe
	mu    sync.Mutex
	notes []string
}

func (n *noting) HandleNotification(method string, params json.RawMessage) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.notes = append(n.notes, method+" "+string(params))
}

func (n *noting) seen() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.notes...)
}

// Observe records how many notifications had arrived when it ran.
func (n *noting) Observe(ctx context.Context, op server.Operation, o wire.EngineObserveOptions) (*wire.EngineSnapshot, error) {
	n.mu.Lock()
	n.notes = append(n.notes, "observe")
	n.mu.Unlock()
	return n.probe.Observe(ctx, op, o)
}

// TestExtensionNotifications: an engine implementing NotificationHandler
// gets the notifications the protocol does not define once initialized,
// before a request read after them; "$/" ones and those before initialize
// never reach it; an engine without it ignores them (WIRE-009).
func TestExtensionNotifications(t *testing.T) {
	e := &noting{probe: newProbe()}
	p := servePeer(t, e, server.Options{})
	p.send(`{"jsonrpc":"2.0","method":"web/dialogs","params":{"accept":false}}`) // before initialize
	p.initialize()
	p.send(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}`)
	p.send(`{"jsonrpc":"2.0","method":"web/dialogs","params":{"accept":true}}`)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"engine/observe","params":{"operation":` + op(`{"id":1}`) + `}}`)
	if _, eo := p.response("1"); eo != nil {
		t.Fatalf("observe: %v", eo)
	}
	got := e.seen()
	want := []string{`web/dialogs {"accept":true}`, "observe"}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("engine saw %q, want %q", got, want)
	}
	// A plain engine ignores it and goes on serving.
	q := servePeer(t, newProbe(), server.Options{})
	q.initialize()
	q.send(`{"jsonrpc":"2.0","method":"web/dialogs","params":{"accept":true}}`)
	q.send(`{"jsonrpc":"2.0","id":2,"method":"engine/observe","params":{"operation":` + op(`{"id":1}`) + `}}`)
	if _, eo := q.response("2"); eo != nil {
		t.Fatalf("observe after an unknown notification: %v", eo)
	}
}
