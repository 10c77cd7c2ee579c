package server_test

import (
	"context"
	"net"
	"testing"

	"github.com/e2e-conform/toolkit/protocol/engineerr"
	"github.com/e2e-conform/toolkit/protocol/server"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// closedEngine observes a page with one button but answers every action
// with INVALID_STATE, the way an engine whose app page went away does.
type closedEngine struct{}

func (closedEngine) Info() server.Info {
	return server.Info{Name: "closed", Version: "1.0.0", Actions: []string{wire.ActionTap}}
}

func (closedEngine) Open(ctx context.Context, op server.Operation, url string) error { return nil }

func (closedEngine) Observe(ctx context.Context, op server.Operation, o wire.EngineObserveOptions) (*wire.EngineSnapshot, error) {
	return &wire.EngineSnapshot{
		Root: wire.SemanticNode{Ref: wire.NodeRef{ID: "root"}, Role: wire.Str("document"), Children: []wire.SemanticNode{
			{Ref: wire.NodeRef{ID: "n1"}, Role: wire.Str("button"), Name: wire.Str("Go")},
		}},
		Viewport: wire.ViewportSize{Width: 800, Height: 600},
	}, nil
}

func (closedEngine) Perform(ctx context.Context, op server.Operation, ref wire.NodeRef, a wire.LocatorAction) error {
	return engineerr.New(engineerr.InvalidState, "no app page is open")
}

// TestAppNotOpen: an engine's INVALID_STATE reaches the agent as
// APP_NOT_OPEN (spec §5's mapping), through a real connect target.
func TestAppNotOpen(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- server.ServeListener(ctx, l, closedEngine{}, nil, server.Options{}) }()
	t.Cleanup(func() {
		cancel()
		<-served
	})
	cfg := `{"targets":[{"name":"closed","engine":{"connect":"` + l.Addr().String() + `"},"app":{"url":"$APP/"}}]}`
	e := newEnv(t, envOpts{config: cfg})
	_, text := e.open(nil)
	id := nodeID(t, text, `button "Go"`)
	res, isErr, _ := e.call("call", map[string]any{"tool": "tap", "args": map[string]any{"target": id}})
	if !isErr {
		t.Fatalf("tap succeeded on an engine without a page:\n%s", res)
	}
	mustMatch(t, res, `^tap #`+id+` failed: APP_NOT_OPEN: no app page is open`)
}
