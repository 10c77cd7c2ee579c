package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/e2e-conform/toolkit/protocol/engineerr"
	"github.com/e2e-conform/toolkit/protocol/rpc"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// request is one incoming request, answered exactly once.
type request struct {
	c        *conn
	rc       *rpc.Conn
	req      *rpc.Request
	id       string
	answered atomic.Bool
}

func (r *request) params() json.RawMessage { return r.req.Params }

// respond writes the response, a result (eo nil) or an error; only the
// first call has an effect. The result is encoded straight into the
// frame; one too large for the message limit, or that cannot be encoded,
// is answered with an error instead (spec §1.2).
//
// Implements: WIRE-008, WIRE-012, WIRE-013 (results are the engine's protocol/wire
// values, encoded as they are: no null optional member, the schemas' shapes).
func (r *request) respond(result any, eo *wire.ErrorObject) {
	if !r.answered.CompareAndSwap(false, true) {
		return
	}
	var err error
	if eo == nil {
		if err = r.rc.Reply(r.req.ID, result); err != nil {
			eo = r.resultFault(result, err)
		}
	}
	if eo != nil {
		err = r.rc.ReplyError(r.req.ID, eo.Code, eo.Message, eo.Data)
	}
	if err != nil && !errors.Is(err, rpc.ErrClosed) {
		r.c.log.Debug("cannot write response", "method", r.req.Method, "error", err)
	}
	r.c.mu.Lock()
	delete(r.c.pending, r.id)
	r.c.mu.Unlock()
	<-r.c.slots
}

// resultFault is the error answered when a result could not be written:
// nil when the failure was the connection's (nothing more can be sent).
func (r *request) resultFault(result any, err error) *wire.ErrorObject {
	var fe *rpc.FrameError
	switch {
	case errors.Is(err, rpc.ErrTooLarge):
		limit := r.c.opts.MaxMessageBytes
		if limit <= 0 {
			limit = wire.MaxMessageBytes
		}
		size := 0
		if raw, merr := json.Marshal(result); merr == nil {
			size = len(raw)
		}
		return engineerr.Encode(engineerr.New(engineerr.EngineFailure, "the %s result of %d bytes exceeds the %d-byte message limit",
			r.req.Method, size, limit))
	case errors.As(err, &fe) && fe.Kind == rpc.FaultEncode:
		return engineerr.Encode(fmt.Errorf("encoding the %s result: %w", r.req.Method, fe.Err))
	}
	return nil
}

func (r *request) replyCode(code int64, format string, args ...any) {
	r.respond(nil, &wire.ErrorObject{Code: code, Message: fmt.Sprintf(format, args...)})
}

// replyErr encodes err (spec §8.5). aborted: the request's signal had
// aborted, so the error must not be retryable (spec §7.5).
//
// Implements: ERR-001, ERR-002, ERR-003, ERR-004, ERR-005, ERR-006, SIG-005.
func (r *request) replyErr(err error, aborted bool) {
	o := engineerr.Encode(err)
	if aborted {
		o = notRetryable(o)
	}
	r.respond(nil, o)
}

// notRetryable rewrites retryable: true in error data to false.
func notRetryable(o *wire.ErrorObject) *wire.ErrorObject {
	if len(o.Data) == 0 {
		return o
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(o.Data, &m) != nil || string(m["retryable"]) != "true" {
		return o
	}
	m["retryable"] = json.RawMessage("false")
	data, err := json.Marshal(m)
	if err != nil {
		return o
	}
	return &wire.ErrorObject{Code: o.Code, Message: o.Message, Data: data}
}

// replyResult writes v as the result (spec §1.2: one above the message
// limit is answered ENGINE_FAILURE naming the size).
func (r *request) replyResult(v any) { r.respond(v, nil) }

// Implements: LIFE-003, LIFE-004, LIFE-006, WIRE-009, WIRE-010, MAN-002, MAN-003.
func (r *request) dispatch() {
	c := r.c
	method := r.req.Method
	c.mu.Lock()
	state := c.state
	c.mu.Unlock()
	switch {
	case state == stateNew && method != wire.MethodInitialize:
		r.replyCode(wire.CodeNotInitialized, "server not initialized")
		return
	case state == stateShutdown:
		r.replyCode(wire.CodeInvalidRequest, "server is shut down: %s after shutdown", method)
		return
	case state == stateReady && method == wire.MethodInitialize:
		r.replyCode(wire.CodeInvalidRequest, "initialize after a successful initialize")
		return
	}
	switch method {
	case wire.MethodInitialize:
		r.initialize()
		return
	case wire.MethodShutdown:
		r.shutdown()
		return
	case wire.MethodDeriveSecret:
		r.deriveSecret()
		return
	}
	if !wire.IsEngineMethod(method) || !c.manifest.Lists(method) {
		if wire.IsEngineMethod(method) {
			r.replyCode(wire.CodeMethodNotFound, "method %s is not in this engine's manifest", method)
		} else {
			r.replyCode(wire.CodeMethodNotFound, "method not found: %s", method)
		}
		return
	}
	raw := r.params()
	if r.strictMethod(method, raw) {
		return
	}
	if err := c.schemas.ValidateParams(method, raw); err != nil {
		r.replyCode(wire.CodeInvalidParams, "invalid params: %v", err)
		return
	}
	r.engineMethod(method, raw)
}

func (r *request) decode(raw json.RawMessage, v any) bool {
	if err := wire.Unmarshal(raw, v); err != nil {
		r.replyCode(wire.CodeInvalidParams, "invalid params of %s: %v", r.req.Method, err)
		return false
	}
	return true
}

// Implements: LIFE-001, LIFE-002, LIFE-004.
func (r *request) initialize() {
	c := r.c
	raw := r.params()
	if err := c.schemas.ValidateParams(wire.MethodInitialize, raw); err != nil {
		var probe struct {
			ProtocolVersion json.RawMessage `json:"protocolVersion"`
		}
		_ = json.Unmarshal(raw, &probe)
		if string(probe.ProtocolVersion) != "1" && probe.ProtocolVersion != nil {
			r.replyCode(wire.CodeInvalidParams, "unsupported protocolVersion %s: this server speaks protocolVersion 1", probe.ProtocolVersion)
			return
		}
		r.replyCode(wire.CodeInvalidParams, "invalid initialize params: %v", err)
		return
	}
	var p wire.InitializeParams
	if !r.decode(raw, &p) {
		return
	}
	engine, manifest := c.engine, c.manifest
	if c.factory != nil {
		var err error
		func() {
			defer recoverPanic(&err)
			engine, err = c.factory(c.ctx, p.InitializationOptions)
		}()
		if err == nil && engine == nil {
			err = engineerr.InvalidConfig("the engine factory returned no engine")
		}
		if err == nil {
			manifest, err = describeChecked(engine, c.schemas)
		}
		if err != nil {
			r.replyErr(err, false)
			return
		}
	}
	c.mu.Lock()
	c.engine, c.manifest, c.state = engine, manifest, stateReady
	c.mu.Unlock()
	c.log.Debug("initialized", "client", p.ClientInfo.Name, "role", p.Role)
	r.replyResult(wire.InitializeResult{ProtocolVersion: wire.ProtocolVersion, Manifest: manifest})
}

// Implements: LIFE-006, LIFE-019.
func (r *request) shutdown() {
	c := r.c
	raw := r.params()
	if raw != nil && string(raw) != "null" {
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) != nil {
			r.replyCode(wire.CodeInvalidParams, "shutdown takes no params")
			return
		}
	}
	c.mu.Lock()
	c.state = stateShutdown
	c.mu.Unlock()
	// §2.4, D9: answer once every earlier request has been answered.
	go func() {
		c.inflight.Wait()
		c.mu.Lock()
		c.shutdownDone = true
		c.mu.Unlock()
		r.replyResult(nil)
	}()
}

// Implements: S2C-005, S2C-008.
func (r *request) deriveSecret() {
	c := r.c
	raw := r.params()
	if err := c.schemas.ValidateParams(wire.MethodDeriveSecret, raw); err != nil {
		r.replyCode(wire.CodeInvalidParams, "invalid params: %v", err)
		return
	}
	var p wire.DeriveSecretParams
	if !r.decode(raw, &p) {
		return
	}
	fn := c.derivations.get(p.Derivation)
	if fn == nil {
		r.replyCode(wire.CodeInvalidParams, "no pending attempt/resolveSecret has derivation %s", clip(p.Derivation))
		return
	}
	c.inflight.Add(1)
	go func() {
		defer c.inflight.Done()
		var values []string
		var err error
		func() {
			defer recoverPanic(&err)
			values, err = fn(p.Plaintext)
		}()
		if err != nil {
			// The message may quote the plaintext: never send it.
			r.replyErr(engineerr.New(engineerr.EngineFailure, "derivation failed"), false)
			return
		}
		if values == nil {
			values = []string{}
		}
		r.replyResult(wire.DeriveSecretResult{Values: values})
	}()
}

func clip(b []byte) string {
	if len(b) > 80 {
		return string(b[:80]) + "…"
	}
	return string(b)
}
