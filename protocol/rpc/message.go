package rpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/e2e-conform/toolkit/protocol/internal/jsonscan"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// envelopeNames are the members of a JSON-RPC message; member names are
// case-sensitive, and a look-alike ("ID", "Method") is refused.
var envelopeNames = [...]string{"jsonrpc", "id", "method", "params", "result", "error"}

// parse classifies content (spec §1.3, §1.4) in one pass over it and fills
// m's members, kept raw. On a fault it returns the id to answer with (nil
// for null).
//
// Implements: WIRE-004, WIRE-005, WIRE-006.
func parse(content []byte, m *Message) (*FrameError, json.RawMessage) {
	trimmed := jsonscan.Trim(content)
	var jsonrpc, id, method, params, result, errObj json.RawMessage
	var lookAlike string
	envelope := func(key, value []byte) bool {
		switch {
		case jsonscan.KeyIs(key, "jsonrpc"):
			jsonrpc = value
		case jsonscan.KeyIs(key, "id"):
			id = value
		case jsonscan.KeyIs(key, "method"):
			method = value
		case jsonscan.KeyIs(key, "params"):
			params = value
		case jsonscan.KeyIs(key, "result"):
			result = value
		case jsonscan.KeyIs(key, "error"):
			errObj = value
		default:
			// Member names are case-sensitive: refuse look-alikes, which a
			// case-insensitive decoder would take for the member.
			k := jsonscan.Key(key)
			for _, known := range envelopeNames {
				if strings.EqualFold(k, known) {
					lookAlike = fmt.Sprintf("member %q is not %q", k, known)
					return false
				}
			}
		}
		return true
	}
	// One pass validates the content and finds the envelope's members (an
	// object with more members than fit is walked again).
	var into [8]jsonscan.Member
	valid, n := jsonscan.ValidMembers(trimmed, into[:])
	if valid && n <= len(into) {
		for _, mb := range into[:n] {
			if !envelope(mb.Key(trimmed), mb.Value(trimmed)) {
				break
			}
		}
	} else if valid {
		jsonscan.Object(trimmed, envelope)
	}
	if !valid {
		// The fault path says which.
		if !utf8.Valid(content) {
			return &FrameError{Kind: FaultJSON, Msg: "content is not valid UTF-8"}, nil
		}
		return &FrameError{Kind: FaultJSON, Msg: "content is not valid JSON" + syntaxDetail(content)}, nil
	}
	if len(trimmed) > 0 && trimmed[0] == '[' {
		return &FrameError{Kind: FaultBatch, Msg: "batches are not supported"}, nil
	}
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return &FrameError{Kind: FaultEnvelope, Msg: "message is not a JSON object"}, nil
	}
	if lookAlike != "" {
		return &FrameError{Kind: FaultEnvelope, Msg: lookAlike}, nil
	}
	var answerID json.RawMessage
	idOK := id != nil && validID(id)
	if idOK {
		answerID = id
	}
	bad := func(format string, args ...any) (*FrameError, json.RawMessage) {
		return &FrameError{Kind: FaultEnvelope, Msg: fmt.Sprintf(format, args...)}, answerID
	}
	if string(jsonrpc) != `"2.0"` {
		return bad(`"jsonrpc" must be "2.0"`)
	}
	nullID := string(id) == "null"
	if id != nil && !idOK && !(nullID && method == nil && errObj != nil) {
		return bad("id %s is neither an integer nor a string", clip(id))
	}
	if method != nil {
		name, ok := methodName(method)
		if !ok {
			return bad(`"method" must be a string`)
		}
		if result != nil || (errObj != nil && string(errObj) != "null") {
			return bad("a request cannot carry result or error")
		}
		m.Method, m.ID, m.Params = name, id, params
		return nil, answerID
	}
	// A response.
	if id == nil {
		return bad("message has neither method nor id")
	}
	if (result == nil) == (errObj == nil) {
		return bad("response must have exactly one of result and error")
	}
	if errObj != nil {
		if errObj[0] != '{' {
			return bad("error must be an object")
		}
		var code, message json.RawMessage
		jsonscan.Object(errObj, func(key, value []byte) bool {
			switch {
			case jsonscan.KeyIs(key, "code"):
				code = value
			case jsonscan.KeyIs(key, "message"):
				message = value
			}
			return true
		})
		if _, ok := wire.ParseInteger(code); !ok {
			return bad("error code must be an integer")
		}
		if len(message) == 0 || message[0] != '"' {
			return bad("error message must be a string")
		}
	}
	m.ID, m.Result, m.Error = id, result, errObj
	return nil, answerID
}

// syntaxDetail is encoding/json's description of a syntax error (on the
// fault path only).
func syntaxDetail(content []byte) string {
	var v any
	err := json.Unmarshal(content, &v)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return ": " + err.Error()
	}
	if err != nil {
		return ": " + err.Error()
	}
	return ""
}

// Implements: WIRE-005.
func validID(raw json.RawMessage) bool {
	if len(raw) == 0 {
		return false
	}
	if raw[0] == '"' {
		return true
	}
	_, ok := wire.ParseInteger(raw)
	return ok
}

// methodName decodes a raw method name; the protocol's own names cost no
// allocation (the switch compares the bytes and returns the constant).
func methodName(raw []byte) (string, bool) {
	if len(raw) >= 2 && raw[0] == '"' && bytes.IndexByte(raw, '\\') < 0 {
		switch string(raw[1 : len(raw)-1]) {
		case wire.MethodInitialize:
			return wire.MethodInitialize, true
		case wire.MethodInitialized:
			return wire.MethodInitialized, true
		case wire.MethodShutdown:
			return wire.MethodShutdown, true
		case wire.MethodExit:
			return wire.MethodExit, true
		case wire.MethodAbort:
			return wire.MethodAbort, true
		case wire.MethodDeriveSecret:
			return wire.MethodDeriveSecret, true
		case wire.MethodResolveSecret:
			return wire.MethodResolveSecret, true
		case wire.MethodEngineLog:
			return wire.MethodEngineLog, true
		case wire.MethodAppLog:
			return wire.MethodAppLog, true
		case wire.MethodNavigation:
			return wire.MethodNavigation, true
		case wire.MethodEnvironment:
			return wire.MethodEnvironment, true
		case wire.MethodScreen:
			return wire.MethodScreen, true
		case wire.MethodObserve:
			return wire.MethodObserve, true
		case wire.MethodLocate:
			return wire.MethodLocate, true
		case wire.MethodPerform:
			return wire.MethodPerform, true
		case wire.MethodPerformAt:
			return wire.MethodPerformAt, true
		case wire.MethodType:
			return wire.MethodType, true
		case wire.MethodPress:
			return wire.MethodPress, true
		case wire.MethodDismiss:
			return wire.MethodDismiss, true
		case wire.MethodCapture:
			return wire.MethodCapture, true
		case wire.MethodRestore:
			return wire.MethodRestore, true
		case wire.MethodScreenshot:
			return wire.MethodScreenshot, true
		case wire.MethodStartVideo:
			return wire.MethodStartVideo, true
		case wire.MethodStopVideo:
			return wire.MethodStopVideo, true
		case wire.MethodOpen:
			return wire.MethodOpen, true
		case wire.MethodBack:
			return wire.MethodBack, true
		case wire.MethodRestart:
			return wire.MethodRestart, true
		case wire.MethodReset:
			return wire.MethodReset, true
		case wire.MethodPrepare:
			return wire.MethodPrepare, true
		case wire.MethodFinish:
			return wire.MethodFinish, true
		case wire.MethodInit:
			return wire.MethodInit, true
		case wire.MethodStartAttempt:
			return wire.MethodStartAttempt, true
		case wire.MethodSettleAttempt:
			return wire.MethodSettleAttempt, true
		case wire.MethodEndAttempt:
			return wire.MethodEndAttempt, true
		case wire.MethodDispose:
			return wire.MethodDispose, true
		}
	}
	return jsonscan.String(raw)
}

// parseUint reads a response id this side minted: a decimal integer
// without sign.
func parseUint(raw []byte) (uint64, bool) {
	if len(raw) == 0 || len(raw) > 19 || (raw[0] == '0' && len(raw) > 1) {
		return 0, false
	}
	var n uint64
	for _, c := range raw {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	return n, true
}
