//go:build unix

package server

import (
	"io"
	"os"
	"runtime"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

// rawFile reads and writes a non-blocking pipe or socket (pollable's
// result) with raw system calls, waiting in Go's network poller when the
// descriptor is not ready.
//
// os.File's Read and Write enter the scheduler's system-call state around
// each read(2) and write(2) (syscall.Syscall). The first such call after
// the process has been idle wakes the runtime's monitor thread (sysmon),
// which then polls every 20 µs until the process is idle again: a futex
// wake and several context switches for every request of a client that
// waits for each answer before it sends the next, on the server's own CPU
// when the server is pinned to one (issue 30: a quarter of the pinned
// server's samples were sysmon's). A read or write of a non-blocking
// descriptor never blocks, so it needs no hand-off of the thread's P: it is
// made with syscall.RawSyscall, which leaves the monitor asleep.
//
// The monitor is also what preempts a goroutine that computes without
// yielding: with GOMAXPROCS 1, an engine call that never blocks would hold
// the only P, and the reading goroutine with it, for as long as the monitor
// sleeps (§1.5: a server keeps reading while requests are in flight). A
// rawFile therefore keeps a timer pending while it is open (keepAwake): the
// monitor never sleeps past the next tick, and once awake while a call runs
// it stays awake and preempts the call after 10 ms, as it does for a
// process that made an ordinary system call.
type rawFile struct {
	f    *os.File
	rc   syscall.RawConn
	once sync.Once
	done chan struct{} // closed by Close: ends keepAwake
}

// awakeTick bounds how long the runtime's monitor sleeps while a rawFile
// is open.
const awakeTick = 20 * time.Millisecond

// rawIO returns f as a rawFile, or f itself when it has no RawConn. A
// file that is read (input) keeps the runtime's monitor awake until
// Close (keepAwake); one that is only written needs not: the reading is
// what a call that never yields would hold back.
func rawIO(f *os.File, input bool) io.ReadWriteCloser {
	rc, err := f.SyscallConn()
	if err != nil {
		return f
	}
	r := &rawFile{f: f, rc: rc, done: make(chan struct{})}
	if input {
		go r.keepAwake()
	}
	return r
}

// keepAwake keeps a timer pending until Close: the runtime's monitor
// sleeps at most until the next timer, so it never sleeps more than
// awakeTick (see rawFile).
func (r *rawFile) keepAwake() {
	t := time.NewTicker(awakeTick)
	defer t.Stop()
	for {
		select {
		case <-t.C:
		case <-r.done:
			return
		}
	}
}

// Read reads into p, waiting in the poller until the descriptor is
// readable; 0 bytes read is io.EOF.
func (r *rawFile) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	var n int
	var errno syscall.Errno
	err := r.rc.Read(func(fd uintptr) bool {
		for {
			m, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
			switch e {
			case syscall.EINTR:
				continue
			case syscall.EAGAIN:
				return false
			}
			n, errno = int(m), e
			return true
		}
	})
	switch {
	case err != nil:
		return 0, err
	case errno != 0:
		return 0, &os.PathError{Op: "read", Path: r.f.Name(), Err: errno}
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

// Write writes all of p, waiting in the poller while the descriptor's
// buffer is full.
func (r *rawFile) Write(p []byte) (int, error) {
	var n int
	var errno syscall.Errno
	err := r.rc.Write(func(fd uintptr) bool {
		for n < len(p) {
			m, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&p[n])), uintptr(len(p)-n))
			switch e {
			case 0:
				n += int(m)
				continue
			case syscall.EINTR:
				continue
			case syscall.EAGAIN:
				return false
			}
			errno = e
			return true
		}
		return true
	})
	switch {
	case err != nil:
		return n, err
	case errno != 0:
		return n, &os.PathError{Op: "write", Path: r.f.Name(), Err: errno}
	}
	return n, nil
}

// Close closes the file; a Read or Write waiting in the poller ends.
func (r *rawFile) Close() error {
	r.once.Do(func() { close(r.done) })
	return r.f.Close()
}

// stdioEnd is f made pollable (pollable), and read or written with raw
// system calls (rawFile) when the process runs on one P; f itself when it
// is not a pipe or a socket. input: f is read (stdin).
//
// Raw system calls only on one P: there the monitor's polling competes
// with the only P's thread for the one CPU the process may use (the
// runtime's default GOMAXPROCS is the CPUs it may run on), and pinned to
// one CPU the Node client's observe round trip lost 14 µs above the raw
// echo to it (issue 30). With two CPUs and two Ps the same change made
// that round trip slower (about 120 µs against 65-70 µs in most rounds
// with os.File, on the 2-vCPU VM; the server also used more CPU per call),
// so there the file is read and written as before.
func stdioEnd(f *os.File, name string, input bool) io.ReadWriteCloser {
	p := pollable(f, name)
	if p == f || runtime.GOMAXPROCS(0) != 1 {
		return p
	}
	return rawIO(p, input)
}
