// Package traffic holds the protocol rules that the traffic between a client
// and an engine server alone can decide, in one place: the conformance
// suite's run-wide checks (conformance/runcheck.go) apply them to every frame
// the server writes, and `e2e-conform monitor` (conformance/monitor) applies
// them to both directions of a live session it relays.
//
// Rules are stateless: each call judges one message and tells a Sink what it
// checked (Observed) and what it found wrong (Violation). Checker keeps the
// per-connection state the ordering rules need (pending requests both ways,
// the lifecycle, signals) and applies Rules and its own rules to every frame
// of a connection, in both directions.
//
// Nothing here uses ginkgo; the package has no mutable state of its own.
package traffic

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/e2e-conform/toolkit/conformance/report"
	"github.com/e2e-conform/toolkit/protocol/engineerr"
	"github.com/e2e-conform/toolkit/protocol/schema"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// Side is the peer at fault for a violation.
type Side string

// The two sides of a connection.
const (
	// Engine is the engine server (what the conformance suite judges).
	Engine Side = "engine"
	// Harness is the client: a test runner, the toolkit's client, e2e-mcp.
	Harness Side = "harness"
)

// Violation is one rule broken by one message.
type Violation struct {
	// Requirement is the §11 catalog ID, or for a client rule without a
	// catalog row the section that states it ("§1.4").
	Requirement string
	// Section is the part of the specification the rule comes from.
	Section string
	// Message says what is wrong, quoting the offending part.
	Message string
	// Side is the peer that broke the rule.
	Side Side
}

// Sink receives what the rules check and find.
type Sink interface {
	// Observed records that requirement id was exercised: what was checked.
	Observed(id, what string)
	// Violation records a rule broken.
	Violation(v Violation)
}

// Rules are the stateless checks of one message. The zero value has no
// schemas; Schemas must be set.
type Rules struct {
	Schemas *schema.Set
}

func clip(s string) string { return report.Clip(s) }

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// engineViolation reports a violation by the engine of requirement id.
func engineViolation(s Sink, id, format string, args ...any) {
	s.Violation(Violation{Requirement: id, Section: sectionOf(id), Message: fmt.Sprintf(format, args...), Side: Engine})
}

// ServerMessageRead records what every request or notification the server
// writes exercises (S2C-002/003/004, WIRE-012/013).
func ServerMessageRead(s Sink, method string) {
	s.Observed("S2C-004", "server message read")
	s.Observed("WIRE-012", method+" params checked")
	s.Observed("WIRE-013", method+" params validated")
	switch method {
	case wire.MethodEngineLog, wire.MethodAppLog, wire.MethodNavigation, wire.MethodEnvironment:
		s.Observed("S2C-003", method+" checked")
	case wire.MethodScreen:
		s.Observed("S2C-002", "attempt/screen validated")
	}
}

// ServerMethodKnown reports whether method is one the server may send
// (§1.7): attempt/resolveSecret and the notifications.
func ServerMethodKnown(method string) bool {
	switch method {
	case wire.MethodResolveSecret, wire.MethodEngineLog, wire.MethodAppLog, wire.MethodNavigation, wire.MethodEnvironment, wire.MethodScreen:
		return true
	}
	return false
}

// ServerRequest judges a message the server wrote with an id, a request:
// "The only request the server sends is attempt/resolveSecret" (S2C-004),
// so a request of any other method breaks it, one of a notification's
// method (engine/log with an id) included. A message without an id is not
// judged here.
func ServerRequest(s Sink, method string, isRequest bool) {
	if isRequest && method != wire.MethodResolveSecret {
		engineViolation(s, "S2C-004", "the server sent the request %s (with an id); the only request a server sends is attempt/resolveSecret", method)
	}
}

// ReusedServerRequestID reports an attempt/resolveSecret whose id is that of
// a request of the server still pending (S2C-004, §1.4).
func ReusedServerRequestID(s Sink, id string) {
	engineViolation(s, "S2C-004", "attempt/resolveSecret reused the id %s of a request still pending (the suite had not answered it)", clip(id))
}

// ServerParams validates the params of a request or notification of a
// known method the server wrote against its schema (WIRE-013, and the
// message's own requirement).
func (r Rules) ServerParams(s Sink, method string, params json.RawMessage) {
	if err := r.Schemas.ValidateServerMessage(method, params); err != nil {
		engineViolation(s, "WIRE-013", "%s params: %v", method, err)
		if strings.Contains(err.Error(), "null") {
			engineViolation(s, "WIRE-012", "%s params: %v", method, err)
		}
		if method == wire.MethodAppLog || method == wire.MethodEngineLog || method == wire.MethodNavigation || method == wire.MethodEnvironment {
			engineViolation(s, "S2C-003", "%s params: %v", method, err)
		}
		if method == wire.MethodScreen {
			engineViolation(s, "S2C-002", "%s params: %v", method, err)
		}
		if method == wire.MethodResolveSecret {
			engineViolation(s, "S2C-004", "%s params: %v", method, err)
		}
	}
}

// Result validates a result the server wrote for method against its schema
// (WIRE-012, WIRE-013).
func (r Rules) Result(s Sink, method string, raw json.RawMessage) {
	s.Observed("WIRE-012", "result of "+method+" checked")
	s.Observed("WIRE-013", "result of "+method+" validated")
	if err := r.Schemas.ValidateResult(method, raw); err != nil {
		engineViolation(s, "WIRE-013", "result of %s: %v", method, err)
		if strings.Contains(err.Error(), "null") {
			engineViolation(s, "WIRE-012", "result of %s: %v", method, err)
		}
	}
}

// ErrorObject judges an error object the server wrote: its schema
// (WIRE-013), no null member (WIRE-012), and the rules of §8 the schema
// cannot state (ERR-001…006, engineerr.CheckObject). It does not search for
// secrets (ERR-007 needs the run's secrets).
func (r Rules) ErrorObject(s Sink, raw json.RawMessage) {
	s.Observed("WIRE-013", "error object validated")
	s.Observed("ERR-005", "error object checked")
	s.Observed("ERR-006", "error message checked")
	if err := r.Schemas.ValidateType("ErrorObject", raw); err != nil {
		engineViolation(s, "WIRE-013", "error object: %v", err)
	}
	// §0.4: a sender MUST NOT write null for an absent member (WIRE-012);
	// an error object's members, and those of its data and causes, are
	// never null (details, the engine's own object, is not searched).
	s.Observed("WIRE-012", "error object checked")
	if where := NullErrorMember(raw, "error"); where != "" {
		engineViolation(s, "WIRE-012", "%s is null: an absent member is omitted, never null (§0.4)", where)
	}
	// The rules the schema cannot state: one verdict, engineerr's.
	obj, problems := engineerr.CheckObject(raw)
	if obj.Code == wire.CodeEngineError {
		s.Observed("ERR-001", "-32000 error checked")
	}
	switch obj.Type {
	case "engine":
		s.Observed("ERR-002", "engine error "+string(obj.Engine))
		if !obj.Engine.MayRetry() {
			s.Observed("ERR-003", "engine error "+string(obj.Engine)+" (retryable must be false)")
		}
	case "e2e":
		s.Observed("ERR-004", "e2e error "+string(obj.Category)+" "+obj.E2ECode)
	}
	for _, p := range problems {
		engineViolation(s, p.Requirement, "%s", p.Message)
	}
}

// NullErrorMember returns the path of the first null member of an error
// object (its own members, its data's members but details, and its causes'),
// "" when there is none.
func NullErrorMember(raw json.RawMessage, path string) string {
	var eo map[string]json.RawMessage
	if json.Unmarshal(raw, &eo) != nil {
		return ""
	}
	for _, k := range []string{"code", "message", "data"} {
		if v, ok := eo[k]; ok && string(v) == "null" {
			return path + "." + k
		}
	}
	var d map[string]json.RawMessage
	if json.Unmarshal(eo["data"], &d) != nil {
		return ""
	}
	for k, v := range d {
		if k != "details" && string(v) == "null" {
			return path + ".data." + k
		}
	}
	if c, ok := d["cause"]; ok && strings.Count(path, ".cause") < 8 {
		return NullErrorMember(c, path+".data.cause")
	}
	return ""
}

// ResponseShape applies WIRE-008 to one response the server wrote (msg, its
// decoded members; content, its bytes): "exactly one response with
// "jsonrpc": "2.0", the request's id …, and exactly one of result and
// error, an error having an integer code and a string message" (§1.4).
func ResponseShape(s Sink, msg map[string]json.RawMessage, content []byte) {
	s.Observed("WIRE-008", "response shape checked")
	id := string(msg["id"])
	if v := string(msg["jsonrpc"]); v != `"2.0"` {
		if v == "" {
			v = "no jsonrpc member"
		}
		engineViolation(s, "WIRE-008", "the response with id %s carries %s, want \"jsonrpc\": \"2.0\"", orDefault(id, "(none)"), v)
	}
	_, hasResult := msg["result"]
	eo, hasError := msg["error"]
	switch {
	case hasResult && hasError:
		engineViolation(s, "WIRE-008", "the response with id %s carries both result and error", id)
	case !hasResult && !hasError:
		engineViolation(s, "WIRE-008", "the response with id %s carries neither result nor error: %s", id, clip(string(content)))
	}
	if id == "" {
		engineViolation(s, "WIRE-008", "a response without an id: %s", clip(string(content)))
	}
	if !hasError {
		return
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(eo, &m) != nil || m == nil {
		engineViolation(s, "WIRE-008", "the error of the response with id %s is not an object: %s", id, clip(string(eo)))
		return
	}
	if _, isInt := wire.ParseInteger(m["code"]); !isInt {
		engineViolation(s, "WIRE-008", "the error of the response with id %s has code %s, want an integer", id, orDefault(string(m["code"]), "(none)"))
	}
	if msg := m["message"]; len(msg) == 0 || msg[0] != '"' {
		engineViolation(s, "WIRE-008", "the error of the response with id %s has message %s, want a string", id, orDefault(string(msg), "(none)"))
	}
}

// Batch judges content the server wrote that is a JSON array: "Batches
// MUST NOT be sent (D3)" (§1.4), so a response inside one is not the one
// response its request gets (WIRE-008).
func Batch(s Sink, content []byte) {
	var list []map[string]json.RawMessage
	if json.Unmarshal(content, &list) != nil {
		return
	}
	for _, m := range list {
		if _, isMsg := m["method"]; !isMsg && m != nil {
			engineViolation(s, "WIRE-008", "the response with id %s came inside a batch, which §1.4 forbids (\"Batches MUST NOT be sent\"): %s", orDefault(string(m["id"]), "(none)"), clip(string(content)))
		}
	}
}
