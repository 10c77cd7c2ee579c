// Package procs reads the process table and ends processes this program
// did not start itself but has to clean up: the descendants of a spawned
// engine that left its process group (setsid) and came back to this
// process as a child subreaper, and the helpers a Chromium leaves behind.
// It reaps the adopted orphans that exit during the run (ReapAdopted), and
// keeps the registry of the children a spawn transport started
// (StartChild), which no sweep may reap.
//
// It works on Linux only, through /proc and PR_SET_CHILD_SUBREAPER. On
// other systems List returns nothing, BecomeSubreaper reports
// errors.ErrUnsupported, and a process that leaves its process group and
// loses its parent is adopted by init, out of this program's reach.
package procs

import "time"

// Proc is one process as /proc/<pid>/stat describes it.
type Proc struct {
	Pid, PPid, Pgid, Sid int
	// State is the one-letter state ('R', 'S', 'Z', ...).
	State byte
	// Start is the start time in clock ticks since boot: with Pid, it
	// names one process (a pid can be reused, the pair cannot).
	Start uint64
}

// Zombie reports whether the process has exited and waits to be reaped.
func (p Proc) Zombie() bool { return p.State == 'Z' || p.State == 'X' }

// Key names a process across pid reuse.
type Key struct {
	Pid   int
	Start uint64
}

// Key returns p's key.
func (p Proc) Key() Key { return Key{p.Pid, p.Start} }

// Descendants returns every process of table below the processes whose
// pids are in roots (not the roots themselves), following parent links.
func Descendants(table []Proc, roots ...int) []Proc {
	children := map[int][]Proc{}
	for _, p := range table {
		children[p.PPid] = append(children[p.PPid], p)
	}
	var out []Proc
	seen := map[int]bool{}
	queue := append([]int(nil), roots...)
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		for _, c := range children[pid] {
			if seen[c.Pid] {
				continue
			}
			seen[c.Pid] = true
			out = append(out, c)
			queue = append(queue, c.Pid)
		}
	}
	return out
}

// reapPoll is how often a bounded reap looks again when the system has no
// pidfd to wait on.
const reapPoll = 5 * time.Millisecond
