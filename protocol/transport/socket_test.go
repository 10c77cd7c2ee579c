package transport_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/e2e-conform/toolkit/protocol/transport"
)

// syncBuffer is a bytes.Buffer safe for concurrent use.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func newDebugLogger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// listen starts a TCP server on 127.0.0.1 that runs handle per connection
// and closes the connection after it; it is stopped at cleanup.
func listen(t *testing.T, handle func(net.Conn)) (host string, port int) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer nc.Close()
				handle(nc)
			}()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		wg.Wait()
	})
	addr := ln.Addr().(*net.TCPAddr)
	return addr.IP.String(), addr.Port
}

func echoHandler(nc net.Conn) { io.Copy(nc, nc) }

func TestSocketRoundTrip(t *testing.T) {
	t.Parallel()
	host, port := listen(t, echoHandler)
	tr := transport.Socket(transport.SocketOptions{Host: host, Port: port, DialTimeout: 5 * time.Second})
	if want := net.JoinHostPort(host, itoa(port)); tr.Label() != want {
		t.Errorf("Label() = %q, want %q", tr.Label(), want)
	}
	// Each Open is an independent connection.
	for range 2 {
		c, err := tr.Open(context.Background(), transport.Context{Role: "run"})
		if err != nil {
			t.Fatal(err)
		}
		msg := bytes.Repeat([]byte("0123456789abcdef"), 64<<10) // 1 MiB, more than the read-ahead
		werr := make(chan error, 1)
		go func() {
			_, err := c.Write(msg)
			werr <- err
		}()
		got := make([]byte, len(msg))
		if _, err := io.ReadFull(c, got); err != nil {
			t.Fatal(err)
		}
		if err := <-werr; err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, msg) {
			t.Fatal("echo differs")
		}
		if d := c.Diagnostics(); d != "socket "+tr.Label()+": connected" {
			t.Errorf("Diagnostics = %q", d)
		}
		start := time.Now()
		if err := c.Close(within); err != nil {
			t.Fatal(err)
		}
		if time.Since(start) >= within {
			t.Error("Close waited for the timeout though the server closed")
		}
		if _, err := c.Read(make([]byte, 1)); !errors.Is(err, transport.ErrClosed) {
			t.Errorf("Read after Close: %v", err)
		}
		if _, err := c.Write([]byte("x")); !errors.Is(err, transport.ErrClosed) {
			t.Errorf("Write after Close: %v", err)
		}
		if err := c.Close(time.Second); err != nil {
			t.Errorf("second Close: %v", err)
		}
	}
}

func TestSocketCloseHalfClosesAndWaits(t *testing.T) {
	t.Parallel()
	sawEOF := make(chan struct{})
	release := make(chan struct{})
	host, port := listen(t, func(nc net.Conn) {
		io.Copy(io.Discard, nc) // until the client half-closes
		close(sawEOF)
		<-release
		nc.Write([]byte("bye")) // still reaches the client's Read
	})
	c, err := transport.Socket(transport.SocketOptions{Host: host, Port: port}).Open(context.Background(), transport.Context{})
	if err != nil {
		t.Fatal(err)
	}
	readDone := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(c)
		readDone <- b
	}()
	closed := make(chan error, 1)
	go func() { closed <- c.Close(within) }()
	select {
	case <-sawEOF:
	case <-time.After(within):
		t.Fatal("the server did not see the half-close")
	}
	select {
	case <-closed:
		t.Fatal("Close returned before the server closed its side")
	default:
	}
	close(release)
	select {
	case err := <-closed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(within):
		t.Fatal("Close did not return after the server closed")
	}
	select {
	case b := <-readDone:
		if string(b) != "bye" {
			t.Errorf("concurrent Read got %q, want bye", b)
		}
	case <-time.After(within):
		t.Fatal("Read did not end")
	}
}

func TestSocketCloseTimeout(t *testing.T) {
	t.Parallel()
	sawEOF := make(chan struct{})
	release := make(chan struct{})
	host, port := listen(t, func(nc net.Conn) {
		io.Copy(io.Discard, nc) // EOF at the half-close
		close(sawEOF)
		<-release // keeps its side open
	})
	c, err := transport.Socket(transport.SocketOptions{Host: host, Port: port}).Open(context.Background(), transport.Context{})
	if err != nil {
		t.Fatal(err)
	}
	defer close(release)
	closed := make(chan error, 1)
	go func() { closed <- c.Close(200 * time.Millisecond) }()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(within):
		t.Fatal("Close did not return at its timeout")
	}
	select {
	case <-sawEOF:
	case <-time.After(within):
		t.Error("the server never saw the half-close")
	}
}

func TestSocketRefused(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	tr := transport.Socket(transport.SocketOptions{Host: "127.0.0.1", Port: port})
	_, err = tr.Open(context.Background(), transport.Context{})
	if err == nil {
		t.Fatal("Open succeeded")
	}
	want := "socket " + tr.Label() + ": dial: connection refused (ECONNREFUSED)"
	if err.Error() != want || !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("Open error %q, want %q wrapping ECONNREFUSED", err, want)
	}
}

func TestSocketReset(t *testing.T) {
	t.Parallel()
	host, port := listen(t, func(nc net.Conn) {
		nc.Read(make([]byte, 1))
		nc.(*net.TCPConn).SetLinger(0) // Close sends RST
	})
	c, err := transport.Socket(transport.SocketOptions{Host: host, Port: port}).Open(context.Background(), transport.Context{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(time.Second)
	c.Write([]byte("x"))
	_, err = io.ReadAll(c)
	if !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("Read error %v, want ECONNRESET", err)
	}
	if d := c.Diagnostics(); !strings.Contains(d, "(ECONNRESET)") || !strings.HasPrefix(d, "socket "+net.JoinHostPort(host, itoa(port))) {
		t.Errorf("Diagnostics = %q", d)
	}
}

func TestSocketServerClosed(t *testing.T) {
	t.Parallel()
	host, port := listen(t, func(nc net.Conn) {})
	c, err := transport.Socket(transport.SocketOptions{Host: host, Port: port}).Open(context.Background(), transport.Context{})
	if err != nil {
		t.Fatal(err)
	}
	if b, err := io.ReadAll(c); err != nil || len(b) != 0 {
		t.Fatalf("ReadAll: %q, %v", b, err)
	}
	if d := c.Diagnostics(); !strings.Contains(d, "the server closed the connection") {
		t.Errorf("Diagnostics = %q", d)
	}
	if err := c.Close(time.Second); err != nil {
		t.Error(err)
	}
}

func TestSocketOpenCancelled(t *testing.T) {
	t.Parallel()
	host, port := listen(t, echoHandler)
	cause := errors.New("init aborted")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(cause)
	c, err := transport.Socket(transport.SocketOptions{Host: host, Port: port}).Open(ctx, transport.Context{})
	if err == nil {
		c.Close(time.Second)
		t.Fatal("Open succeeded")
	}
	if !errors.Is(err, cause) || !errors.Is(err, context.Canceled) {
		t.Errorf("Open error %v, want the cause", err)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
