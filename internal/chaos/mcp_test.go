//go:build linux

package chaos

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// mcpHost is an e2e-mcp process on pipes this test holds: stdin a pipe it
// writes with deadlines (a client that stops reading is seen as writes
// that make no progress), stdout read through out.
type mcpHost struct {
	t      *testing.T
	cmd    *exec.Cmd
	in     *os.File
	out    *bufio.Reader
	outR   *os.File
	stderr *limitedBuffer
	peak   *peakWatch
}

// startMCP starts e2e-mcp in an empty project directory with TMPDIR set
// to tmp, and runs the MCP handshake.
func startMCP(t *testing.T, tmp string) *mcpHost {
	t.Helper()
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	h := &mcpHost{t: t, in: inW, outR: outR, out: bufio.NewReaderSize(outR, 1<<20), stderr: &limitedBuffer{b: &bytes.Buffer{}, max: 1 << 20}}
	h.cmd = exec.Command(filepath.Join(binDir(t), "e2e-mcp"))
	h.cmd.Dir = t.TempDir()
	h.cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	h.cmd.Stdin, h.cmd.Stdout, h.cmd.Stderr = inR, outW, h.stderr
	if err := h.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h.peak = watchPeak(h.cmd.Process.Pid)
	inR.Close()
	outW.Close()
	t.Cleanup(func() {
		if h.cmd.ProcessState == nil {
			_ = h.cmd.Process.Kill()
			_ = h.cmd.Wait()
		}
		h.in.Close()
		h.outR.Close()
	})
	h.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"chaos","version":"1"}}}`)
	if line := h.recv(); !strings.Contains(line, `"result"`) {
		t.Fatalf("initialize: %s", clip(line))
	}
	h.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return h
}

func (h *mcpHost) send(line string) {
	h.t.Helper()
	_ = h.in.SetWriteDeadline(time.Now().Add(time.Minute))
	if _, err := io.WriteString(h.in, line+"\n"); err != nil {
		h.t.Fatalf("write: %v\n%s", err, h.stderrText())
	}
}

func (h *mcpHost) recv() string {
	h.t.Helper()
	_ = h.outR.SetReadDeadline(time.Now().Add(time.Minute))
	line, err := h.out.ReadString('\n')
	if err != nil {
		h.t.Fatalf("the host stopped answering: %v\n%s", err, h.stderrText())
	}
	return line
}

func (h *mcpHost) stderrText() string {
	return h.stderr.text()
}

// hangUp closes stdin (the client disconnects) and waits up to bound for
// the exit: its code and peak RSS.
func (h *mcpHost) hangUp(bound time.Duration) run {
	h.t.Helper()
	h.in.Close()
	go func() { _, _ = io.Copy(io.Discard, h.outR) }()
	awaitExit(h.t, h.cmd, bound, "e2e-mcp", "stdin closing")
	return run{code: h.cmd.ProcessState.ExitCode(), out: h.stderrText(), peakKB: h.peak.peak()}
}

// checkEnd asserts what every e2e-mcp case ends with: exit 0 at
// disconnect (mcp.md §7.2), the peak RSS bound, no TMPDIR entry.
func checkEnd(t *testing.T, r run, peakMB int64, tmp string) {
	t.Helper()
	t.Logf("exit %d, peak RSS %d MB", r.code, r.peakKB>>10)
	if r.code != 0 {
		t.Errorf("exit %d after the client disconnected, want 0 (mcp.md §7.2)\n%s", r.code, r.out)
	}
	if r.peakKB>>10 > peakMB {
		t.Errorf("peak RSS %d MB, want at most %d MB", r.peakKB>>10, peakMB)
	}
	if left := tmpEntries(t, tmp); len(left) > 0 {
		t.Errorf("TMPDIR entries left: %v", left)
	}
}

// TestMCPClientThatNeverReads: an MCP client writes 6000 tools/list
// requests and reads nothing. e2e-mcp must stop reading once its answers
// cannot be written (the pipe is full) instead of taking every request in
// and holding its answer; once the client reads, every request is
// answered, and the host exits 0 at disconnect within its RSS bound.
func TestMCPClientThatNeverReads(t *testing.T) {
	if !*slow {
		t.Skip("slow: make chaos runs it (-chaos-slow)")
	}
	const total = 6000
	const peakMB = 150
	tmp := t.TempDir()
	h := startMCP(t, tmp)
	before, _ := readStatus(h.cmd.Process.Pid)
	atStall := make(chan int, 1)
	wrote := make(chan error, 1)
	req := func(i int) string { return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, i) }
	go func() { wrote <- neverReadsLines(h.in, total, req, 2*time.Second, atStall) }()
	n, stalled := <-atStall
	if !stalled {
		t.Fatalf("e2e-mcp read all %d requests of a client that reads nothing", total)
	}
	held, _ := readStatus(h.cmd.Process.Pid)
	t.Logf("e2e-mcp stopped reading after %d requests; RSS %d MB (%d MB before), %d threads", n, held.rssKB>>10, before.rssKB>>10, held.threads)
	for got := 0; got < total; {
		_ = h.outR.SetReadDeadline(time.Now().Add(time.Minute))
		line, err := h.out.ReadString('\n')
		if err != nil {
			t.Fatalf("after %d of %d answers: %v\n%s", got, total, err, h.stderrText())
		}
		if strings.Contains(line, `"result"`) {
			got++
		}
	}
	if err := <-wrote; err != nil {
		t.Fatalf("writing: %v", err)
	}
	checkEnd(t, h.hangUp(30*time.Second), peakMB, tmp)
}

// neverReadsLines is neverReads for line-framed messages on a pipe.
func neverReadsLines(w *os.File, total int, req func(i int) string, stall time.Duration, atStall chan<- int) error {
	stalled := false
	for i := 0; i < total; i++ {
		b := []byte(req(i) + "\n")
		for len(b) > 0 {
			if !stalled {
				_ = w.SetWriteDeadline(time.Now().Add(stall))
			}
			n, err := w.Write(b)
			b = b[n:]
			if err != nil {
				if !stalled && os.IsTimeout(err) {
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

// TestMCPClosedMidLine: the client disconnects in the middle of a line,
// before and after a request in flight was answered: e2e-mcp exits 0
// within its bound, with no process or TMPDIR entry left.
func TestMCPClosedMidLine(t *testing.T) {
	for name, partial := range map[string]string{
		"inside a request": `{"jsonrpc":"2.0","id":9,"method":"tools/li`,
		"inside a string":  `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"tools","arguments":{"tool":"obs`,
		"after a newline":  "\n\n{",
	} {
		t.Run(name, func(t *testing.T) {
			tmp := t.TempDir()
			h := startMCP(t, tmp)
			h.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
			if line := h.recv(); !strings.Contains(line, `"result"`) {
				t.Fatalf("tools/list: %s", clip(line))
			}
			if _, err := io.WriteString(h.in, partial); err != nil {
				t.Fatal(err)
			}
			pid := h.cmd.Process.Pid
			checkEnd(t, h.hangUp(30*time.Second), 100, tmp)
			if p, err := readStatus(pid); err == nil {
				t.Errorf("e2e-mcp still runs after its exit: %+v", p)
			}
		})
	}
}

// TestMCPSlowloris: a client dribbles a request one byte every 20 ms, and
// a line of 17 MiB without a newline at full speed: the slow request is
// answered once its newline arrives, the long line is refused (-32700) at
// the 16 MiB bound without being held whole, the next request is
// answered, and the host exits 0 at disconnect within its RSS bound.
func TestMCPSlowloris(t *testing.T) {
	const peakMB = 120
	tmp := t.TempDir()
	h := startMCP(t, tmp)
	for _, b := range []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}` + "\n") {
		if _, err := h.in.Write([]byte{b}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond) // the dribble itself, not a synchronisation
	}
	if line := h.recv(); !strings.Contains(line, `"id":2`) || !strings.Contains(line, `"result"`) {
		t.Fatalf("the dribbled request got %s", clip(line))
	}
	long := []byte(`{"jsonrpc":"2.0","id":3,"method":"ping","x":"` + strings.Repeat("y", 17<<20))
	writeErr := make(chan error, 1)
	go func() {
		_, err := h.in.Write(long)
		if err == nil {
			_, err = io.WriteString(h.in, "\"}\n")
		}
		writeErr <- err
	}()
	if line := h.recv(); !strings.Contains(line, `-32700`) {
		t.Errorf("a 17 MiB line got %s, want a -32700 refusal", clip(line))
	}
	if err := <-writeErr; err != nil {
		t.Fatal(err)
	}
	h.send(`{"jsonrpc":"2.0","id":4,"method":"tools/list"}`)
	if line := h.recv(); !strings.Contains(line, `"id":4`) {
		t.Errorf("the request after the long line got %s", clip(line))
	}
	checkEnd(t, h.hangUp(30*time.Second), peakMB, tmp)
}
