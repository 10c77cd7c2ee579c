package media

import (
	"os/exec"
	"syscall"
)

// configureChild puts the child in its own process group and asks the
// kernel to SIGKILL it when the thread that started it dies.
func configureChild(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// killChild kills the child's whole process group.
func killChild(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	_ = cmd.Process.Kill()
}
