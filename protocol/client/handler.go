package client

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/e2e-conform/toolkit/protocol/engineerr"
	"github.com/e2e-conform/toolkit/protocol/rpc"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// handler dispatches the server's messages: notifications in order on the
// reading goroutine, requests each in a goroutine (attempt/resolveSecret may
// call back into the server).
type handler struct{ c *Conn }

func (h handler) Handle(rc *rpc.Conn, req *rpc.Request) {
	c := h.c
	if req.Notif() {
		c.notification(req)
		return
	}
	if req.Method != wire.MethodResolveSecret {
		// The server never sends another request (spec §6.7, CLI-014).
		reply(rc, req.ID, nil, &wire.ErrorObject{Code: wire.CodeMethodNotFound, Message: "method not found: " + req.Method})
		return
	}
	raw := req.Params
	if err := c.schemas.ValidateServerMessage(req.Method, raw); err != nil {
		reply(rc, req.ID, nil, &wire.ErrorObject{Code: wire.CodeInvalidParams, Message: fmt.Sprintf("invalid params: %v", err)})
		return
	}
	var p wire.ResolveSecretParams
	if err := json.Unmarshal(raw, &p); err != nil {
		reply(rc, req.ID, nil, &wire.ErrorObject{Code: wire.CodeInvalidParams, Message: fmt.Sprintf("invalid params: %v", err)})
		return
	}
	c.mu.Lock()
	open := c.attempt != "" && c.attempt == p.AttemptID
	c.mu.Unlock()
	if !open {
		reply(rc, req.ID, nil, engineerr.Encode(engineerr.New(engineerr.InvalidState, "attempt %q is not open on this connection", p.AttemptID)))
		return
	}
	go func() {
		v, err := c.resolveSecret(p)
		if err != nil {
			reply(rc, req.ID, nil, engineerr.Encode(err))
			return
		}
		reply(rc, req.ID, wire.ResolveSecretResult{Value: v}, nil)
	}()
}

func reply(rc *rpc.Conn, id json.RawMessage, result any, eo *wire.ErrorObject) {
	if eo != nil {
		_ = rc.ReplyError(id, eo.Code, eo.Message, eo.Data)
		return
	}
	_ = rc.Reply(id, result)
}

// resolveSecret answers attempt/resolveSecret (spec §6.6, CLI-010): an
// undeclared or valueless name is SECRET_UNAVAILABLE; with a derivation the
// server derives the forms first; every form is registered for redaction
// before the value is answered.
func (c *Conn) resolveSecret(p wire.ResolveSecretParams) (string, error) {
	unavailable := engineerr.NewE2E(engineerr.CategoryConfiguration, "SECRET_UNAVAILABLE", "secret %q is not available", p.Name)
	if c.cfg.Handlers.Secret == nil {
		return "", unavailable
	}
	value, ok, err := c.cfg.Handlers.Secret(context.Background(), p.Name)
	if err != nil {
		e := engineerr.NewE2E(engineerr.CategoryConfiguration, "SECRET_UNAVAILABLE", "secret %q could not be read", p.Name)
		return "", e
	}
	if !ok {
		return "", unavailable
	}
	forms := []string{value}
	if len(p.Derivation) > 0 {
		var res wire.DeriveSecretResult
		params := wire.DeriveSecretParams{Derivation: p.Derivation, Plaintext: value}
		if err := c.request(context.Background(), wire.MethodDeriveSecret, params, &res, nil); err != nil {
			return "", engineerr.New(engineerr.EngineFailure, "deriving secret %q failed: %v", p.Name, redactErr(err, value))
		}
		forms = append(forms, res.Values...)
	}
	if c.cfg.Handlers.Redact != nil {
		c.cfg.Handlers.Redact(p.AttemptID, p.Name, forms)
	}
	return value, nil
}

func redactErr(err error, secret string) string {
	s := err.Error()
	if secret != "" {
		s = strings.ReplaceAll(s, secret, "[redacted]")
	}
	return s
}

// notification handles one server notification (spec §6.1–§6.5, §6.7).
// Malformed params are dropped and noted; they never fail the connection.
func (c *Conn) notification(req *rpc.Request) {
	h := c.cfg.Handlers
	raw := req.Params
	switch req.Method {
	case wire.MethodEngineLog, wire.MethodAppLog, wire.MethodNavigation, wire.MethodEnvironment, wire.MethodScreen:
	default:
		c.note(fmt.Sprintf("ignored unknown notification %s", req.Method))
		return
	}
	if err := c.schemas.ValidateServerMessage(req.Method, raw); err != nil {
		c.note(fmt.Sprintf("dropped malformed %s: %v", req.Method, err))
		return
	}
	if req.Method == wire.MethodEngineLog {
		var p wire.EngineLogParams
		if json.Unmarshal(raw, &p) == nil && h.EngineLog != nil {
			for _, l := range strings.Split(strings.ReplaceAll(p.Line, "\r\n", "\n"), "\n") {
				h.EngineLog(l)
			}
		}
		return
	}
	var probe struct {
		AttemptID string `json:"attemptId"`
	}
	_ = json.Unmarshal(raw, &probe)
	c.mu.Lock()
	open, screens := c.attempt != "" && probe.AttemptID == c.attempt, c.screens
	c.mu.Unlock()
	if !open {
		c.note(fmt.Sprintf("dropped %s for attempt %q, which is not open", req.Method, probe.AttemptID))
		return
	}
	switch req.Method {
	case wire.MethodAppLog:
		var p wire.AppLogParams
		if json.Unmarshal(raw, &p) == nil && h.AppLog != nil {
			h.AppLog(p.AttemptID, p.Entry)
		}
	case wire.MethodNavigation:
		var p wire.NavigationParams
		if json.Unmarshal(raw, &p) == nil && h.Navigation != nil {
			h.Navigation(p.AttemptID, p.Line)
		}
	case wire.MethodEnvironment:
		var p wire.EnvironmentParams
		if json.Unmarshal(raw, &p) == nil && h.Environment != nil {
			h.Environment(p.AttemptID, p.Facts)
		}
	case wire.MethodScreen:
		if !screens {
			c.note("dropped attempt/screen in an attempt started with screens: false")
			return
		}
		var p wire.ScreenParams
		if wire.Unmarshal(raw, &p) == nil && h.Screen != nil {
			h.Screen(p.AttemptID, &p.Snapshot)
		}
	}
}
