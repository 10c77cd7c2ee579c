//go:build linux

package chromium

import (
	"os/exec"
	"syscall"
)

// setDeathSignal makes cmd get SIGKILL when the thread that started it
// dies, as chromedp does for the Chromiums it launches.
func setDeathSignal(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
