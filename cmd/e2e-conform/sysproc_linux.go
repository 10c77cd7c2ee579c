package main

import "syscall"

// childSysProcAttr puts a --repeat child in a process group of its own (a
// terminal's ^C reaches the parent only, which forwards it once) and kills
// it when the thread that started it ends (the parent died).
func childSysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
