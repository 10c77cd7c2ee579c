//go:build !linux

package chromium

import "os/exec"

// setDeathSignal has no parent-death signal to set here.
func setDeathSignal(*exec.Cmd) {}
