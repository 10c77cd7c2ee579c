package transport_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"
	"golang.org/x/sys/unix"

	"github.com/e2e-conform/toolkit/protocol/transport"
)

// within is a generous upper bound for things that should be quick.
const within = 10 * time.Second

// helperEnv selects a helper mode: the test binary re-executed as a tiny
// engine process for the spawn tests.
const helperEnv = "E2E_TRANSPORT_HELPER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		// syscall.Exit, not os.Exit: a race-enabled binary's os.Exit sleeps
		// a second (GORACE atexit_sleep_ms), which would skew Close's timing.
		syscall.Exit(runHelper(mode, os.Args[1:]))
	}
	goleak.VerifyTestMain(m)
}

// runHelper runs a helper mode and returns its exit status.
func runHelper(mode string, args []string) int {
	switch mode {
	case "echo": // copy stdin to stdout
		io.Copy(os.Stdout, os.Stdin)
		return 0
	case "exit3": // exit with status 3 at stdin EOF
		os.Stdout.WriteString("ready\n")
		io.Copy(io.Discard, os.Stdin)
		return 3
	case "hello-exit5": // write a line and exit with status 5 at once
		os.Stdout.WriteString("hello\n")
		return 5
	case "term": // exit with status 7 on SIGTERM, after stdin EOF
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, syscall.SIGTERM)
		os.Stdout.WriteString("ready\n")
		io.Copy(io.Discard, os.Stdin)
		fmt.Fprintln(os.Stderr, "stdin EOF")
		<-sig
		fmt.Fprintln(os.Stderr, "SIGTERM received")
		return 7
	case "stubborn": // ignore stdin EOF and SIGTERM
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, syscall.SIGTERM)
		os.Stdout.WriteString("ready\n")
		io.Copy(io.Discard, os.Stdin)
		fmt.Fprintln(os.Stderr, "stdin EOF")
		<-sig
		fmt.Fprintln(os.Stderr, "SIGTERM ignored")
		time.Sleep(time.Hour)
		return 0
	case "stderr60": // 60 stderr lines, every 7th longer than 2048 bytes
		w := bufio.NewWriter(os.Stderr)
		for i := range 60 {
			if i%7 == 0 {
				fmt.Fprintf(w, "line %02d %s\n", i, strings.Repeat("x", 3000))
			} else {
				fmt.Fprintf(w, "line %02d\r\n", i)
			}
		}
		w.WriteString("no newline at the end")
		w.Flush()
		return 1
	case "grandchild": // start a sleeping grandchild holding stdout; print its pid
		self, _ := os.Executable()
		cmd := exec.Command(self)
		cmd.Env = []string{helperEnv + "=sleep"}
		cmd.Stdout = os.Stdout
		if err := cmd.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		fmt.Printf("%d\n", cmd.Process.Pid)
		if len(args) > 0 && args[0] == "exit" {
			return 0
		}
		io.Copy(io.Discard, os.Stdin)
		return 0
	case "escape": // start a grandchild that leaves the process group, holding stdout and stderr
		self, _ := os.Executable()
		cmd := exec.Command(self)
		cmd.Env = []string{helperEnv + "=sleep"}
		cmd.Stdout = os.Stdout
		cmd.Stderr = os.Stderr
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := cmd.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		fmt.Printf("%d\n", cmd.Process.Pid)
		io.Copy(io.Discard, os.Stdin)
		return 0
	case "sleep":
		time.Sleep(time.Hour)
		return 0
	case "setsid-sleep": // leave the session and the process group, say so, sleep
		if _, err := syscall.Setsid(); err != nil {
			fmt.Println("setsid:", err)
			return 2
		}
		fmt.Println("ready")
		time.Sleep(time.Hour)
		return 0
	case "setsid-grandchild": // fork a grandchild that calls setsid itself; print its pid once it did
		pid, err := startSetsidSleeper()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		fmt.Printf("%d\n", pid)
		io.Copy(io.Discard, os.Stdin)
		return 0
	case "orphan-exits": // double-fork a grandchild orphaned in a session of its own that exits by itself; print its pid once it has
		// args[0]: "leader" (the grandchild calls setsid) or "member" (the
		// middle process does, then forks it, as Chromium does for its
		// crashpad handlers).
		self, _ := os.Executable()
		cmd := exec.Command(self, args...)
		cmd.Env = []string{helperEnv + "=orphan-middle"}
		out, err := cmd.StdoutPipe()
		if err == nil {
			err = cmd.Start()
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		// EOF once the middle process and the grandchild have exited.
		b, _ := io.ReadAll(out)
		if err := cmd.Wait(); err != nil {
			fmt.Fprintln(os.Stderr, "middle:", err)
			return 2
		}
		os.Stdout.Write(b)
		io.Copy(io.Discard, os.Stdin)
		return 0
	case "orphan-middle": // start an orphan-grandchild whose stdin only this process holds, and exit
		if args[0] == "member" {
			if _, err := syscall.Setsid(); err != nil {
				fmt.Println("setsid:", err)
				return 2
			}
		}
		self, _ := os.Executable()
		cmd := exec.Command(self, args...)
		cmd.Env = []string{helperEnv + "=orphan-grandchild"}
		cmd.Stdout = os.Stdout
		if _, err := cmd.StdinPipe(); err != nil {
			fmt.Println(err)
			return 2
		}
		if err := cmd.Start(); err != nil {
			fmt.Println(err)
			return 2
		}
		return 0
	case "orphan-grandchild": // (setsid,) print the pid, exit at stdin EOF (once orphaned)
		if args[0] == "leader" {
			if _, err := syscall.Setsid(); err != nil {
				fmt.Println("setsid:", err)
				return 2
			}
		}
		fmt.Println(os.Getpid())
		io.Copy(io.Discard, os.Stdin)
		return 0
	case "setsid-exit3": // leave the session, print the session id, exit with status 3 at once
		// A process group leader (Spawn makes the child one) cannot call
		// setsid: join the parent's group first.
		pgid, err := syscall.Getpgid(os.Getppid())
		if err == nil {
			err = syscall.Setpgid(0, pgid)
		}
		if err == nil {
			_, err = syscall.Setsid()
		}
		if err != nil {
			fmt.Println("setsid:", err)
			return 2
		}
		sid, _ := unix.Getsid(0)
		fmt.Println(sid)
		return 3
	case "env": // print the environment
		for _, kv := range os.Environ() {
			fmt.Println(kv)
		}
		return 0
	case "orphaner": // spawn a sleeper through Spawn, print its pid, exit without Close
		self, _ := os.Executable()
		c, err := transport.Spawn(transport.SpawnOptions{
			Command: self,
			Env:     map[string]string{helperEnv: "sleep"},
		}).Open(context.Background(), transport.Context{Role: "run"})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		fmt.Printf("%d\n", c.(transport.SpawnConn).Pid())
		return 0
	default:
		fmt.Fprintf(os.Stderr, "unknown helper mode %q\n", mode)
		return 100
	}
}

// treeMark is passed down a helper's process tree, so that a test can find
// every process of it in /proc.
const treeMark = "E2E_TRANSPORT_TREE"

// startSetsidSleeper starts the test binary as a setsid-sleep helper (with
// this process's treeMark) and returns its pid once it left the session.
func startSetsidSleeper() (int, error) {
	self, _ := os.Executable()
	cmd := exec.Command(self)
	cmd.Env = []string{helperEnv + "=setsid-sleep", treeMark + "=" + os.Getenv(treeMark)}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return 0, err
	}
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "ready\n" {
		return 0, fmt.Errorf("grandchild: %q, %v", line, err)
	}
	return cmd.Process.Pid, nil
}
