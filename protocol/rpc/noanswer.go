package rpc

import (
	"fmt"
	"time"
)

// NoAnswerError is a request the peer did not answer before the waiting
// side gave up: it names the request and how long it waited, so that a
// silent peer is reported as what it did ("no answer to engine/observe
// (id 12) within 30000 ms"), not as a bare timeout. Err is why the wait
// ended (a context's error or cause: errors.Is(err,
// context.DeadlineExceeded) holds through it).
type NoAnswerError struct {
	Method string
	// ID is the request id as written (raw JSON: 12, "x").
	ID     string
	Waited time.Duration
	Err    error
}

func (e *NoAnswerError) Error() string {
	s := fmt.Sprintf("no answer to %s (id %s) within %d ms", e.Method, e.ID, e.Waited.Milliseconds())
	if e.Err != nil {
		s += " (" + e.Err.Error() + ")"
	}
	return s
}

func (e *NoAnswerError) Unwrap() error { return e.Err }
