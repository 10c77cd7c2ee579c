//go:build linux

package procs

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"sync"

	"golang.org/x/sys/unix"
)

// owned is the set of children that this process started through
// [StartChild] and has not waited for yet: their exit status belongs to
// whoever started them, and [ReapAdopted] never reaps them.
//
// It is package-level state on purpose: being a process's parent (and so
// being able to reap it) is a property of the whole process, not of any
// value in it. Every spawn transport of the process, whatever object
// started it, shares one set of children and one SIGCHLD, so the set of
// children that a sweep must leave alone has to be process-wide too.
//
// sweeps orders starts with sweeps: StartChild holds it (read) from the
// fork until the new pid is registered, a sweep holds it (write) while it
// decides and reaps, so that a child that exits between its fork and its
// registration (it may call setsid and exit at once) is never taken for an
// adopted orphan. mu guards pids and watch.
var owned struct {
	sweeps sync.RWMutex
	mu     sync.Mutex
	pids   map[int]struct{}
	watch  *watcher // sweeps on SIGCHLD while pids is not empty
}

// StartChild starts cmd (cmd.Start) and registers the child as one whose
// exit status belongs to its starter: [ReapAdopted] never reaps it, even
// once it has left this process's session. Call [ChildWaited] with its pid
// once cmd.Wait (or cmd.Process.Wait) has returned.
//
// While at least one child is registered, a goroutine of this package
// sweeps on every SIGCHLD: the adopted orphans that exit while engines run
// and that cannot be this process's children (see ReapAdopted: they do not
// lead their session) are reaped at once. It ends, synchronously, when
// ChildWaited unregisters the last child.
func StartChild(cmd *exec.Cmd) error {
	owned.sweeps.RLock()
	defer owned.sweeps.RUnlock()
	if err := cmd.Start(); err != nil {
		return err
	}
	owned.mu.Lock()
	defer owned.mu.Unlock()
	if owned.pids == nil {
		owned.pids = map[int]struct{}{}
	}
	owned.pids[cmd.Process.Pid] = struct{}{}
	if owned.watch == nil {
		owned.watch = startWatcher()
	}
	return nil
}

// ChildWaited unregisters a child that [StartChild] started, once its Wait
// has returned (the pid no longer names it). When it was the last one, it
// stops the SIGCHLD sweeps and returns once their goroutine has ended.
func ChildWaited(pid int) {
	owned.mu.Lock()
	delete(owned.pids, pid)
	var w *watcher
	if len(owned.pids) == 0 {
		w, owned.watch = owned.watch, nil
	}
	owned.mu.Unlock()
	if w != nil {
		w.stop()
	}
}

func registered(pid int) bool {
	owned.mu.Lock()
	defer owned.mu.Unlock()
	_, ok := owned.pids[pid]
	return ok
}

// ReapAdopted reaps the children of this process that have exited and that
// it adopted as a child subreaper ([BecomeSubreaper]) rather than started:
// the orphans of a double fork, such as Chromium's crashpad handlers or
// any daemonizing helper, which were never in an engine's process tree or
// process group when its connection closed and would otherwise stay
// zombies until the program ends. It returns how many it reaped, and never
// blocks on a process that still runs (nor on one whose exit is not
// complete yet: its other threads still exit; the next sweep reaps it).
//
// This process's own children are told apart by their session: a process
// inherits its parent's session at fork and can only leave it for a new
// session of its own (setsid: its session id becomes its pid). So a child
// whose session is neither this process's nor led by itself was certainly
// not started by this process: it is reaped. A child that leads a session
// of its own was adopted, or was started by this process and then called
// setsid (or was started with SysProcAttr.Setsid): it is reaped unless
// [StartChild] registered it. A child in this process's session is never
// reaped. The limit: a child that other code of this process started
// through os/exec (not StartChild) in a session of its own, and has not
// waited for yet, looks like an adopted one, and its Wait would then fail
// (ECHILD); and a process that called setsid itself after it started
// children has them outside its session too. Neither happens in the
// programs of this module, nor usually in a vendor's tests.
//
// A reaped process is named by a pidfd opened before its identity (pid,
// start time, parent) is checked again, so that a pid reused meanwhile is
// never reaped.
func ReapAdopted() int { return sweep(true) }

// sweep reaps the exited adopted children of this process, as ReapAdopted
// describes; those that lead a session of their own only when leaders is
// set. It returns how many it reaped.
func sweep(leaders bool) int {
	self := os.Getpid()
	sid, err := unix.Getsid(0)
	if err != nil {
		return 0
	}
	var cands []Proc
	for _, p := range List() {
		if p.PPid == self && p.Sid != sid && (leaders || p.Sid != p.Pid) {
			cands = append(cands, p)
		}
	}
	if len(cands) == 0 {
		return 0
	}
	owned.sweeps.Lock()
	defer owned.sweeps.Unlock()
	n := 0
	for _, p := range cands {
		if p.Sid == p.Pid && registered(p.Pid) {
			continue
		}
		if reaped, _ := waitChild(p); reaped {
			n++
		}
	}
	return n
}

// errNoPidfd: the system cannot wait on a pidfd (before Linux 5.4).
var errNoPidfd = errors.New("no pidfd waitid")

// waitChild reaps the child p (pid and start time) if it has exited,
// without blocking, and reports whether it did. Without pidfds it falls
// back to wait4 on a process that /proc shows as p and a zombie (only this
// process can reap its own zombie, so the pid cannot change hands before
// the wait4, unless another goroutine reaps p meanwhile).
func waitChild(p Proc) (bool, error) {
	fd, err := openChild(p)
	if err == nil {
		if fd < 0 {
			return false, nil
		}
		exited, err := waitFd(fd)
		unix.Close(fd)
		if !errors.Is(err, errNoPidfd) {
			return exited, err
		}
	}
	q, ok := Read(p.Pid)
	if !ok || q.Start != p.Start || q.PPid != os.Getpid() || !q.Zombie() {
		return false, nil
	}
	var ws unix.WaitStatus
	for {
		wpid, err := unix.Wait4(p.Pid, &ws, unix.WNOHANG, nil)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return false, fmt.Errorf("wait4 %d: %w", p.Pid, err)
		}
		return wpid == p.Pid, nil
	}
}

// openChild opens a pidfd on the child p, then checks that the pid still
// names p (start time) and that p is still a child of this process, so
// that the pidfd names exactly p. It returns -1 and nil when p is gone or
// not a child, -1 and errNoPidfd when the system has no pidfd_open.
func openChild(p Proc) (int, error) {
	fd, err := unix.PidfdOpen(p.Pid, 0)
	if err == unix.ENOSYS {
		return -1, errNoPidfd
	}
	if err != nil {
		return -1, nil // gone
	}
	if q, ok := Read(p.Pid); !ok || q.Start != p.Start || q.PPid != os.Getpid() {
		unix.Close(fd)
		return -1, nil
	}
	return fd, nil
}

// waitFd reaps the child that the pidfd fd names if it has exited, without
// blocking, and reports whether it did; errNoPidfd when the system cannot
// wait on a pidfd (Linux 5.3).
func waitFd(fd int) (bool, error) {
	for {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_PIDFD, fd, &info, unix.WEXITED|unix.WNOHANG, nil)
		switch err {
		case unix.EINTR:
			continue
		case unix.EINVAL:
			return false, errNoPidfd
		case nil:
			return info.Signo == int32(unix.SIGCHLD), nil // 0: still running
		default:
			return false, fmt.Errorf("waitid: %w", err) // ECHILD: reaped meanwhile
		}
	}
}

// watcher sweeps on SIGCHLD, for the adopted orphans that do not lead a
// session of their own (the grandchildren of a double fork with setsid in
// the middle, as Chromium's crashpad handlers): those cannot be children
// of this process, so they are reaped at once. The ones that lead their
// session are left to ReapAdopted (every spawn Close): SIGCHLD comes
// exactly when a child exits, which for a child that other code of this
// process started through os/exec in a session of its own is the moment
// its pending Wait reaps it; a sweep then would race that Wait.
type watcher struct {
	sig  chan os.Signal
	quit chan struct{}
	done chan struct{}
}

func startWatcher() *watcher {
	w := &watcher{sig: make(chan os.Signal, 1), quit: make(chan struct{}), done: make(chan struct{})}
	signal.Notify(w.sig, unix.SIGCHLD)
	go w.run()
	return w
}

func (w *watcher) run() {
	defer close(w.done)
	for {
		select {
		case <-w.quit:
			return
		case <-w.sig:
			sweep(false)
		}
	}
}

// stop ends the watcher and returns once its goroutine has.
func (w *watcher) stop() {
	signal.Stop(w.sig)
	close(w.quit)
	<-w.done
}
