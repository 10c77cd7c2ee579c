//go:build !linux

package mutate

import "syscall"

// sysProcAttr: outside Linux the child stays in the process group only.
func sysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{} }
