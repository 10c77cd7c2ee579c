//go:build unix

package client_test

import (
	"syscall"
	"time"
)

// processCPU is the CPU time (user + system) this process has used: the
// benchmarks report it per op, which a loaded machine's scheduling delays
// do not inflate as they inflate wall time.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
