package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/e2e-conform/toolkit/protocol/engineerr"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// Attempt is an open attempt on a connection, from the receipt of
// lifecycle/startAttempt until its lifecycle/endAttempt response is written
// (spec §7.4, D19). Its methods send the attempt/* messages of spec §6; once
// the attempt has ended they send nothing (the drop rule, §6.7). Safe for
// concurrent use.
//
// Implements: S2C-001.
type Attempt struct {
	ID           string
	ArtifactsDir string
	// Screens: the attempt keeps a trace, so Screen messages are allowed.
	Screens bool

	c      *conn
	ctx    context.Context // cancelled when the attempt signal aborts or the attempt ends
	cancel context.CancelCauseFunc

	mu     sync.RWMutex
	ended  bool
	ending bool // an endAttempt is under way (guarded by conn.mu)
}

// ErrAttemptEnded is the cancellation cause of an attempt's context after
// its endAttempt response was written, and the error of ResolveSecret on an
// ended attempt.
var ErrAttemptEnded = errors.New("attempt ended")

// Context is cancelled when the attempt's signal aborts (the cause is the
// abort reason) or when the attempt ends (ErrAttemptEnded).
func (a *Attempt) Context() context.Context { return a.ctx }

// Ended reports whether the attempt's endAttempt response was written.
func (a *Attempt) Ended() bool {
	a.mu.RLock()
	defer a.mu.RUnlock()
	return a.ended
}

// notify sends an attempt/* notification unless the attempt has ended.
//
// Implements: S2C-001.
func (a *Attempt) notify(method string, params any) {
	a.mu.RLock()
	defer a.mu.RUnlock()
	if a.ended {
		return
	}
	a.c.notify(method, params)
}

// AppLog sends one attempt/appLog entry; a multi-line text is sent as one
// entry per line.
//
// Implements: S2C-003.
func (a *Attempt) AppLog(entry wire.AppLogEntry) {
	for _, line := range splitLines(entry.Text) {
		e := entry
		e.Text = line
		a.notify(wire.MethodAppLog, wire.AppLogParams{AttemptID: a.ID, Entry: e})
	}
}

// Navigation sends attempt/navigation lines.
//
// Implements: S2C-003.
func (a *Attempt) Navigation(line string) {
	for _, l := range splitLines(line) {
		a.notify(wire.MethodNavigation, wire.NavigationParams{AttemptID: a.ID, Line: l})
	}
}

// Environment sends attempt/environment facts (string, number or boolean
// values under non-empty keys; other entries are left out).
//
// Implements: S2C-003.
func (a *Attempt) Environment(facts map[string]any) {
	clean := map[string]any{}
	for k, v := range facts {
		if k == "" {
			continue
		}
		switch v.(type) {
		case string, bool, int, int32, int64, uint, uint32, uint64, float32, float64, json.Number:
			clean[k] = v
		}
	}
	a.notify(wire.MethodEnvironment, wire.EnvironmentParams{AttemptID: a.ID, Facts: clean})
}

// Screen sends attempt/screen; nothing is sent unless the attempt started
// with screens: true.
//
// Implements: S2C-002.
func (a *Attempt) Screen(snapshot *wire.EngineSnapshot) {
	if !a.Screens || snapshot == nil {
		return
	}
	a.notify(wire.MethodScreen, wire.ScreenParams{AttemptID: a.ID, Snapshot: *snapshot})
}

// ResolveSecret asks the client for the secret named name (spec §6.6). With
// derive, the client first sends attempt/deriveSecret with the plaintext,
// which the server answers with derive's values, so the client can redact
// every form the app will see. The value must never reach a log, a
// notification, an error or stderr.
//
// Implements: S2C-004, S2C-006, ERR-007.
func (a *Attempt) ResolveSecret(ctx context.Context, name string, derive func(plaintext string) ([]string, error)) (string, error) {
	a.mu.RLock()
	ended := a.ended
	a.mu.RUnlock()
	if ended {
		return "", engineerr.New(engineerr.InvalidState, "attempt %q has ended", a.ID)
	}
	params := wire.ResolveSecretParams{AttemptID: a.ID, Name: name}
	var key string
	if derive != nil {
		n := a.c.derivations.add(derive)
		key = fmt.Sprint(n)
		params.Derivation = json.RawMessage(key)
		defer a.c.derivations.remove(key)
	}
	var res wire.ResolveSecretResult
	var bind func(int64)
	if key != "" {
		bind = func(id int64) { a.c.derivations.bind(id, key) }
	}
	if err := a.c.callBound(ctx, wire.MethodResolveSecret, params, &res, bind); err != nil {
		return "", err
	}
	return res.Value, nil
}

func splitLines(s string) []string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	return strings.Split(s, "\n")
}

// derivations holds the derive functions of pending resolveSecret requests.
type derivations struct {
	mu   sync.Mutex
	next int64
	fns  map[string]func(string) ([]string, error)
	// calls maps the id of each pending resolveSecret request to its
	// derivation's key.
	calls map[int64]string
}

func (d *derivations) add(fn func(string) ([]string, error)) int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.next++
	if d.fns == nil {
		d.fns = map[string]func(string) ([]string, error){}
	}
	d.fns[fmt.Sprint(d.next)] = fn
	return d.next
}

func (d *derivations) remove(key string) {
	d.mu.Lock()
	delete(d.fns, key)
	for id, k := range d.calls {
		if k == key {
			delete(d.calls, id)
		}
	}
	d.mu.Unlock()
}

// removeRaw forgets the derivation whose wire form is raw.
func (d *derivations) removeRaw(raw json.RawMessage) {
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return
	}
	d.remove(buf.String())
}

// bind records that request id carries derivation key.
func (d *derivations) bind(id int64, key string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.calls == nil {
		d.calls = map[int64]string{}
	}
	d.calls[id] = key
}

// bound reports whether a pending request carries a derivation.
func (d *derivations) bound() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.calls) > 0
}

// answered forgets the derivation of request id, whose response was read.
func (d *derivations) answered(id int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if k, ok := d.calls[id]; ok {
		delete(d.fns, k)
		delete(d.calls, id)
	}
}

func (d *derivations) get(raw json.RawMessage) func(string) ([]string, error) {
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.fns[buf.String()]
}
