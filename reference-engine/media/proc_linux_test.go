//go:build linux

package media

import "syscall"

// syscallKill kills pid, to clean up after a failed test.
func syscallKill(pid int) { _ = syscall.Kill(pid, syscall.SIGKILL) }
