//go:build unix

package server

import (
	"os"
	"syscall"
)

// pollable returns f as a file Go's network poller waits on, when f is a
// pipe or a socket: a parent hands a spawned engine blocking pipe ends, so
// every read would hold a thread in a blocking system call, and each
// request's hand-off to its worker goroutine would have to wake another
// thread (the spawn round trip cost about 3x the raw pipe echo's; issue
// 11). Made non-blocking, a read parks only its goroutine and the worker
// runs on the same thread at once. A terminal or a regular file is left
// as it is (the flag would be seen by every process sharing it, a shell
// included). On any failure f is returned unchanged.
func pollable(f *os.File, name string) *os.File {
	var st syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &st); err != nil {
		return f
	}
	if mode := st.Mode & syscall.S_IFMT; mode != syscall.S_IFIFO && mode != syscall.S_IFSOCK {
		return f
	}
	fd, err := syscall.Dup(int(f.Fd()))
	if err != nil {
		return f
	}
	if err := syscall.SetNonblock(fd, true); err != nil {
		syscall.Close(fd)
		return f
	}
	return os.NewFile(uintptr(fd), name)
}
