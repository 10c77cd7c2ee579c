package conformance

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/e2e-conform/toolkit/protocol/engineerr"
	"github.com/e2e-conform/toolkit/protocol/schema"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// runChecker applies the run-wide checks to every message the server
// writes, on every connection of the run (schema, null members, response
// shape, error objects, batches, the server's requests), and keeps what it
// found: the violations by requirement, the server-to-client message kinds
// the server sent, and why part of a requirement went unchecked. The
// global specs (global_specs.go) report what it kept. Safe for concurrent
// use; its zero value keeps records but runs no check (run is nil).
type runChecker struct {
	schemas *schema.Set
	run     checkedRun

	mu         sync.Mutex
	violations map[string][]violationRec
	sent       map[string]bool
	// unchecked holds, per requirement, why part of what it judges was
	// not checked (a secret-request flood): the run-wide spec is then not
	// verified unless it failed.
	unchecked map[string]string
	// floodRequests counts the attempt/resolveSecret requests past
	// maxSecretRequests in their attempt, answered unchecked.
	floodRequests int
}

// checkedRun is what the run-wide checks use of the rest of the run: the
// evidence they record (evidence.go), the secrets they redact and search
// for (ERR-007), the attempt windows of the connections (attempts.go) and
// the bound on the server's secret requests.
type checkedRun interface {
	observed(id, what string)
	Redact(s string) string
	checkSecrets(where, text string)
	checkAttemptWindow(f *frame, mc msgCtx)
	secretRequest(mc msgCtx, attempt string) bool
}

// flooded counts an attempt/resolveSecret request past maxSecretRequests,
// recording note (when not "") as why part of requirement id went
// unchecked, unless a note is recorded already.
func (c *runChecker) flooded(id, note string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.floodRequests++
	if c.unchecked == nil {
		c.unchecked = map[string]string{}
	}
	if note != "" && c.unchecked[id] == "" {
		c.unchecked[id] = note
	}
}

// sentKinds returns the server-to-client message kinds the server sent in
// the run, sorted (nil when none).
func (c *runChecker) sentKinds() []string {
	c.mu.Lock()
	var out []string
	for k := range c.sent {
		out = append(out, k)
	}
	c.mu.Unlock()
	sort.Strings(out)
	return out
}

// violationRec is one run-wide violation: its message, naming the message
// and connection it was found in, and that connection's recent frames.
type violationRec struct {
	msg      string
	exchange string
}

// msgCtx says where a message the server wrote was read: its connection and
// what it was ("the answer to engine/observe (id 7)"), for violations.
type msgCtx struct {
	conn  *connInfo
	where string
}

// suffix is " (in the answer to engine/observe (id 7), conn 3 (client))".
func (m msgCtx) suffix() string {
	switch {
	case m.where != "" && m.conn != nil:
		return " (in " + m.where + ", " + m.conn.label() + ")"
	case m.conn != nil:
		return " (on " + m.conn.label() + ")"
	case m.where != "":
		return " (in " + m.where + ")"
	}
	return ""
}

// uncheckedNote says why part of what requirement id judges was not
// checked, "" when all of it was.
func (c *runChecker) uncheckedNote(id string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	note := c.unchecked[id]
	if note != "" && id == "S2C-004" {
		note += fmt.Sprintf(" (%d such requests in the run)", c.floodRequests)
	}
	return note
}

// violation records a failure of a run-wide requirement, found while
// reading what the server sent; the global specs report them.
func (c *runChecker) violation(id, format string, args ...any) {
	c.violationIn(msgCtx{}, id, format, args...)
}

// violationIn records a violation found in a message read as mc says: the
// message names it and its connection, and keeps the connection's recent
// frames.
func (c *runChecker) violationIn(mc msgCtx, id, format string, args ...any) {
	rec := violationRec{msg: c.run.Redact(fmt.Sprintf(format, args...) + mc.suffix()), exchange: mc.conn.recentExchange()}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.violations == nil {
		c.violations = map[string][]violationRec{}
	}
	if len(c.violations[id]) < 20 {
		c.violations[id] = append(c.violations[id], rec)
	}
}

// Violations returns what was recorded against id.
func (c *runChecker) Violations(id string) []string {
	var out []string
	for _, v := range c.violationRecords(id) {
		out = append(out, v.msg)
	}
	return out
}

// violationRecords returns the violations recorded against id.
func (c *runChecker) violationRecords(id string) []violationRec {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]violationRec(nil), c.violations[id]...)
}

// markSent records a server-to-client message kind (S2C applicability).
func (c *runChecker) markSent(what string) {
	c.mu.Lock()
	if c.sent == nil {
		c.sent = map[string]bool{}
	}
	c.sent[what] = true
	c.mu.Unlock()
}

// Sent reports whether the server sent what during the run.
func (c *runChecker) Sent(what string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sent[what]
}

// checkServerMessage applies the run-wide checks to one message the server
// sent: schema (WIRE-013), no null optional member (WIRE-012), error shapes
// (ERR-001…006), and the server's requests (S2C-004).
func (c *runChecker) checkServerMessage(f *frame, mc msgCtx) {
	if f.Msg == nil {
		return
	}
	c.run.checkAttemptWindow(f, mc)
	if f.IsResponse() {
		c.checkResponseShape(f, mc)
		if eo, ok := f.Msg["error"]; ok {
			c.checkError(eo, mc)
		}
		return
	}
	method := f.Method()
	params := f.Msg["params"]
	c.run.observed("S2C-004", "server message read")
	c.run.observed("WIRE-012", method+" params checked")
	c.run.observed("WIRE-013", method+" params validated")
	switch method {
	case wire.MethodEngineLog, wire.MethodAppLog, wire.MethodNavigation, wire.MethodEnvironment:
		c.run.observed("S2C-003", method+" checked")
	case wire.MethodScreen:
		c.run.observed("S2C-002", "attempt/screen validated")
	}
	switch method {
	case wire.MethodResolveSecret:
		c.markSent("attempt/resolveSecret")
		if id, ok := f.Msg["id"]; ok && mc.conn != nil {
			c.run.observed("S2C-004", "attempt/resolveSecret id checked against the pending ones")
			if mc.conn.requests.read(compactJSON(id)) {
				c.violationIn(mc, "S2C-004", "attempt/resolveSecret reused the id %s of a request still pending (the suite had not answered it)", clip(string(id)))
			}
		}
		var p struct {
			AttemptID  any             `json:"attemptId"`
			Derivation json.RawMessage `json:"derivation"`
		}
		_ = json.Unmarshal(params, &p)
		attempt, _ := p.AttemptID.(string)
		if !c.run.secretRequest(mc, attempt) {
			f.pastBound = true // answered SECRET_UNAVAILABLE, unchecked
			return
		}
		if p.Derivation != nil {
			c.markSent("attempt/resolveSecret with derivation")
		}
	case wire.MethodEngineLog, wire.MethodAppLog, wire.MethodNavigation, wire.MethodEnvironment, wire.MethodScreen:
	default:
		if _, isRequest := f.Msg["id"]; isRequest {
			c.violationIn(mc, "S2C-004", "the server sent the request %s", method)
		}
		return
	}
	if err := c.schemas.ValidateServerMessage(method, params); err != nil {
		c.violationIn(mc, "WIRE-013", "%s params: %v", method, err)
		if strings.Contains(err.Error(), "null") {
			c.violationIn(mc, "WIRE-012", "%s params: %v", method, err)
		}
		if method == wire.MethodAppLog || method == wire.MethodEngineLog || method == wire.MethodNavigation || method == wire.MethodEnvironment {
			c.violationIn(mc, "S2C-003", "%s params: %v", method, err)
		}
		if method == wire.MethodScreen {
			c.violationIn(mc, "S2C-002", "%s params: %v", method, err)
		}
		if method == wire.MethodResolveSecret {
			c.violationIn(mc, "S2C-004", "%s params: %v", method, err)
		}
	}
	c.run.checkSecrets(mc.where, string(params))
}

// checkResult validates a result against its method's schema (WIRE-012,
// WIRE-013).
func (c *runChecker) checkResult(method string, raw []byte, mc msgCtx) {
	c.run.observed("WIRE-012", "result of "+method+" checked")
	c.run.observed("WIRE-013", "result of "+method+" validated")
	if err := c.schemas.ValidateResult(method, raw); err != nil {
		c.violationIn(mc, "WIRE-013", "result of %s: %v", method, err)
		if strings.Contains(err.Error(), "null") {
			c.violationIn(mc, "WIRE-012", "result of %s: %v", method, err)
		}
	}
}

func (c *runChecker) checkError(raw json.RawMessage, mc msgCtx) {
	c.run.observed("WIRE-013", "error object validated")
	c.run.observed("ERR-005", "error object checked")
	c.run.observed("ERR-006", "error message checked")
	if err := c.schemas.ValidateType("ErrorObject", raw); err != nil {
		c.violationIn(mc, "WIRE-013", "error object: %v", err)
	}
	// §0.4: a sender MUST NOT write null for an absent member (WIRE-012);
	// an error object's members, and those of its data and causes, are
	// never null (details, the engine's own object, is not searched).
	c.run.observed("WIRE-012", "error object checked")
	if where := nullErrorMember(raw, "error"); where != "" {
		c.violationIn(mc, "WIRE-012", "%s is null: an absent member is omitted, never null (§0.4)", where)
	}
	c.run.checkSecrets("the error object of "+orDefault(mc.where, "a response"), string(raw))
	// The rules the schema cannot state: one verdict, engineerr's.
	obj, problems := engineerr.CheckObject(raw)
	if obj.Code == wire.CodeEngineError {
		c.run.observed("ERR-001", "-32000 error checked")
	}
	switch obj.Type {
	case "engine":
		c.run.observed("ERR-002", "engine error "+string(obj.Engine))
		if !obj.Engine.MayRetry() {
			c.run.observed("ERR-003", "engine error "+string(obj.Engine)+" (retryable must be false)")
		}
	case "e2e":
		c.run.observed("ERR-004", "e2e error "+string(obj.Category)+" "+obj.E2ECode)
	}
	for _, p := range problems {
		c.violationIn(mc, p.Requirement, "%s", p.Message)
	}
}

// nullErrorMember returns the path of the first null member of an error
// object (its own members, its data's members but details, and its causes'),
// "" when there is none.
func nullErrorMember(raw json.RawMessage, path string) string {
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
		return nullErrorMember(c, path+".data.cause")
	}
	return ""
}

// checkResponseShape applies WIRE-008 to one response the server wrote:
// "exactly one response with "jsonrpc": "2.0", the request's id …, and
// exactly one of result and error, an error having an integer code and a
// string message" (§1.4).
func (c *runChecker) checkResponseShape(f *frame, mc msgCtx) {
	c.run.observed("WIRE-008", "response shape checked")
	id := f.ID()
	if v := string(f.Msg["jsonrpc"]); v != `"2.0"` {
		if v == "" {
			v = "no jsonrpc member"
		}
		c.violationIn(mc, "WIRE-008", "the response with id %s carries %s, want \"jsonrpc\": \"2.0\"", orDefault(id, "(none)"), v)
	}
	_, hasResult := f.Msg["result"]
	eo, hasError := f.Msg["error"]
	switch {
	case hasResult && hasError:
		c.violationIn(mc, "WIRE-008", "the response with id %s carries both result and error", id)
	case !hasResult && !hasError:
		c.violationIn(mc, "WIRE-008", "the response with id %s carries neither result nor error: %s", id, clip(string(f.Content)))
	}
	if id == "" {
		c.violationIn(mc, "WIRE-008", "a response without an id: %s", clip(string(f.Content)))
	}
	if !hasError {
		return
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(eo, &m) != nil || m == nil {
		c.violationIn(mc, "WIRE-008", "the error of the response with id %s is not an object: %s", id, clip(string(eo)))
		return
	}
	if _, isInt := wire.ParseInteger(m["code"]); !isInt {
		c.violationIn(mc, "WIRE-008", "the error of the response with id %s has code %s, want an integer", id, orDefault(string(m["code"]), "(none)"))
	}
	if msg := m["message"]; len(msg) == 0 || msg[0] != '"' {
		c.violationIn(mc, "WIRE-008", "the error of the response with id %s has message %s, want a string", id, orDefault(string(msg), "(none)"))
	}
}

// checkBatch applies the run-wide checks to content that is a JSON array:
// "Batches MUST NOT be sent (D3)" (§1.4), so a response inside one is not
// the one response its request gets (WIRE-008).
func (c *runChecker) checkBatch(content []byte, mc msgCtx) {
	var list []map[string]json.RawMessage
	if json.Unmarshal(content, &list) != nil {
		return
	}
	for _, m := range list {
		if _, isMsg := m["method"]; !isMsg && m != nil {
			c.violationIn(mc, "WIRE-008", "the response with id %s came inside a batch, which §1.4 forbids (\"Batches MUST NOT be sent\"): %s", orDefault(string(m["id"]), "(none)"), clip(string(content)))
		}
	}
}
