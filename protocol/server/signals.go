package server

import (
	"context"
	"sync"

	"github.com/e2e-conform/toolkit/protocol/engineerr"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// signal is one live signal of the server's table (spec §7.3).
type liveSignal struct {
	id     wire.SignalID
	ctx    context.Context
	cancel context.CancelCauseFunc
	scoped bool // first seen inside an attempt
	refs   int  // in-flight requests and engine holds using it
}

// signalTable is the connection's table of live signals by id.
//
// Implements: SIG-009, SIG-010.
type signalTable struct {
	mu   sync.Mutex
	base context.Context // the connection context: its cancellation aborts every signal
	live map[wire.SignalID]*liveSignal
}

func newSignalTable(base context.Context) *signalTable {
	return &signalTable{base: base, live: map[wire.SignalID]*liveSignal{}}
}

// reasonError decodes an abort reason; nil reason is ErrAborted.
//
// Implements: SIG-002, SIG-004, SIG-006.
func reasonError(reason *wire.ErrorObject) error {
	if reason == nil {
		return engineerr.ErrAborted
	}
	return engineerr.Decode(reason)
}

// acquire applies rule 1 of §7.3 for a SignalRef carried by a request and
// returns the signal the request uses, with one reference taken. An
// already-aborted ref gives a signal that is aborted and not stored.
//
// Implements: SIG-001, SIG-002, SIG-009, SIG-010.
func (t *signalTable) acquire(ref wire.SignalRef, attemptOpen bool) *liveSignal {
	t.mu.Lock()
	defer t.mu.Unlock()
	if ref.Aborted {
		cause := reasonError(ref.Reason)
		if s, ok := t.live[ref.ID]; ok {
			s.cancel(cause)
			delete(t.live, ref.ID)
		}
		ctx, cancel := context.WithCancelCause(t.base)
		cancel(cause)
		return &liveSignal{id: ref.ID, ctx: ctx, cancel: cancel, refs: 1}
	}
	if s, ok := t.live[ref.ID]; ok {
		s.refs++
		return s
	}
	ctx, cancel := context.WithCancelCause(t.base)
	s := &liveSignal{id: ref.ID, ctx: ctx, cancel: cancel, scoped: attemptOpen, refs: 1}
	t.live[ref.ID] = s
	return s
}

// release drops one reference; a signal nobody uses any more is forgotten,
// since no outcome can change (§7.3, last paragraph).
func (t *signalTable) release(s *liveSignal) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s.refs--
	if s.refs <= 0 {
		if cur, ok := t.live[s.id]; ok && cur == s {
			delete(t.live, s.id)
		}
		s.cancel(context.Canceled) // releases the context; the request is over
	}
}

// abort applies $/abort (rule 2): a live id aborts with the reason and is
// forgotten; an unknown id is ignored.
//
// Implements: SIG-003, SIG-004, SIG-006, SIG-007.
func (t *signalTable) abort(id wire.SignalID, reason *wire.ErrorObject) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	s, ok := t.live[id]
	if !ok {
		return false
	}
	s.cancel(reasonError(reason))
	delete(t.live, id)
	return true
}

// forgetScoped applies rule 3 after an endAttempt response: attempt-scoped
// ids are removed without aborting.
//
// Implements: SIG-010.
func (t *signalTable) forgetScoped() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for id, s := range t.live {
		if s.scoped {
			delete(t.live, id)
		}
	}
}

// size is the number of live ids (for tests).
func (t *signalTable) size() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.live)
}
