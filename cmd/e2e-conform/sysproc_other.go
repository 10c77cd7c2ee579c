//go:build !linux

package main

import "syscall"

// childSysProcAttr: elsewhere than on Linux the children stay in the
// parent's process group, and a terminal's ^C reaches them directly too.
func childSysProcAttr() *syscall.SysProcAttr { return nil }
