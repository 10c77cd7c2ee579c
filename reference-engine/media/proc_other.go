//go:build !linux

package media

import "os/exec"

// configureChild has nothing to set outside Linux.
func configureChild(cmd *exec.Cmd) {}

// killChild kills the child.
func killChild(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
