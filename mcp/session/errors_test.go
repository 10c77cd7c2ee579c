package session_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/e2e-conform/toolkit/mcp/apps"
	"github.com/e2e-conform/toolkit/mcp/session"
	"github.com/e2e-conform/toolkit/protocol/engineerr"
)

// TestCodeOf checks the engine error mapping of spec §5 (the codes an
// engine answers with, e.g. APP_NOT_OPEN for INVALID_STATE) and that
// host, app and wrapped errors keep their codes.
func TestCodeOf(t *testing.T) {
	ee := func(code engineerr.Code) error { return &engineerr.EngineError{Code: code, Message: "m"} }
	tests := []struct {
		err  error
		want string
	}{
		{ee(engineerr.NodeStale), "LOCATOR_NOT_FOUND"},
		{ee("FRAME_NOT_FOUND"), "LOCATOR_NOT_FOUND"},
		{ee("FRAME_AMBIGUOUS"), "LOCATOR_AMBIGUOUS"},
		{ee("NOT_ACTIONABLE"), "ACTION_FAILED"},
		{ee("ACTION_MAY_HAVE_COMMITTED"), "ACTION_FAILED"},
		{ee("OPERATION_TIMEOUT"), "ACTION_FAILED"},
		{ee("CANCELLED"), "CANCELLED"},
		{ee("UNSUPPORTED_CAPABILITY"), "UNSUPPORTED_CAPABILITY"},
		{ee("INVALID_STATE"), "APP_NOT_OPEN"},
		{ee("SOMETHING_ELSE"), "ENGINE_FAILURE"},
		{&engineerr.EngineError{Code: "ENGINE_FAILURE", Message: "net::ERR_CONNECTION_REFUSED at http://x/"}, "APP_UNREACHABLE"},
		{fmt.Errorf("open: %w", &apps.Error{Code: apps.CodeLaunchTimeout, Message: "m"}), "LAUNCH_TIMEOUT"},
		{fmt.Errorf("wrapped: %w", &session.Error{Code: session.CodeEngineInUse, Message: "m"}), "ENGINE_IN_USE"},
		{context.Canceled, "CANCELLED"},
		{fmt.Errorf("plain"), "ENGINE_FAILURE"},
	}
	for _, tc := range tests {
		if got, _ := session.CodeOf(tc.err); got != tc.want {
			t.Errorf("CodeOf(%v) = %s, want %s", tc.err, got, tc.want)
		}
	}
	if _, msg := session.CodeOf(ee(engineerr.NodeStale)); msg != "m; re-observe and use an id the newest observation lists" {
		t.Errorf("stale message %q", msg)
	}
}
