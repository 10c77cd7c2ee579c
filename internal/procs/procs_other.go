//go:build !linux

package procs

import (
	"errors"
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
