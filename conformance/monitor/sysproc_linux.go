package monitor

import "syscall"

// sigSnapshot asks for the reports so far.
const sigSnapshot = syscall.SIGUSR1

// sysProcAttr makes the engine die with the monitor (no child outlives it).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
