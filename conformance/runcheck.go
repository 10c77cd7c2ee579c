package conformance

import (
	"encoding/json"
	"fmt"
	"sort"
	"sync"

	"github.com/e2e-conform/toolkit/conformance/traffic"
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
// (ERR-001…006), and the server's requests (S2C-004). The rules are
// package traffic's, shared with `e2e-conform monitor`; what needs the
// run (attempt windows, the secret-request bound, ERR-007) stays here.
func (c *runChecker) checkServerMessage(f *frame, mc msgCtx) {
	if f.Msg == nil {
		return
	}
	c.run.checkAttemptWindow(f, mc)
	s := c.sink(mc)
	if f.IsResponse() {
		traffic.ResponseShape(s, f.Msg, f.Content)
		if eo, ok := f.Msg["error"]; ok {
			c.checkError(eo, mc)
		}
		return
	}
	method := f.Method()
	params := f.Msg["params"]
	traffic.ServerMessageRead(s, method)
	_, isRequest := f.Msg["id"]
	traffic.ServerRequest(s, method, isRequest)
	switch method {
	case wire.MethodResolveSecret:
		c.markSent("attempt/resolveSecret")
		if id, ok := f.Msg["id"]; ok && mc.conn != nil {
			c.run.observed("S2C-004", "attempt/resolveSecret id checked against the pending ones")
			if mc.conn.requests.read(compactJSON(id)) {
				traffic.ReusedServerRequestID(s, string(id))
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
	default:
		if !traffic.ServerMethodKnown(method) {
			return
		}
	}
	c.rules().ServerParams(s, method, params)
	c.run.checkSecrets(mc.where, string(params))
}

// checkResult validates a result against its method's schema (WIRE-012,
// WIRE-013).
func (c *runChecker) checkResult(method string, raw []byte, mc msgCtx) {
	c.rules().Result(c.sink(mc), method, raw)
}

func (c *runChecker) checkError(raw json.RawMessage, mc msgCtx) {
	c.rules().ErrorObject(c.sink(mc), raw)
	c.run.checkSecrets("the error object of "+orDefault(mc.where, "a response"), string(raw))
}

// checkBatch applies the run-wide checks to content that is a JSON array:
// "Batches MUST NOT be sent (D3)" (§1.4), so a response inside one is not
// the one response its request gets (WIRE-008).
func (c *runChecker) checkBatch(content []byte, mc msgCtx) {
	traffic.Batch(c.sink(mc), content)
}

// rules are the shared rules over the run's schemas.
func (c *runChecker) rules() traffic.Rules { return traffic.Rules{Schemas: c.schemas} }

// sink is where the shared rules report what they find in a message read
// as mc says: the run's evidence and the checker's violations.
func (c *runChecker) sink(mc msgCtx) traffic.Sink { return checkSink{c: c, mc: mc} }

// checkSink is runChecker's traffic.Sink for one message.
type checkSink struct {
	c  *runChecker
	mc msgCtx
}

// Observed records evidence for requirement id.
func (s checkSink) Observed(id, what string) { s.c.run.observed(id, what) }

// Violation records v against its requirement, naming the message and its
// connection.
func (s checkSink) Violation(v traffic.Violation) {
	s.c.violationIn(s.mc, v.Requirement, "%s", v.Message)
}
