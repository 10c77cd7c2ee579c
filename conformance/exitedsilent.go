package conformance

import (
	"context"
	"io"

	"github.com/e2e-conform/toolkit/protocol/transport"
)

// exitedSilent reports whether the spawned server of r exited having
// written nothing at all on stdout: its stdout ended cleanly (EOF at the
// start of a frame) after no frame, and the process has exited. Discovery
// calls it when initialize got no answer: such an engine never started
// (`python3 engin.py`, a misspelt script), which is the run's failure, not
// a verdict on the engine. An engine that wrote any byte, answered, or is
// still running is judged as before (markUnreachable).
func (r *rawConn) exitedSilent(ctx context.Context) bool {
	sc, ok := r.tc.(transport.SpawnConn)
	if !ok {
		return false
	}
	select {
	case <-r.done:
	case <-ctx.Done():
		return false
	}
	r.mu.Lock()
	err := r.err
	r.mu.Unlock()
	if err != io.EOF || r.received.Load() > 0 {
		return false
	}
	select {
	case <-sc.Exited():
		return true
	default:
		return false
	}
}
