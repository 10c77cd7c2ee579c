package client_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/e2e-conform/toolkit/protocol/rpc"

	"github.com/e2e-conform/toolkit/protocol/client"
	"github.com/e2e-conform/toolkit/protocol/engineerr"
)

var testTimeout = engineerr.NewE2E(engineerr.CategoryTest, "TEST_TIMEOUT", "test timed out after 120000 ms")

// TestAbortEndToEnd drives the example engine's slow session/open through
// the client and server: the abort's reason comes back as the error.
func TestAbortEndToEnd(t *testing.T) {
	sent := make(chan struct{}, 8)
	c := open(t, loopbackExample(), func(cc *client.ConnConfig) {
		cc.Trace = func(dir rpc.Direction, content []byte) {
			if dir == rpc.Sent && strings.Contains(string(content), `"session/open"`) {
				sent <- struct{}{}
			}
		}
	})
	op := client.Op{RunID: "r", AttemptID: "a"}
	slow := appURL(t) + "/slow?delay=10000"
	cases := []struct {
		name  string
		abort func(cancel context.CancelCauseFunc)
		pre   bool
		want  func(error) bool
	}{
		{"already aborted when sent, with a reason", func(cancel context.CancelCauseFunc) { cancel(testTimeout) }, true,
			func(err error) bool { return errors.Is(err, testTimeout) }},
		{"already aborted when sent, without a reason", func(cancel context.CancelCauseFunc) { cancel(nil) }, true,
			func(err error) bool { return isCode(err, engineerr.Cancelled) }},
		{"aborted mid-call with a reason", func(cancel context.CancelCauseFunc) { cancel(testTimeout) }, false,
			func(err error) bool { return errors.Is(err, testTimeout) && !engineerr.IsRetryable(err) }},
		{"aborted mid-call without a reason", func(cancel context.CancelCauseFunc) { cancel(nil) }, false,
			func(err error) bool { return isCode(err, engineerr.Cancelled) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			if tc.pre {
				tc.abort(cancel)
			}
			done := make(chan error, 1)
			start := time.Now()
			go func() { done <- c.Open(ctx, op, slow) }()
			<-sent // the request is on the wire
			if !tc.pre {
				tc.abort(cancel)
			}
			err := <-done
			if !tc.want(err) {
				t.Fatalf("got %v (%T)", err, err)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Fatalf("took %s: the abort did not stop the 10 s open", d)
			}
		})
	}
}

// TestAbortRacingResponse aborts calls that complete at about the same
// moment: each gets exactly one outcome, success or the abort error, and the
// connection stays usable.
func TestAbortRacingResponse(t *testing.T) {
	c := open(t, loopbackExample(), nil)
	op := client.Op{RunID: "r", AttemptID: "a"}
	app := appURL(t)
	var ok, aborted int
	for i := 0; i < 100; i++ {
		ctx, cancel := context.WithCancelCause(context.Background())
		done := make(chan error, 1)
		go func() { done <- c.Open(ctx, op, app+"/?delay=1") }()
		// Spread the abort over the call's life (a deliberate race, not
		// synchronisation): before sending, in flight, around the answer.
		time.Sleep(time.Duration(i%25) * 60 * time.Microsecond)
		cancel(testTimeout)
		switch err := <-done; {
		case err == nil:
			ok++
		case errors.Is(err, testTimeout):
			aborted++
		default:
			t.Fatalf("call %d: unexpected outcome %v", i, err)
		}
	}
	if _, err := c.Observe(context.Background(), op, nil); err != nil {
		t.Fatalf("connection unusable after the races: %v", err)
	}
	t.Logf("%d completed, %d aborted", ok, aborted)
}
