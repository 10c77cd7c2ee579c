//go:build unix

package conformance

import (
	"os"

	"golang.org/x/sys/unix"
)

// ginkgoToStderr runs fn with file descriptor 1 pointing at a pipe copied
// to stderr through redact, so that ginkgo's own progress and failure
// output (which it writes to the stdout it found at start-up) stays off
// stdout, which carries the suite's summary or JSON, and shows no secret.
func ginkgoToStderr(redact func(string) string, fn func()) {
	saved, err := unix.Dup(1)
	if err != nil {
		fn()
		return
	}
	r, w, err := os.Pipe()
	if err != nil {
		unix.Close(saved)
		fn()
		return
	}
	os.Stdout.Sync()
	if err := unix.Dup2(int(w.Fd()), 1); err != nil {
		unix.Close(saved)
		r.Close()
		w.Close()
		fn()
		return
	}
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		copyRedacted(os.Stderr, r, redact)
		r.Close()
	}()
	defer func() {
		os.Stdout.Sync()
		_ = unix.Dup2(saved, 1) // the pipe's last writer other than w
		unix.Close(saved)
		w.Close()
		<-copied
	}()
	fn()
}

// isTerminal reports whether f is a terminal (it answers the terminal
// ioctl; /dev/null, a character device too, does not).
func isTerminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), ioctlReadTermios)
	return err == nil
}
