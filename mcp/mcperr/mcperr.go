// Package mcperr is the one error type of the MCP host (spec mcp.md §5):
// a code of the spec's table and a message, shown to the agent as
// "CODE: message". Every mcp package returns it, and Of classifies any
// error (the host's own, an engine's, a context's) into one, by
// errors.As/Is and the engine error's details, never by its text.
package mcperr

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"

	"github.com/e2e-conform/toolkit/protocol/engineerr"
)

// Code is an error code of spec mcp.md §5. A Code is also an error, so
// errors.Is(err, mcperr.NoSession) tells an *Error's code.
type Code string

func (c Code) Error() string { return string(c) }

// The codes of spec §5.
const (
	NoSession             Code = "NO_SESSION"
	SessionRequired       Code = "SESSION_REQUIRED"
	SessionOpen           Code = "SESSION_OPEN"
	ConfigInUse           Code = "CONFIG_IN_USE"
	ConfigNotFound        Code = "CONFIG_NOT_FOUND"
	ConfigLoadFailed      Code = "CONFIG_LOAD_FAILED"
	InvalidConfig         Code = "INVALID_CONFIG"
	Cancelled             Code = "CANCELLED"
	TargetRequired        Code = "TARGET_REQUIRED"
	UnknownTarget         Code = "UNKNOWN_TARGET"
	UnknownTool           Code = "UNKNOWN_TOOL"
	InvalidArgument       Code = "INVALID_ARGUMENT"
	InvalidAppURL         Code = "INVALID_APP_URL"
	AppURLRequired        Code = "APP_URL_REQUIRED"
	PolicyDenied          Code = "POLICY_DENIED"
	PixelTainted          Code = "PIXEL_TAINTED"
	LocatorNotFound       Code = "LOCATOR_NOT_FOUND"
	LocatorAmbiguous      Code = "LOCATOR_AMBIGUOUS"
	ActionFailed          Code = "ACTION_FAILED"
	AppNotOpen            Code = "APP_NOT_OPEN"
	AppUnreachable        Code = "APP_UNREACHABLE"
	LaunchTimeout         Code = "LAUNCH_TIMEOUT"
	EngineFailure         Code = "ENGINE_FAILURE"
	EngineInUse           Code = "ENGINE_IN_USE"
	SecretUnavailable     Code = "SECRET_UNAVAILABLE"
	CredentialUnavailable Code = "AUTH_CREDENTIAL_UNAVAILABLE"
	UnsupportedCapability Code = "UNSUPPORTED_CAPABILITY"
	MaskingUnproven       Code = "MASKING_UNPROVEN"
	CleanupTimeout        Code = "CLEANUP_TIMEOUT"
)

// Error is a failure of the MCP host: a code and a message, with an
// optional cause.
type Error struct {
	Code    Code
	Message string
	Err     error
}

func (e *Error) Error() string { return string(e.Code) + ": " + e.Message }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is e's Code, or an *Error of e's code without
// a message.
func (e *Error) Is(target error) bool {
	switch t := target.(type) {
	case Code:
		return t == e.Code
	case *Error:
		return t.Code == e.Code && t.Message == ""
	}
	return false
}

// New returns an *Error with a formatted message.
func New(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Wrap returns an *Error with a formatted message and cause err.
func Wrap(code Code, err error, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Err: err}
}

// engineCodes maps the engine error codes (engine protocol §8.2) that have
// their own MCP code; any other is ENGINE_FAILURE.
var engineCodes = map[engineerr.Code]Code{
	engineerr.NodeStale:              LocatorNotFound,
	engineerr.FrameNotFound:          LocatorNotFound,
	engineerr.FrameAmbiguous:         LocatorAmbiguous,
	engineerr.NotActionable:          ActionFailed,
	engineerr.ActionMayHaveCommitted: ActionFailed,
	engineerr.OperationTimeout:       ActionFailed,
	engineerr.Cancelled:              Cancelled,
	engineerr.UnsupportedCapability:  UnsupportedCapability,
	engineerr.InvalidState:           AppNotOpen,
}

// staleHint ends the message of a node the newest observation no longer
// binds.
const staleHint = "; re-observe and use an id the newest observation lists"

// Of classifies err into an *Error: err's own *Error, an engine error
// mapped by its code (a refused connection, errno ECONNREFUSED in its
// details or chain, is APP_UNREACHABLE), an e2e error by its code, a
// cancelled context as CANCELLED, an expired one as ACTION_FAILED, and
// anything else as ENGINE_FAILURE. Of(nil) is nil.
func Of(err error) *Error {
	if err == nil {
		return nil
	}
	var me *Error
	var ee *engineerr.EngineError
	var e2 *engineerr.E2EError
	switch {
	case errors.As(err, &me):
		return me
	case errors.As(err, &ee):
		code, ok := engineCodes[ee.Code]
		switch {
		case !ok && refused(err):
			code = AppUnreachable
		case !ok:
			code = EngineFailure
		}
		msg := ee.Message
		if code == LocatorNotFound {
			msg += staleHint
		}
		return &Error{Code: code, Message: msg, Err: err}
	case errors.As(err, &e2):
		if refused(err) {
			return &Error{Code: AppUnreachable, Message: e2.Message, Err: err}
		}
		return &Error{Code: Code(e2.Code), Message: e2.Message, Err: err}
	case errors.Is(err, context.Canceled):
		return &Error{Code: Cancelled, Message: err.Error(), Err: err}
	case errors.Is(err, context.DeadlineExceeded):
		return &Error{Code: ActionFailed, Message: err.Error(), Err: err}
	}
	return &Error{Code: EngineFailure, Message: err.Error(), Err: err}
}

// refusedMarker is what a refused connection's message carries (D55).
const refusedMarker = "ERR_CONNECTION_REFUSED"

// refused reports whether err's chain holds a refused connection in any of
// the forms engine protocol D55 says the harness recognizes: an engine or
// e2e error whose errno detail is ECONNREFUSED, or whose message carries
// ERR_CONNECTION_REFUSED (an engine may send either alone), or the errno
// itself.
func refused(err error) bool {
	if errors.Is(err, syscall.ECONNREFUSED) {
		return true
	}
	for e := err; e != nil; e = errors.Unwrap(e) {
		switch x := e.(type) {
		case *engineerr.EngineError:
			if x.Errno == "ECONNREFUSED" || strings.Contains(x.Message, refusedMarker) {
				return true
			}
		case *engineerr.E2EError:
			if x.Errno == "ECONNREFUSED" || strings.Contains(x.Message, refusedMarker) {
				return true
			}
		}
	}
	return false
}

// Text renders err as "CODE: message".
func Text(err error) string { return Of(err).Error() }
