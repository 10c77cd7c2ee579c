// Package testbin builds the binaries a package's tests run, once per test
// binary, into a temporary directory of their own that the package's
// TestMain removes:
//
//	var bins = testbin.New("../cmd/e2e-conform", "../fixtures/saboteur/cmd/saboteur")
//
//	func TestMain(m *testing.M) { code := m.Run(); bins.Remove(); os.Exit(code) }
//
//	func TestX(t *testing.T) { sab := bins.Path(t, "saboteur"); … }
package testbin

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Set is the binaries of some packages, built together on first use.
type Set struct {
	pkgs []string

	once sync.Once
	dir  string
	err  error
}

// New returns the set of the binaries of pkgs (import paths, or paths
// relative to the test's package directory); nothing is built yet.
func New(pkgs ...string) *Set { return &Set{pkgs: pkgs} }

// Dir builds the set once (every later call waits for that build and
// reuses it) and returns the directory holding the binaries; a failed
// build fails t with go build's output.
func (s *Set) Dir(t testing.TB) string {
	t.Helper()
	s.once.Do(func() {
		s.dir, s.err = os.MkdirTemp("", "testbin-*")
		if s.err != nil {
			return
		}
		out, err := exec.Command("go", append([]string{"build", "-o", s.dir + string(filepath.Separator)}, s.pkgs...)...).CombinedOutput()
		if err != nil {
			s.err = fmt.Errorf("go build %v: %w\n%s", s.pkgs, err, out)
		}
	})
	if s.err != nil {
		t.Fatal(s.err)
	}
	return s.dir
}

// Path is the built binary named name (a package's last path element).
func (s *Set) Path(t testing.TB, name string) string {
	t.Helper()
	return filepath.Join(s.Dir(t), name)
}

// Remove removes the built binaries; call it from TestMain after the
// tests ran.
func (s *Set) Remove() {
	if s.dir != "" {
		os.RemoveAll(s.dir)
	}
}

// Listener is a test server (the saboteur, an engine) serving TCP on a
// loopback port, started by Listen.
type Listener struct {
	// Addr is the host:port it listens on.
	Addr string
	cmd  *exec.Cmd
	done chan struct{}
}

// Listen starts bin with --listen on a free loopback port and args, and
// returns once it has written a line containing "listening on" on its
// stderr; it never connects first (a probe connection would count as the
// server's first, as for a one-shot listener). Its stderr is read and
// dropped afterwards. The caller closes it (Close), at the latest in a
// t.Cleanup.
func Listen(t testing.TB, bin string, args ...string) *Listener {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cmd := exec.Command(bin, append([]string{"--listen", addr}, args...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if strings.Contains(sc.Text(), "listening on") {
			break
		}
	}
	ln := &Listener{Addr: addr, cmd: cmd, done: make(chan struct{})}
	go func() {
		_, _ = io.Copy(io.Discard, stderr)
		close(ln.done)
	}()
	return ln
}

// Close kills the server and waits for it and for its stderr reader.
func (l *Listener) Close() {
	_ = l.cmd.Process.Kill()
	<-l.done
	_ = l.cmd.Wait()
}
