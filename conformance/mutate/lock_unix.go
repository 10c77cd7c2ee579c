//go:build unix

package mutate

import (
	"os"
	"syscall"
)

// lockFile takes an exclusive lock on f and returns its release.
func lockFile(f *os.File) func() {
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX) != nil {
		return func() {}
	}
	return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
}
