//go:build !linux

package procs

import (
	"errors"
	"os/exec"
	"time"
)

// BecomeSubreaper is Linux only: elsewhere an orphan goes to init.
func BecomeSubreaper() error { return errors.ErrUnsupported }

// Read is Linux only: elsewhere no process is found.
func Read(pid int) (Proc, bool) { return Proc{}, false }

// List is Linux only: elsewhere it returns nothing.
func List() []Proc { return nil }

// Self is Linux only.
func Self() (Proc, bool) { return Proc{}, false }

// Cmdline is Linux only.
func Cmdline(pid int) []string { return nil }

// Kill is Linux only: elsewhere it sends nothing.
func Kill(k Key) bool { return false }

// KillAndReap is Linux only: elsewhere it does nothing.
func KillAndReap(targets []Proc, deadline time.Time) int { return 0 }

// EndChildren is Linux only: elsewhere it does nothing.
func EndChildren(deadline time.Time) int { return 0 }

// StartChild starts cmd; elsewhere than on Linux there is no registry to
// keep (ReapAdopted reaps nothing).
func StartChild(cmd *exec.Cmd) error { return cmd.Start() }

// ChildWaited is Linux only: elsewhere it does nothing.
func ChildWaited(pid int) {}

// ReapAdopted is Linux only: elsewhere no orphan comes back to this
// process, and it reaps nothing.
func ReapAdopted() int { return 0 }
