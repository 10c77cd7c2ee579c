package apps

import (
	"bufio"
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/e2e-conform/toolkit/mcp/mcperr"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("net/http.(*persistConn).writeLoop"),
		goleak.IgnoreTopFunction("internal/poll.runtime_pollWait"))
}

// alive reports whether pid is a live (not zombie-reaped-away) process.
func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

func TestPoolSharesAndStops(t *testing.T) {
	ready := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer ready.Close()
	p := NewPool()
	p.ReadyPoll = 10 * time.Millisecond
	p.StopGrace = time.Second
	s := Spec{Command: "sleep", Args: []string{"600"}, ReadyURL: ready.URL}
	ctx := context.Background()
	a, err := p.Acquire(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	b, err := p.Acquire(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	if n := p.Running(); n != 1 {
		t.Fatalf("two leases of one spec run %d processes, want 1 shared", n)
	}
	pids := p.Pids()
	other, err := p.Acquire(ctx, Spec{Command: "sleep", Args: []string{"601"}, ReadyURL: ready.URL})
	if err != nil {
		t.Fatal(err)
	}
	if n := p.Running(); n != 2 {
		t.Fatalf("a different spec shares a process: %d running", n)
	}
	a.Release()
	a.Release() // idempotent
	if !alive(pids[0]) {
		t.Fatal("the shared process stopped while a lease still holds it")
	}
	b.Release()
	other.Release()
	if n := p.Running(); n != 0 {
		t.Errorf("%d processes after every lease was released", n)
	}
	for _, pid := range pids {
		if alive(pid) {
			t.Errorf("process %d outlived its last lease", pid)
		}
	}
}

func TestPoolFailures(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String() + "/"
	l.Close()
	cases := []struct {
		name string
		spec Spec
		code mcperr.Code
	}{
		{"a command that exits before its readyUrl answers", Spec{Command: "true", ReadyURL: closed}, mcperr.AppUnreachable},
		{"a readyUrl that never answers", Spec{Command: "sleep", Args: []string{"600"}, ReadyURL: closed}, mcperr.LaunchTimeout},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := NewPool()
			p.ReadyPoll = 10 * time.Millisecond
			p.ReadyTimeout = 300 * time.Millisecond
			p.StopGrace = time.Second
			_, err := p.Acquire(context.Background(), c.spec)
			var ae *mcperr.Error
			if !errors.As(err, &ae) || ae.Code != c.code {
				t.Fatalf("got %v, want %s", err, c.code)
			}
			if n := p.Running(); n != 0 {
				t.Errorf("%d processes left after a failed start", n)
			}
		})
	}
	t.Run("a cancelled acquire stops the process", func(t *testing.T) {
		p := NewPool()
		p.ReadyPoll = 10 * time.Millisecond
		p.StopGrace = time.Second
		ctx, cancel := context.WithCancel(context.Background())
		errc := make(chan error, 1)
		go func() {
			_, err := p.Acquire(ctx, Spec{Command: "sleep", Args: []string{"600"}, ReadyURL: closed})
			errc <- err
		}()
		for p.Running() == 0 {
			time.Sleep(5 * time.Millisecond) // polling the pool until the process runs
		}
		pids := p.Pids()
		cancel()
		if err := <-errc; !errors.Is(err, context.Canceled) {
			t.Fatalf("got %v, want the cancellation", err)
		}
		if n := p.Running(); n != 0 {
			t.Errorf("%d processes after the cancelled acquire", n)
		}
		for _, pid := range pids {
			if alive(pid) {
				t.Errorf("process %d survived", pid)
			}
		}
	})
}

// TestStoppingCounts: a process a last Release is stopping still counts as
// running (and is listed) until it was reaped, so a caller that sees
// Running() == 0 never finds it alive (the flaky "app process survived the
// cancelled open" of the server tests).
func TestStoppingCounts(t *testing.T) {
	p := NewPool()
	p.StopGrace = 300 * time.Millisecond
	// sleep ignores SIGTERM (an ignored signal stays ignored across exec):
	// only the SIGKILL after StopGrace ends it.
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	l, err := p.Acquire(context.Background(), Spec{Command: "sh", Args: []string{"-c", `trap "" TERM; echo ready; exec sleep 600`}, Log: pw})
	pw.Close()
	if err != nil {
		t.Fatal(err)
	}
	// The trap is set once the line arrives.
	if line, err := bufio.NewReader(pr).ReadString('\n'); err != nil || line != "ready\n" {
		t.Fatalf("read %q, %v", line, err)
	}
	pids := p.Pids()
	released := make(chan struct{})
	go func() { defer close(released); l.Release() }()
	for p.Running() != 0 {
		time.Sleep(time.Millisecond) // polling the pool's state
	}
	for _, pid := range pids {
		if alive(pid) {
			t.Errorf("Running() is 0 while process %d is still alive", pid)
		}
	}
	<-released
}
