//go:build unix

package server

import (
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestPollableStdio: a pipe end is made non-blocking (a read parks its
// goroutine in the poller, so Close ends it), carries the bytes as before,
// and a regular file is returned as it is.
func TestPollableStdio(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	defer r.Close()
	// A pipe end as a child gets it: blocking (Fd sets it so).
	_ = r.Fd()
	blocking := r
	p := pollable(blocking, "stdin")
	if p == blocking {
		t.Fatal("pollable returned the pipe unchanged")
	}
	flags, err := fcntlFlags(p)
	if err != nil || flags&syscall.O_NONBLOCK == 0 {
		t.Fatalf("the pollable pipe's flags %#x (%v): want O_NONBLOCK", flags, err)
	}
	if _, err := w.Write([]byte("hello")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 5)
	if _, err := io.ReadFull(p, buf); err != nil || string(buf) != "hello" {
		t.Fatalf("read %q, %v: want hello", buf, err)
	}
	// A read waiting in the poller ends when the file is closed (a
	// blocking read of a pipe would wait for the writer).
	done := make(chan error, 1)
	go func() { _, err := p.Read(buf); done <- err }()
	p.Close()
	if err := <-done; err == nil {
		t.Error("a read of the closed pollable pipe returned no error")
	}

	f, err := os.Create(filepath.Join(t.TempDir(), "regular"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got := pollable(f, "stdout"); got != f {
		t.Error("pollable changed a regular file")
	}
}

func fcntlFlags(f *os.File) (int, error) {
	sc, err := f.SyscallConn()
	if err != nil {
		return 0, err
	}
	var flags int
	var ferr error
	err = sc.Control(func(fd uintptr) {
		r, _, e := syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_GETFL, 0)
		flags = int(r)
		if e != 0 {
			ferr = e
		}
	})
	if err != nil {
		return 0, err
	}
	return flags, ferr
}
