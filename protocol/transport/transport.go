// Package transport opens the byte streams of one connection of the e2e
// engine protocol (spec §9).
//
// A [Transport] opens a [Conn]: Read gives the bytes the engine server
// writes, Write sends bytes to it, and Close releases the process or socket
// behind it within a time budget. A transport knows nothing about JSON-RPC
// or its framing; the layers above it do.
//
// Three transports are provided:
//
//   - [Spawn] starts the server as a child process per connection and speaks
//     over its stdin and stdout (§9.1). Its connections implement [SpawnConn],
//     which also gives the process id and exit status.
//   - [Socket] dials a server that already listens on TCP (§9.2).
//   - [Loopback] serves a connection in this process over an in-memory
//     [Pipe] (§9.3).
//
// Users may write their own transports against [Transport] and [Conn].
package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"
)

// Context is the spec's TransportContext (§9): what a transport knows about
// the connection it opens.
type Context struct {
	// Role is "run" for the run connection or "worker" for a worker's.
	Role string
	// Env is the run's or the worker's environment. Variables without a
	// value are absent from the map.
	Env map[string]string
	// Cwd is the project root.
	Cwd string
}

// Transport opens connections to an engine server.
type Transport interface {
	// Label names the transport in messages: the command line or the
	// address.
	Label() string
	// Open opens one connection. Each call opens a new, independent
	// connection. ctx is the prepare or init signal: cancelling it aborts
	// Open, which then fails with an error wrapping context.Cause(ctx).
	// ctx does not govern the connection once Open has returned.
	Open(ctx context.Context, tc Context) (Conn, error)
}

// Conn is one open connection: Read gives bytes from the server, Write sends
// bytes to the server.
type Conn interface {
	io.Reader
	io.Writer
	// Close releases the process or socket within timeout and returns once
	// it is released. It is idempotent (later calls wait for the first and
	// return its result) and safe to call concurrently with Read and Write,
	// which then fail with ErrClosed (a transport may first let Read return
	// the data received before the close; see each transport).
	Close(timeout time.Duration) error
	// Diagnostics says what went wrong, for error messages.
	Diagnostics() string
}

// ErrClosed is returned by Read and Write of a connection (or a [Pipe] end)
// that was closed on this side.
var ErrClosed = errors.New("transport: connection closed")

// openAborted returns the error of an Open whose ctx is done; prefix names
// the transport, as in its other Open errors.
func openAborted(prefix string, ctx context.Context, detail error) error {
	cause := context.Cause(ctx)
	var err error
	switch ctxErr := ctx.Err(); {
	case cause == nil:
		err = ctxErr
	case ctxErr != nil && !errors.Is(cause, ctxErr):
		// Keep both, so that errors.Is finds context.Canceled too.
		err = fmt.Errorf("%w (%w)", cause, ctxErr)
	default:
		err = cause
	}
	if detail != nil {
		return fmt.Errorf("%s: open aborted: %w (%v)", prefix, err, detail)
	}
	return fmt.Errorf("%s: open aborted: %w", prefix, err)
}
