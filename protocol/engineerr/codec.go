package engineerr

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"syscall"
	"unicode/utf8"

	"golang.org/x/sys/unix"

	"github.com/e2e-conform/toolkit/protocol/wire"
)

// Bounds of spec §8.1 (D37, D68).
const (
	MaxMessageBytes = 8192
	MaxStackBytes   = 65536
	MaxCauseDepth   = 8
)

type wireData struct {
	Type      string            `json:"type,omitempty"`
	Category  string            `json:"category,omitempty"`
	Code      string            `json:"code,omitempty"`
	Retryable *bool             `json:"retryable,omitempty"`
	Details   json.RawMessage   `json:"details,omitempty"`
	Stack     string            `json:"stack,omitempty"`
	Errno     json.RawMessage   `json:"errno,omitempty"`
	Cause     *wire.ErrorObject `json:"cause,omitempty"`
}

// Encode writes err as a JSON-RPC error object the way the toolkit server
// does (spec §8.5): an EngineError as -32000 engine data after the coercion
// rule, an e2e error as -32000 e2e data, ErrAborted as engine CANCELLED, an
// error decoded from the wire as the identical object, and anything else as
// -32603 with its message. Messages and stacks are cut to their bounds and
// causes below MaxCauseDepth are dropped.
func Encode(err error) *wire.ErrorObject { return encode(err, 0) }

func encode(err error, depth int) *wire.ErrorObject {
	if err == nil {
		return nil
	}
	if w := verbatim(err); w != nil {
		return w
	}
	var ee *EngineError
	var e2 *E2EError
	var re *RemoteError
	switch {
	case errors.Is(err, ErrAborted) && !errors.As(err, &ee) && !errors.As(err, &e2):
		return object(wire.CodeEngineError, err.Error(), wireData{Type: "engine", Code: string(Cancelled), Retryable: ptr(false)}, depth, nil)
	case errors.As(err, &ee):
		code, retry := ee.Code, ee.Retryable
		if !code.Known() {
			code, retry = EngineFailure, false
		}
		if retry && !code.MayRetry() {
			code, retry = EngineFailure, false
		}
		msg := message(err, ee.Message, ee)
		return object(wire.CodeEngineError, msg, wireData{Type: "engine", Code: string(code), Retryable: ptr(retry)}, depth, &ee.Details)
	case errors.As(err, &e2):
		cat := e2.Category
		if !cat.Known() {
			cat = CategoryInfrastructure
		}
		code := e2.Code
		if code == "" {
			code = string(EngineFailure)
		}
		msg := message(err, e2.Message, e2)
		return object(wire.CodeEngineError, msg, wireData{Type: "e2e", Category: string(cat), Code: code,
			Retryable: ptr(e2.Retryable), Details: e2.DetailsJSON}, depth, &e2.Details)
	case errors.As(err, &re):
		return object(re.Code, message(err, re.Message, re), wireData{}, depth, &re.Details)
	default:
		d := Details{Cause: errors.Unwrap(err), Errno: errnoOf(err)}
		return object(wire.CodeInternalError, err.Error(), wireData{}, depth, &d)
	}
}

// verbatim returns the wire object an error was decoded from when err is
// that decoded error itself (not a wrapper around it).
func verbatim(err error) *wire.ErrorObject {
	switch e := err.(type) {
	case *EngineError:
		return e.wire
	case *E2EError:
		return e.wire
	case *RemoteError:
		return e.wire
	}
	return nil
}

// message is the outermost message when err wraps the classified error,
// keeping the context a wrapper added.
func message(err error, inner string, classified error) string {
	if err == classified {
		if inner == "" {
			return err.Error()
		}
		return inner
	}
	return err.Error()
}

func object(code int64, msg string, d wireData, depth int, det *Details) *wire.ErrorObject {
	if msg == "" {
		msg = "error"
	}
	o := &wire.ErrorObject{Code: code, Message: CutUTF8(msg, MaxMessageBytes)}
	if det != nil {
		d.Stack = CutUTF8(det.Stack, MaxStackBytes)
		if det.Errno != "" {
			d.Errno, _ = json.Marshal(det.Errno)
		}
		if det.Cause != nil && depth < MaxCauseDepth {
			d.Cause = encode(det.Cause, depth+1)
		}
	}
	if d.Type != "" || d.Stack != "" || d.Errno != nil || d.Cause != nil {
		o.Data, _ = json.Marshal(d)
	}
	return o
}

func ptr[T any](v T) *T { return &v }

// errnoOf names the first syscall.Errno in err's chain.
func errnoOf(err error) string {
	var en syscall.Errno
	if errors.As(err, &en) {
		if name := unix.ErrnoName(en); name != "" {
			return name
		}
		return strconv.Itoa(int(en))
	}
	return ""
}

// CutUTF8 cuts s to at most n bytes without splitting a UTF-8 sequence,
// keeping the start.
func CutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for len(s) > 0 {
		r, size := utf8.DecodeLastRuneInString(s)
		if r != utf8.RuneError || size > 1 {
			break
		}
		s = s[:len(s)-1]
	}
	return s
}

// Decode classifies an error object received from a peer (spec §8.6):
// -32000 engine data becomes an *EngineError after the coercion rule (an
// unknown code or a retryable code that may not retry becomes non-retryable
// ENGINE_FAILURE, keeping the message), -32000 e2e data with a known category
// an *E2EError, any other -32000 an infrastructure ENGINE_FAILURE *E2EError,
// and any other code a *RemoteError. The result keeps the object, so that
// Encode writes it back verbatim.
func Decode(o *wire.ErrorObject) error { return decode(o, 0) }

func decode(o *wire.ErrorObject, depth int) error {
	if o == nil {
		return nil
	}
	keep := &wire.ErrorObject{Code: o.Code, Message: o.Message, Data: bytes.Clone(o.Data)}
	msg := CutUTF8(o.Message, MaxMessageBytes)
	if msg == "" {
		msg = "(empty error message)"
	}
	var d wireData
	dataOK := len(o.Data) > 0 && o.Data[0] == '{' && json.Unmarshal(o.Data, &d) == nil
	det := Details{}
	if dataOK {
		det.Stack = CutUTF8(d.Stack, MaxStackBytes)
		det.Errno = errnoText(d.Errno)
		if d.Cause != nil && depth < MaxCauseDepth {
			det.Cause = decode(d.Cause, depth+1)
		}
	} else if len(o.Data) > 0 && o.Data[0] == '{' {
		// Data of the wrong shape: decode leniently what can be read.
		var loose map[string]json.RawMessage
		if json.Unmarshal(o.Data, &loose) == nil {
			_ = json.Unmarshal(loose["stack"], &det.Stack)
			det.Errno = errnoText(loose["errno"])
		}
	}
	if o.Code != wire.CodeEngineError {
		return &RemoteError{Code: o.Code, Message: msg, Details: det, wire: keep}
	}
	retryable := d.Retryable != nil && *d.Retryable
	if !dataOK && len(o.Data) > 0 && o.Data[0] == '{' {
		// A non-boolean retryable (or errno) spoils the typed decode; read the
		// classification members one by one and treat retryable as false.
		var loose map[string]json.RawMessage
		if json.Unmarshal(o.Data, &loose) == nil {
			var typ, code, cat string
			if json.Unmarshal(loose["type"], &typ) == nil && json.Unmarshal(loose["code"], &code) == nil {
				d.Type, d.Code = typ, code
				_ = json.Unmarshal(loose["category"], &cat)
				d.Category = cat
				dataOK = true
			}
		}
	}
	switch {
	case dataOK && d.Type == "engine":
		code := Code(d.Code)
		if !code.Known() || (retryable && !code.MayRetry()) {
			code, retryable = EngineFailure, false
		}
		return &EngineError{Code: code, Message: msg, Retryable: retryable, Details: det, wire: keep}
	case dataOK && d.Type == "e2e" && Category(d.Category).Known() && d.Code != "":
		var details []byte
		if len(d.Details) > 0 && d.Details[0] == '{' {
			details = bytes.Clone(d.Details)
		}
		return &E2EError{Category: Category(d.Category), Code: d.Code, Message: msg, Retryable: retryable,
			DetailsJSON: details, Details: det, wire: keep}
	default:
		return &E2EError{Category: CategoryInfrastructure, Code: string(EngineFailure), Message: msg, Details: det, wire: keep}
	}
}

func errnoText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	if n, ok := wire.ParseInteger(raw); ok {
		return strconv.FormatInt(n, 10)
	}
	return ""
}

// Wire returns the object err was decoded from, or nil.
func Wire(err error) *wire.ErrorObject { return verbatim(err) }
