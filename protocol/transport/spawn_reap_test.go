//go:build linux

package transport_test

import (
	"bufio"
	"context"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/e2e-conform/toolkit/internal/procs"
	"github.com/e2e-conform/toolkit/protocol/transport"
)

// adoptedZombies returns this process's zombie children outside its
// session: the orphans it adopted as a subreaper that nobody reaped.
func adoptedZombies(t *testing.T) []procs.Proc {
	t.Helper()
	sid, err := unix.Getsid(0)
	if err != nil {
		t.Fatal(err)
	}
	var out []procs.Proc
	for _, p := range procs.List() {
		if p.PPid == os.Getpid() && p.Zombie() && p.Sid != sid {
			out = append(out, p)
		}
	}
	return out
}

// reapable reports whether pid is a child of this process that has exited
// and can be reaped: /proc shows a thread group leader as a zombie while
// its other threads still exit, and until they have, no wait reaps it.
func reapable(pid int) bool {
	var info unix.Siginfo
	err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil)
	return err == nil && info.Signo == int32(unix.SIGCHLD)
}

// TestSpawnReapsAdoptedOrphans: the engine double-forks a grandchild that
// ends up orphaned in a session of its own, so it is adopted by this
// process at once (neither in the engine's tree nor in its group when
// Close begins), and exits by itself. Once the engine's Close has
// returned, it is not left as a zombie of this process (nor is any other
// adopted zombie). One that does not lead its session is reaped even
// before, while the engine runs, by the sweep on SIGCHLD. Not parallel: no other test's orphans come and go
// meanwhile.
func TestSpawnReapsAdoptedOrphans(t *testing.T) {
	for _, tc := range []struct {
		kind      string
		whileOpen bool // reaped while the engine runs
	}{
		{"leader", false}, // the grandchild calls setsid
		{"member", true},  // its parent calls setsid, then forks it (Chromium's crashpad handlers)
	} {
		t.Run(tc.kind, func(t *testing.T) {
			c := openHelper(t, "orphan-exits", tc.kind)
			line := readLine(t, bufio.NewReader(c))
			gpid, err := strconv.Atoi(line)
			if err != nil {
				t.Fatalf("engine said %q: %s", line, c.Diagnostics())
			}
			// The grandchild has closed its stdout: wait until its exit is
			// complete (it is this process's zombie, or gone already: reaped
			// by a SIGCHLD sweep).
			g, ok := procs.Read(gpid)
			deadline := time.Now().Add(within)
			for ok && !reapable(gpid) {
				if time.Now().After(deadline) {
					t.Fatalf("the grandchild is not an adopted zombie: %+v", g)
				}
				time.Sleep(time.Millisecond)
				g, ok = procs.Read(gpid)
			}
			if ok {
				t.Logf("adopted zombie: %+v (this process: pid %d)", g, os.Getpid())
			}
			for tc.whileOpen && ok {
				if time.Now().After(deadline) {
					t.Fatalf("while the engine runs, the adopted zombie is left: %+v", g)
				}
				time.Sleep(time.Millisecond)
				var p procs.Proc
				p, ok = procs.Read(gpid)
				ok = ok && p.Start == g.Start
			}
			if err := closeWithin(t, c, 5*time.Second); err != nil {
				t.Fatal(err)
			}
			if p, found := procs.Read(gpid); ok && found && p.Start == g.Start {
				t.Errorf("after Close, the grandchild is left: %+v", p)
			}
			if left := adoptedZombies(t); len(left) != 0 {
				t.Errorf("after Close, adopted zombies are left: %+v", left)
			}
		})
	}
}

// TestSpawnSetsidEngineExitStatus: engines that leave this process's
// session and exit at once, while sweeps of adopted orphans run without a
// pause, are still this process's own children: no sweep reaps them, and
// Wait reports their exit status, 3. (Without the registry of started
// children the sweeps take them: Wait fails with ECHILD.)
func TestSpawnSetsidEngineExitStatus(t *testing.T) {
	stop := make(chan struct{})
	var sweeps sync.WaitGroup
	sweeps.Add(1)
	go func() {
		defer sweeps.Done()
		for {
			select {
			case <-stop:
				return
			default:
				procs.ReapAdopted()
			}
		}
	}()
	defer func() {
		close(stop)
		sweeps.Wait()
	}()
	const engines = 8
	var wg sync.WaitGroup
	for i := range engines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := helperTransport(t, "setsid-exit3").Open(context.Background(), transport.Context{Role: "run"})
			if err != nil {
				t.Errorf("engine %d: %v", i, err)
				return
			}
			sc := c.(transport.SpawnConn)
			defer sc.Close(5 * time.Second)
			state, err := sc.Wait()
			if err != nil || state.ExitCode() != 3 {
				t.Errorf("engine %d: Wait = %v, %v; want exit status 3 (%s)", i, state, err, sc.Diagnostics())
				return
			}
			// It did leave the session (it printed its session id).
			b, _ := io.ReadAll(sc)
			if line := strings.TrimSpace(string(b)); line != strconv.Itoa(sc.Pid()) {
				t.Errorf("engine %d (pid %d): session %q, want its own", i, sc.Pid(), line)
			}
		}()
	}
	wg.Wait()
}
