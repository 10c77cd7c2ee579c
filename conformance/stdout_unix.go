//go:build unix

package conformance

import (
	"os"

	"golang.org/x/sys/unix"
)

// ginkgoToStderr runs fn with file descriptor 1 pointing at stderr, so that
// ginkgo's own progress output (which it writes to the stdout it found at
// start-up) stays off stdout, which carries the suite's summary or JSON.
func ginkgoToStderr(fn func()) {
	saved, err := unix.Dup(1)
	if err != nil {
		fn()
		return
	}
	os.Stdout.Sync()
	if err := unix.Dup2(2, 1); err != nil {
		unix.Close(saved)
		fn()
		return
	}
	defer func() {
		os.Stdout.Sync()
		_ = unix.Dup2(saved, 1)
		unix.Close(saved)
	}()
	fn()
}
