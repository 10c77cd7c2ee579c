package transport_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/e2e-conform/toolkit/protocol/transport"
)

func TestLoopbackRoundTripAndClose(t *testing.T) {
	t.Parallel()
	served := make(chan error, 1)
	tr := transport.Loopback("echo", func(ctx context.Context, rwc io.ReadWriteCloser) error {
		_, err := io.Copy(rwc, rwc) // until the client closes
		served <- err
		return nil
	})
	if tr.Label() != "loopback:echo" {
		t.Errorf("Label() = %q", tr.Label())
	}
	c, err := tr.Open(context.Background(), transport.Context{Role: "worker"})
	if err != nil {
		t.Fatal(err)
	}
	if d := c.Diagnostics(); d != "loopback:echo: serving" {
		t.Errorf("Diagnostics = %q", d)
	}
	msg := []byte("Content-Length: 2\r\n\r\n{}")
	for range 3 {
		c.Write(msg)
		got := make([]byte, len(msg))
		if _, err := io.ReadFull(c, got); err != nil || string(got) != string(msg) {
			t.Fatalf("got %q, %v", got, err)
		}
	}
	if err := c.Close(within); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("serve's copy ended with %v, want EOF", err)
		}
	default:
		t.Fatal("Close returned before serve")
	}
	if d := c.Diagnostics(); d != "loopback:echo: serve returned" {
		t.Errorf("Diagnostics = %q", d)
	}
	if _, err := c.Write(msg); !errors.Is(err, transport.ErrClosed) {
		t.Errorf("Write after Close: %v", err)
	}
	if _, err := c.Read(msg); !errors.Is(err, transport.ErrClosed) {
		t.Errorf("Read after Close: %v", err)
	}
}

func TestLoopbackServeEnds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		serve    transport.ServeFunc
		wantDiag string
	}{
		{
			name: "error",
			serve: func(ctx context.Context, rwc io.ReadWriteCloser) error {
				rwc.Write([]byte("partial"))
				return errors.New("engine broke")
			},
			wantDiag: "loopback:x: serve returned an error: engine broke",
		},
		{
			name: "panic",
			serve: func(ctx context.Context, rwc io.ReadWriteCloser) error {
				rwc.Write([]byte("partial"))
				panic("boom")
			},
			wantDiag: "loopback:x: serve returned an error: serve panicked: boom",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := transport.Loopback("x", tt.serve).Open(context.Background(), transport.Context{})
			if err != nil {
				t.Fatal(err)
			}
			// The server end is closed once serve returns: data, then EOF.
			if b, err := io.ReadAll(c); err != nil || string(b) != "partial" {
				t.Errorf("ReadAll: %q, %v", b, err)
			}
			if err := c.Close(within); err != nil {
				t.Fatal(err)
			}
			if d := c.Diagnostics(); !strings.HasPrefix(d, tt.wantDiag) {
				t.Errorf("Diagnostics = %q, want prefix %q", d, tt.wantDiag)
			}
		})
	}
}

func TestLoopbackCloseTimeout(t *testing.T) {
	t.Parallel()
	t.Run("serve honours ctx", func(t *testing.T) {
		t.Parallel()
		cause := make(chan error, 1)
		c, err := transport.Loopback("slow", func(ctx context.Context, rwc io.ReadWriteCloser) error {
			<-ctx.Done() // ignores EOF, waits for ctx
			cause <- context.Cause(ctx)
			return ctx.Err()
		}).Open(context.Background(), transport.Context{})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Close(50 * time.Millisecond); err != nil {
			t.Fatalf("Close: %v", err)
		}
		if err := <-cause; err == nil || !strings.Contains(err.Error(), "close timed out") {
			t.Errorf("serve's ctx cause = %v", err)
		}
	})
	t.Run("serve ignores ctx", func(t *testing.T) {
		t.Parallel()
		release := make(chan struct{})
		done := make(chan struct{})
		c, err := transport.Loopback("stuck", func(ctx context.Context, rwc io.ReadWriteCloser) error {
			defer close(done)
			<-release
			return nil
		}).Open(context.Background(), transport.Context{})
		if err != nil {
			t.Fatal(err)
		}
		err = c.Close(50 * time.Millisecond)
		if err == nil || !strings.Contains(err.Error(), "loopback:stuck: serve did not return") {
			t.Errorf("Close error %v", err)
		}
		if err2 := c.Close(time.Second); err2 != err {
			t.Errorf("second Close = %v, want %v", err2, err)
		}
		close(release)
		<-done
	})
}

func TestLoopbackOpenCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	started := false
	_, err := transport.Loopback("x", func(context.Context, io.ReadWriteCloser) error {
		started = true
		return nil
	}).Open(ctx, transport.Context{})
	if !errors.Is(err, context.Canceled) || started {
		t.Errorf("Open: %v (serve started: %v)", err, started)
	}
}

func TestLoopbackServeCtxSurvivesOpenCtx(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	c, err := transport.Loopback("x", func(ctx context.Context, rwc io.ReadWriteCloser) error {
		io.Copy(rwc, rwc)
		return ctx.Err()
	}).Open(ctx, transport.Context{})
	if err != nil {
		t.Fatal(err)
	}
	cancel() // the prepare signal ending does not end the connection
	c.Write([]byte("hi"))
	b := make([]byte, 2)
	if _, err := io.ReadFull(c, b); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(within); err != nil {
		t.Fatal(err)
	}
	if d := c.Diagnostics(); d != "loopback:x: serve returned" {
		t.Errorf("Diagnostics = %q", d)
	}
}
