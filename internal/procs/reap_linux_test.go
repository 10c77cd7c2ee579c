//go:build linux

package procs

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// within bounds the waits of these tests for things that should be quick.
const within = 10 * time.Second

// helperCmd returns the test binary as helper mode with argument arg.
func helperCmd(mode, arg string) *exec.Cmd {
	self, _ := os.Executable()
	cmd := exec.Command(self)
	cmd.Env = []string{helperEnv + "=" + mode, argEnv + "=" + arg, markEnv + "=" + os.Getenv(markEnv)}
	return cmd
}

// reapable reports whether pid is a child of this process that has exited
// and can be reaped: /proc shows a thread group leader as a zombie while
// its other threads still exit, and until they have, no wait reaps it.
func reapable(pid int) bool {
	var info unix.Siginfo
	err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil)
	return err == nil && info.Signo == int32(unix.SIGCHLD)
}

// reapHelper runs the helper modes of the ReapAdopted tests.
func reapHelper(mode string) int {
	arg := os.Getenv(argEnv)
	switch mode {
	case "exit": // exit at once with status arg
		code, _ := strconv.Atoi(arg)
		return code
	case "wait-stdin": // exit at stdin EOF
		io.Copy(io.Discard, os.Stdin)
		return 0
	case "orphan-middle":
		// Start an orphan-grandchild, whose stdin is a pipe that only this
		// process holds, and exit: the grandchild is orphaned and exits at
		// EOF. arg "member": call setsid first, so that the grandchild is in
		// a session that it does not lead (Chromium's crashpad handlers);
		// "leader": the grandchild calls setsid itself.
		if arg == "member" {
			if _, err := syscall.Setsid(); err != nil {
				fmt.Println("setsid:", err)
				return 2
			}
		}
		cmd := helperCmd("orphan-grandchild", arg)
		cmd.Stdout = os.Stdout
		if _, err := cmd.StdinPipe(); err != nil {
			fmt.Println("error:", err)
			return 2
		}
		if err := cmd.Start(); err != nil {
			fmt.Println("error:", err)
			return 2
		}
		return 0
	case "orphan-grandchild":
		if arg == "leader" {
			if _, err := syscall.Setsid(); err != nil {
				fmt.Println("setsid:", err)
				return 2
			}
		}
		fmt.Println(os.Getpid())
		io.Copy(io.Discard, os.Stdin)
		return 0
	case "sweeper":
		return sweeper(arg)
	}
	fmt.Println("unknown helper mode", mode)
	return 100
}

// sweeper is a child subreaper whose child double-forks a grandchild that
// ends up orphaned in a session of its own and exits by itself. arg is
// "<kind> <by>": kind is orphan-middle's; by is "sweep" (ReapAdopted) or
// "watch" (a registered child runs, so that SIGCHLD sweeps; other children
// of this process exit, to send more) or "none". It prints whether the
// grandchild is left as a zombie of this process.
func sweeper(arg string) int {
	kind, by, _ := strings.Cut(arg, " ")
	if err := BecomeSubreaper(); err != nil {
		fmt.Println("error:", err)
		return 2
	}
	if by == "watch" {
		engine := helperCmd("wait-stdin", "")
		in, err := engine.StdinPipe()
		if err == nil {
			err = StartChild(engine)
		}
		if err != nil {
			fmt.Println("error:", err)
			return 2
		}
		defer func() {
			in.Close()
			engine.Wait()
			ChildWaited(engine.Process.Pid)
		}()
	}
	middle := helperCmd("orphan-middle", kind)
	out, err := middle.StdoutPipe()
	if err == nil {
		err = middle.Start()
	}
	if err != nil {
		fmt.Println("error:", err)
		return 2
	}
	// EOF: the middle and the grandchild have closed stdout (exited).
	b, _ := io.ReadAll(out)
	if err := middle.Wait(); err != nil {
		fmt.Println("middle:", err, string(b))
		return 2
	}
	gpid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		fmt.Printf("middle said %q\n", b)
		return 2
	}
	// The grandchild is this process's zombie once its exit is complete (or
	// gone already: a SIGCHLD sweep reaped it).
	g, ok := Read(gpid)
	deadline := time.Now().Add(within)
	for ok && !reapable(gpid) && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
		g, ok = Read(gpid)
	}
	adopted := ok && g.Zombie() && g.PPid == os.Getpid()
	self, _ := Self()
	left := func() bool {
		p, found := Read(gpid)
		return found && p.Start == g.Start
	}
	reaped := 0
	switch by {
	case "sweep":
		reaped = ReapAdopted()
	case "watch":
		// A session leader is never reaped on SIGCHLD: a few SIGCHLDs more
		// show it; the other kind is reaped at the first.
		for i := 0; left() && (kind == "member" || i < 3) && time.Now().Before(deadline); i++ {
			helperCmd("exit", "0").Run() // one more SIGCHLD
		}
	}
	fmt.Printf("own sid %d, grandchild %+v adopted=%v reaped=%d left=%v\n", self.Sid, g, adopted || !ok, reaped, left())
	return 0
}

// TestReapAdopted: a child subreaper whose child double-forks a grandchild
// that is orphaned in a session of its own (led by itself, or by the
// middle process that called setsid before it forked) and exits by
// itself: the zombie is reaped by ReapAdopted; the SIGCHLD sweeps, while a
// child that StartChild registered runs, reap the one that does not lead
// its session (it cannot be this process's child), never the session
// leader; without a sweep it stays (which shows that the test sees a
// zombie).
func TestReapAdopted(t *testing.T) {
	for _, c := range []struct {
		kind, by string
		left     bool
	}{
		{"member", "sweep", false},
		{"leader", "sweep", false},
		{"member", "watch", false},
		{"leader", "watch", true},
		{"member", "none", true},
		{"leader", "none", true},
	} {
		t.Run(c.kind+"/"+c.by, func(t *testing.T) {
			out, err := helperCmd("sweeper", c.kind+" "+c.by).Output()
			if err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			t.Logf("%s", out)
			if !strings.Contains(string(out), "adopted=true") {
				t.Fatalf("the grandchild was not adopted: %s", out)
			}
			if want := fmt.Sprintf("left=%v\n", c.left); !strings.HasSuffix(string(out), want) {
				t.Errorf("%s; want %s", out, want)
			}
		})
	}
}

// TestReapAdoptedSparesOwnChildren: ReapAdopted never reaps a child of
// this process in its session, nor one that StartChild registered, even
// when it leads a session of its own: their Wait still gets the exit
// status. The limit, pinned: a child started in a session of its own
// through os/exec alone looks adopted, and is reaped.
func TestReapAdoptedSparesOwnChildren(t *testing.T) {
	for _, c := range []struct {
		name             string
		setsid, register bool
		stolen           bool
	}{
		{name: "in this session", setsid: false, register: false},
		{name: "registered, in this session", setsid: false, register: true},
		{name: "registered, own session", setsid: true, register: true},
		{name: "limit: unregistered, own session", setsid: true, register: false, stolen: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd := helperCmd("exit", "3")
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: c.setsid}
			var err error
			if c.register {
				err = StartChild(cmd)
			} else {
				err = cmd.Start()
			}
			if err != nil {
				t.Fatal(err)
			}
			pid := cmd.Process.Pid
			// Sweep until the child is a zombie, and once more.
			deadline := time.Now().Add(within)
			for {
				ReapAdopted()
				if _, ok := Read(pid); !ok || reapable(pid) || time.Now().After(deadline) {
					break
				}
			}
			ReapAdopted()
			err = cmd.Wait()
			if c.register {
				ChildWaited(pid)
			}
			code := cmd.ProcessState.ExitCode()
			if c.stolen {
				if code == 3 {
					t.Errorf("Wait got exit status 3: the limit is gone, update ReapAdopted's doc (and this test)")
				}
				return
			}
			if code != 3 {
				t.Errorf("Wait = %v, exit status %d; want 3", err, code)
			}
		})
	}
}

// TestStartChildWatcherEnds: the SIGCHLD goroutine runs while a registered
// child is unwaited, and has ended when the last ChildWaited returns.
func TestStartChildWatcherEnds(t *testing.T) {
	var cmds []*exec.Cmd
	var stdins []io.WriteCloser
	for range 2 {
		cmd := helperCmd("wait-stdin", "")
		in, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		defer in.Close()
		if err := StartChild(cmd); err != nil {
			t.Fatal(err)
		}
		cmds, stdins = append(cmds, cmd), append(stdins, in)
	}
	watcher := func() *watcher {
		owned.mu.Lock()
		defer owned.mu.Unlock()
		return owned.watch
	}
	w := watcher()
	for i, cmd := range cmds {
		if got := watcher(); got == nil || got != w {
			t.Fatalf("watcher %p with %d registered children, want %p", got, len(cmds)-i, w)
		}
		stdins[i].Close()
		cmd.Wait()
		ChildWaited(cmd.Process.Pid)
	}
	if watcher() != nil {
		t.Error("the watcher outlived the last registered child")
	}
	select {
	case <-w.done:
	default:
		t.Error("the watcher's goroutine still runs after the last ChildWaited")
	}
}
