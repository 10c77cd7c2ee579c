package server_test

import (
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/e2e-conform/toolkit/protocol/server"
)

// TestWorkersReuse: a call made once the previous one's worker is idle
// runs on that worker (its grown stack serves the next call), concurrent
// calls each get their own goroutine, and stop ends every idle worker.
func TestWorkersReuse(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	w := server.NewWorkers()
	idle := make(chan struct{}, 1)
	w.SetOnIdle(func() {
		select {
		case idle <- struct{}{}:
		default:
		}
	})
	for i := 0; i < 100; i++ {
		w.Do(func() {})
		<-idle
	}
	if got := w.Started(); got != 1 {
		t.Fatalf("100 calls, each after the previous one's worker went idle, started %d goroutines, want 1", got)
	}

	const n = 3 * server.MaxIdleWorkers
	var running, all sync.WaitGroup
	release := make(chan struct{})
	running.Add(n)
	all.Add(n)
	for i := 0; i < n; i++ {
		w.Do(func() { running.Done(); <-release; all.Done() })
	}
	running.Wait() // n calls running at once: n goroutines
	if got := w.Started(); got != n {
		t.Fatalf("%d concurrent calls ran on %d goroutines started in all, want %d (the idle one reused, %d new)", n, got, n, n-1)
	}
	close(release)
	all.Wait()
	w.Stop(true)
}
