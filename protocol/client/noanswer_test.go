package client_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/e2e-conform/toolkit/protocol/client"
	"github.com/e2e-conform/toolkit/protocol/rpc"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// A server that reads initialize and never answers: the error says which
// request went unanswered and for how long (issue 12: it said only that
// initialize "was cancelled"), wraps an *rpc.NoAnswerError carrying the
// facts, and still matches the context's error.
func TestSilentServerSaysWhatWentUnanswered(t *testing.T) {
	tr := newScripted(t, func(p *peer) {
		p.expect(wire.MethodInitialize) // and say nothing
	})
	m := smallManifest()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err := client.Open(ctx, client.ConnConfig{Transport: tr, Manifest: &m, Schemas: schemas})
	var na *rpc.NoAnswerError
	if !errors.As(err, &na) {
		t.Fatalf("got %v (%T), want an *rpc.NoAnswerError in it", err, err)
	}
	if na.Method != wire.MethodInitialize || na.ID == "" || na.Waited <= 0 {
		t.Errorf("the facts: %+v", na)
	}
	if !isInfra(err) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("got %v, want infrastructure ENGINE_FAILURE wrapping the deadline", err)
	}
	if want := "no answer to initialize (id " + na.ID + ") within "; !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not say %q", err, want)
	}
}
