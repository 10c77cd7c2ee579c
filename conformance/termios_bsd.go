//go:build unix && !linux

package conformance

import "golang.org/x/sys/unix"

const ioctlReadTermios = unix.TIOCGETA
