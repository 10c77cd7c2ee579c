package mutate

import "syscall"

// sysProcAttr makes the child die with this process.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
