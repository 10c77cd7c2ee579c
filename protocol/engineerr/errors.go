// Package engineerr holds the errors of the e2e engine protocol (spec §8): the
// engine's EngineError, the runner's e2e error, plain remote errors, and their
// encoding to and from JSON-RPC error objects.
//
// Both peers use the same values: an engine served by package server returns
// them and the server encodes them (§8.5); the client decodes what it
// receives into them (§8.6), applying the coercion rule, so that callers on
// either side classify failures with [errors.As] and [errors.Is]:
//
//	var ee *engineerr.EngineError
//	if errors.As(err, &ee) && ee.Code == engineerr.NodeStale { ... }
//	if errors.Is(err, engineerr.New(engineerr.NodeStale, "")) { ... } // matches by code
package engineerr

import (
	"errors"
	"fmt"

	"github.com/e2e-conform/toolkit/protocol/wire"
)

// Code is an engine error code (ENGINE_ERROR_CODES, spec §8.2).
type Code string

// The engine error codes.
const (
	NodeStale              Code = "NODE_STALE"
	FrameNotFound          Code = "FRAME_NOT_FOUND"
	FrameAmbiguous         Code = "FRAME_AMBIGUOUS"
	NotActionable          Code = "NOT_ACTIONABLE"
	ActionMayHaveCommitted Code = "ACTION_MAY_HAVE_COMMITTED"
	OperationTimeout       Code = "OPERATION_TIMEOUT"
	Cancelled              Code = "CANCELLED"
	UnsupportedCapability  Code = "UNSUPPORTED_CAPABILITY"
	InvalidState           Code = "INVALID_STATE"
	EngineFailure          Code = "ENGINE_FAILURE"
)

// Codes returns ENGINE_ERROR_CODES in the spec's order.
func Codes() []Code {
	return []Code{NodeStale, FrameNotFound, FrameAmbiguous, NotActionable, ActionMayHaveCommitted,
		OperationTimeout, Cancelled, UnsupportedCapability, InvalidState, EngineFailure}
}

// Known reports whether c is in ENGINE_ERROR_CODES.
func (c Code) Known() bool {
	for _, k := range Codes() {
		if k == c {
			return true
		}
	}
	return false
}

// MayRetry reports whether c may carry retryable: true (spec §8.2).
func (c Code) MayRetry() bool { return c == NodeStale || c == FrameNotFound }

// Category is an e2e error category (spec §8.3).
type Category string

// The e2e categories.
const (
	CategoryTest           Category = "test"
	CategoryConfiguration  Category = "configuration"
	CategoryInfrastructure Category = "infrastructure"
	CategoryInternal       Category = "internal"
	CategoryInterrupted    Category = "interrupted"
)

// Known reports whether c is one of the five categories.
func (c Category) Known() bool {
	switch c {
	case CategoryTest, CategoryConfiguration, CategoryInfrastructure, CategoryInternal, CategoryInterrupted:
		return true
	}
	return false
}

// ExitCode is the category's process exit code (spec §8.3).
func (c Category) ExitCode() int {
	switch c {
	case CategoryTest:
		return 1
	case CategoryConfiguration:
		return 2
	case CategoryInfrastructure:
		return 3
	case CategoryInternal:
		return 4
	case CategoryInterrupted:
		return 130
	}
	return 3
}

// Details common to every error kind: the optional stack, errno and cause of
// spec §8.1.
type Details struct {
	Stack string
	// Errno is a system error name such as "ECONNREFUSED" (an integer errno
	// received on the wire is kept as its decimal text).
	Errno string
	Cause error
}

// EngineError is an error of the engine contract (spec §8.2).
type EngineError struct {
	Code      Code
	Message   string
	Retryable bool
	Details

	wire *wire.ErrorObject // the object it was decoded from, for verbatim round trips
}

// New returns a non-retryable EngineError.
func New(code Code, format string, args ...any) *EngineError {
	return &EngineError{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Retryable returns a retryable EngineError; only NODE_STALE and
// FRAME_NOT_FOUND may be retryable, any other code is returned non-retryable.
func Retryable(code Code, format string, args ...any) *EngineError {
	e := New(code, format, args...)
	e.Retryable = code.MayRetry()
	return e
}

func (e *EngineError) Error() string {
	if e.Message == "" {
		return string(e.Code)
	}
	return string(e.Code) + ": " + e.Message
}

// Unwrap returns the cause.
func (e *EngineError) Unwrap() error { return e.Cause }

// Is matches another *EngineError with the same code (and, when the target
// has one, the same message).
func (e *EngineError) Is(target error) bool {
	t, ok := target.(*EngineError)
	if !ok {
		return false
	}
	return t.Code == e.Code && (t.Message == "" || t.Message == e.Message)
}

// E2EError is a runner error raised by an engine or the client: a TestError,
// ConfigurationError or InfrastructureError of the harness (spec §8.1, §8.3).
type E2EError struct {
	Category  Category
	Code      string
	Message   string
	Retryable bool
	// DetailsJSON is the optional details object, verbatim.
	DetailsJSON []byte
	Details

	wire *wire.ErrorObject
}

// NewE2E returns a non-retryable e2e error.
func NewE2E(category Category, code, format string, args ...any) *E2EError {
	return &E2EError{Category: category, Code: code, Message: fmt.Sprintf(format, args...)}
}

// Infrastructure returns the infrastructure ENGINE_FAILURE the client reports
// for transport loss, malformed messages and manifest mismatches.
func Infrastructure(format string, args ...any) *E2EError {
	return NewE2E(CategoryInfrastructure, string(EngineFailure), format, args...)
}

// InvalidConfig returns the configuration INVALID_CONFIG error.
func InvalidConfig(format string, args ...any) *E2EError {
	return NewE2E(CategoryConfiguration, "INVALID_CONFIG", format, args...)
}

func (e *E2EError) Error() string {
	return fmt.Sprintf("%s %s: %s", e.Category, e.Code, e.Message)
}

// Unwrap returns the cause.
func (e *E2EError) Unwrap() error { return e.Cause }

// Is matches another *E2EError with the same category and code.
func (e *E2EError) Is(target error) bool {
	t, ok := target.(*E2EError)
	if !ok {
		return false
	}
	return t.Category == e.Category && t.Code == e.Code && (t.Message == "" || t.Message == e.Message)
}

// RemoteError is an error response with a code other than -32000: the
// message alone, which the harness treats as an infrastructure failure.
type RemoteError struct {
	Code    int64
	Message string
	Details

	wire *wire.ErrorObject
}

func (e *RemoteError) Error() string { return fmt.Sprintf("%s (code %d)", e.Message, e.Code) }

// Unwrap returns the cause.
func (e *RemoteError) Unwrap() error { return e.Cause }

// Is matches another *RemoteError with the same code.
func (e *RemoteError) Is(target error) bool {
	t, ok := target.(*RemoteError)
	return ok && t.Code == e.Code
}

// ErrAborted is the abort error of a signal aborted without a reason (spec
// §7.5); a request failing with it is answered as engine CANCELLED.
var ErrAborted = errors.New("This operation was aborted")

// CodeOf returns the engine code of the first EngineError in err's chain, or "".
func CodeOf(err error) Code {
	var ee *EngineError
	if errors.As(err, &ee) {
		return ee.Code
	}
	return ""
}

// IsRetryable reports whether err carries a retryable engine or e2e error.
func IsRetryable(err error) bool {
	var ee *EngineError
	if errors.As(err, &ee) {
		return ee.Retryable && ee.Code.MayRetry()
	}
	var e2 *E2EError
	if errors.As(err, &e2) {
		return e2.Retryable
	}
	return false
}
