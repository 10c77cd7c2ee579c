//go:build !linux

package media

import "os"

// syscallKill kills pid, to clean up after a failed test.
func syscallKill(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}
