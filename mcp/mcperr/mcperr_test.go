package mcperr_test

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"testing"

	"github.com/e2e-conform/toolkit/mcp/mcperr"
	"github.com/e2e-conform/toolkit/protocol/engineerr"
)

// TestOf checks the engine error mapping of spec §5 (the codes an engine
// answers with, e.g. APP_NOT_OPEN for INVALID_STATE), that a refused
// connection is told by its errno detail or its message's marker (D55), and that
// wrapped host errors keep their codes.
func TestOf(t *testing.T) {
	ee := func(code engineerr.Code) error { return &engineerr.EngineError{Code: code, Message: "m"} }
	tests := []struct {
		err  error
		want mcperr.Code
	}{
		{ee(engineerr.NodeStale), mcperr.LocatorNotFound},
		{ee(engineerr.FrameNotFound), mcperr.LocatorNotFound},
		{ee(engineerr.FrameAmbiguous), mcperr.LocatorAmbiguous},
		{ee(engineerr.NotActionable), mcperr.ActionFailed},
		{ee(engineerr.ActionMayHaveCommitted), mcperr.ActionFailed},
		{ee(engineerr.OperationTimeout), mcperr.ActionFailed},
		{ee(engineerr.Cancelled), mcperr.Cancelled},
		{ee(engineerr.UnsupportedCapability), mcperr.UnsupportedCapability},
		{ee(engineerr.InvalidState), mcperr.AppNotOpen},
		{ee("SOMETHING_ELSE"), mcperr.EngineFailure},
		{&engineerr.EngineError{Code: engineerr.EngineFailure, Message: "net::ERR_CONNECTION_REFUSED at http://x/", Details: engineerr.Details{Errno: "ECONNREFUSED"}}, mcperr.AppUnreachable},
		// Each form alone is recognized (engine protocol D55: the message's
		// ERR_CONNECTION_REFUSED, the errno ECONNREFUSED, APP_UNREACHABLE).
		{&engineerr.EngineError{Code: engineerr.EngineFailure, Message: "net::ERR_CONNECTION_REFUSED at http://x/"}, mcperr.AppUnreachable},
		{&engineerr.E2EError{Code: "SOMETHING", Message: "net::ERR_CONNECTION_REFUSED"}, mcperr.AppUnreachable},
		{&engineerr.EngineError{Code: engineerr.EngineFailure, Message: "connection refused"}, mcperr.EngineFailure},
		{&engineerr.EngineError{Code: engineerr.EngineFailure, Message: "dial", Details: engineerr.Details{Cause: &engineerr.EngineError{Code: engineerr.EngineFailure, Message: "c", Details: engineerr.Details{Errno: "ECONNREFUSED"}}}}, mcperr.AppUnreachable},
		{&engineerr.EngineError{Code: engineerr.EngineFailure, Message: "dial", Details: engineerr.Details{Cause: fmt.Errorf("dial: %w", syscall.ECONNREFUSED)}}, mcperr.AppUnreachable},
		{&engineerr.E2EError{Code: "APP_UNREACHABLE_OR_NOT", Message: "m", Details: engineerr.Details{Errno: "ECONNREFUSED"}}, mcperr.AppUnreachable},
		{&engineerr.E2EError{Code: "SECRET_UNAVAILABLE", Message: "m"}, mcperr.SecretUnavailable},
		{fmt.Errorf("open: %w", mcperr.New(mcperr.LaunchTimeout, "m")), mcperr.LaunchTimeout},
		{fmt.Errorf("wrapped: %w", mcperr.New(mcperr.EngineInUse, "m")), mcperr.EngineInUse},
		{context.Canceled, mcperr.Cancelled},
		{fmt.Errorf("op: %w", context.DeadlineExceeded), mcperr.ActionFailed},
		{fmt.Errorf("plain"), mcperr.EngineFailure},
	}
	for _, tc := range tests {
		if got := mcperr.Of(tc.err).Code; got != tc.want {
			t.Errorf("Of(%v) = %s, want %s", tc.err, got, tc.want)
		}
	}
	if msg := mcperr.Of(ee(engineerr.NodeStale)).Message; msg != "m; re-observe and use an id the newest observation lists" {
		t.Errorf("stale message %q", msg)
	}
	if mcperr.Of(nil) != nil {
		t.Error("Of(nil) is not nil")
	}
	if got := mcperr.Text(fmt.Errorf("x: %w", mcperr.New(mcperr.NoSession, "no session is open"))); got != "NO_SESSION: no session is open" {
		t.Errorf("Text %q", got)
	}
}

// TestIs: errors.Is tells an error's code, through wrapping, by the Code
// or by a message-less *Error.
func TestIs(t *testing.T) {
	err := fmt.Errorf("call: %w", mcperr.New(mcperr.PolicyDenied, "m"))
	for _, tc := range []struct {
		target error
		want   bool
	}{
		{mcperr.PolicyDenied, true},
		{mcperr.InvalidArgument, false},
		{&mcperr.Error{Code: mcperr.PolicyDenied}, true},
		{&mcperr.Error{Code: mcperr.PolicyDenied, Message: "other"}, false},
		{errors.New("POLICY_DENIED"), false},
	} {
		if got := errors.Is(err, tc.target); got != tc.want {
			t.Errorf("errors.Is(err, %v) = %v", tc.target, got)
		}
	}
}
