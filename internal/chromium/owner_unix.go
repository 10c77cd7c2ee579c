//go:build unix

package chromium

import (
	"errors"
	"io/fs"
	"os"
	"syscall"

	"github.com/e2e-conform/toolkit/internal/procs"
)

// ownedByMe reports whether fi belongs to this process's user.
func ownedByMe(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}

// ownerAlive reports whether the process pid that started at start (0:
// unknown) still runs.
func ownerAlive(pid int, start uint64) bool {
	if p, ok := procs.Read(pid); ok {
		return !p.Zombie() && (start == 0 || p.Start == start)
	}
	if _, ok := procs.Self(); ok {
		return false // /proc works and has no such process
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
