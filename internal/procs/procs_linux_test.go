//go:build linux

package procs

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// helperEnv selects a helper mode of the re-executed test binary; markEnv
// marks every process of a helper tree.
// argEnv is a helper's argument.
const (
	helperEnv = "E2E_PROCS_HELPER"
	markEnv   = "E2E_PROCS_MARK"
	argEnv    = "E2E_PROCS_ARG"
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		// syscall.Exit, not os.Exit: a race-enabled binary's os.Exit
		// sleeps a second (GORACE atexit_sleep_ms).
		syscall.Exit(helper(mode))
	}
	// No goroutine a test started (a SIGCHLD watcher) outlives it.
	goleak.VerifyTestMain(m)
}

// start starts the test binary in mode, its stdout piped, and returns it
// with the first line it prints.
func start(mode string) (*exec.Cmd, string, error) {
	self, _ := os.Executable()
	cmd := exec.Command(self)
	cmd.Env = []string{helperEnv + "=" + mode, markEnv + "=" + os.Getenv(markEnv)}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, "", err
	}
	if err := cmd.Start(); err != nil {
		return nil, "", err
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	return cmd, strings.TrimSpace(line), err
}

func helper(mode string) int {
	switch mode {
	case "setsid-sleep": // leave the session, say so, sleep
		if _, err := syscall.Setsid(); err != nil {
			fmt.Println("setsid:", err)
			return 2
		}
		fmt.Println("ready")
		time.Sleep(time.Hour)
	case "middle": // start a setsid sleeper, print its pid, exit: it is orphaned
		_, line, err := start("setsid-sleep")
		if err != nil || line != "ready" {
			fmt.Println("error:", line, err)
			return 2
		}
		fmt.Println("ok")
		return 0
	case "reaper": // a subreaper whose child double-forks; EndChildren at the end
		if err := BecomeSubreaper(); err != nil {
			fmt.Println("error:", err)
			return 2
		}
		cmd, line, err := start("middle")
		if err != nil || line != "ok" {
			fmt.Println("error:", line, err)
			return 2
		}
		cmd.Wait()
		// The sleeper's parent is gone: it came back to this process.
		var adopted int
		for _, p := range List() {
			if p.PPid == os.Getpid() {
				adopted++
			}
		}
		if os.Getenv("E2E_PROCS_SKIP_END") != "" {
			fmt.Printf("adopted %d, killed 0\n", adopted)
			return 0
		}
		n := EndChildren(time.Now().Add(5 * time.Second))
		fmt.Printf("adopted %d, killed %d\n", adopted, n)
	default:
		return reapHelper(mode)
	}
	return 0
}

// marked returns the processes (zombies too) that carry markEnv=mark.
func marked(mark string) []string {
	want := []byte(markEnv + "=" + mark + "\x00")
	var out []string
	for _, p := range List() {
		env, err := os.ReadFile("/proc/" + strconv.Itoa(p.Pid) + "/environ")
		if err == nil && bytes.Contains(append(env, 0), want) {
			out = append(out, fmt.Sprintf("%+v", p))
		}
	}
	return out
}

// TestEndChildrenEndsAdoptedOrphans: a child subreaper whose child starts
// a grandchild that calls setsid and then exits (a double fork: the
// grandchild is orphaned in a session of its own) adopts the grandchild,
// and EndChildren kills and reaps it: once the subreaper has exited, no
// process of the tree is left, not even a zombie.
func TestEndChildrenEndsAdoptedOrphans(t *testing.T) {
	for _, end := range []bool{true, false} {
		t.Run(fmt.Sprintf("end=%v", end), func(t *testing.T) {
			mark := fmt.Sprintf("%d-%d", os.Getpid(), time.Now().UnixNano())
			self, _ := os.Executable()
			cmd := exec.Command(self)
			cmd.Env = []string{helperEnv + "=reaper", markEnv + "=" + mark}
			if !end {
				cmd.Env = append(cmd.Env, "E2E_PROCS_SKIP_END=1")
			}
			out, err := cmd.Output()
			defer func() {
				for _, p := range List() {
					env, _ := os.ReadFile("/proc/" + strconv.Itoa(p.Pid) + "/environ")
					if bytes.Contains(append(env, 0), []byte(markEnv+"="+mark+"\x00")) {
						syscall.Kill(p.Pid, syscall.SIGKILL)
					}
				}
			}()
			if err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			if !strings.HasPrefix(string(out), "adopted 1,") {
				t.Fatalf("the subreaper did not adopt the orphan: %s", out)
			}
			left := marked(mark)
			if end && len(left) != 0 {
				t.Errorf("after EndChildren: %s; left %q", out, left)
			}
			if !end && len(left) == 0 {
				t.Errorf("without EndChildren the orphan should outlive the subreaper (the test proves nothing): %s", out)
			}
		})
	}
}

// TestParseStat: comm may hold spaces and parentheses.
func TestParseStat(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Proc
		ok   bool
	}{
		{"42 (sleep) S 1 42 7 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 9001 0 0", Proc{Pid: 42, PPid: 1, Pgid: 42, Sid: 7, State: 'S', Start: 9001}, true},
		{"43 (a b) (c)) Z 2 3 4 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 77 0 0", Proc{Pid: 43, PPid: 2, Pgid: 3, Sid: 4, State: 'Z', Start: 77}, true},
		{"44 (short) S 1 2", Proc{}, false},
		{"garbage", Proc{}, false},
	} {
		got, ok := parseStat([]byte(c.in))
		if ok != c.ok || got != c.want {
			t.Errorf("parseStat(%q) = %+v, %v; want %+v, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

// TestDescendants follows parent links, not the roots themselves.
func TestDescendants(t *testing.T) {
	table := []Proc{{Pid: 1}, {Pid: 10, PPid: 1}, {Pid: 11, PPid: 10}, {Pid: 12, PPid: 11}, {Pid: 20, PPid: 1}}
	var got []int
	for _, p := range Descendants(table, 10) {
		got = append(got, p.Pid)
	}
	if fmt.Sprint(got) != "[11 12]" {
		t.Errorf("Descendants(10) = %v, want [11 12]", got)
	}
}
