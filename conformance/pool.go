package conformance

import (
	"context"
	"fmt"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/e2e-conform/toolkit/protocol/client"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// The worker pool: specs that need nothing of a connection but one attempt
// on a worker (the fixture screens' specs: perform, performAt, keyboard,
// locate) take a worker connection another spec handed back, as a harness's
// worker connection serves one test after another. §4's order on a worker
// connection is lifecycle/init once, then attempts "strictly one at a
// time", and "servers MUST accept it": a requirement holds in a
// connection's twentieth attempt as in its first, so a spec judged there is
// judged fairly, and the engine is spared a start per spec (a browser's,
// for the web engine).
//
// What keeps one spec's doing out of the next one's verdict:
//   - a connection goes back only when its spec did not fail, nothing it
//     sent is unanswered (poolDrain), and lifecycle/endAttempt answered
//     null within its budget; otherwise it is closed;
//   - each spec starts an attempt of its own (a fresh isolation, §4.4) and
//     reads only the notifications that arrive from then on;
//   - specs about a connection's start (handshake, the first observation,
//     the start surface), its end, or anything not in §4's order open
//     connections of their own, as before; so do engines that do not list
//     both startAttempt and endAttempt (no attempt boundary to hand over
//     at);
//   - over a socket, an idle connection is not handed on once the suite
//     closed any connection without exit since it went back (a spec
//     testing a close without shutdown, or one whose release could not
//     run the close sequence): a server may end its other connections
//     then, which TRN-005's own spec judges, not the next spec that
//     happened to take the idle one (issue 25, close-kills-all); it is
//     retired and a new one opened;
//   - a connection serves at most poolAttempts attempts, and the pool is
//     emptied (lifecycle/dispose, shutdown, exit) before the run-wide checks,
//     so that they see every frame and stderr line of it.
//
// A spec that fails on a pooled connection says so in its report (how many
// attempts the connection had served), so that a vendor can tell a
// failure that needs an earlier attempt from one that does not.

// poolAttempts bounds the attempts one pooled connection serves.
const poolAttempts = 40

// poolDrain bounds how long a spec's end waits for the answers still owed
// on its connection before the connection is closed instead.
const poolDrain = 2 * time.Second

// workerPool holds at most one idle worker connection of each kind (a
// client library connection, a raw one): specs run one at a time.
type workerPool struct {
	conns idleSlot[pooledConn]
	raws  idleSlot[pooledRaw]
}

// idleSlot holds at most one idle connection of one kind, with the
// suite's count of unclean closes when it went back (its staleness mark,
// connGuard.uncleanCount).
type idleSlot[T any] struct {
	mu   sync.Mutex
	idle *T
	mark int
}

// take returns the idle connection, or nil; stale is set when the suite
// closed a connection without exit since it went back (mark is the count
// now): the caller retires it instead of handing it on.
func (s *idleSlot[T]) take(mark int) (c *T, stale bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c = s.idle
	s.idle = nil
	return c, c != nil && s.mark != mark
}

// put makes c the idle connection, marked with mark; it returns a
// connection the slot no longer holds (one already idle), for the caller
// to close.
func (s *idleSlot[T]) put(c *T, mark int) *T {
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.idle
	s.idle, s.mark = c, mark
	return old
}

// pooledRaw is a raw worker connection with the handshake and
// lifecycle/init done.
type pooledRaw struct {
	r    *rawConn
	run  string
	next int // the connection's last request id
	// attempts is how many attempts the connection has started.
	attempts int
}

// pooledConn is a worker connection with lifecycle/init done.
type pooledConn struct {
	*clientConn
	run string
	// attempts is how many attempts the connection has started.
	attempts int
}

// pooling reports whether specs may share worker connections: the manifest
// lists the attempt boundaries a connection is handed over at.
func (e *runEnv) pooling() bool {
	return e.Manifest.Lists(wire.MethodStartAttempt) && e.Manifest.Lists(wire.MethodEndAttempt)
}

// pooledAttempt returns a worker connection with a fresh attempt started:
// the pool's idle one, or a new one (opened and initialized). When the spec
// ends the attempt is ended and the connection goes back to the pool, or is
// closed (see above). Without pooling it is inAttempt.
func (e *runEnv) pooledAttempt(ctx context.Context) (*client.Conn, client.Op, *notifications) {
	if !e.pooling() {
		return e.inAttempt(ctx)
	}
	pc, stale := e.pool.conns.take(e.guard.uncleanCount())
	if stale {
		e.retire(pc)
		pc = nil
	}
	if pc != nil {
		pc.msgs.reset()
		e.usedBySpec(pc.c)
	} else {
		cc, err := e.openClient(ctx, wire.RoleWorker)
		if cc != nil && err != nil {
			_ = cc.c.Close(5 * time.Second)
		}
		Expect(err).NotTo(HaveOccurred(), "opening and initializing a connection")
		pc = &pooledConn{clientConn: cc}
		run, err := e.initWorker(ctx, cc.c)
		if err != nil {
			_ = cc.c.Close(5 * time.Second)
		}
		Expect(err).NotTo(HaveOccurred(), "starting an attempt")
		pc.run = run
	}
	pc.attempts++
	DeferCleanup(func() { e.handBack(pc) })
	op, err := e.startAttempt(ctx, pc.c, pc.run, false)
	Expect(err).NotTo(HaveOccurred(), "starting an attempt%s", pc.served())
	return pc.c, op, pc.msgs
}

// served says, for a failure's message, how many attempts the connection
// served before this one ("" for its first).
func (pc *pooledConn) served() string {
	if pc.attempts <= 1 {
		return ""
	}
	return fmt.Sprintf(" (on a worker connection that had served %d earlier attempts of other specs, §4's order)", pc.attempts-1)
}

// handBack ends the running spec's attempt on pc and returns pc to the pool
// when the spec did not fail and the connection is sound; else closes it.
func (e *runEnv) handBack(pc *pooledConn) {
	rep := CurrentSpecReport()
	if rep.Failed() && pc.attempts > 1 {
		AddReportEntry("note", fmt.Sprintf("this spec ran on a worker connection that had served %d earlier attempts of other specs (§4's order: lifecycle/init once, then attempts one at a time)", pc.attempts-1))
	}
	keep := !rep.Failed() && pc.attempts < poolAttempts && pc.sound() && e.brokenStream() == ""
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := pc.c.EndAttempt(ctx, 5000); err != nil {
		keep = false
	}
	if keep && pc.pending.drained(poolDrain) && pc.sound() {
		if old := e.pool.conns.put(pc, e.guard.uncleanCount()); old != nil {
			e.retire(old)
		}
		return
	}
	e.retire(pc)
}

// sound reports whether pc's connection still stands, its stream never
// broke and nothing unexpected was noted on it (client.Conn.Sound).
func (pc *pooledConn) sound() bool { return pc.c.Sound() }

// retire ends pooled connection pc: lifecycle/dispose (when listed), then
// shutdown and exit. Their outcomes are LIFE's concern, judged on
// connections of their own.
func (e *runEnv) retire(pc *pooledConn) {
	if e.Manifest.Lists(wire.MethodDispose) {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		_ = pc.c.Dispose(ctx, 2000, nil)
		cancel()
	}
	_ = pc.c.Close(5 * time.Second)
}

// pooledRawAttempt returns the pool's idle raw connection, or a new one
// (handshake and lifecycle/init done), as a rawAttemptConn whose attempt
// the caller starts; when the spec ends the attempt is ended and the
// connection handed back (handBackRaw).
func (e *runEnv) pooledRawAttempt(ctx context.Context) *rawAttemptConn {
	pr, stale := e.pool.raws.take(e.guard.uncleanCount())
	if stale {
		_ = pr.r.release(5 * time.Second)
		pr = nil
	}
	if pr == nil {
		r, err := e.openRaw(ctx)
		Expect(err).NotTo(HaveOccurred(), "opening a connection to the engine")
		pr = &pooledRaw{r: r}
		a := &rawAttemptConn{rawConn: r, e: e}
		DeferCleanup(func() { e.handBackRaw(pr, a) })
		_, err = r.Initialize(ctx)
		Expect(err).NotTo(HaveOccurred(), "initialize")
		pr.run = a.initWorker(ctx)
		a.run = pr.run
		pr.attempts++
		return a
	}
	a := &rawAttemptConn{rawConn: pr.r, e: e, run: pr.run, next: pr.next}
	pr.attempts++
	DeferCleanup(func() { e.handBackRaw(pr, a) })
	return a
}

// handBackRaw ends a's attempt and returns pr to the pool when the spec did
// not fail, lifecycle/endAttempt answered null, nothing the suite sent is
// unanswered and nothing unread waits on the connection but notifications;
// else closes it.
func (e *runEnv) handBackRaw(pr *pooledRaw, a *rawAttemptConn) {
	rep := CurrentSpecReport()
	if rep.Failed() && pr.attempts > 1 {
		AddReportEntry("note", fmt.Sprintf("this spec ran on a worker connection that had served %d earlier attempts of other specs (§4's order: lifecycle/init once, then attempts one at a time)", pr.attempts-1))
	}
	keep := !rep.Failed() && pr.attempts < poolAttempts && a.Op.AttemptID != "" && e.brokenStream() == ""
	if a.Op.AttemptID != "" && e.Manifest.Lists(wire.MethodEndAttempt) {
		if f := a.endAttempt(); f == nil || f.Error() != nil || string(f.Result()) != "null" {
			keep = false
		}
	}
	pr.next = a.next
	if keep && pr.r.idle() {
		if old := e.pool.raws.put(pr, e.guard.uncleanCount()); old != nil {
			_ = old.r.release(5 * time.Second)
		}
		return
	}
	_ = pr.r.release(5 * time.Second)
}

// emptyPool retires the idle connections, if any: before the run-wide
// checks, and when the run ends.
func (e *runEnv) emptyPool() {
	if pc, _ := e.pool.conns.take(0); pc != nil {
		e.retire(pc)
	}
	if pr, _ := e.pool.raws.take(0); pr != nil {
		_ = pr.r.release(5 * time.Second)
	}
}
