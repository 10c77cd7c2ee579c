package traffic

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/e2e-conform/toolkit/protocol/schema"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// pendingBound bounds the ids a connection remembers per direction and
// the attempts and signals it tracks; past it new ones are not remembered
// (and never reported).
const pendingBound = 4096

// Conn is the state of one connection the rules of its order need, fed
// every frame's content of both directions in the order they were written
// (a frame of the harness before the engine could read it). Not safe for
// concurrent use.
//
// Engine side: the Rules of every message the server writes (the suite's
// run-wide checks, runcheck.go), a response to no pending request
// (WIRE-008, as the suite's client connections judge it in env.go), the
// lifecycle of §2 (LIFE-002 wrong version or role, LIFE-003 before
// initialize, LIFE-004 second initialize, LIFE-005 nothing before
// initialized, LIFE-006 after shutdown; the lifecycle specs provoke them,
// the monitor judges them when the harness happens to), the attempt
// window (S2C-001, as attempts.go) and the server's pending request ids
// (S2C-004), requests aborted at send (§7.5 D24, SIG-002, SIG-005).
//
// Harness side: a request id reused while pending, a batch, a response to
// no server request (§1.4); a message before initialized (§2.2); params
// against the method's schema (§5.13); a second $/abort for one signal id
// on the connection with no request carrying the id between (CLI-007,
// §7.2); a SignalRef with aborted: false or a reason without aborted
// (§7.1); the close sequence (CLI-013, §2.9: a request after shutdown,
// exit before the shutdown's answer). Not judged: shutdown while requests
// are pending (§2.9 step 2 waits within the cleanup budget, whose running
// out traffic cannot tell).
type Conn struct {
	rules Rules

	manifest *wire.Manifest // from the initialize result

	// the harness's requests not answered, by compact id
	pending map[string]*request
	// the server's attempt/resolveSecret requests not answered (S2C-004)
	server ServerRequests
	// the server's requests of other methods not answered, by id: the
	// client answers them -32601 (§1.7, CLI-014)
	otherServer map[string]string
	// the attempts open (S2C-001)
	window AttemptWindow
	// signal ids aborted by $/abort and carried by no request since
	aborted map[string]bool

	// overflow: a request of the harness was not remembered (pendingBound),
	// so a response to no remembered request is not judged a stray
	overflow bool

	initializeSent   bool
	initialized      bool // an initialize was answered with a result
	initializedSent  bool
	shutdownSent     bool
	shutdownAnswered bool // shutdown answered with a result
	shutdownReplied  bool // shutdown answered, with a result or an error
	initFailed       bool // an initialize was answered with an error, none with a result
	exitSent         bool
}

// request is a request of the harness not yet answered.
type request struct {
	method        string
	signals       []string
	abortedAtSend bool
	abortedLater  bool            // a $/abort for one of its signals was sent
	dups          int             // requests reusing its id while it is pending
	reason        json.RawMessage // the reason of a signal aborted at send
	beforeInit    bool            // sent before any initialize
	afterShutdown bool            // sent after shutdown was answered
	badInit       string          // initialize params LIFE-002 wants -32602 for
	secondInit    bool            // an initialize after a successful one
	unknown       bool            // a method outside §1.7, sent between initialize's result and shutdown
}

// NewConn returns the state of a new connection judged by rules.
func NewConn(rules Rules) *Conn {
	return &Conn{rules: rules, pending: map[string]*request{}, aborted: map[string]bool{}, otherServer: map[string]string{}}
}

// Kind is what a frame was.
type Kind int

// Kinds of frames.
const (
	KindOther Kind = iota // not a JSON-RPC object
	KindRequest
	KindNotification
	KindResponse
	KindBatch
	// KindInvalid is content that is not JSON (a framing fault: the
	// Deframer's caller reports it by returning false to Feed's emit).
	KindInvalid
)

// Seen is what Frame learned of one frame.
type Seen struct {
	Kind Kind
	// Method is the request's or notification's method, or for a
	// response the method of the request it answers ("" when none).
	Method string
	// ID is the compact id of a request or response.
	ID string
	// IsError: a response carrying error.
	IsError bool
	// Secrets are secret values the harness handed the engine in an
	// answer to attempt/resolveSecret or attempt/deriveSecret.
	Secrets []string
}

// compact is an id or signal id compared by JSON type and value (D18):
// 1 and 1.0 are one id, 1 and "1" two.
func compact(raw json.RawMessage) string { return CompactJSON(raw) }

func harnessViolation(s Sink, id, format string, args ...any) {
	s.Violation(Violation{Requirement: id, Section: sectionOf(id), Message: fmt.Sprintf(format, args...), Side: Harness})
}

// Frame judges one frame's content written by from, and returns what it was.
func (c *Conn) Frame(s Sink, from Side, content []byte) Seen {
	msg, valid := decodeMembers(content)
	if msg == nil {
		if !valid {
			return Seen{Kind: KindInvalid}
		}
		if len(content) > 0 && content[0] == '[' {
			if from == Engine {
				Batch(s, content)
			} else {
				harnessViolation(s, RuleClientIDs, "the client sent a batch, which §1.4 forbids (\"Batches MUST NOT be sent\"): %s", clip(string(content)))
			}
			return Seen{Kind: KindBatch}
		}
		return Seen{}
	}
	if from == Engine {
		return c.engineMessage(s, msg, content)
	}
	return c.harnessMessage(s, msg, content)
}

func methodOf(msg map[string]json.RawMessage) string {
	var m string
	_ = json.Unmarshal(msg["method"], &m)
	return m
}

// signalRef is a SignalRef in params.
type signalRef struct {
	ID      json.RawMessage `json:"id"`
	Aborted *bool           `json:"aborted"`
	Reason  json.RawMessage `json:"reason"`
}

// signalsOf returns the SignalRefs of params (§7.1: operation.signal,
// signal, reuseSignal).
func signalsOf(params json.RawMessage) []signalRef {
	if !bytes.Contains(params, []byte(`ignal"`)) {
		return nil // no signal, reuseSignal member: no decoding
	}
	var p struct {
		Signal      *signalRef `json:"signal"`
		ReuseSignal *signalRef `json:"reuseSignal"`
		Operation   struct {
			Signal *signalRef `json:"signal"`
		} `json:"operation"`
	}
	if json.Unmarshal(params, &p) != nil {
		return nil
	}
	var out []signalRef
	for _, r := range []*signalRef{p.Signal, p.ReuseSignal, p.Operation.Signal} {
		if r != nil && len(r.ID) > 0 {
			out = append(out, *r)
		}
	}
	return out
}

func (c *Conn) harnessMessage(s Sink, msg map[string]json.RawMessage, content []byte) Seen {
	method := methodOf(msg)
	rawID, hasID := msg["id"]
	if _, isMethod := msg["method"]; !isMethod {
		// The harness's answer to a request of the server.
		id := compact(rawID)
		seen := Seen{Kind: KindResponse, ID: id}
		if m, ok := c.otherServer[id]; ok {
			delete(c.otherServer, id)
			seen.Method = m
			s.Observed("CLI-014", "answer to a server request of another method checked")
			if code, _ := errorCode(msg["error"]); code != wire.CodeMethodNotFound {
				harnessViolation(s, "CLI-014", "the client answered the server's request %s (id %s) with %s, want -32601 (§1.7: \"A client answers any other request from the server with -32601\")", m, clip(id), answerText(msg))
			}
			return seen
		}
		if !c.server.Answered(CompactJSON(rawID)) {
			harnessViolation(s, RuleClientIDs, "the client wrote a response with id %s, which answers no pending request of the server (§1.4: exactly one response per request)", orDefault(id, "(none)"))
			return seen
		}
		seen.Method = wire.MethodResolveSecret
		if res, ok := msg["result"]; ok {
			s.Observed(RuleClientParams, "attempt/resolveSecret result validated")
			if err := c.rules.Schemas.ValidateResult(wire.MethodResolveSecret, res); err != nil {
				harnessViolation(s, RuleClientParams, "the client's attempt/resolveSecret result breaks its schema: %v", err)
			}
		}
		var r struct {
			Result struct {
				Value string `json:"value"`
			} `json:"result"`
		}
		if json.Unmarshal(content, &r) == nil && r.Result.Value != "" {
			seen.Secrets = append(seen.Secrets, r.Result.Value)
		}
		return seen
	}
	params := msg["params"]
	if method == wire.MethodStartAttempt || method == wire.MethodEndAttempt {
		c.window.Sent(content) // only they open or close an attempt
	}
	seen := Seen{Kind: KindNotification, Method: method}
	if hasID {
		seen.Kind, seen.ID = KindRequest, compact(rawID)
	}
	// §2.2: initialize first, initialized before any other message.
	s.Observed(RuleClientOrder, "message order checked")
	// After a failed initialize the rule does not apply ("Otherwise the
	// client sends initialized before any other message", §2.2).
	if method != wire.MethodInitialize && !c.initializedSent && method != wire.MethodInitialized && !c.initFailed {
		if !c.initializeSent {
			harnessViolation(s, RuleClientOrder, "the client sent %s before initialize (§2.2: initialize, then initialized before any other message)", method)
		} else {
			harnessViolation(s, RuleClientOrder, "the client sent %s before initialized (§2.2: \"the client sends initialized before any other message\")", method)
		}
	}
	// Params against the method's schema.
	if hasSchema(method) {
		s.Observed(RuleClientParams, method+" params validated")
		if err := c.rules.validateClientParams(method, params); err != nil {
			harnessViolation(s, RuleClientParams, "%s params break the method's schema: %v", method, err)
		}
	}
	// Signals.
	sigs := signalsOf(params)
	for _, r := range sigs {
		s.Observed(RuleSignalRef, "SignalRef checked")
		if r.Aborted != nil && !*r.Aborted {
			harnessViolation(s, RuleSignalRef, "%s carries a signal %s with \"aborted\": false (§7.1: \"Senders write only true\")", method, clip(string(r.ID)))
		}
		if len(r.Reason) > 0 && (r.Aborted == nil || !*r.Aborted) {
			harnessViolation(s, RuleSignalRef, "%s carries a signal %s with a reason but without \"aborted\": true (§7.1: reason \"only with aborted: true\")", method, clip(string(r.ID)))
		}
		delete(c.aborted, compact(r.ID))
	}
	switch method {
	case wire.MethodInitialize:
		c.initializeSent = true
	case wire.MethodInitialized:
		if c.initializeSent {
			c.initializedSent = true
		}
	case wire.MethodAbort:
		var p struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(params, &p) == nil && len(p.ID) > 0 {
			sid := compact(p.ID)
			s.Observed("CLI-007", "$/abort checked against the connection's earlier ones")
			if c.aborted[sid] {
				harnessViolation(s, "CLI-007", "a second $/abort for the signal id %s on this connection, no request having carried the id since the first (§7.2: one $/abort per signal and connection)", clip(sid))
			} else if len(c.aborted) < pendingBound {
				c.aborted[sid] = true
			}
			for _, rq := range c.pending {
				for _, x := range rq.signals {
					if x == sid {
						rq.abortedLater = true
					}
				}
			}
		}
	case wire.MethodExit:
		s.Observed("CLI-013", "exit checked against shutdown")
		switch {
		case c.initFailed && !c.initialized:
			// A connection whose initialize failed is closed without
			// shutdown (§2.2, §2.9): what it sends then is not judged.
		case !c.shutdownSent:
			harnessViolation(s, "CLI-013", "the client sent exit without shutdown (§2.9 close: shutdown, wait for its answer, then exit)")
		case !c.shutdownReplied:
			harnessViolation(s, "CLI-013", "the client sent exit before reading the answer to shutdown (§2.9 close: shutdown, wait for its result, then exit)")
		}
		c.exitSent = true
	}
	if seen.Kind != KindRequest {
		return seen
	}
	if c.shutdownSent && method != wire.MethodShutdown {
		harnessViolation(s, "CLI-013", "the client sent the request %s after shutdown (§2.9 close: after shutdown only exit follows)", method)
	}
	if first, dup := c.pending[seen.ID]; dup {
		s.Observed(RuleClientIDs, "request id checked against the pending ones")
		harnessViolation(s, RuleClientIDs, "the client reused the id %s of its request %s, still pending, for %s (§1.4: \"A sender MUST NOT reuse an id while a request with it is pending in the same direction\")", clip(seen.ID), first.method, method)
		first.dups++ // both get an answer with the id: neither is stray
		return seen
	}
	s.Observed(RuleClientIDs, "request id checked against the pending ones")
	rq := &request{method: method, beforeInit: !c.initializeSent && method != wire.MethodInitialize, afterShutdown: c.shutdownAnswered,
		unknown: c.initialized && !c.shutdownSent && !clientMethod(method) && wellFormed(msg)}
	for _, r := range sigs {
		rq.signals = append(rq.signals, compact(r.ID))
		if r.Aborted != nil && *r.Aborted {
			rq.abortedAtSend, rq.reason = true, r.Reason
		}
	}
	switch method {
	case wire.MethodInitialize:
		if c.initialized {
			rq.secondInit = true
		}
		rq.badInit = badInitialize(params)
	case wire.MethodShutdown:
		c.shutdownSent = true
	}
	if len(c.pending) < pendingBound {
		c.pending[seen.ID] = rq
	} else {
		c.overflow = true
	}
	return seen
}

// aborted reports whether the request's signal aborted (at send or by a
// $/abort since).
func (r *request) aborted() bool {
	return r.abortedAtSend || r.abortedLater
}

// badInitialize says why initialize params get -32602 by LIFE-002
// (protocolVersion other than the integer 1, role other than run or
// worker), "" when they do not.
func badInitialize(params json.RawMessage) string {
	var p map[string]json.RawMessage
	if json.Unmarshal(params, &p) != nil || p == nil {
		return ""
	}
	if v, ok := p["protocolVersion"]; ok {
		if n, isInt := wire.ParseInteger(v); !isInt || n != 1 {
			return "protocolVersion " + clip(string(v))
		}
	}
	if r, ok := p["role"]; ok && string(r) != `"run"` && string(r) != `"worker"` {
		return "role " + clip(string(r))
	}
	return ""
}

func (c *Conn) engineMessage(s Sink, msg map[string]json.RawMessage, content []byte) Seen {
	if _, isMethod := msg["method"]; !isMethod {
		return c.engineResponse(s, msg, content)
	}
	method := methodOf(msg)
	params := msg["params"]
	rawID, isRequest := msg["id"]
	seen := Seen{Kind: KindNotification, Method: method}
	if isRequest {
		seen.Kind, seen.ID = KindRequest, compact(rawID)
	}
	ServerMessageRead(s, method)
	s.Observed("LIFE-005", "server message checked against initialized")
	if !c.initializedSent {
		engineViolation(s, "LIFE-005", "the server sent %s before initialized (§2.3: \"The server MUST NOT send any request or notification before initialized arrives\")", method)
	}
	if strings.HasPrefix(method, "attempt/") && c.manifest != nil && c.manifest.Lists(wire.MethodStartAttempt) {
		var p struct {
			AttemptID any `json:"attemptId"`
		}
		_ = json.Unmarshal(params, &p)
		id, _ := p.AttemptID.(string)
		s.Observed("S2C-001", "attempt/* message read against its connection's attempt window")
		if !c.window.Admits(id) {
			OutsideAttempt(s, method, id, "the harness")
		}
	}
	if isRequest && method != wire.MethodResolveSecret && len(c.otherServer) < pendingBound {
		c.otherServer[seen.ID] = method // answered -32601 by the client
	}
	ServerRequest(s, method, isRequest)
	if !ServerMethodKnown(method) {
		return seen
	}
	if method == wire.MethodResolveSecret && isRequest {
		s.Observed("S2C-004", "attempt/resolveSecret id checked against the pending ones")
		if c.server.Read(CompactJSON(rawID)) {
			ReusedServerRequestID(s, string(rawID))
		}
	}
	c.rules.ServerParams(s, method, params)
	return seen
}

func (c *Conn) engineResponse(s Sink, msg map[string]json.RawMessage, content []byte) Seen {
	eo, isError := msg["error"]
	c.window.Response(string(msg["id"]), isError)
	ResponseShape(s, msg, content)
	if isError {
		c.rules.ErrorObject(s, eo)
	}
	id := compact(msg["id"])
	seen := Seen{Kind: KindResponse, ID: id, IsError: isError}
	rq, ok := c.pending[id]
	if !ok && (c.overflow || id == "null") {
		// id null answers a request whose id could not be read (§1.4).
		return seen
	}
	if !ok {
		engineViolation(s, "WIRE-008", "a response with id %s answers no request pending on this connection: a second response to one request, or one to a request never sent (§1.4: exactly one response per request)", orDefault(id, "(none)"))
		return seen
	}
	if rq.dups > 0 {
		rq.dups--
	} else {
		delete(c.pending, id)
	}
	seen.Method = rq.method
	code, _ := errorCode(eo)
	if !isError && (wire.IsEngineMethod(rq.method) || rq.method == wire.MethodInitialize || rq.method == wire.MethodShutdown) {
		c.rules.Result(s, rq.method, msg["result"])
	}
	if rq.method == wire.MethodDeriveSecret && !isError {
		var r struct {
			Values []string `json:"values"`
		}
		if json.Unmarshal(msg["result"], &r) == nil {
			seen.Secrets = append(seen.Secrets, r.Values...)
		}
	}
	// §2 lifecycle.
	switch {
	case rq.beforeInit && (wire.IsEngineMethod(rq.method) || rq.method == wire.MethodShutdown):
		s.Observed("LIFE-003", rq.method+" before initialize answered")
		if code != wire.CodeNotInitialized {
			engineViolation(s, "LIFE-003", "%s sent before initialize got %s, want -32002", rq.method, answerText(msg))
		}
	case rq.method == wire.MethodInitialize && rq.badInit != "":
		s.Observed("LIFE-002", "initialize with "+rq.badInit+" answered")
		if code != wire.CodeInvalidParams {
			engineViolation(s, "LIFE-002", "initialize with %s got %s, want -32602", rq.badInit, answerText(msg))
		}
	case rq.method == wire.MethodInitialize && rq.secondInit:
		s.Observed("LIFE-004", "second initialize answered")
		if code != wire.CodeInvalidRequest {
			engineViolation(s, "LIFE-004", "a second initialize after a successful one got %s, want -32600", answerText(msg))
		}
	case rq.unknown:
		s.Observed("WIRE-009", "request for a method outside §1.7 answered")
		if code != wire.CodeMethodNotFound {
			engineViolation(s, "WIRE-009", "the request %s, a method outside §1.7, got %s, want -32601", clip(rq.method), answerText(msg))
		}
	case rq.afterShutdown:
		s.Observed("LIFE-006", rq.method+" after shutdown answered")
		if code != wire.CodeInvalidRequest {
			engineViolation(s, "LIFE-006", "%s sent after shutdown was answered got %s, want -32600", rq.method, answerText(msg))
		}
	}
	switch rq.method {
	case wire.MethodInitialize:
		if isError && !c.initialized {
			c.initFailed = true
		}
		if !isError && !c.initialized && !rq.secondInit {
			c.initFailed = false
			c.initialized = true
			var r wire.InitializeResult
			if json.Unmarshal(msg["result"], &r) == nil {
				c.manifest = &r.Manifest
			}
		}
	case wire.MethodShutdown:
		c.shutdownReplied = true
		if !isError && !rq.afterShutdown {
			s.Observed("LIFE-006", "shutdown answered")
			if string(msg["result"]) != "null" {
				engineViolation(s, "LIFE-006", "shutdown got %s, want null", answerText(msg))
			}
			c.shutdownAnswered = true
		}
	}
	// §7.5: aborted at send.
	if rq.abortedAtSend && wire.IsOperationMethod(rq.method) {
		s.Observed(RuleAbortedAtSend, rq.method+" aborted at send answered")
		if !isError {
			engineViolation(s, RuleAbortedAtSend, "%s aborted at send (aborted: true) got a result, want an error (§7.5: \"any server MUST answer such a request with an error\")", rq.method)
		} else if len(rq.reason) > 0 {
			s.Observed("SIG-002", rq.method+" aborted at send with a reason answered")
			if !sameJSON(rq.reason, eo) {
				engineViolation(s, "SIG-002", "%s aborted at send with the reason %s got the error %s, want the reason (code, message and data equal)", rq.method, clip(string(rq.reason)), clip(string(eo)))
			}
		}
	}
	if isError && rq.aborted() {
		// Only at send is the abort sure to precede the answer: a $/abort
		// the monitor relayed may cross a response already written.
		if rq.abortedAtSend {
			s.Observed("SIG-005", "error answering an aborted request checked")
			var e struct {
				Data struct {
					Retryable *bool `json:"retryable"`
				} `json:"data"`
			}
			if json.Unmarshal(eo, &e) == nil && e.Data.Retryable != nil && *e.Data.Retryable {
				engineViolation(s, "SIG-005", "the error answering %s, aborted at send, is retryable (§7.5: \"An error answering a request after its signal aborted MUST NOT be retryable\")", rq.method)
			}
		}
	}
	return seen
}

func errorCode(eo json.RawMessage) (int64, bool) {
	var e struct {
		Code json.RawMessage `json:"code"`
	}
	if len(eo) == 0 || json.Unmarshal(eo, &e) != nil {
		return 0, false
	}
	return wire.ParseInteger(e.Code)
}

// answerText is "error -32601" or "a result".
func answerText(msg map[string]json.RawMessage) string {
	if eo, ok := msg["error"]; ok {
		if code, ok := errorCode(eo); ok {
			return fmt.Sprintf("error %d", code)
		}
		return "an error " + clip(string(eo))
	}
	return "the result " + clip(string(msg["result"]))
}

func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

// hasSchema reports whether the client's method has a params schema.
func hasSchema(method string) bool {
	return wire.IsEngineMethod(method) || method == wire.MethodInitialize || method == wire.MethodAbort || method == wire.MethodDeriveSecret
}

// validateClientParams validates the params of a message the client sends
// against its method's schema; nil for a method without one.
func (r Rules) validateClientParams(method string, params json.RawMessage) error {
	if !hasSchema(method) {
		return nil
	}
	var se *schema.Error
	if err := r.Schemas.ValidateParams(method, params); errors.As(err, &se) {
		return err
	}
	return nil
}

// clientMethod reports whether method is a request the client may send
// (§1.7): initialize, shutdown, ENGINE_METHODS, attempt/deriveSecret.
func clientMethod(method string) bool {
	return method == wire.MethodInitialize || method == wire.MethodShutdown || method == wire.MethodDeriveSecret || wire.IsEngineMethod(method)
}

// wellFormed reports whether a request is a JSON-RPC 2.0 request WIRE-005
// has nothing to say about: "jsonrpc": "2.0", a string method, an integer
// or string id (another gets -32600, not -32601).
func wellFormed(msg map[string]json.RawMessage) bool {
	if string(msg["jsonrpc"]) != `"2.0"` {
		return false
	}
	if m := msg["method"]; len(m) == 0 || m[0] != '"' {
		return false
	}
	id := msg["id"]
	if len(id) > 0 && id[0] == '"' {
		return true
	}
	_, isInt := wire.ParseInteger(id)
	return isInt
}
