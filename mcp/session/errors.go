package session

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/e2e-conform/toolkit/mcp/apps"
	"github.com/e2e-conform/toolkit/mcp/catalog"
	"github.com/e2e-conform/toolkit/mcp/config"
	"github.com/e2e-conform/toolkit/mcp/policy"
	"github.com/e2e-conform/toolkit/protocol/engineerr"
)

// Error codes of spec mcp.md §5 raised by this package.
const (
	CodeNoSession         = "NO_SESSION"
	CodeSessionRequired   = "SESSION_REQUIRED"
	CodeSessionOpen       = "SESSION_OPEN"
	CodeConfigInUse       = "CONFIG_IN_USE"
	CodeCancelled         = "CANCELLED"
	CodeTargetRequired    = "TARGET_REQUIRED"
	CodeUnknownTarget     = "UNKNOWN_TARGET"
	CodeInvalidConfig     = "INVALID_CONFIG"
	CodeInvalidArgument   = "INVALID_ARGUMENT"
	CodePolicyDenied      = "POLICY_DENIED"
	CodePixelTainted      = "PIXEL_TAINTED"
	CodeLocatorNotFound   = "LOCATOR_NOT_FOUND"
	CodeLocatorAmbiguous  = "LOCATOR_AMBIGUOUS"
	CodeActionFailed      = "ACTION_FAILED"
	CodeAppNotOpen        = "APP_NOT_OPEN"
	CodeAppUnreachable    = "APP_UNREACHABLE"
	CodeEngineFailure     = "ENGINE_FAILURE"
	CodeSecretUnavailable = "SECRET_UNAVAILABLE"
	CodeUnsupported       = "UNSUPPORTED_CAPABILITY"
	CodeMaskingUnproven   = "MASKING_UNPROVEN"
	CodeEngineInUse       = "ENGINE_IN_USE"
	CodeCredential        = "AUTH_CREDENTIAL_UNAVAILABLE"
	CodeCleanupTimeout    = "CLEANUP_TIMEOUT"
)

// Error is a failure of a host operation: a code and a message. Tool
// results show it as "CODE: message".
type Error struct {
	Code    string
	Message string
	Err     error
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Is matches another *Error by code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code && t.Message == ""
}

func errf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// CodeOf classifies any error of the host, the config, the catalog, the
// policy or the engine into a code and message of spec §5.
func CodeOf(err error) (code, msg string) {
	var he *Error
	var ae *apps.Error
	var ce *config.Error
	var cat *catalog.Error
	var pe *policy.Error
	var ee *engineerr.EngineError
	var e2 *engineerr.E2EError
	switch {
	case errors.As(err, &he):
		return he.Code, he.Message
	case errors.As(err, &ae):
		return ae.Code, ae.Message
	case errors.As(err, &ce):
		return ce.Code, ce.Message
	case errors.As(err, &cat):
		return cat.Code, cat.Message
	case errors.As(err, &pe):
		return pe.Code, pe.Message
	case errors.As(err, &ee):
		m := ee.Message
		switch ee.Code {
		case engineerr.NodeStale, "FRAME_NOT_FOUND":
			return CodeLocatorNotFound, m + "; re-observe and use an id the newest observation lists"
		case "FRAME_AMBIGUOUS":
			return CodeLocatorAmbiguous, m
		case "NOT_ACTIONABLE", "ACTION_MAY_HAVE_COMMITTED", "OPERATION_TIMEOUT":
			return CodeActionFailed, m
		case "CANCELLED":
			return CodeCancelled, m
		case "UNSUPPORTED_CAPABILITY":
			return CodeUnsupported, m
		case "INVALID_STATE":
			return CodeAppNotOpen, m
		}
		if strings.Contains(m, "ERR_CONNECTION_REFUSED") {
			return CodeAppUnreachable, m
		}
		return CodeEngineFailure, m
	case errors.As(err, &e2):
		if strings.Contains(e2.Message, "ERR_CONNECTION_REFUSED") {
			return CodeAppUnreachable, e2.Message
		}
		return e2.Code, e2.Message
	case errors.Is(err, context.Canceled):
		return CodeCancelled, err.Error()
	case errors.Is(err, context.DeadlineExceeded):
		return CodeActionFailed, err.Error()
	}
	return CodeEngineFailure, err.Error()
}

// Text renders err as "CODE: message".
func Text(err error) string {
	c, m := CodeOf(err)
	return c + ": " + m
}
