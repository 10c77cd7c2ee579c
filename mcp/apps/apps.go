// Package apps runs the app commands of MCP sessions (spec mcp.md §4.6):
// sessions on the same command share one process, counted by reference and
// stopped when the last session lets go. Each process runs in its own
// process group, with its output in a log file (never the host's stdout),
// and is killed as a group.
package apps

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/e2e-conform/toolkit/mcp/mcperr"
)

// Spec is one app command.
type Spec struct {
	Command  string
	Args     []string
	Env      map[string]string
	Dir      string
	ReadyURL string
	// Log receives the process's stdout and stderr; nil discards them.
	Log io.Writer
}

func (s Spec) key() string {
	var env []string
	for k, v := range s.Env {
		env = append(env, k+"="+v)
	}
	sort.Strings(env)
	return strings.Join(append(append([]string{s.Dir, s.Command}, s.Args...), env...), "\x00")
}

// DefaultReadyTimeout is how long an app command gets until its readyUrl
// answers.
const DefaultReadyTimeout = 2 * time.Minute

// Pool holds the running app processes.
type Pool struct {
	mu    sync.Mutex
	procs map[string]*proc
	// stopping holds the processes a last Release is stopping: they count
	// as running until they were reaped.
	stopping map[*proc]bool
	// ReadyPoll is the interval between readyUrl probes.
	ReadyPoll time.Duration
	// StopGrace is how long a process gets after SIGTERM before SIGKILL.
	StopGrace time.Duration
	// ReadyTimeout is how long a started command gets until its readyUrl
	// answers (LAUNCH_TIMEOUT after it).
	ReadyTimeout time.Duration
}

// NewPool returns an empty pool.
func NewPool() *Pool {
	return &Pool{procs: map[string]*proc{}, stopping: map[*proc]bool{}, ReadyPoll: 100 * time.Millisecond, StopGrace: 3 * time.Second,
		ReadyTimeout: DefaultReadyTimeout}
}

type proc struct {
	refs  int
	cmd   *exec.Cmd
	done  chan struct{} // closed when the process was reaped
	ready chan struct{} // closed when ready (or failed: err set)
	err   error
}

// Lease is one session's hold on an app process.
type Lease struct {
	pool *Pool
	key  string
	once sync.Once
}

// Acquire starts the command, or joins the running one, and waits until its
// readyUrl answers (any HTTP status) or ctx ends.
func (p *Pool) Acquire(ctx context.Context, s Spec) (*Lease, error) {
	k := s.key()
	p.mu.Lock()
	pr, ok := p.procs[k]
	if !ok {
		pr = &proc{done: make(chan struct{}), ready: make(chan struct{})}
		if err := p.start(pr, s); err != nil {
			p.mu.Unlock()
			return nil, err
		}
		p.procs[k] = pr
		go p.waitReady(pr, s)
	}
	pr.refs++
	p.mu.Unlock()
	l := &Lease{pool: p, key: k}
	select {
	case <-pr.ready:
		if pr.err != nil {
			l.Release()
			return nil, pr.err
		}
		return l, nil
	case <-ctx.Done():
		l.Release()
		return nil, context.Cause(ctx)
	}
}

func (p *Pool) start(pr *proc, s Spec) error {
	cmd := exec.Command(s.Command, s.Args...)
	cmd.Dir = s.Dir
	cmd.Env = os.Environ()
	for k, v := range s.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	out := s.Log
	if out == nil {
		out = io.Discard
	}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.Stdin = nil
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return &mcperr.Error{Code: mcperr.AppUnreachable, Message: fmt.Sprintf("start app command %q: %v", s.Command, err), Err: err}
	}
	pr.cmd = cmd
	go func() {
		_ = cmd.Wait()
		close(pr.done)
	}()
	return nil
}

func (p *Pool) waitReady(pr *proc, s Spec) {
	defer close(pr.ready)
	if s.ReadyURL == "" {
		return
	}
	client := &http.Client{Timeout: 2 * time.Second}
	t := time.NewTicker(p.ReadyPoll)
	defer t.Stop()
	deadline := time.NewTimer(p.ReadyTimeout)
	defer deadline.Stop()
	for {
		resp, err := client.Get(s.ReadyURL)
		if err == nil {
			resp.Body.Close()
			return
		}
		select {
		case <-pr.done:
			pr.err = &mcperr.Error{Code: mcperr.AppUnreachable, Message: fmt.Sprintf("app command %q exited before %s answered", s.Command, s.ReadyURL)}
			return
		case <-deadline.C:
			pr.err = &mcperr.Error{Code: mcperr.LaunchTimeout, Message: fmt.Sprintf("app command %q started, but %s did not answer within %s", s.Command, s.ReadyURL, p.ReadyTimeout)}
			return
		case <-t.C:
		}
	}
}

// Release drops the lease; the process stops when no lease is left. It
// waits until the process group is gone. Idempotent.
func (l *Lease) Release() {
	l.once.Do(func() {
		p := l.pool
		p.mu.Lock()
		pr := p.procs[l.key]
		pr.refs--
		last := pr.refs == 0
		if last {
			delete(p.procs, l.key)
			p.stopping[pr] = true
		}
		p.mu.Unlock()
		if last {
			p.stop(pr)
			p.mu.Lock()
			delete(p.stopping, pr)
			p.mu.Unlock()
		}
	})
}

func (p *Pool) stop(pr *proc) {
	pid := pr.cmd.Process.Pid
	_ = syscall.Kill(-pid, syscall.SIGTERM)
	t := time.NewTimer(p.StopGrace)
	defer t.Stop()
	select {
	case <-pr.done:
	case <-t.C:
	}
	_ = syscall.Kill(-pid, syscall.SIGKILL) // the group's survivors too
	<-pr.done
}

// Running reports how many app processes run, counting those being
// stopped until they were reaped.
func (p *Pool) Running() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.procs) + len(p.stopping)
}

// Pids lists the process ids of the running app processes.
func (p *Pool) Pids() []int {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []int
	for _, pr := range p.procs {
		out = append(out, pr.cmd.Process.Pid)
	}
	for pr := range p.stopping {
		out = append(out, pr.cmd.Process.Pid)
	}
	return out
}

// KillAll kills every process group at once (the second signal).
func (p *Pool) KillAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, pr := range p.procs {
		_ = syscall.Kill(-pr.cmd.Process.Pid, syscall.SIGKILL)
	}
	for pr := range p.stopping {
		_ = syscall.Kill(-pr.cmd.Process.Pid, syscall.SIGKILL)
	}
}
