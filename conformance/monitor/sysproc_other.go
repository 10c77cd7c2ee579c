//go:build !linux

package monitor

import "syscall"

// sigSnapshot asks for the reports so far.
const sigSnapshot = syscall.SIGUSR1

// sysProcAttr: elsewhere the engine is not tied to the monitor's life.
func sysProcAttr() *syscall.SysProcAttr { return nil }
