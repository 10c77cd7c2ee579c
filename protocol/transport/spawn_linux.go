//go:build linux

package transport

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/e2e-conform/toolkit/internal/procs"
)

// spawnConn is one child process; it implements SpawnConn.
type spawnConn struct {
	t   *spawnTransport
	cmd *exec.Cmd
	pid int

	stdinW  *os.File // client to server
	stdoutR *os.File // server to client
	stderrR *os.File

	out        *half         // stdout read ahead, for Read
	stdoutDone chan struct{} // closed when the stdout reader ends
	stderr     stderrRing
	stderrDone chan struct{} // closed when the stderr reader ends

	wg sync.WaitGroup // the waiter and the stdout and stderr readers

	// sigMu orders group kills with reaping: while it is held and reaped is
	// false, the child's pid (and so its process group id) is still ours.
	sigMu  sync.Mutex
	reaped bool

	exited  chan struct{} // closed once state and waitErr are set
	state   *os.ProcessState
	waitErr error

	closing   atomic.Bool // Close began: Write fails
	stdoutEOF atomic.Bool // stdout reached EOF

	closeOnce sync.Once
	closeErr  error

	// tree is the child's descendants when Close began (before the child
	// could exit and orphan them): ended once the child is reaped.
	tree []procs.Proc
}

var _ SpawnConn = (*spawnConn)(nil)

func startProcess(t *spawnTransport, path, dir string, env []string) (*spawnConn, error) {
	stdinR, stdinW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	stdoutR, stdoutW, err := os.Pipe()
	if err != nil {
		closeAll(stdinR, stdinW)
		return nil, err
	}
	stderrR, stderrW, err := os.Pipe()
	if err != nil {
		closeAll(stdinR, stdinW, stdoutR, stdoutW)
		return nil, err
	}
	cmd := &exec.Cmd{
		Path:   path,
		Args:   append([]string{t.opts.Command}, t.opts.Args...),
		Env:    env,
		Dir:    dir,
		Stdin:  stdinR,
		Stdout: stdoutW,
		Stderr: stderrW,
		SysProcAttr: &syscall.SysProcAttr{
			Setpgid:   true,            // a process group of its own, killed as a whole
			Pdeathsig: syscall.SIGKILL, // dies with the thread that started it (see wait)
		},
	}
	c := &spawnConn{
		t:          t,
		cmd:        cmd,
		stdinW:     stdinW,
		stdoutR:    stdoutR,
		stderrR:    stderrR,
		out:        newHalf(stdoutReadAhead),
		stdoutDone: make(chan struct{}),
		stderrDone: make(chan struct{}),
		exited:     make(chan struct{}),
	}
	// Orphaned descendants of the child (a grandchild that called setsid,
	// whose parent then died) come back to this process, not to init, so
	// that Close can still end them.
	_ = procs.BecomeSubreaper()
	started := make(chan error, 1)
	c.wg.Add(1)
	go c.wait(started)
	err = <-started
	// The child has its copies (or never will); the parent keeps only its ends.
	closeAll(stdinR, stdoutW, stderrW)
	if err != nil {
		c.wg.Wait()
		closeAll(stdinW, stdoutR, stderrR)
		return nil, err
	}
	c.pid = cmd.Process.Pid
	c.wg.Add(2)
	go c.readStdout()
	go c.readStderr()
	return c, nil
}

func closeAll(files ...*os.File) {
	for _, f := range files {
		f.Close()
	}
}

// wait starts the child and waits for it. The goroutine stays locked to its
// thread from the start until the child is reaped: Pdeathsig fires when the
// thread that started the child ends, and a locked thread ends only with its
// goroutine.
func (c *spawnConn) wait(started chan<- error) {
	defer c.wg.Done()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	// Registered as ours: a sweep of adopted orphans (procs.ReapAdopted)
	// never reaps it, even if it calls setsid and exits at once.
	if err := procs.StartChild(c.cmd); err != nil {
		started <- err
		return
	}
	pid := c.cmd.Process.Pid
	started <- nil

	// Wait for the exit without reaping, so that the process group id
	// cannot be reused while the survivors of the group are killed.
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err != unix.EINTR {
			break
		}
	}
	c.sigMu.Lock()
	_ = syscall.Kill(-pid, syscall.SIGKILL) // ESRCH when no member survives
	state, err := c.cmd.Process.Wait()
	c.reaped = true
	c.sigMu.Unlock()
	procs.ChildWaited(pid)

	c.state, c.waitErr = state, err
	close(c.exited)
}

// readStdout reads stdout ahead of Read until it ends or Close closes it.
func (c *spawnConn) readStdout() {
	defer c.wg.Done()
	defer close(c.stdoutDone)
	buf := make([]byte, 32<<10)
	for {
		n, err := c.stdoutR.Read(buf)
		if n > 0 {
			if _, werr := c.out.write(buf[:n]); werr != nil {
				return // Close closed the buffer
			}
		}
		switch {
		case err == nil:
		case err == io.EOF:
			c.stdoutEOF.Store(true)
			c.out.closeWriter()
			return
		case errors.Is(err, os.ErrClosed):
			c.out.closeWriterErr(ErrClosed)
			return
		default:
			c.out.closeWriterErr(fmt.Errorf("read engine stdout: %w", err))
			return
		}
	}
}

// readStderr keeps the last lines of stderr until it closes.
func (c *spawnConn) readStderr() {
	defer c.wg.Done()
	defer close(c.stderrDone)
	maxLine := c.t.opts.LineBytes
	keep := maxLine + 4 // a little more, to cut at a rune boundary
	br := bufio.NewReaderSize(c.stderrR, 4096)
	line := make([]byte, 0, 256)
	long := false // the line is longer than keep
	for {
		chunk, err := br.ReadSlice('\n')
		complete := len(chunk) > 0 && chunk[len(chunk)-1] == '\n'
		if complete {
			chunk = chunk[:len(chunk)-1]
		}
		if room := keep - len(line); len(chunk) > room {
			chunk = chunk[:room]
			long = true
		}
		line = append(line, chunk...)
		if complete || (err != nil && err != bufio.ErrBufferFull && (len(line) > 0 || long)) {
			c.addStderrLine(line, long)
			line, long = line[:0], false
		}
		if err != nil && err != bufio.ErrBufferFull {
			return
		}
	}
}

func (c *spawnConn) addStderrLine(line []byte, long bool) {
	if !long {
		line = bytes.TrimSuffix(line, []byte{'\r'})
	}
	kept, _ := cutLine(line, c.t.opts.LineBytes)
	s := string(kept)
	c.stderr.add(c.t.opts.StderrLines, s)
	if l := c.t.opts.Logger; l != nil {
		l.Debug("engine stderr", "engine", c.t.label, "pid", c.pid, "line", s)
	}
}

// Read returns bytes the child wrote to its stdout. After the child exits it
// returns what is still buffered, then io.EOF. Once Close has returned, it
// returns what was received and not yet read, then ErrClosed.
func (c *spawnConn) Read(p []byte) (int, error) { return c.out.read(p) }

// Write sends bytes to the child's stdin. It fails with ErrClosed once
// Close has begun.
func (c *spawnConn) Write(p []byte) (int, error) {
	if c.closing.Load() {
		return 0, ErrClosed
	}
	n, err := c.stdinW.Write(p)
	if err != nil && errors.Is(err, os.ErrClosed) {
		err = ErrClosed
	}
	return n, err
}

// Close releases the child within timeout, as described at Spawn.
func (c *spawnConn) Close(timeout time.Duration) error {
	c.closeOnce.Do(func() { c.closeErr = c.close(timeout) })
	return c.closeErr
}

func (c *spawnConn) close(timeout time.Duration) error {
	start := time.Now()
	c.closing.Store(true)
	c.sigMu.Lock()
	if !c.reaped {
		c.tree = procs.Descendants(procs.List(), c.pid)
	}
	c.sigMu.Unlock()
	c.stdinW.Close() // the child reads EOF

	var errs []error
	if !c.waitExited(min(termAfterMax, timeout/2)) {
		if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) && !errors.Is(err, syscall.ESRCH) {
			errs = append(errs, fmt.Errorf("send SIGTERM: %w", err))
		}
		if !c.waitExited(timeout - time.Since(start)) {
			c.sigMu.Lock()
			if !c.reaped {
				if err := syscall.Kill(-c.pid, syscall.SIGKILL); err != nil && err != syscall.ESRCH {
					errs = append(errs, fmt.Errorf("send SIGKILL to the process group: %w", err))
				}
			}
			c.sigMu.Unlock()
			<-c.exited
		}
	}
	if c.waitErr != nil {
		errs = append(errs, fmt.Errorf("wait: %w", c.waitErr))
	}
	deadline := start.Add(timeout)
	if least := time.Now().Add(minReapWait); deadline.Before(least) {
		deadline = least
	}
	c.endDescendants(deadline)
	// What no Close can attribute to its child: orphans of a double fork
	// with setsid (adopted at once, never in the child's tree or group)
	// that have exited meanwhile. Reaped here, by any Close, or they would
	// stay zombies until the program ends.
	procs.ReapAdopted()

	// The group is gone: stdout and stderr end, unless a process that left
	// the group holds them.
	drain := time.NewTimer(outputDrain)
drained:
	for _, done := range []chan struct{}{c.stdoutDone, c.stderrDone} {
		select {
		case <-done:
		case <-drain.C:
			break drained
		}
	}
	drain.Stop()
	c.out.closeReader(false) // Read: the unread data, then ErrClosed
	c.stdoutR.Close()
	c.stderrR.Close()
	c.wg.Wait()

	if len(errs) > 0 {
		return fmt.Errorf("close engine %q (pid %d): %w", c.t.label, c.pid, errors.Join(errs...))
	}
	return nil
}

// minReapWait is the least time Close gives the descendants it kills to
// exit, however little of its timeout is left.
const minReapWait = 500 * time.Millisecond

// maxReapPasses bounds the passes of endDescendants: each pass kills what
// the previous one orphaned.
const maxReapPasses = 10

// endDescendants kills and reaps, once the child is reaped, what is left of
// it: the processes that descended from it when Close began (c.tree; by
// pid and start time), those still in its process group, and everything
// below them. The ones that came back to this process as a subreaper are
// reaped (waited for until deadline); none of them is a child this process
// started itself, so no os/exec Wait is robbed.
func (c *spawnConn) endDescendants(deadline time.Time) {
	self := os.Getpid()
	for pass := 0; pass < maxReapPasses; pass++ {
		table := procs.List()
		byKey := make(map[procs.Key]procs.Proc, len(table))
		reused := false // the child's pid names a new process: its group is not the child's
		for _, p := range table {
			byKey[p.Key()] = p
			reused = reused || p.Pid == c.pid
		}
		seen := map[int]bool{self: true, c.pid: true}
		var targets []procs.Proc
		add := func(p procs.Proc) {
			if !seen[p.Pid] {
				seen[p.Pid] = true
				targets = append(targets, p)
			}
		}
		for _, t := range c.tree {
			if p, ok := byKey[t.Key()]; ok {
				add(p)
			}
		}
		if !reused {
			for _, p := range table {
				if p.Pgid == c.pid {
					add(p)
				}
			}
		}
		roots := make([]int, 0, len(targets))
		for _, p := range targets {
			roots = append(roots, p.Pid)
		}
		for _, p := range procs.Descendants(table, roots...) {
			add(p)
		}
		live := targets[:0]
		for _, p := range targets {
			if !p.Zombie() || p.PPid == self { // a zombie of another parent is not ours to reap
				live = append(live, p)
			}
		}
		if len(live) == 0 || time.Now().After(deadline) {
			return
		}
		procs.KillAndReap(live, deadline)
	}
}

// waitExited waits up to d for the child to be reaped and reports whether
// it was.
func (c *spawnConn) waitExited(d time.Duration) bool {
	if d <= 0 {
		select {
		case <-c.exited:
			return true
		default:
			return false
		}
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-c.exited:
		return true
	case <-timer.C:
		return false
	}
}

// Pid returns the child's process id.
// CloseStdin implements SpawnConn.
func (c *spawnConn) CloseStdin() error { return c.stdinW.Close() }

// Signal implements SpawnConn.
func (c *spawnConn) Signal(sig os.Signal) error { return c.cmd.Process.Signal(sig) }

func (c *spawnConn) Pid() int { return c.pid }

// Wait blocks until the child is reaped and returns its state.
func (c *spawnConn) Wait() (*os.ProcessState, error) {
	<-c.exited
	return c.state, c.waitErr
}

// Exited is closed once the child is reaped.
func (c *spawnConn) Exited() <-chan struct{} { return c.exited }

// Diagnostics returns the command line, the pid, the exit status or signal
// once the child has exited, and the last stderr lines. When stdout has
// reached EOF, it first waits up to 250 ms for the exit status; once the
// child has exited, up to 100 ms for the rest of stderr.
func (c *spawnConn) Diagnostics() string {
	if c.stdoutEOF.Load() {
		c.waitExited(exitStatusWait)
	}
	select {
	case <-c.exited:
		// The last stderr lines may still be on their way.
		timer := time.NewTimer(outputDrain)
		select {
		case <-c.stderrDone:
		case <-timer.C:
		}
		timer.Stop()
	default:
	}
	var b strings.Builder
	fmt.Fprintf(&b, "engine %q (pid %d) ", c.t.label, c.pid)
	select {
	case <-c.exited:
		b.WriteString(describeExit(c.state, c.waitErr))
	default:
		b.WriteString("is running")
	}
	lines := c.stderr.snapshot()
	if len(lines) == 0 {
		b.WriteString("; no stderr output")
		return b.String()
	}
	b.WriteString("; last stderr lines:")
	for _, l := range lines {
		b.WriteString("\n  ")
		b.WriteString(l)
	}
	return b.String()
}

// describeExit says how a process ended.
func describeExit(state *os.ProcessState, err error) string {
	if state == nil {
		return fmt.Sprintf("exited, but waiting for it failed: %v", err)
	}
	ws, ok := state.Sys().(syscall.WaitStatus)
	if !ok {
		return state.String()
	}
	switch {
	case ws.Exited():
		return fmt.Sprintf("exited with status %d", ws.ExitStatus())
	case ws.Signaled():
		s := fmt.Sprintf("was killed by signal %s", signalName(ws.Signal()))
		if ws.CoreDump() {
			s += " (core dumped)"
		}
		return s
	default:
		return state.String()
	}
}

func signalName(sig syscall.Signal) string {
	if name := unix.SignalName(sig); name != "" {
		return name
	}
	return fmt.Sprintf("%d (%s)", int(sig), sig)
}
