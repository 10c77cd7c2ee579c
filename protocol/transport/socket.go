package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// socketReadBuffer bounds what a socket connection reads ahead of its Read
// calls.
const socketReadBuffer = 1 << 20

// SocketOptions configure [Socket].
type SocketOptions struct {
	// Host is the server's host name or IP address.
	Host string
	// Port is the server's TCP port.
	Port int
	// DialTimeout, when > 0, bounds the dial (besides Open's ctx).
	DialTimeout time.Duration
}

// Socket returns a transport that connects over TCP to a server that already
// listens, on this machine or another (§9.2). Each Open is a new TCP
// connection. There is no encryption: use it on trusted networks only, or
// tunnel it.
//
// A goroutine owned by the connection reads from the socket ahead of Read
// (up to 1 MiB), so that Close can see the server close its side without
// taking data from a concurrent Read. Close(T) half-closes the write side,
// waits up to T for the server to close its side, then closes the socket;
// it returns once the reading goroutine has ended. Write fails with
// [ErrClosed] once Close has begun; Read keeps returning what the server
// sends until Close returns, then what was received and not yet read, then
// ErrClosed.
//
// Diagnostics and Open's errors give the address and the connection error,
// with its errno name when it is a system error, e.g.
//
//	socket 127.0.0.1:9: dial: connection refused (ECONNREFUSED)
func Socket(opts SocketOptions) Transport {
	return &socketTransport{opts: opts, addr: net.JoinHostPort(opts.Host, strconv.Itoa(opts.Port))}
}

type socketTransport struct {
	opts SocketOptions
	addr string
}

// Label returns host:port.
func (t *socketTransport) Label() string { return t.addr }

// Open dials the server.
func (t *socketTransport) Open(ctx context.Context, tc Context) (Conn, error) {
	if ctx.Err() != nil {
		return nil, openAborted("socket "+t.addr, ctx, nil)
	}
	d := net.Dialer{Timeout: t.opts.DialTimeout}
	nc, err := d.DialContext(ctx, "tcp", t.addr)
	if err != nil {
		if ctx.Err() != nil {
			return nil, openAborted("socket "+t.addr, ctx, err)
		}
		return nil, &socketError{addr: t.addr, op: "dial", err: err}
	}
	c := &socketConn{
		addr:     t.addr,
		nc:       nc,
		in:       newHalf(socketReadBuffer),
		peerDone: make(chan struct{}),
	}
	go c.readLoop()
	return c, nil
}

// socketError is a connection error of a socket transport.
type socketError struct {
	addr string
	op   string // "dial", "read", "write"
	err  error
}

func (e *socketError) Error() string {
	return fmt.Sprintf("socket %s: %s: %s", e.addr, e.op, describeNetError(e.err))
}

func (e *socketError) Unwrap() error { return e.err }

// describeNetError gives the innermost message of a network error, with the
// errno name of a system error.
func describeNetError(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		if name := errnoName(errno); name != "" {
			return fmt.Sprintf("%s (%s)", errno.Error(), name)
		}
		return errno.Error()
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return "timed out"
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return "timed out"
	}
	return err.Error()
}

// errnoNames names the errors a connection typically meets.
var errnoNames = map[syscall.Errno]string{
	syscall.ECONNREFUSED:  "ECONNREFUSED",
	syscall.ECONNRESET:    "ECONNRESET",
	syscall.ETIMEDOUT:     "ETIMEDOUT",
	syscall.EPIPE:         "EPIPE",
	syscall.ECONNABORTED:  "ECONNABORTED",
	syscall.EHOSTUNREACH:  "EHOSTUNREACH",
	syscall.ENETUNREACH:   "ENETUNREACH",
	syscall.EADDRNOTAVAIL: "EADDRNOTAVAIL",
	syscall.ENETDOWN:      "ENETDOWN",
	syscall.EHOSTDOWN:     "EHOSTDOWN",
}

func errnoName(e syscall.Errno) string {
	if name, ok := errnoNames[e]; ok {
		return name
	}
	return platformErrnoName(e)
}

// socketConn is one TCP connection.
type socketConn struct {
	addr string
	nc   net.Conn
	in   *half // what readLoop read, for Read

	peerDone chan struct{} // closed when readLoop ends (EOF, error or our close)

	mu  sync.Mutex
	err error // the first connection error

	closing   atomic.Bool
	peerEOF   atomic.Bool // the server closed its side
	closeOnce sync.Once
	closeErr  error
}

// readLoop reads the socket until it ends, for Read.
func (c *socketConn) readLoop() {
	defer close(c.peerDone)
	buf := make([]byte, 32<<10)
	for {
		n, err := c.nc.Read(buf)
		if n > 0 {
			if _, werr := c.in.write(buf[:n]); werr != nil {
				return // Close closed the buffer
			}
		}
		if err != nil {
			if err == io.EOF {
				c.peerEOF.Store(true) // before Read can see EOF
				c.in.closeWriter()
				return
			}
			if c.closing.Load() && errors.Is(err, net.ErrClosed) {
				c.in.closeWriterErr(ErrClosed)
				return
			}
			serr := &socketError{addr: c.addr, op: "read", err: err}
			c.setErr(serr)
			c.in.closeWriterErr(serr)
			return
		}
	}
}

func (c *socketConn) setErr(err error) {
	c.mu.Lock()
	if c.err == nil {
		c.err = err
	}
	c.mu.Unlock()
}

// Read returns the bytes the server sent, then io.EOF once it closed its
// side (or the connection error). Once Close has returned, Read returns
// what was received and not yet read, then ErrClosed.
func (c *socketConn) Read(p []byte) (int, error) { return c.in.read(p) }

// Write sends bytes to the server. It fails with ErrClosed once Close has
// begun.
func (c *socketConn) Write(p []byte) (int, error) {
	if c.closing.Load() {
		return 0, ErrClosed
	}
	n, err := c.nc.Write(p)
	if err != nil {
		if c.closing.Load() {
			return n, ErrClosed
		}
		serr := &socketError{addr: c.addr, op: "write", err: err}
		c.setErr(serr)
		return n, serr
	}
	return n, nil
}

// Close half-closes the write side, waits up to timeout for the server to
// close its side, then closes the socket.
func (c *socketConn) Close(timeout time.Duration) error {
	c.closeOnce.Do(func() { c.closeErr = c.close(timeout) })
	return c.closeErr
}

func (c *socketConn) close(timeout time.Duration) error {
	c.closing.Store(true)
	var halfErr error
	if cw, ok := c.nc.(interface{ CloseWrite() error }); ok {
		halfErr = cw.CloseWrite()
	}
	if halfErr == nil {
		timer := time.NewTimer(max(timeout, 0))
		select {
		case <-c.peerDone:
		case <-timer.C:
		}
		timer.Stop()
	}
	err := c.nc.Close()
	c.in.closeReader(false) // Read fails with ErrClosed after the unread data; readLoop's write fails
	<-c.peerDone
	if err != nil && !errors.Is(err, net.ErrClosed) {
		return &socketError{addr: c.addr, op: "close", err: err}
	}
	return nil
}

// Diagnostics returns the address and the connection error, if any.
func (c *socketConn) Diagnostics() string {
	c.mu.Lock()
	err := c.err
	c.mu.Unlock()
	if err != nil {
		return err.Error()
	}
	if c.peerEOF.Load() && !c.closing.Load() {
		return fmt.Sprintf("socket %s: the server closed the connection", c.addr)
	}
	if c.closing.Load() {
		return fmt.Sprintf("socket %s: closed", c.addr)
	}
	return fmt.Sprintf("socket %s: connected", c.addr)
}
