//go:build linux

package procs

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// BecomeSubreaper makes this process a child subreaper
// (PR_SET_CHILD_SUBREAPER): a descendant whose parent dies is reparented
// to it instead of to init, even one that called setsid, so that it can
// still be killed and reaped. The attribute is process-wide and stays set;
// calling it again does nothing more.
func BecomeSubreaper() error {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_CHILD_SUBREAPER): %w", err)
	}
	return nil
}

// Read returns the process pid, and false when it is gone (reaped).
func Read(pid int) (Proc, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return Proc{}, false
	}
	return parseStat(b)
}

// parseStat parses /proc/<pid>/stat: "pid (comm) state ppid pgrp session
// ... starttime(22) ...". comm may hold spaces and parentheses: the
// fields start after the last ')'.
func parseStat(b []byte) (Proc, bool) {
	open := bytes.IndexByte(b, '(')
	i := bytes.LastIndexByte(b, ')')
	if open < 1 || i < open || i+2 >= len(b) {
		return Proc{}, false
	}
	pid, err := strconv.Atoi(string(bytes.TrimSpace(b[:open])))
	if err != nil {
		return Proc{}, false
	}
	f := strings.Fields(string(b[i+2:]))
	if len(f) < 20 {
		return Proc{}, false
	}
	p := Proc{Pid: pid, State: f[0][0]}
	var errs [4]error
	p.PPid, errs[0] = strconv.Atoi(f[1])
	p.Pgid, errs[1] = strconv.Atoi(f[2])
	p.Sid, errs[2] = strconv.Atoi(f[3])
	p.Start, errs[3] = strconv.ParseUint(f[19], 10, 64)
	if errors.Join(errs[:]...) != nil {
		return Proc{}, false
	}
	return p, true
}

// List returns every process of the system that /proc shows.
func List() []Proc {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	out := make([]Proc, 0, len(ents))
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, ok := Read(pid); ok {
			out = append(out, p)
		}
	}
	return out
}

// Self returns this process.
func Self() (Proc, bool) { return Read(os.Getpid()) }

// Cmdline returns the arguments of pid (nil when gone or unreadable).
func Cmdline(pid int) []string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil || len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
}

// Kill sends SIGKILL to the process k names, unless its pid now names
// another process (k.Start differs) or is gone. It reports whether it
// sent the signal.
func Kill(k Key) bool {
	p, ok := Read(k.Pid)
	if !ok || p.Start != k.Start || p.Zombie() {
		return false
	}
	return unix.Kill(k.Pid, unix.SIGKILL) == nil
}

// KillAndReap sends SIGKILL to every process of targets that still runs
// (pid and start time alike) and reaps those that are children of this
// process, waiting for each until deadline. It must be given only
// processes this program did not start through os/exec (whose Wait would
// then fail): descendants of a child, adopted as a subreaper. It returns
// how many it killed.
func KillAndReap(targets []Proc, deadline time.Time) int {
	self := os.Getpid()
	n := 0
	for _, t := range targets {
		if Kill(t.Key()) {
			n++
		}
	}
	for _, t := range targets {
		p, ok := Read(t.Pid)
		if !ok || p.Start != t.Start || p.PPid != self {
			continue
		}
		reap(t, deadline)
	}
	return n
}

// reap waits for the child t (pid and start time) to exit and reaps it,
// until deadline. Through a pidfd (opened, then t's identity checked) it
// can never reap another process that reused the pid after t was reaped
// elsewhere (by a sweep of ReapAdopted, say).
func reap(t Proc, deadline time.Time) {
	var ws unix.WaitStatus
	pidfd, err := openChild(t)
	if err == nil && pidfd < 0 {
		return // gone, or not (or no longer) our child
	}
	usePidfd := err == nil // poll on it
	waitPidfd := usePidfd  // and waitid(P_PIDFD) on it
	if usePidfd {
		defer unix.Close(pidfd)
	}
	for {
		if waitPidfd {
			exited, err := waitFd(pidfd)
			if errors.Is(err, errNoPidfd) {
				waitPidfd = false
				continue
			}
			if exited || err != nil {
				return // reaped, or reaped elsewhere
			}
		} else {
			wpid, err := unix.Wait4(t.Pid, &ws, unix.WNOHANG, nil)
			if wpid == t.Pid || (err != nil && err != unix.EINTR) {
				return // reaped, or not (or no longer) our child
			}
		}
		left := time.Until(deadline)
		if left <= 0 {
			return
		}
		if usePidfd {
			// readable once the process has exited
			fds := []unix.PollFd{{Fd: int32(pidfd), Events: unix.POLLIN}}
			if _, err := unix.Poll(fds, int(min(left, time.Second)/time.Millisecond)+1); err != nil && err != unix.EINTR {
				usePidfd = false
			}
			continue
		}
		time.Sleep(min(reapPoll, left))
	}
}

// EndChildren kills every descendant of this process and reaps its
// children, until none is left or deadline passes: a program's last step
// (e2e-conform, e2e-mcp), when nothing it started may outlive it and no
// os/exec Wait of its own is still to come. Descendants that are adopted
// while it runs (their parent was just killed) are found on the next
// pass. It returns how many processes it killed.
func EndChildren(deadline time.Time) int {
	self := os.Getpid()
	total := 0
	for {
		left := Descendants(List(), self)
		var live []Proc
		for _, p := range left {
			if !p.Zombie() || p.PPid == self {
				live = append(live, p)
			}
		}
		if len(live) == 0 {
			return total
		}
		total += KillAndReap(live, deadline)
		if time.Now().After(deadline) {
			return total
		}
	}
}
