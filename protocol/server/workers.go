package server

import (
	"sync"
	"sync/atomic"
)

// maxIdleWorkers bounds the goroutines a connection keeps waiting for the
// next engine call.
const maxIdleWorkers = 16

// workers runs a connection's engine calls each on its own goroutine, as a
// `go` statement would, but hands a call to a goroutine that finished one
// before when one is idle: its stack has already grown to what an engine
// call and the result's encoding need, where a fresh goroutine grows (and
// copies) its stack on every call. At most maxIdleWorkers stay idle, the
// most recently used first; stop ends them.
type workers struct {
	mu      sync.Mutex
	idle    []*worker // a stack: the last one ran most recently
	stopped bool
	wg      sync.WaitGroup // the workers started before stop

	started atomic.Int32 // goroutines started, for tests
	onIdle  func()       // tests: told each time a worker becomes idle
}

// worker is one goroutine of the pool; next hands it a call (nil: end).
type worker struct{ next chan func() }

func newWorkers() *workers { return &workers{} }

// do runs fn on a goroutine: the last idle worker, or a new one.
func (w *workers) do(fn func()) {
	w.mu.Lock()
	if n := len(w.idle); n > 0 {
		wk := w.idle[n-1]
		w.idle[n-1] = nil
		w.idle = w.idle[:n-1]
		w.mu.Unlock()
		wk.next <- fn // buffered: never blocks
		return
	}
	if w.stopped {
		// A call read while the connection ends: a plain goroutine, as
		// stop may be waiting for the workers.
		w.mu.Unlock()
		go fn()
		return
	}
	w.wg.Add(1)
	w.mu.Unlock()
	w.started.Add(1)
	go w.loop(&worker{next: make(chan func(), 1)}, fn)
}

func (w *workers) loop(wk *worker, fn func()) {
	defer w.wg.Done()
	for {
		fn()
		w.mu.Lock()
		if w.stopped || len(w.idle) >= maxIdleWorkers {
			w.mu.Unlock()
			return
		}
		w.idle = append(w.idle, wk)
		hook := w.onIdle
		w.mu.Unlock()
		if hook != nil {
			hook()
		}
		if fn = <-wk.next; fn == nil {
			return
		}
	}
}

// stop ends the idle workers; a worker still running a call ends when the
// call returns. wait: also wait for every worker to end (the caller knows
// no call is running).
func (w *workers) stop(wait bool) {
	w.mu.Lock()
	w.stopped = true
	idle := w.idle
	w.idle = nil
	w.mu.Unlock()
	for _, wk := range idle {
		close(wk.next)
	}
	if wait {
		w.wg.Wait()
	}
}
