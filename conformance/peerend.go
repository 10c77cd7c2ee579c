package conformance

import (
	"errors"
	"fmt"
	"io"
	"syscall"
	"time"

	"github.com/e2e-conform/toolkit/protocol/transport"
)

// exitWait bounds how long a raw connection whose stream ended waits for
// its spawned engine to exit, to say how it ended.
const exitWait = time.Second

// PeerEndedError is a connection the engine ended: its stream's error (io.EOF
// when it closed its side) and, over spawn, how the process ended when it
// exited within exitWait ("the engine exited with status 3").
type PeerEndedError struct {
	Err error
	// Exit describes the process's end ("exited with status 3", "was
	// killed by signal 9"); empty when it still ran or is not a process.
	Exit string
}

func (e *PeerEndedError) Error() string {
	s := "the engine closed the connection"
	switch {
	case e.Err == nil || e.Err == io.EOF:
	case errors.Is(e.Err, io.EOF):
		// Where in the stream it closed ("reading 10 content bytes").
		s += " (" + e.Err.Error() + ")"
	default:
		s = "the connection ended: " + e.Err.Error()
	}
	if e.Exit != "" {
		s += "; the engine process " + e.Exit
	}
	return s
}

func (e *PeerEndedError) Unwrap() error { return e.Err }

// peerEnded is the error of a connection whose stream ended with err.
func peerEnded(tc transport.Conn, err error) *PeerEndedError {
	pe := &PeerEndedError{Err: err}
	sc, ok := tc.(transport.SpawnConn)
	if !ok {
		return pe
	}
	select {
	case <-sc.Exited():
	case <-time.After(exitWait):
		return pe
	}
	st, werr := sc.Wait()
	if werr != nil || st == nil {
		return pe
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		pe.Exit = fmt.Sprintf("was killed by signal %d (%s)", ws.Signal(), ws.Signal())
	} else {
		pe.Exit = fmt.Sprintf("exited with status %d", st.ExitCode())
	}
	return pe
}
