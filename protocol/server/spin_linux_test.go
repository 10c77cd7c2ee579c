package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/e2e-conform/toolkit/protocol/server"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// serveEnv selects a server mode when the test binary is re-executed as a
// spawned engine (TestMain).
const serveEnv = "E2E_SERVER_TEST_SERVE"

// serveChild runs the server mode named by serveEnv, if any, and exits.
func serveChild() {
	if os.Getenv(serveEnv) == "spin" {
		os.Exit(server.ServeStdio(spinner{}, server.Options{}))
	}
}

// spinner's engine/observe computes until its signal aborts, making no
// system call and never yielding, after telling stderr it started (with a
// raw write: an ordinary one would wake the runtime's monitor, which is
// what the test is about).
type spinner struct{}

func (spinner) Info() server.Info {
	return server.Info{Name: "spinner", Version: "0.1.0", Platform: "test"}
}

func (spinner) Observe(ctx context.Context, op server.Operation, o wire.EngineObserveOptions) (*wire.EngineSnapshot, error) {
	line := []byte("spinning\n")
	syscall.RawSyscall(syscall.SYS_WRITE, 2, uintptr(unsafe.Pointer(&line[0])), uintptr(len(line)))
	for ctx.Err() == nil {
	}
	return nil, context.Cause(ctx)
}

// TestSpinningCallOnOneCPUKeepsReading: a spawned server on one P
// (GOMAXPROCS=1), reading stdin with raw system calls, still reads and
// applies a $/abort while an engine call computes without yielding, and
// answers the call within the 2000 ms of §7.7. The reading goroutine gets
// the P only when the runtime's monitor preempts the call; a process that
// made no ordinary system call since it was last idle has its monitor
// asleep, which the rawFile's pending timer bounds (without it the abort
// waited for the monitor's 60 s sleep).
//
// Implements: SIG-003.
func TestSpinningCallOnOneCPUKeepsReading(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), serveEnv+"=spin", "GOMAXPROCS=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if t.Failed() {
			cmd.Process.Kill()
		}
		stdin.Close()
		if err := cmd.Wait(); err != nil {
			t.Logf("server: %v", err)
		}
	}()
	p := &peer{t: t, rwc: struct {
		io.Reader
		io.WriteCloser
	}{stdout, stdin}, r: bufio.NewReader(stdout), msgs: make(chan map[string]json.RawMessage, 64)}
	go p.readLoop()
	p.initialize()
	waitMonitorAsleep(t, cmd.Process.Pid)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"engine/observe","params":{"operation":` + op(`{"id":5}`) + `}}`)
	line, err := bufio.NewReader(stderr).ReadString('\n')
	if err != nil || strings.TrimSpace(line) != "spinning" {
		t.Fatalf("server stderr %q, %v: want spinning", line, err)
	}
	start := time.Now()
	p.send(`{"jsonrpc":"2.0","method":"$/abort","params":{"id":5}}`)
	wantEngineCode(t, p.wantCode("1", -32000), "CANCELLED", false)
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("answered %s after the abort (§7.7 allows 2000 ms)", d)
	}
}

// waitMonitorAsleep waits until no thread of process pid is in nanosleep:
// the runtime's monitor (sysmon) polls with nanosleep while the process is
// busy and waits on a futex once it found every P idle. The test is about a
// call that starts while the monitor is in that deep sleep; there is no
// event to wait on, so /proc is polled (for at most 5 s; the test goes on
// either way, the abort must be answered in any case).
func waitMonitorAsleep(t *testing.T, pid int) {
	t.Helper()
	for range 500 {
		tasks, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/syscall")
		polling := len(tasks) == 0
		for _, f := range tasks {
			b, err := os.ReadFile(f)
			if err == nil && strings.HasPrefix(string(b), strconv.Itoa(syscall.SYS_NANOSLEEP)+" ") {
				polling = true
			}
		}
		if !polling {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Log("the server's runtime monitor did not go to sleep within 5 s")
}
