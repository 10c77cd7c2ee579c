//go:build linux

package chaos

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Hostile clients against the servers (issue 12): the example engine over
// TCP (fixtures/example, --listen), the toolkit server library in this
// process (protocol/server, chaos_inproc_test.go) and e2e-mcp over stdio.
//
// The engine protocol sets no idle or partial-frame timeout (spec
// engine-protocol.md §1: a receiver MUST accept a message split anywhere,
// and a worker connection may stay idle between tests for as long as the
// harness likes), so the servers add none: what bounds a slowloris client
// is what each connection may hold, at most a 4096-byte header part (§1.1)
// and the content bytes that actually arrived, never the Content-Length
// it announced.

// procStatus is what /proc says of a live process.
type procStatus struct {
	rssKB, hwmKB int64
	threads      int
	fds          int
}

func readStatus(pid int) (procStatus, error) {
	var s procStatus
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return s, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		f := strings.Fields(value)
		if len(f) == 0 {
			continue
		}
		n, _ := strconv.ParseInt(f[0], 10, 64)
		switch name {
		case "VmRSS":
			s.rssKB = n
		case "VmHWM":
			s.hwmKB = n
		case "Threads":
			s.threads = int(n)
		}
	}
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return s, err
	}
	s.fds = len(fds)
	return s, nil
}

// eventually polls cond every 50 ms until it holds or bound passes: it
// waits for a state the server reaches on its own (closed connections
// released), it asserts no timing.
func eventually(bound time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(bound)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// frame is content in its Content-Length frame.
func frame(content string) []byte {
	return []byte(fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(content), content))
}

// readFrame reads one frame's content.
func readFrame(r *bufio.Reader) ([]byte, error) {
	length := -1
	for {
		line, err := r.ReadSlice('\n')
		if err != nil {
			return nil, fmt.Errorf("reading a header: %w", err)
		}
		if len(line) <= 2 {
			break
		}
		if v, ok := bytes.CutPrefix(line, []byte("Content-Length: ")); ok {
			length, _ = strconv.Atoi(string(bytes.TrimSpace(v)))
		}
	}
	if length < 0 {
		return nil, errors.New("a frame without Content-Length")
	}
	content := make([]byte, length)
	if _, err := io.ReadFull(r, content); err != nil {
		return nil, fmt.Errorf("reading content: %w", err)
	}
	return content, nil
}

const (
	initializeReq  = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientInfo":{"name":"chaos"},"role":"worker"}}`
	initializedMsg = `{"jsonrpc":"2.0","method":"initialized","params":{}}`
)

// observeReq is engine/observe with id i: an answer the engine computes
// (not a protocol error), as large as a real observation.
func observeReq(i int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"engine/observe","params":{"operation":{"signal":{"id":%d},"timeoutMs":30000,"runId":"r","attemptId":"a"}}}`, i, i)
}

// initialize runs the handshake on a connection.
func initialize(c net.Conn, br *bufio.Reader) error {
	if _, err := c.Write(frame(initializeReq)); err != nil {
		return err
	}
	got, err := readFrame(br)
	if err != nil {
		return err
	}
	if !bytes.Contains(got, []byte(`"result"`)) {
		return fmt.Errorf("initialize answered %s", clip(string(got)))
	}
	_, err = c.Write(frame(initializedMsg))
	return err
}

// answersFreshClient connects a new, well-behaved client to addr: it must
// get initialize and shutdown answered.
func answersFreshClient(addr string) error {
	c, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(30 * time.Second))
	br := bufio.NewReader(c)
	if err := initialize(c, br); err != nil {
		return err
	}
	if _, err := c.Write(frame(`{"jsonrpc":"2.0","id":1,"method":"shutdown"}`)); err != nil {
		return err
	}
	got, err := readFrame(br)
	if err != nil {
		return err
	}
	if !bytes.Contains(got, []byte(`"id":1`)) || !bytes.Contains(got, []byte(`"result"`)) {
		return fmt.Errorf("shutdown answered %s", clip(string(got)))
	}
	_, err = c.Write(frame(`{"jsonrpc":"2.0","method":"exit"}`))
	return err
}

// serverProc is a server process under test.
type serverProc struct {
	t      *testing.T
	cmd    *exec.Cmd
	addr   string
	stderr *limitedBuffer
	copied chan struct{}
	peak   *peakWatch
}

// startExample starts the example engine on a free loopback port with
// TMPDIR set to tmp.
func startExample(t *testing.T, tmp string) *serverProc {
	t.Helper()
	cmd := exec.Command(filepath.Join(binDir(t), "example-engine"), "--listen", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	errPipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &serverProc{t: t, cmd: cmd, stderr: &limitedBuffer{b: &bytes.Buffer{}, max: 1 << 20}, copied: make(chan struct{}), peak: watchPeak(cmd.Process.Pid)}
	br := bufio.NewReader(errPipe)
	line, err := br.ReadString('\n')
	_, addr, ok := strings.Cut(strings.TrimSpace(line), "listening on ")
	if err != nil || !ok {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("example-engine did not say where it listens: %q, %v", line, err)
	}
	p.addr = addr
	go func() {
		defer close(p.copied)
		_, _ = io.Copy(p.stderr, br)
	}()
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			_ = p.cmd.Process.Kill()
			_ = p.cmd.Wait()
			<-p.copied
		}
	})
	return p
}

// status reads the server's /proc status.
func (p *serverProc) status() procStatus {
	p.t.Helper()
	s, err := readStatus(p.cmd.Process.Pid)
	if err != nil {
		p.t.Fatalf("the server is gone: %v\n%s", err, p.stderrText())
	}
	return s
}

func (p *serverProc) stderrText() string {
	return p.stderr.text()
}

// stop sends SIGTERM and waits up to bound for the exit: its code and peak
// RSS (VmHWM, see peakWatch).
func (p *serverProc) stop(bound time.Duration) run {
	p.t.Helper()
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	awaitExit(p.t, p.cmd, bound, "the server", "SIGTERM")
	<-p.copied
	return run{code: p.cmd.ProcessState.ExitCode(), out: p.stderrText(), peakKB: p.peak.peak()}
}

// awaitExit waits up to bound for cmd to exit after what was done to it
// (after), killing it and failing the test when it does not.
func awaitExit(t *testing.T, cmd *exec.Cmd, bound time.Duration, name, after string) {
	t.Helper()
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(bound):
		_ = cmd.Process.Kill()
		<-done
		t.Errorf("%s did not exit within %v of %s", name, bound, after)
	}
}

// floodResult is what a client that never reads saw.
type floodResult struct {
	// atStall is the number of whole requests written when a write first
	// made no progress for the stall interval: the server stopped reading.
	atStall int
	stalled bool
}

// neverReads writes total requests made by req to w without reading
// anything, until a write makes no progress for stall (w's write deadline:
// the server stopped reading); it then tells atStall, and goes on writing
// the rest, without deadline, once the caller starts reading. It returns
// when every request is written or a write fails.
func neverReads(w interface {
	io.Writer
	SetWriteDeadline(time.Time) error
}, total int, req func(i int) string, stall time.Duration, atStall chan<- int) error {
	stalled := false
	for i := 0; i < total; i++ {
		b := frame(req(i))
		for len(b) > 0 {
			if !stalled {
				_ = w.SetWriteDeadline(time.Now().Add(stall))
			}
			n, err := w.Write(b)
			b = b[n:]
			if err != nil {
				if !stalled && errors.Is(err, os.ErrDeadlineExceeded) {
					stalled = true
					_ = w.SetWriteDeadline(time.Time{})
					atStall <- i
					continue
				}
				return err
			}
		}
	}
	if !stalled {
		close(atStall)
	}
	return nil
}

// readAnswers reads n frames from r and counts the responses among them
// (engine/log notifications and the like are skipped).
func readAnswers(r *bufio.Reader, n int, isAnswer func([]byte) bool) error {
	for got := 0; got < n; {
		c, err := readFrame(r)
		if err != nil {
			return fmt.Errorf("after %d of %d answers: %w", got, n, err)
		}
		if isAnswer(c) {
			got++
		}
	}
	return nil
}

func isResponse(c []byte) bool {
	return bytes.Contains(c, []byte(`"id":`)) && !bytes.Contains(c, []byte(`"method"`))
}

// TestExampleEngineClientThatNeverReads: a client sends 60000 engine/observe
// requests (about 12 MB, more than loopback TCP buffers hold) and reads
// nothing. The server must stop reading (backpressure: at most
// DefaultMaxInFlight requests in flight per connection) instead of taking
// every request in and holding its answer; once the client reads, every
// request is answered; then a fresh client is served, SIGTERM ends the
// server with exit 0, and its peak RSS stayed within the bound.
func TestExampleEngineClientThatNeverReads(t *testing.T) {
	if !*slow {
		t.Skip("slow: make chaos runs it (-chaos-slow)")
	}
	const total = 60000
	const peakMB = 120
	tmp := t.TempDir()
	srv := startExample(t, tmp)
	before := srv.status()
	c, err := net.Dial("tcp", srv.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	br := bufio.NewReaderSize(c, 1<<20)
	if err := initialize(c, br); err != nil {
		t.Fatal(err)
	}
	atStall := make(chan int, 1)
	wrote := make(chan error, 1)
	go func() {
		wrote <- neverReads(c.(*net.TCPConn), total, func(i int) string { return observeReq(i + 1) }, 2*time.Second, atStall)
	}()
	n, stalled := <-atStall
	if !stalled {
		t.Fatalf("the server read all %d requests of a client that reads nothing", total)
	}
	held := srv.status()
	t.Logf("the server stopped reading after %d requests; RSS %d MB (%d MB before), %d threads", n, held.rssKB>>10, before.rssKB>>10, held.threads)
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Minute))
	if err := readAnswers(br, total, isResponse); err != nil {
		t.Fatalf("draining the answers: %v", err)
	}
	if err := <-wrote; err != nil {
		t.Fatalf("writing: %v", err)
	}
	c.Close()
	if err := answersFreshClient(srv.addr); err != nil {
		t.Errorf("a fresh client after the flood: %v\n%s", err, srv.stderrText())
	}
	r := srv.stop(30 * time.Second)
	if r.code != 0 {
		t.Errorf("exit %d after SIGTERM, want 0\n%s", r.code, r.out)
	}
	t.Logf("peak RSS %d MB", r.peakKB>>10)
	if r.peakKB>>10 > peakMB {
		t.Errorf("peak RSS %d MB, want at most %d MB", r.peakKB>>10, peakMB)
	}
	if left := tmpEntries(t, tmp); len(left) > 0 {
		t.Errorf("TMPDIR entries left: %v", left)
	}
}

// midFrame is how a connection closed mid-frame stops: after part of a
// header, part of an initialize content, part of a request after the
// handshake, or a few bytes of a 64 MiB content part it announced.
var midFrame = []func(c net.Conn, br *bufio.Reader) error{
	func(c net.Conn, _ *bufio.Reader) error { _, err := c.Write([]byte("Content-Len")); return err },
	func(c net.Conn, _ *bufio.Reader) error {
		_, err := c.Write(frame(initializeReq)[:40])
		return err
	},
	func(c net.Conn, br *bufio.Reader) error {
		if err := initialize(c, br); err != nil {
			return err
		}
		f := frame(observeReq(1))
		_, err := c.Write(f[:len(f)/2])
		return err
	},
	func(c net.Conn, _ *bufio.Reader) error {
		_, err := c.Write([]byte("Content-Length: 67108864\r\n\r\n{\"jsonrpc\":"))
		return err
	},
}

// closedMidFrame opens n connections to addr at once, stops each mid-frame
// and closes it.
func closedMidFrame(t *testing.T, addr string, n int) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := net.DialTimeout("tcp", addr, 30*time.Second)
			if err != nil {
				errs <- err
				return
			}
			defer c.Close()
			_ = c.SetDeadline(time.Now().Add(60 * time.Second))
			if err := midFrame[i%len(midFrame)](c, bufio.NewReader(c)); err != nil {
				errs <- fmt.Errorf("connection %d: %w", i, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestExampleEngineConnectionsClosedMidFrame: 200 connections each stop
// mid-frame and close. The server stays up and answers a fresh client, its
// file descriptors come back to where they were (each closed connection
// released), its threads stay bounded, SIGTERM ends it with exit 0, and
// its peak RSS stayed within the bound.
func TestExampleEngineConnectionsClosedMidFrame(t *testing.T) {
	const conns = 200
	const peakMB = 120
	const maxThreads = 64
	tmp := t.TempDir()
	srv := startExample(t, tmp)
	if err := answersFreshClient(srv.addr); err != nil {
		t.Fatal(err)
	}
	before := srv.status()
	closedMidFrame(t, srv.addr, conns)
	if err := answersFreshClient(srv.addr); err != nil {
		t.Errorf("a fresh client after %d connections closed mid-frame: %v\n%s", conns, err, srv.stderrText())
	}
	var after procStatus
	if !eventually(20*time.Second, func() bool { after = srv.status(); return after.fds <= before.fds }) {
		t.Errorf("%d file descriptors open after %d connections closed, %d before", after.fds, conns, before.fds)
	}
	t.Logf("fds %d → %d, threads %d → %d, RSS %d → %d MB", before.fds, after.fds, before.threads, after.threads, before.rssKB>>10, after.rssKB>>10)
	if after.threads > maxThreads {
		t.Errorf("%d threads after %d connections closed, want at most %d", after.threads, conns, maxThreads)
	}
	r := srv.stop(30 * time.Second)
	if r.code != 0 {
		t.Errorf("exit %d after SIGTERM, want 0\n%s", r.code, r.out)
	}
	if r.peakKB>>10 > peakMB {
		t.Errorf("peak RSS %d MB, want at most %d MB", r.peakKB>>10, peakMB)
	}
	if left := tmpEntries(t, tmp); len(left) > 0 {
		t.Errorf("TMPDIR entries left: %v", left)
	}
}

// slowloris opens n connections to addr, each writing one byte per tick
// for ticks ticks: half of them a header part, the other half the content
// of a frame announcing the largest content part the spec allows (64
// MiB). It returns once every connection has written its first bytes;
// dribbled waits until every connection wrote its last byte (they stay
// open, their frames unfinished), closeAll closes them.
func slowloris(t *testing.T, addr string, n, ticks int, tick time.Duration) (dribbled, closeAll func()) {
	t.Helper()
	const announce = "Content-Length: 67108864\r\n\r\n"
	var wg, opened sync.WaitGroup
	conns := make([]net.Conn, 0, n)
	closeAll = func() {
		for _, c := range conns {
			c.Close()
		}
		wg.Wait()
	}
	for i := range n {
		c, err := net.DialTimeout("tcp", addr, 30*time.Second)
		if err != nil {
			closeAll()
			t.Fatalf("connection %d: %v", i, err)
		}
		conns = append(conns, c)
		payload, first := []byte("X-Slow: "+strings.Repeat("a", ticks)), 1
		if i%2 == 0 {
			payload, first = []byte(announce+strings.Repeat(" ", ticks)), len(announce)+1
		}
		wg.Add(1)
		opened.Add(1)
		go func() {
			defer wg.Done()
			_, err := c.Write(payload[:first])
			opened.Done()
			if err != nil {
				return
			}
			tk := time.NewTicker(tick)
			defer tk.Stop()
			for _, b := range payload[first:] {
				<-tk.C
				if _, err := c.Write([]byte{b}); err != nil {
					return
				}
			}
		}()
	}
	opened.Wait()
	return wg.Wait, closeAll
}

// TestExampleEngineSlowloris: 100 connections dribble one byte every 100
// ms, half of them the content of a frame that announced 64 MiB. While
// they are held, a fresh client is served and the server's RSS grows by at
// most perConnKB a connection (what it holds is the bytes that arrived,
// never the announced Content-Length); once they close, its file
// descriptors come back; SIGTERM ends it with exit 0 and its peak RSS
// stayed within the bound.
func TestExampleEngineSlowloris(t *testing.T) {
	if !*slow {
		t.Skip("slow: make chaos runs it (-chaos-slow)")
	}
	const conns = 100
	const perConnKB = 512
	const peakMB = 200
	tmp := t.TempDir()
	srv := startExample(t, tmp)
	if err := answersFreshClient(srv.addr); err != nil {
		t.Fatal(err)
	}
	before := srv.status()
	dribbled, closeAll := slowloris(t, srv.addr, conns, 100, 100*time.Millisecond)
	if err := answersFreshClient(srv.addr); err != nil {
		t.Errorf("a fresh client while %d slowloris connections are held: %v", conns, err)
	}
	dribbled()
	held := srv.status()
	if err := answersFreshClient(srv.addr); err != nil {
		t.Errorf("a fresh client while %d slowloris connections hold unfinished frames: %v", conns, err)
	}
	closeAll()
	t.Logf("RSS %d MB before, %d MB with %d slowloris connections (%d KB each); %d threads", before.rssKB>>10, held.rssKB>>10, conns, (held.rssKB-before.rssKB)/conns, held.threads)
	if grow := held.rssKB - before.rssKB; grow > conns*perConnKB {
		t.Errorf("RSS grew by %d KB with %d slowloris connections, want at most %d KB each", grow, conns, perConnKB)
	}
	var after procStatus
	if !eventually(20*time.Second, func() bool { after = srv.status(); return after.fds <= before.fds }) {
		t.Errorf("%d file descriptors open after the slowloris connections closed, %d before", after.fds, before.fds)
	}
	r := srv.stop(30 * time.Second)
	if r.code != 0 {
		t.Errorf("exit %d after SIGTERM, want 0\n%s", r.code, r.out)
	}
	if r.peakKB>>10 > peakMB {
		t.Errorf("peak RSS %d MB, want at most %d MB", r.peakKB>>10, peakMB)
	}
	if left := tmpEntries(t, tmp); len(left) > 0 {
		t.Errorf("TMPDIR entries left: %v", left)
	}
}
