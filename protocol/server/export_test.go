package server

// SetAtCap makes the server tell fn each time a connection stops reading
// at its in-flight cap.
func SetAtCap(o *Options, fn func(inFlight int)) { o.atCap = fn }

// Workers is the server's pool of engine-call goroutines, for tests.
type Workers = workers

// NewWorkers returns a pool.
func NewWorkers() *Workers { return newWorkers() }

// Do runs fn on a worker.
func (w *workers) Do(fn func()) { w.do(fn) }

// Stop ends the pool's waiting workers; wait waits for all of them.
func (w *workers) Stop(wait bool) { w.stop(wait) }

// Started is the number of goroutines the pool started.
func (w *workers) Started() int { return int(w.started.Load()) }

// SetOnIdle makes the pool tell fn each time a worker becomes idle (call
// it before the first Do).
func (w *workers) SetOnIdle(fn func()) { w.onIdle = fn }

// MaxIdleWorkers is maxIdleWorkers.
const MaxIdleWorkers = maxIdleWorkers
