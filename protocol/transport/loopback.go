package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"sync"
	"time"
)

// loopbackGrace is how long Close waits for serve to return after it
// cancelled serve's ctx.
const loopbackGrace = 100 * time.Millisecond

// errLoopbackCloseTimeout is the cause of serve's ctx when Close's timeout
// runs out.
var errLoopbackCloseTimeout = errors.New("transport: loopback close timed out")

// ServeFunc serves one connection over rwc until it returns; [Loopback]
// calls it in its own goroutine per Open. Reading io.EOF from rwc means the
// client closed the connection. ctx carries the values of Open's ctx but not
// its cancellation; it is cancelled when Close's timeout runs out, and after
// serve returned.
type ServeFunc func(ctx context.Context, rwc io.ReadWriteCloser) error

// Loopback returns a transport that serves each connection in this process
// over an in-memory, bounded [Pipe] (§9.3). Each Open creates a Pipe, runs serve on
// the server end in a goroutine of its own and returns the client end. The
// bytes are framed exactly as on the other transports, so loopback exercises
// the same protocol path. Label is "loopback:" + label.
//
// Close(T) closes the client end, so serve reads EOF (and its writes fail),
// then waits up to T for serve to return. When T runs out, Close cancels
// serve's ctx, waits for it at most 100 ms more, and otherwise returns an
// error; serve's goroutine then ends whenever serve returns. The server end
// is closed once serve returns. Read and Write of the connection fail with
// [ErrClosed] as soon as Close begins (data not yet read is discarded).
// Diagnostics include serve's error, if any; a panic in serve is recovered
// and reported as its error.
func Loopback(label string, serve ServeFunc) Transport {
	return &loopbackTransport{label: "loopback:" + label, serve: serve}
}

type loopbackTransport struct {
	label string
	serve ServeFunc
}

// Label returns "loopback:<label>".
func (t *loopbackTransport) Label() string { return t.label }

// Open starts serving one connection.
func (t *loopbackTransport) Open(ctx context.Context, tc Context) (Conn, error) {
	if ctx.Err() != nil {
		return nil, openAborted(t.label, ctx, nil)
	}
	client, server := Pipe()
	sctx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	c := &loopbackConn{
		label:  t.label,
		rwc:    client,
		cancel: cancel,
		done:   make(chan struct{}),
	}
	go c.run(sctx, t.serve, server)
	return c, nil
}

type loopbackConn struct {
	label  string
	rwc    io.ReadWriteCloser
	cancel context.CancelCauseFunc
	done   chan struct{} // closed when serve returned; then serveErr is set

	serveErr error

	closeOnce sync.Once
	closeErr  error
}

func (c *loopbackConn) run(ctx context.Context, serve ServeFunc, server io.ReadWriteCloser) {
	defer close(c.done)
	defer c.cancel(nil)
	defer server.Close()
	defer func() {
		if r := recover(); r != nil {
			c.serveErr = fmt.Errorf("serve panicked: %v\n%s", r, debug.Stack())
		}
	}()
	c.serveErr = serve(ctx, server)
}

// Read returns the bytes serve wrote; io.EOF once serve closed its end or
// returned.
func (c *loopbackConn) Read(p []byte) (int, error) { return c.rwc.Read(p) }

// Write sends bytes to serve.
func (c *loopbackConn) Write(p []byte) (int, error) { return c.rwc.Write(p) }

// Close closes the client end and waits up to timeout for serve to return.
func (c *loopbackConn) Close(timeout time.Duration) error {
	c.closeOnce.Do(func() { c.closeErr = c.close(timeout) })
	return c.closeErr
}

func (c *loopbackConn) close(timeout time.Duration) error {
	c.rwc.Close()
	timer := time.NewTimer(max(timeout, 0))
	defer timer.Stop()
	select {
	case <-c.done:
		return nil
	case <-timer.C:
	}
	c.cancel(errLoopbackCloseTimeout)
	timer.Reset(loopbackGrace)
	select {
	case <-c.done:
		return nil
	case <-timer.C:
		return fmt.Errorf("%s: serve did not return within %v of close", c.label, timeout)
	}
}

// Diagnostics says whether serve is running or what it returned.
func (c *loopbackConn) Diagnostics() string {
	select {
	case <-c.done:
		if c.serveErr != nil {
			return fmt.Sprintf("%s: serve returned an error: %v", c.label, c.serveErr)
		}
		return fmt.Sprintf("%s: serve returned", c.label)
	default:
		return fmt.Sprintf("%s: serving", c.label)
	}
}
