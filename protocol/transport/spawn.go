package transport

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Defaults of [SpawnOptions] (D39).
const (
	defaultStderrLines = 50
	defaultLineBytes   = 2048
)

// Timing of a spawn connection's Close and Diagnostics.
const (
	// termAfterMax caps the wait before SIGTERM: min(termAfterMax, T/2) (D40).
	termAfterMax = 1000 * time.Millisecond
	// outputDrain is how long Close waits, once the process is reaped, for
	// the rest of stdout and stderr before it closes the read ends.
	outputDrain = 100 * time.Millisecond
	// stdoutReadAhead bounds what a spawn connection reads from stdout ahead
	// of Read.
	stdoutReadAhead = 1 << 20
	// exitStatusWait is how long Diagnostics waits for the exit status after
	// stdout reached EOF.
	exitStatusWait = 250 * time.Millisecond
)

// SpawnOptions configure [Spawn].
type SpawnOptions struct {
	// Command is the program to run. A command containing a path separator
	// resolves against the working directory; otherwise it is looked up on
	// the PATH of the child's environment (not this process's PATH).
	Command string
	// Args are the command's arguments (without the command itself).
	Args []string
	// Env is added to the connection's environment (Context.Env) and wins
	// on a clash.
	Env map[string]string
	// Dir is the working directory; the default is Context.Cwd (the
	// project root), and when both are empty, this process's.
	Dir string
	// StderrLines is how many of the last stderr lines are kept for
	// Diagnostics (default 50).
	StderrLines int
	// LineBytes is the length at which a kept stderr line is cut (default
	// 2048 bytes).
	LineBytes int
	// Logger, when set, also receives each stderr line, at level Debug.
	Logger *slog.Logger
	// Label, when set, is how errors and Label name the command instead of
	// the command line itself (a caller masks credentials in it).
	Label string
}

// SpawnConn is the connection that a [Spawn] transport's Open returns (as a
// [Conn]; assert it to SpawnConn): one child process.
type SpawnConn interface {
	Conn
	// Pid is the process id of the child.
	Pid() int
	// Wait blocks until the child has exited and been reaped, then returns
	// its state (exit status or signal). The error is set only when the
	// child could not be waited for. Wait does not close the connection.
	Wait() (*os.ProcessState, error)
	// Exited is closed once the child has exited and been reaped; Wait then
	// returns at once.
	Exited() <-chan struct{}
	// CloseStdin ends the child's input, and nothing else: the conformance
	// suite uses it to check that a server exits when stdin closes.
	CloseStdin() error
	// Signal sends sig to the child (not its process group).
	Signal(sig os.Signal) error
}

// Spawn returns a transport that starts the engine server as a child process
// per connection and speaks over its stdin (client to server) and stdout
// (server to client), the way an editor starts a language server (§9.1).
// Its Open returns a [SpawnConn].
//
// The child's environment is exactly Context.Env plus opts.Env (which wins):
// nothing is inherited from this process's environment (D41), not even PATH.
// Its working directory is opts.Dir, default Context.Cwd.
//
// The child runs in a process group of its own. It is started with a parent
// death signal of SIGKILL (Linux's PR_SET_PDEATHSIG), so that it dies if this
// process dies without closing the connection; the signal is tied to the
// thread that started the child, so that thread stays locked to the
// goroutine that waits for the child, until the child is reaped (so each
// live child holds an OS thread, which waiting for it blocks anyway). The
// parent death signal reaches only the child, not processes the child
// started.
//
// stdout carries only the protocol. A goroutine owned by the connection
// reads it ahead of Read (up to 1 MiB); Read returns what the child wrote,
// including what is still buffered after it exited, then io.EOF. stderr is
// diagnostics: the last opts.StderrLines lines, each cut at opts.LineBytes
// bytes (D39), are kept for Diagnostics, which also gives the command line,
// the pid and the exit status or signal once the child has exited.
//
// Close(T) (D40) closes the child's stdin; if the child has not exited after
// min(1000 ms, T/2), it sends it SIGTERM; when T has run out since Close
// began, it sends SIGKILL to the child's whole process group. Close returns
// once the child has exited and been reaped, and the goroutines reading its
// output have ended (after at most 100 ms more for the rest of the output).
// Write fails with [ErrClosed] once Close has begun; Read keeps returning
// what the child writes until Close returns, then what was received and not
// yet read, then ErrClosed. Whenever the child exits (by itself or during Close),
// any process still alive in its process group is sent SIGKILL before the
// child is reaped, so the child's own children never outlive it. A process
// that left the group (setsid, setpgid) is ended by Close too: Open makes
// this process a child subreaper (Linux's PR_SET_CHILD_SUBREAPER), so that
// an orphaned descendant of the child comes back to it instead of init,
// and Close, once the child is reaped, sends SIGKILL to every process that
// descended from the child when Close began (the pid and its start time
// must match), to what is left of its process group and to everything
// below them, and reaps those that came back to this process (waiting for
// them until the timeout, at least 500 ms). What Close cannot attribute to
// the child: a process orphaned before Close began that left the group
// (a double fork with setsid), or descendants of a child that exited by
// itself and had left its group. Such orphans are this process's children
// (it is a subreaper): a program ends those still running at exit, as
// e2e-conform and e2e-mcp do (they kill and reap every remaining
// descendant). Those that exit by themselves are reaped during the run,
// not left as zombies: at the end of every Close, every exited child
// outside this process's session that no Spawn transport started; and, on
// every SIGCHLD while a child of a Spawn transport runs, those that do not
// lead their session (the grandchildren of a double fork with setsid in
// the middle, such as Chromium's crashpad handlers, which cannot be this
// process's own children). A child's exit status is never lost to these
// sweeps, even when the child called setsid. Their limit, for a program
// that also starts processes of its own: a child it started through
// os/exec in a session of its own (SysProcAttr.Setsid, or setsid called by
// the child) and has not waited for yet looks adopted to the sweep at
// Close, and its Wait can then fail (ECHILD). The child's exit status, even a signal, is
// not an error of Close (which fails only when the child could not be
// signalled or waited for): read it with [SpawnConn.Wait].
//
// Spawn is supported on Linux only; elsewhere Open fails. (The subreaper
// is Linux-only too: on another system an orphan that left its process
// group would go to init, out of reach.)
func Spawn(opts SpawnOptions) Transport {
	opts.Args = append([]string(nil), opts.Args...)
	if opts.Env != nil {
		env := make(map[string]string, len(opts.Env))
		for k, v := range opts.Env {
			env[k] = v
		}
		opts.Env = env
	}
	if opts.StderrLines <= 0 {
		opts.StderrLines = defaultStderrLines
	}
	if opts.LineBytes <= 0 {
		opts.LineBytes = defaultLineBytes
	}
	label := opts.Label
	if label == "" {
		label = commandLine(opts.Command, opts.Args)
	}
	return &spawnTransport{opts: opts, label: label}
}

type spawnTransport struct {
	opts  SpawnOptions
	label string
}

// Label returns the command and its arguments, joined with spaces; an
// argument containing a space (or a quote, or nothing) is quoted.
func (t *spawnTransport) Label() string { return t.label }

// Open starts one child process. It fails without starting anything when
// ctx is already done.
func (t *spawnTransport) Open(ctx context.Context, tc Context) (Conn, error) {
	if ctx.Err() != nil {
		return nil, openAborted(fmt.Sprintf("spawn engine %q", t.label), ctx, nil)
	}
	env, envMap, err := composeEnv(tc.Env, t.opts.Env)
	if err != nil {
		return nil, t.openError(err)
	}
	dir := t.opts.Dir
	if dir == "" {
		dir = tc.Cwd
	}
	path, err := resolveCommand(t.opts.Command, dir, envMap)
	if err != nil {
		return nil, t.openError(err)
	}
	c, err := startProcess(t, path, dir, env)
	if err != nil {
		return nil, t.openError(err)
	}
	return c, nil
}

func (t *spawnTransport) openError(err error) error {
	return fmt.Errorf("spawn engine %q: %w", t.label, err)
}

// commandLine joins a command and its arguments for a label.
func commandLine(command string, args []string) string {
	parts := make([]string, 0, 1+len(args))
	parts = append(parts, quoteArg(command))
	for _, a := range args {
		parts = append(parts, quoteArg(a))
	}
	return strings.Join(parts, " ")
}

func quoteArg(s string) string {
	if s == "" || strings.ContainsAny(s, " \t\n\r\"'\\") {
		return strconv.Quote(s)
	}
	return s
}

// composeEnv returns base plus over (over wins), as sorted KEY=value
// entries and as a map.
func composeEnv(base, over map[string]string) ([]string, map[string]string, error) {
	merged := make(map[string]string, len(base)+len(over))
	for k, v := range base {
		merged[k] = v
	}
	for k, v := range over {
		merged[k] = v
	}
	keys := make([]string, 0, len(merged))
	for k, v := range merged {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return nil, nil, fmt.Errorf("invalid environment variable name %q", k)
		}
		if strings.ContainsRune(v, 0) {
			return nil, nil, fmt.Errorf("environment variable %s has a NUL byte in its value", k)
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)
	env := make([]string, 0, len(keys)) // never nil: a nil exec.Cmd.Env inherits os.Environ
	for _, k := range keys {
		env = append(env, k+"="+merged[k])
	}
	return env, merged, nil
}

// resolveCommand finds the executable of command: against dir when it has
// a path separator, else on the PATH in env.
func resolveCommand(command, dir string, env map[string]string) (string, error) {
	if command == "" {
		return "", errors.New("no command given")
	}
	if strings.ContainsRune(command, '/') || strings.ContainsRune(command, filepath.Separator) {
		p := command
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		if err := checkExecutable(p); err != nil {
			return "", fmt.Errorf("command %q: %w", command, err)
		}
		return p, nil
	}
	pathVar, ok := env["PATH"]
	if !ok {
		return "", fmt.Errorf("command %q has no path separator and the engine's environment has no PATH to look it up on: %w", command, exec.ErrNotFound)
	}
	var firstErr error
	for _, d := range filepath.SplitList(pathVar) {
		if d == "" {
			d = "."
		}
		if !filepath.IsAbs(d) {
			d = filepath.Join(dir, d)
		}
		p := filepath.Join(d, command)
		err := checkExecutable(p)
		if err == nil {
			if abs, err := filepath.Abs(p); err == nil {
				p = abs
			}
			return p, nil
		}
		if firstErr == nil && !errors.Is(err, fs.ErrNotExist) {
			firstErr = err // found, but not executable
		}
	}
	if firstErr != nil {
		return "", fmt.Errorf("command %q on the engine's PATH %q: %w", command, pathVar, firstErr)
	}
	return "", fmt.Errorf("command %q not found on the engine's PATH %q: %w", command, pathVar, exec.ErrNotFound)
}

// checkExecutable reports whether p is an executable file.
func checkExecutable(p string) error {
	fi, err := os.Stat(p)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			if errors.Is(pe.Err, fs.ErrNotExist) {
				return fmt.Errorf("%s: not found: %w", p, fs.ErrNotExist)
			}
		}
		return err
	}
	if fi.IsDir() {
		return fmt.Errorf("%s is a directory, not an executable: %w", p, fs.ErrPermission)
	}
	if fi.Mode()&0o111 == 0 {
		return fmt.Errorf("%s is not executable: %w", p, fs.ErrPermission)
	}
	return nil
}

// stderrRing keeps the last lines of a child's stderr.
type stderrRing struct {
	mu    sync.Mutex
	lines []string // ring of cap n
	next  int      // where the next line goes once the ring is full
}

func (r *stderrRing) add(max int, line string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.lines) < max {
		r.lines = append(r.lines, line)
		return
	}
	r.lines[r.next] = line
	r.next = (r.next + 1) % max
}

// snapshot returns the kept lines, oldest first.
func (r *stderrRing) snapshot() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, 0, len(r.lines))
	out = append(out, r.lines[r.next:]...)
	out = append(out, r.lines[:r.next]...)
	return out
}

// cutLine cuts line to at most max bytes, not inside a UTF-8 sequence when
// the text is valid UTF-8 up to there.
func cutLine(line []byte, max int) (kept []byte, cut bool) {
	if len(line) <= max {
		return line, false
	}
	kept = line[:max]
	// Back off a rune that the cut split.
	for i := 1; i <= utf8.UTFMax && i <= len(kept); i++ {
		if utf8.RuneStart(kept[len(kept)-i]) {
			r, size := utf8.DecodeRune(line[len(kept)-i:])
			if r != utf8.RuneError && size > i {
				kept = kept[:len(kept)-i]
			}
			break
		}
	}
	return kept, true
}
