//go:build linux

package transport_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/e2e-conform/toolkit/protocol/transport"
)

func selfExe(t testing.TB) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

func helperTransport(t testing.TB, mode string, args ...string) transport.Transport {
	return transport.Spawn(transport.SpawnOptions{
		Command: selfExe(t),
		Args:    args,
		Env:     map[string]string{helperEnv: mode},
	})
}

// openHelper starts a helper mode; the connection is closed at cleanup.
func openHelper(t *testing.T, mode string, args ...string) transport.SpawnConn {
	t.Helper()
	c, err := helperTransport(t, mode, args...).Open(context.Background(), transport.Context{Role: "run", Cwd: t.TempDir()})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	sc, ok := c.(transport.SpawnConn)
	if !ok {
		t.Fatalf("Open returned %T, not a SpawnConn", c)
	}
	t.Cleanup(func() { sc.Close(5 * time.Second) })
	return sc
}

// closeWithin calls Close(timeout) and fails unless it returns within
// timeout plus a generous margin.
func closeWithin(t *testing.T, c transport.Conn, timeout time.Duration) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- c.Close(timeout) }()
	select {
	case err := <-done:
		return err
	case <-time.After(timeout + within):
		t.Fatalf("Close(%v) did not return", timeout)
		return nil
	}
}

// readLine reads one line from r, failing the test if none comes.
func readLine(t *testing.T, r *bufio.Reader) string {
	t.Helper()
	type result struct {
		s   string
		err error
	}
	ch := make(chan result, 1)
	go func() {
		s, err := r.ReadString('\n')
		ch <- result{s, err}
	}()
	select {
	case res := <-ch:
		if res.err != nil {
			t.Fatalf("read line: %q, %v", res.s, res.err)
		}
		return strings.TrimSuffix(res.s, "\n")
	case <-time.After(within):
		t.Fatal("no line read")
		return ""
	}
}

// stderrLines returns the stderr lines listed by Diagnostics.
func stderrLines(diag string) []string {
	_, rest, ok := strings.Cut(diag, "; last stderr lines:\n")
	if !ok {
		return nil
	}
	lines := strings.Split(rest, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(l, "  ")
	}
	return lines
}

// processGone reports whether pid no longer runs (absent or a zombie).
func processGone(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return false
	}
	return b[i+2] == 'Z' || b[i+2] == 'X'
}

func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !processGone(pid) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("process %d still runs", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestSpawnEchoRoundTrip(t *testing.T) {
	t.Parallel()
	c := openHelper(t, "echo")
	msg := []byte("Content-Length: 2\r\n\r\n{}")
	for range 3 {
		if _, err := c.Write(msg); err != nil {
			t.Fatal(err)
		}
		got := make([]byte, len(msg))
		if _, err := io.ReadFull(c, got); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, msg) {
			t.Fatalf("got %q, want %q", got, msg)
		}
	}
	if err := closeWithin(t, c, 5*time.Second); err != nil {
		t.Fatalf("Close: %v", err)
	}
	state, err := c.Wait()
	if err != nil || state.ExitCode() != 0 {
		t.Fatalf("Wait: %v, %v; want exit status 0", state, err)
	}
	if _, err := c.Read(make([]byte, 1)); !errors.Is(err, transport.ErrClosed) {
		t.Errorf("Read after Close: %v, want ErrClosed", err)
	}
	if _, err := c.Write(msg); !errors.Is(err, transport.ErrClosed) {
		t.Errorf("Write after Close: %v, want ErrClosed", err)
	}
	if err := c.Close(time.Second); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if d := c.Diagnostics(); !strings.Contains(d, "exited with status 0") || !strings.Contains(d, "(pid "+strconv.Itoa(c.Pid())+")") {
		t.Errorf("Diagnostics = %q", d)
	}
}

func TestSpawnCloseTiming(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		mode       string
		timeout    time.Duration
		wantStatus int            // when wantSignal is 0
		wantSignal syscall.Signal // killed by
		wantLines  []string
		// mayLack is how many of the last wantLines may be missing: a
		// stubborn child may not get to log SIGTERM before SIGKILL.
		mayLack int
	}{
		// stdin EOF suffices: no SIGTERM within 10 s, else the status would be a signal.
		{name: "stdin EOF", mode: "exit3", timeout: 10 * time.Second, wantStatus: 3},
		{name: "SIGTERM", mode: "term", timeout: 2 * time.Second, wantStatus: 7,
			wantLines: []string{"stdin EOF", "SIGTERM received"}},
		{name: "SIGKILL at T", mode: "stubborn", timeout: 1200 * time.Millisecond, wantSignal: syscall.SIGKILL,
			wantLines: []string{"stdin EOF", "SIGTERM ignored"}, mayLack: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := openHelper(t, tt.mode)
			// Close only once the child runs: its start may be slow.
			if line := readLine(t, bufio.NewReader(c)); line != "ready" {
				t.Fatalf("got %q, want ready", line)
			}
			if err := closeWithin(t, c, tt.timeout); err != nil {
				t.Fatalf("Close: %v", err)
			}
			select {
			case <-c.Exited():
			default:
				t.Fatal("Close returned before the process was reaped")
			}
			state, err := c.Wait()
			if err != nil {
				t.Fatal(err)
			}
			ws := state.Sys().(syscall.WaitStatus)
			if tt.wantSignal != 0 {
				if !ws.Signaled() || ws.Signal() != tt.wantSignal {
					t.Errorf("state %v, want killed by %v", state, tt.wantSignal)
				}
			} else if !ws.Exited() || ws.ExitStatus() != tt.wantStatus {
				t.Errorf("state %v, want exit status %d", state, tt.wantStatus)
			}
			diag := c.Diagnostics()
			if got := stderrLines(diag); len(got) < len(tt.wantLines)-tt.mayLack || !slices.Equal(got, tt.wantLines[:min(len(got), len(tt.wantLines))]) {
				t.Errorf("stderr lines %q, want %q (diagnostics %q)", got, tt.wantLines, diag)
			}
			if tt.wantSignal == syscall.SIGKILL && !strings.Contains(diag, "killed by signal SIGKILL") {
				t.Errorf("Diagnostics = %q, want the signal", diag)
			}
		})
	}
}

func TestSpawnCloseConcurrentWithRead(t *testing.T) {
	t.Parallel()
	c := openHelper(t, "stubborn")
	r := bufio.NewReader(c)
	readLine(t, r) // ready
	readErr := make(chan error, 1)
	go func() {
		_, err := r.ReadByte()
		readErr <- err
	}()
	closeErrs := make(chan error, 2)
	for range 2 {
		go func() { closeErrs <- c.Close(0) }()
	}
	for range 2 {
		select {
		case err := <-closeErrs:
			if err != nil {
				t.Errorf("Close: %v", err)
			}
		case <-time.After(within):
			t.Fatal("Close did not return")
		}
	}
	select {
	case err := <-readErr:
		if !errors.Is(err, io.EOF) && !errors.Is(err, transport.ErrClosed) {
			t.Errorf("blocked Read ended with %v, want EOF or ErrClosed", err)
		}
	case <-time.After(within):
		t.Fatal("blocked Read did not end")
	}
	if _, err := c.Write([]byte("x")); !errors.Is(err, transport.ErrClosed) {
		t.Errorf("Write after Close: %v", err)
	}
}

func TestSpawnDiagnosticsStderrRing(t *testing.T) {
	t.Parallel()
	c := openHelper(t, "stderr60")
	if _, err := io.ReadAll(c); err != nil {
		t.Fatal(err)
	}
	diag := c.Diagnostics() // stdout is at EOF: waits for the exit status
	if !strings.Contains(diag, "exited with status 1") {
		t.Errorf("Diagnostics lacks the exit status: %.200q", diag)
	}
	wantPrefix := fmt.Sprintf("engine %q (pid %d) exited with status 1; last stderr lines:\n", strings.TrimSpace(selfExe(t)), c.Pid())
	if !strings.HasPrefix(diag, wantPrefix) {
		t.Errorf("Diagnostics starts %.200q, want %q", diag, wantPrefix)
	}
	lines := stderrLines(diag)
	if len(lines) != 50 {
		t.Fatalf("%d stderr lines, want 50", len(lines))
	}
	// Lines 11..59 and the unterminated last one.
	for i, l := range lines[:49] {
		n := i + 11
		want := fmt.Sprintf("line %02d", n)
		if n%7 == 0 {
			want = (want + " " + strings.Repeat("x", 3000))[:2048]
		}
		if l != want {
			t.Errorf("line %d: %.40q (%d bytes), want %.40q (%d bytes)", i, l, len(l), want, len(want))
		}
	}
	if lines[49] != "no newline at the end" {
		t.Errorf("last line %q", lines[49])
	}
	closeWithin(t, c, 5*time.Second)
}

func TestSpawnDiagnosticsWaitsForExitAfterEOF(t *testing.T) {
	t.Parallel()
	for range 3 {
		c := openHelper(t, "hello-exit5")
		if b, err := io.ReadAll(c); err != nil || string(b) != "hello\n" {
			t.Fatalf("ReadAll: %q, %v", b, err)
		}
		if d := c.Diagnostics(); !strings.Contains(d, "exited with status 5; no stderr output") {
			t.Errorf("Diagnostics = %q", d)
		}
	}
}

func TestSpawnKillsGrandchildren(t *testing.T) {
	t.Parallel()
	t.Run("at Close", func(t *testing.T) {
		t.Parallel()
		c := openHelper(t, "grandchild")
		pid, err := strconv.Atoi(readLine(t, bufio.NewReader(c)))
		if err != nil {
			t.Fatal(err)
		}
		if processGone(pid) {
			t.Fatal("grandchild not running")
		}
		if err := closeWithin(t, c, 5*time.Second); err != nil {
			t.Fatal(err)
		}
		if state, _ := c.Wait(); state.ExitCode() != 0 {
			t.Errorf("state %v, want exit status 0", state)
		}
		waitGone(t, pid)
	})
	t.Run("when the child exits", func(t *testing.T) {
		t.Parallel()
		c := openHelper(t, "grandchild", "exit")
		r := bufio.NewReader(c)
		pid, err := strconv.Atoi(readLine(t, r))
		if err != nil {
			t.Fatal(err)
		}
		// The grandchild holds stdout: EOF comes only once it is killed.
		eof := make(chan error, 1)
		go func() {
			_, err := io.ReadAll(r)
			eof <- err
		}()
		select {
		case err := <-eof:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(within):
			t.Fatal("no EOF on stdout: the grandchild survived")
		}
		waitGone(t, pid)
		closeWithin(t, c, 5*time.Second)
	})
}

// TestSpawnCloseEscapedGrandchild checks that Close returns, and its
// goroutines end, though a process that left the group holds stdout and
// stderr open, and that the process is killed: the spawn transport's owner
// is a child subreaper and ends what descended from the child.
func TestSpawnCloseEscapedGrandchild(t *testing.T) {
	t.Parallel()
	c := openHelper(t, "escape")
	pid, err := strconv.Atoi(readLine(t, bufio.NewReader(c)))
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(pid, syscall.SIGKILL)
	if err := closeWithin(t, c, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if state, _ := c.Wait(); state.ExitCode() != 0 {
		t.Errorf("state %v, want exit status 0", state)
	}
	if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err == nil {
		t.Errorf("the escaped grandchild (pid %d) is still there after Close (alive, or a zombie nobody reaped)", pid)
	}
}

// treeProcs returns the processes (zombies too) whose environment holds
// treeMark=mark.
func treeProcs(mark string) []string {
	want := []byte(treeMark + "=" + mark + "\x00")
	var out []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil || !bytes.Contains(append(env, 0), want) {
			continue
		}
		stat, _ := os.ReadFile("/proc/" + e.Name() + "/stat")
		out = append(out, strings.TrimSpace(string(stat)))
	}
	return out
}

// TestSpawnCloseEndsSetsidGrandchild: the child forks a grandchild that
// calls setsid itself (a new session and process group: the group kill
// misses it) and sleeps. After Close, no process of that tree is left in
// /proc, neither running nor as a zombie.
func TestSpawnCloseEndsSetsidGrandchild(t *testing.T) {
	t.Parallel()
	mark := fmt.Sprintf("setsid-%d-%d", os.Getpid(), time.Now().UnixNano())
	c, err := transport.Spawn(transport.SpawnOptions{
		Command: selfExe(t),
		Env:     map[string]string{helperEnv: "setsid-grandchild", treeMark: mark},
	}).Open(context.Background(), transport.Context{Role: "run", Cwd: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	sc := c.(transport.SpawnConn)
	pid, err := strconv.Atoi(readLine(t, bufio.NewReader(sc)))
	if err != nil {
		sc.Close(time.Second)
		t.Fatalf("%v; %s", err, sc.Diagnostics())
	}
	defer syscall.Kill(pid, syscall.SIGKILL)
	if n := len(treeProcs(mark)); n != 2 {
		t.Fatalf("%d processes in the tree before Close, want the child and its grandchild: %q", n, treeProcs(mark))
	}
	if err := closeWithin(t, sc, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if left := treeProcs(mark); len(left) != 0 {
		t.Errorf("after Close, %d process(es) of the tree are left: %q", len(left), left)
	}
}

func TestSpawnReadAfterCloseGivesUnreadData(t *testing.T) {
	t.Parallel()
	c := openHelper(t, "echo")
	// A round trip first: Close only once the child runs.
	c.Write([]byte("ping"))
	if _, err := io.ReadFull(c, make([]byte, 4)); err != nil {
		t.Fatal(err)
	}
	c.Write([]byte("last words"))
	if err := closeWithin(t, c, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(c)
	if string(b) != "last words" || !errors.Is(err, transport.ErrClosed) {
		t.Errorf("ReadAll after Close = %q, %v; want the unread data, then ErrClosed", b, err)
	}
}

func TestSpawnPdeathsig(t *testing.T) {
	t.Parallel()
	c := openHelper(t, "orphaner")
	pid, err := strconv.Atoi(readLine(t, bufio.NewReader(c)))
	if err != nil {
		t.Fatalf("%v; %s", err, c.Diagnostics())
	}
	// The sleeper has a process group of its own: only the parent death
	// signal ends it.
	waitGone(t, pid)
	closeWithin(t, c, 5*time.Second)
}

func TestSpawnEnvironment(t *testing.T) {
	t.Setenv("E2E_TRANSPORT_LEAK", "must not reach the child")
	tests := []struct {
		name    string
		context map[string]string
		options map[string]string
		want    []string
	}{
		{
			name:    "context plus options, options win",
			context: map[string]string{"A": "from context", "B": "from context", "EMPTY": ""},
			options: map[string]string{helperEnv: "env", "B": "from options"},
			want:    []string{"A=from context", "B=from options", "EMPTY=", helperEnv + "=env"},
		},
		{
			name:    "PATH only if given",
			context: map[string]string{"PATH": "/nowhere"},
			options: map[string]string{helperEnv: "env"},
			want:    []string{helperEnv + "=env", "PATH=/nowhere"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := transport.Spawn(transport.SpawnOptions{Command: selfExe(t), Env: tt.options}).
				Open(context.Background(), transport.Context{Role: "worker", Env: tt.context, Cwd: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			out, err := io.ReadAll(c)
			if err != nil {
				t.Fatal(err)
			}
			closeWithin(t, c, 5*time.Second)
			got := strings.Fields(strings.ReplaceAll(string(out), " ", "_"))
			want := slices.Clone(tt.want)
			for i := range want {
				want[i] = strings.ReplaceAll(want[i], " ", "_")
			}
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("child environment %q, want %q", got, want)
			}
		})
	}
}

func TestSpawnCommandResolution(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(selfExe(t), filepath.Join(dir, "bin", "engine")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bin", "plain"), []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		command string
		optDir  string
		env     map[string]string // besides the helper mode
		wantErr error             // nil: starts, and echoes
		errText string
	}{
		{name: "relative to Context.Cwd", command: "./bin/engine"},
		{name: "relative to Dir", command: "./engine", optDir: filepath.Join(dir, "bin")},
		{name: "on the child's PATH", command: "engine", env: map[string]string{"PATH": "/nonexistent:" + filepath.Join(dir, "bin")}},
		{name: "relative PATH entry", command: "engine", env: map[string]string{"PATH": "bin"}},
		{name: "no PATH", command: "engine", wantErr: exec.ErrNotFound, errText: `"engine" has no path separator and the engine's environment has no PATH`},
		{name: "not on PATH", command: "no-such-engine", env: map[string]string{"PATH": filepath.Join(dir, "bin")}, wantErr: exec.ErrNotFound, errText: `"no-such-engine" not found`},
		{name: "missing file", command: "./bin/missing", wantErr: fs.ErrNotExist, errText: "not found"},
		{name: "not executable", command: "./bin/plain", wantErr: fs.ErrPermission, errText: "not executable"},
		{name: "a directory", command: "./bin", wantErr: fs.ErrPermission, errText: "is a directory"},
		{name: "not executable on PATH", command: "plain", env: map[string]string{"PATH": filepath.Join(dir, "bin")}, wantErr: fs.ErrPermission, errText: "not executable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			env := map[string]string{helperEnv: "echo"}
			for k, v := range tt.env {
				env[k] = v
			}
			tr := transport.Spawn(transport.SpawnOptions{Command: tt.command, Dir: tt.optDir, Env: env})
			c, err := tr.Open(context.Background(), transport.Context{Role: "run", Cwd: dir})
			if tt.wantErr != nil {
				if err == nil {
					c.Close(time.Second)
					t.Fatal("Open succeeded")
				}
				if !errors.Is(err, tt.wantErr) || !strings.Contains(err.Error(), tt.errText) || !strings.Contains(err.Error(), tr.Label()) {
					t.Fatalf("Open error %q; want %v, containing %q and the label", err, tt.wantErr, tt.errText)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			c.Write([]byte("ping"))
			got := make([]byte, 4)
			if _, err := io.ReadFull(c, got); err != nil || string(got) != "ping" {
				t.Errorf("echo: %q, %v", got, err)
			}
			if err := closeWithin(t, c, 5*time.Second); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestSpawnBadWorkingDir(t *testing.T) {
	t.Parallel()
	tr := helperTransport(t, "echo")
	_, err := tr.Open(context.Background(), transport.Context{Cwd: filepath.Join(t.TempDir(), "missing")})
	if err == nil || !strings.Contains(err.Error(), tr.Label()) {
		t.Fatalf("Open error %v, want one naming %q", err, tr.Label())
	}
}

func TestSpawnOpenCancelled(t *testing.T) {
	t.Parallel()
	cause := errors.New("prepare aborted")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(cause)
	for _, command := range []string{selfExe(t), "./does-not-exist"} {
		tr := transport.Spawn(transport.SpawnOptions{Command: command, Env: map[string]string{helperEnv: "echo"}})
		c, err := tr.Open(ctx, transport.Context{Cwd: t.TempDir()})
		if err == nil {
			c.Close(time.Second)
			t.Fatal("Open succeeded")
		}
		if !errors.Is(err, cause) || !errors.Is(err, context.Canceled) || errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Open error %v, want the cause only", err)
		}
	}
}

func TestSpawnLabel(t *testing.T) {
	t.Parallel()
	tests := []struct {
		command string
		args    []string
		want    string
	}{
		{"./my-engine", []string{"--x", "y"}, "./my-engine --x y"},
		{"engine", []string{"a b", ""}, `engine "a b" ""`},
		{"/opt/my engine/run", nil, `"/opt/my engine/run"`},
	}
	for _, tt := range tests {
		if got := transport.Spawn(transport.SpawnOptions{Command: tt.command, Args: tt.args}).Label(); got != tt.want {
			t.Errorf("Label() = %q, want %q", got, tt.want)
		}
	}
}

func TestSpawnLogger(t *testing.T) {
	t.Parallel()
	var buf syncBuffer
	tr := transport.Spawn(transport.SpawnOptions{
		Command:     selfExe(t),
		Env:         map[string]string{helperEnv: "stderr60"},
		StderrLines: 3,
		LineBytes:   10,
		Logger:      newDebugLogger(&buf),
	})
	c, err := tr.Open(context.Background(), transport.Context{Cwd: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	io.ReadAll(c)
	closeWithin(t, c, 5*time.Second)
	if got, want := stderrLines(c.Diagnostics()), []string{"line 58", "line 59", "no newline"}; !slices.Equal(got, want) {
		t.Errorf("stderr lines %q, want %q", got, want)
	}
	if n := strings.Count(buf.String(), "engine stderr"); n != 61 {
		t.Errorf("%d lines logged, want 61:\n%s", n, buf.String())
	}
}
