package monitor_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"hash"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/e2e-conform/toolkit/conformance/monitor"
	"github.com/e2e-conform/toolkit/internal/testbin"
	"github.com/e2e-conform/toolkit/protocol/client"
	"github.com/e2e-conform/toolkit/protocol/schema"
	"github.com/e2e-conform/toolkit/protocol/transport"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

var bins = testbin.New(
	"../../cmd/e2e-conform",
	"../../fixtures/example/cmd/example-engine",
	"../../fixtures/saboteur/cmd/saboteur",
)

var schemas = schema.MustLoad()

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		bins.Remove()
		webSet.Remove()
		os.Exit(code)
	}))
}

// hashed is a stream's SHA-256 as it passes.
type hashed struct {
	mu sync.Mutex
	h  hash.Hash
	n  int64
}

func newHashed() *hashed { return &hashed{h: sha256.New()} }

func (h *hashed) add(b []byte) {
	h.mu.Lock()
	h.h.Write(b)
	h.n += int64(len(b))
	h.mu.Unlock()
}

func (h *hashed) sum() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return hex.EncodeToString(h.h.Sum(nil))
}

type hashReader struct {
	r io.Reader
	h *hashed
}

func (r hashReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	r.h.add(p[:n])
	return n, err
}

type hashWriter struct {
	w io.Writer
	h *hashed
}

func (w hashWriter) Write(p []byte) (int, error) {
	n, err := w.w.Write(p)
	w.h.add(p[:n])
	return n, err
}

// tapped is an engine command whose stdin and stdout are copied to files
// by tee, so a test can compare what the engine read and wrote with what
// the harness wrote and read.
type tapped struct {
	cmd     []string
	in, out string
}

func tap(t *testing.T, engine ...string) tapped {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "engine-in"), filepath.Join(dir, "engine-out")
	quoted := make([]string, len(engine))
	for i, a := range engine {
		quoted[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	q := func(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
	script := "tee " + q(in) + " | " + strings.Join(quoted, " ") + " | tee " + q(out)
	return tapped{cmd: []string{"sh", "-c", script}, in: in, out: out}
}

func fileSum(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// session is one monitored spawn session run in this process: the
// harness's ends, and the hashes of what crossed the monitor.
type session struct {
	t        *testing.T
	tap      tapped
	inW      *io.PipeWriter // the harness writes here
	outR     *io.PipeReader // the harness reads here
	wrote    *hashed        // what the harness wrote (what the monitor read)
	read     *hashed        // what the monitor wrote to the harness
	done     chan struct{}
	report   *monitor.Report
	code     int
	err      error
	closeOne sync.Once
}

// start runs the monitor in front of engine (tapped), with cfg's report
// options.
func start(t *testing.T, cfg monitor.Config, engine ...string) *session {
	t.Helper()
	s := &session{t: t, tap: tap(t, engine...), wrote: newHashed(), read: newHashed(), done: make(chan struct{})}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s.inW, s.outR = inW, outR
	cfg.Command = s.tap.cmd
	cfg.Stdin = hashReader{r: inR, h: s.wrote}
	cfg.Stdout = hashWriter{w: outW, h: s.read}
	cfg.Stderr = io.Discard
	go func() {
		defer close(s.done)
		s.report, s.code, s.err = monitor.Run(context.Background(), cfg)
		outW.Close()
		inR.Close()
	}()
	t.Cleanup(func() { s.end() })
	return s
}

// end closes the harness's side and waits for the monitor.
func (s *session) end() *monitor.Report {
	s.closeOne.Do(func() { s.inW.Close() })
	// The harness reads what is left, as a harness does until EOF.
	go func() { _, _ = io.Copy(io.Discard, s.outR) }()
	<-s.done
	return s.report
}

// checkBytes fails the test unless the bytes out equal the bytes in, both
// ways: what the harness wrote is what the engine read, what the engine
// wrote is what the harness got.
func (s *session) checkBytes() {
	s.t.Helper()
	<-s.done
	if got, want := fileSum(s.t, s.tap.in), s.wrote.sum(); got != want {
		s.t.Errorf("harness → engine: the engine read sha256 %s, the harness wrote %s (%d bytes)", got, want, s.wrote.n)
	}
	if got, want := s.read.sum(), fileSum(s.t, s.tap.out); got != want {
		s.t.Errorf("engine → harness: the harness got sha256 %s, the engine wrote %s", got, want)
	}
}

// served is the outcome of a monitor serving one loopback connection.
type served struct {
	wrote, read *hashed
	tap         tapped
	done        chan struct{}
	report      *monitor.Report
	code        int
	err         error
}

// throughMonitor is a transport whose every connection is a monitor, run
// in this process, in front of engine (tapped): the toolkit's client
// drives the engine through it. The outcome of the first connection is
// returned.
func throughMonitor(t *testing.T, cfg monitor.Config, engine ...string) (transport.Transport, *served) {
	sv := &served{wrote: newHashed(), read: newHashed(), tap: tap(t, engine...), done: make(chan struct{})}
	var once sync.Once
	tr := transport.Loopback("monitor", func(ctx context.Context, rwc io.ReadWriteCloser) error {
		first := false
		once.Do(func() { first = true })
		if !first {
			return errors.New("one connection only")
		}
		defer close(sv.done)
		c := cfg
		c.Command = sv.tap.cmd
		c.Stdin = hashReader{r: rwc, h: sv.wrote}
		c.Stdout = hashWriter{w: rwc, h: sv.read}
		c.Stderr = io.Discard
		sv.report, sv.code, sv.err = monitor.Run(ctx, c)
		return sv.err
	})
	return tr, sv
}

// checkBytes fails the test unless the bytes out equal the bytes in, both
// ways.
func (sv *served) checkBytes(t *testing.T) {
	t.Helper()
	<-sv.done
	if got, want := fileSum(t, sv.tap.in), sv.wrote.sum(); got != want {
		t.Errorf("harness → engine: the engine read sha256 %s, the harness wrote %s (%d bytes)", got, want, sv.wrote.n)
	}
	if got, want := sv.read.sum(), fileSum(t, sv.tap.out); got != want {
		t.Errorf("engine → harness: the harness got sha256 %s, the engine wrote %s (%d bytes)", got, want, sv.read.n)
	}
	if sv.wrote.n == 0 || sv.read.n == 0 {
		t.Errorf("nothing crossed the monitor: %d bytes in, %d out", sv.wrote.n, sv.read.n)
	}
}

// monitorReport is what the tests read of a monitor's --json report.
type monitorReport struct {
	Verdict string           `json:"verdict"`
	Monitor monitor.Coverage `json:"monitor"`
}

// readMonitorReport reads the monitor's --json report at path.
func readMonitorReport(t *testing.T, path string) monitorReport {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no monitor report: %v", err)
	}
	var r monitorReport
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("the monitor report %s: %v", path, err)
	}
	return r
}

// clientSession opens the toolkit's client over tr and starts attempt a1
// of run r1 for target; a failed step fails t.
func clientSession(ctx context.Context, t *testing.T, tr transport.Transport, target string) *client.Conn {
	t.Helper()
	c, err := client.Open(ctx, client.ConnConfig{Transport: tr, Schemas: schemas, ClientInfo: wire.ClientInfo{Name: "monitor-test"}, Context: clientContext()})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	if err := c.Init(ctx, wire.InitParams{RunID: "r1", TargetName: target, ProjectRoot: t.TempDir(), Env: map[string]string{}}); err != nil {
		t.Fatalf("init: %v", err)
	}
	if err := c.StartAttempt(ctx, wire.StartAttemptParams{AttemptID: "a1", ArtifactsDir: t.TempDir()}); err != nil {
		t.Fatalf("startAttempt: %v", err)
	}
	return c
}
