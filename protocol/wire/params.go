package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"unicode/utf8"

	"github.com/e2e-conform/toolkit/protocol/internal/jsonscan"
)

// ErrUndecided is returned by the strict params decoders for params they do
// not decide themselves: a signal reason (an ErrorObject, whose schema is a
// conditional union), a member name with escapes or differing from a known
// one only by case, a number encoding/json cannot hold (an integer id above
// 2^53−1 or written with a fraction, a timeout beyond float64). The caller
// validates such params with the JSON Schema and decodes them with
// [Unmarshal], as it would without the strict decoder.
var ErrUndecided = errors.New("wire: params left to the schema")

// The strict params decoders below decide params the way the methods
// schema (engine-methods-v1.schema.json) does: their verdict, when it is
// not ErrUndecided, equals the schema's (schema's FuzzParamsDecoders holds
// them to it on arbitrary input, seeded with the schema's test corpus).
// They read raw, which must be valid UTF-8 and syntactically valid JSON (a
// message's params always are: the rpc layer checked the frame), in one pass and without a
// reflective decode. A rejection is a *DecodeError; callers that answer it
// run the schema for its fuller message.

// DecodeObserveParams decodes the params of engine/observe
// (EngineObserveParams: operation, options).
func DecodeObserveParams(raw []byte) (ObserveParams, error) {
	var p ObserveParams
	var op, opts []byte
	if err := paramsObject(raw, func(key, value []byte) (bool, error) {
		switch string(key[1 : len(key)-1]) {
		case "operation":
			op = value
		case "options":
			opts = value
		default:
			return false, nil
		}
		return true, nil
	}, "operation", "options"); err != nil {
		return p, err
	}
	if op == nil {
		return p, &DecodeError{Msg: `missing member "operation"`}
	}
	if err := decodeOperation(op, &p.Operation); err != nil {
		return p, err
	}
	if opts != nil {
		o := new(EngineObserveOptions)
		if err := decodeObserveOptions(opts, o); err != nil {
			return p, err
		}
		p.Options = o
	}
	return p, nil
}

// DecodeOperationParams decodes the params of the methods whose params are
// {operation} alone (keyboard/dismiss, state/capture, artifacts/startVideo,
// artifacts/stopVideo, session/back, session/restart, session/reset).
func DecodeOperationParams(raw []byte) (OperationParams, error) {
	var p OperationParams
	var op []byte
	if err := paramsObject(raw, func(key, value []byte) (bool, error) {
		if string(key[1:len(key)-1]) == "operation" {
			op = value
			return true, nil
		}
		return false, nil
	}, "operation"); err != nil {
		return p, err
	}
	if op == nil {
		return p, &DecodeError{Msg: `missing member "operation"`}
	}
	if err := decodeOperation(op, &p.Operation); err != nil {
		return p, err
	}
	return p, nil
}

// paramsObject walks the members of the object raw, calling member for
// each (the last of duplicate members wins, as in the schema's decode); a
// member reports whether it knew the key. A key with escapes, or an
// unknown key equal to one of known up to case, is ErrUndecided.
func paramsObject(raw []byte, member func(key, value []byte) (bool, error), known ...string) error {
	raw = jsonscan.Trim(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return &DecodeError{Msg: "must be an object, got " + jsonKind(raw)}
	}
	var err error
	jsonscan.Object(raw, func(key, value []byte) bool {
		if len(key) < 2 || bytes.IndexByte(key, '\\') >= 0 {
			err = ErrUndecided
			return false
		}
		var ok bool
		if ok, err = member(key, value); err != nil {
			return false
		}
		if !ok {
			k := key[1 : len(key)-1]
			for _, name := range known {
				if bytes.EqualFold(k, []byte(name)) {
					err = ErrUndecided // encoding/json would read it as name
					return false
				}
			}
		}
		return true
	})
	return err
}

// decodeOperation decodes an Operation (engine-types-v1 #/$defs/Operation).
func decodeOperation(raw []byte, o *Operation) error {
	var sig, timeout, runID, attemptID, origin []byte
	err := paramsObject(raw, func(key, value []byte) (bool, error) {
		switch string(key[1 : len(key)-1]) {
		case "signal":
			sig = value
		case "timeoutMs":
			timeout = value
		case "runId":
			runID = value
		case "attemptId":
			attemptID = value
		case "origin":
			origin = value
		default:
			return false, nil
		}
		return true, nil
	}, "signal", "timeoutMs", "runId", "attemptId", "origin")
	if err != nil {
		return at("/operation", err)
	}
	for _, req := range [...]struct {
		v    []byte
		name string
	}{{sig, "signal"}, {timeout, "timeoutMs"}, {runID, "runId"}, {attemptID, "attemptId"}} {
		if req.v == nil {
			return &DecodeError{Pointer: "/operation", Msg: `missing member "` + req.name + `"`}
		}
	}
	if err := decodeSignalRef(sig, &o.Signal); err != nil {
		return at("/operation/signal", err)
	}
	t, err := nonNegative(timeout)
	if err != nil {
		return at("/operation/timeoutMs", err)
	}
	o.TimeoutMs = t
	if o.RunID, err = nonEmptyString(runID); err != nil {
		return at("/operation/runId", err)
	}
	if o.AttemptID, err = nonEmptyString(attemptID); err != nil {
		return at("/operation/attemptId", err)
	}
	o.Origin = ""
	if origin != nil {
		s, ok := stringValue(origin)
		if !ok || (s != OriginTest && s != OriginAgent) {
			return &DecodeError{Pointer: "/operation/origin", Msg: `must be "test" or "agent"`}
		}
		o.Origin = s
	}
	return nil
}

// decodeSignalRef decodes a SignalRef without a reason (a reason is
// ErrUndecided).
func decodeSignalRef(raw []byte, s *SignalRef) error {
	var id, aborted []byte
	err := paramsObject(raw, func(key, value []byte) (bool, error) {
		switch string(key[1 : len(key)-1]) {
		case "id":
			id = value
		case "aborted":
			aborted = value
		case "reason":
			return true, ErrUndecided
		default:
			return false, nil
		}
		return true, nil
	}, "id", "aborted", "reason")
	if err != nil {
		return err
	}
	if id == nil {
		return &DecodeError{Msg: `missing member "id"`}
	}
	switch {
	case id[0] == '"':
		str, _ := stringValue(id)
		s.ID = StringSignalID(str)
	case id[0] == '-' || (id[0] >= '0' && id[0] <= '9'):
		n, ok := ParseInteger(id)
		if !ok {
			// The schema's integer includes 1.0 and integers beyond 2^53−1,
			// which SignalID refuses: left to the schema and Unmarshal.
			return ErrUndecided
		}
		s.ID = IntSignalID(n)
	default:
		return &DecodeError{Pointer: "/id", Msg: "must be an integer or a string, got " + jsonKind(id)}
	}
	s.Aborted = false
	if aborted != nil {
		switch string(aborted) {
		case "true":
			s.Aborted = true
		case "false":
		default:
			return &DecodeError{Pointer: "/aborted", Msg: "must be a boolean, got " + jsonKind(aborted)}
		}
	}
	s.Reason = nil
	return nil
}

// decodeObserveOptions decodes EngineObserveOptions.
func decodeObserveOptions(raw []byte, o *EngineObserveOptions) error {
	var pixels, fallback []byte
	err := paramsObject(raw, func(key, value []byte) (bool, error) {
		switch string(key[1 : len(key)-1]) {
		case "pixels":
			pixels = value
		case "pixelFallback":
			fallback = value
		default:
			return false, nil
		}
		return true, nil
	}, "pixels", "pixelFallback")
	if err != nil {
		return at("/options", err)
	}
	for _, b := range [...]struct {
		v    []byte
		dst  *bool
		name string
	}{{pixels, &o.Pixels, "pixels"}, {fallback, &o.PixelFallback, "pixelFallback"}} {
		switch string(b.v) {
		case "":
		case "true":
			*b.dst = true
		case "false":
			*b.dst = false
		default:
			return &DecodeError{Pointer: "/options/" + b.name, Msg: "must be a boolean, got " + jsonKind(b.v)}
		}
	}
	return nil
}

// at locates err (a *DecodeError) under the pointer prefix.
func at(prefix string, err error) error {
	var de *DecodeError
	if errors.As(err, &de) {
		return &DecodeError{Pointer: prefix + de.Pointer, Msg: de.Msg}
	}
	return err
}

// nonNegative reads a JSON number that must be >= 0 (the schema's
// "type": "number", "minimum": 0), exactly: a negative literal is one whose
// mantissa has a non-zero digit, however small its value.
func nonNegative(raw []byte) (float64, error) {
	if len(raw) == 0 || !(raw[0] == '-' || (raw[0] >= '0' && raw[0] <= '9')) {
		return 0, &DecodeError{Msg: "must be a number, got " + jsonKind(raw)}
	}
	if raw[0] == '-' {
		for _, c := range raw[1:] {
			if c == 'e' || c == 'E' {
				break
			}
			if c >= '1' && c <= '9' {
				return 0, &DecodeError{Msg: "must be >= 0"}
			}
		}
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil {
		return 0, ErrUndecided // beyond float64: the schema accepts it, Unmarshal does not
	}
	return f, nil
}

// nonEmptyString reads a JSON string of at least one character.
func nonEmptyString(raw []byte) (string, error) {
	s, ok := stringValue(raw)
	if !ok {
		return "", &DecodeError{Msg: "must be a string, got " + jsonKind(raw)}
	}
	if len(raw) == 2 {
		return "", &DecodeError{Msg: "must not be empty"}
	}
	return s, nil
}

// stringValue decodes a raw JSON string as encoding/json does (invalid
// UTF-8 becomes U+FFFD); ok is false when raw is not a string.
func stringValue(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	body := raw[1 : len(raw)-1]
	if bytes.IndexByte(body, '\\') < 0 && utf8.Valid(body) {
		return string(body), true
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}
