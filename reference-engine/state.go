package webengine

import (
	"context"
	"encoding/json"
	"sort"

	"github.com/chromedp/cdproto/cdp"

	"github.com/e2e-conform/toolkit/protocol/engineerr"
	"github.com/e2e-conform/toolkit/protocol/server"
	"github.com/e2e-conform/toolkit/protocol/wire"
	"github.com/e2e-conform/toolkit/reference-engine/storage"
)

// StateFormat and StateVersion name the state this engine captures: the
// browser context's cookies and the localStorage of every origin the
// session visited, shaped like Playwright's storage state.
const (
	StateFormat  = "playwright-storage-state"
	StateVersion = 1
)

// Capture implements server.StateKeeper. The state's values are secrets:
// they are never logged nor put in an error.
//
// Implements: STATE-001, STATE-002, STATE-004.
func (e *Engine) Capture(ctx context.Context, op server.Operation) (*wire.EngineState, error) {
	t, cctx, done, err := e.begin(ctx, op)
	if err != nil {
		return nil, err
	}
	defer done()
	s := t.s
	s.mu.Lock()
	bc := s.bc
	origins := make([]string, 0, len(s.origins))
	for o := range s.origins {
		origins = append(origins, o)
	}
	s.mu.Unlock()
	sort.Strings(origins)
	st, err := storage.Capture(cctx, t.ctx, bc, origins)
	if err != nil {
		return nil, classify(ctx, cctx, "state/capture", false, err)
	}
	data, err := json.Marshal(st)
	if err != nil {
		return nil, engineerr.New(engineerr.EngineFailure, "state/capture: encoding the state failed")
	}
	return &wire.EngineState{Format: StateFormat, Version: StateVersion, Data: data}, nil
}

// Restore implements server.StateKeeper: the session's browser context is
// replaced by a fresh one seeded from the state (restore never merges), with
// a blank page.
//
// Implements: STATE-002, STATE-003, STATE-005.
func (e *Engine) Restore(ctx context.Context, op server.Operation, state wire.EngineState) error {
	if state.Format != StateFormat || state.Version != StateVersion {
		return engineerr.NewE2E(engineerr.CategoryConfiguration, "SESSION_INVALID",
			"state format %q version %v is not %s version %d", state.Format, state.Version, StateFormat, StateVersion)
	}
	st, err := storage.Decode(state.Data)
	if err != nil {
		return engineerr.NewE2E(engineerr.CategoryConfiguration, "SESSION_INVALID", "the state's data is not a %s: %v", StateFormat, err)
	}
	octx, cancel := opContext(ctx, op)
	defer cancel()
	s, err := e.session(octx, op.Attempt)
	if err != nil {
		return classify(ctx, octx, "state/restore", false, err)
	}
	if err := s.dialog.take(); err != nil {
		return err
	}
	return s.replaceContext(octx, func(ctx context.Context, t *tab, bc cdp.BrowserContextID) error {
		cctx, ccancel := bounded(t.ctx, ctx)
		defer ccancel()
		if err := storage.Restore(cctx, t.ctx, bc, st); err != nil {
			return classify(ctx, cctx, "state/restore", false, err)
		}
		s.origins = map[string]bool{}
		for _, o := range st.Origins {
			s.origins[o.Origin] = true
		}
		return nil
	})
}
