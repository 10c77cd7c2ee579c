//go:build !unix

package transport

import "syscall"

func platformErrnoName(syscall.Errno) string { return "" }
