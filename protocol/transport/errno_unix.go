//go:build unix

package transport

import (
	"syscall"

	"golang.org/x/sys/unix"
)

func platformErrnoName(e syscall.Errno) string { return unix.ErrnoName(e) }
