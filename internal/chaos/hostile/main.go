// Command hostile is the engine of the chaos tests (package internal/chaos):
// the example engine served over stdin and stdout, with one hostile
// behaviour switched on by its first argument. Its second argument is a
// directory where it writes the pid of every process it starts (itself, a
// grandchild), one file each, so that the tests can check none outlives the
// run.
//
//	hostile MODE PIDDIR
package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/e2e-conform/toolkit/fixtures/example"
	"github.com/e2e-conform/toolkit/protocol/server"
)

// Modes are the hostile behaviours, each after the initialize result
// unless it says otherwise.
var modes = map[string]string{
	"silent":             "answers initialize, then writes nothing more and keeps reading",
	"sigstop":            "answers initialize, then stops itself with SIGSTOP",
	"exit-mid-call":      "answers initialize, then exits with status 3 when the next request arrives",
	"frame-100mb":        "answers initialize, then announces and writes a 100 MB frame",
	"endless-header":     "answers initialize, then writes one header line that never ends",
	"short-body":         "answers initialize, then announces 1000 bytes, writes 10 and exits",
	"bad-content-length": "answers initialize, then writes Content-Length forms that are not decimal integers",
	"bad-utf8":           "writes its initialize result with a byte that is not UTF-8 in it",
	"deep-nesting":       "answers initialize, then writes a frame of 100000 nested arrays",
	"unknown-id":         "answers initialize, then writes a response with an id never requested",
	"duplicate":          "writes every response but initialize's twice",
	"stray-at-init":      "writes a response with id 7, never requested, before its initialize result",
	"notify-flood":       "answers initialize, then writes engine/log notifications as fast as it can (100k/s and more)",
	"stderr-flood":       "serves normally and writes lines to stderr as fast as it can",
	"setsid-grandchild":  "starts a grandchild that calls setsid and sleeps, then serves normally",
	"serve":              "serves normally",
}

func main() {
	if len(os.Args) == 3 && os.Args[1] == "grandchild" {
		grandchild(os.Args[2])
		return
	}
	if len(os.Args) != 3 || modes[os.Args[1]] == "" {
		fmt.Fprintln(os.Stderr, "usage: hostile MODE PIDDIR")
		os.Exit(2)
	}
	mode, dir := os.Args[1], os.Args[2]
	writePid(dir, "engine", os.Getpid())
	if mode == "setsid-grandchild" {
		cmd := exec.Command(os.Args[0], "grandchild", dir)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := cmd.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "hostile:", err)
			os.Exit(1)
		}
		writePid(dir, "grandchild", cmd.Process.Pid)
	}
	if mode == "stderr-flood" {
		go func() {
			line := []byte(strings.Repeat("stderr flood ", 16) + "\n")
			for {
				if _, err := os.Stderr.Write(line); err != nil {
					return
				}
			}
		}()
	}
	w := &hostileWriter{mode: mode, out: os.Stdout}
	rwc := &stdio{r: &hostileReader{mode: mode, in: os.Stdin, initialized: func() { go w.after() }}, w: w}
	err := server.ServeEngine(context.Background(), example.New(), rwc, server.Options{})
	if err != nil {
		os.Exit(1)
	}
}

// grandchild sleeps in its own session until it is killed.
func grandchild(dir string) {
	writePid(dir, "grandchild-self", os.Getpid())
	for {
		time.Sleep(time.Hour)
	}
}

func writePid(dir, name string, pid int) {
	_ = os.WriteFile(filepath.Join(dir, name+"-"+strconv.Itoa(pid)), []byte(strconv.Itoa(pid)), 0o644)
}

type stdio struct {
	r io.Reader
	w io.Writer
}

func (s *stdio) Read(p []byte) (int, error)  { return s.r.Read(p) }
func (s *stdio) Write(p []byte) (int, error) { return s.w.Write(p) }
func (s *stdio) Close() error                { return nil }

// hostileReader counts the client's frames: once initialize and
// initialized arrived it starts the mode's behaviour (initialized), and it
// exits at the next one (exit-mid-call).
type hostileReader struct {
	mode        string
	in          io.Reader
	seen        int
	initialized func()
}

func (r *hostileReader) Read(p []byte) (int, error) {
	n, err := r.in.Read(p)
	before := r.seen
	r.seen += bytes.Count(p[:n], []byte("Content-Length"))
	if before < 2 && r.seen >= 2 {
		r.initialized()
	}
	if r.mode == "exit-mid-call" && r.seen > 2 { // initialize, initialized, then a request
		os.Exit(3)
	}
	return n, err
}

// hostileWriter writes the server's frames, and what the mode makes of
// them once the initialize result went out.
type hostileWriter struct {
	mode   string
	out    io.Writer
	mu     sync.Mutex
	frames int
}

func (w *hostileWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.frames++
	first := w.frames == 1
	switch w.mode {
	case "bad-utf8":
		if first {
			p = bytes.Replace(p, []byte(`"name":"`), []byte("\"name\":\"\xff"), 1)
			return w.rewrite(p)
		}
	case "stray-at-init":
		if first {
			body := `{"jsonrpc":"2.0","id":7,"result":null}`
			if _, err := fmt.Fprintf(w.out, "Content-Length: %d\r\n\r\n%s", len(body), body); err != nil {
				return 0, err
			}
		}
	case "duplicate":
		if !first && bytes.Contains(p, []byte(`"result"`)) {
			if _, err := w.out.Write(p); err != nil {
				return 0, err
			}
		}
	}
	if _, err := w.out.Write(p); err != nil {
		return 0, err
	}
	return len(p), nil
}

// rewrite writes content p (a whole frame) with its Content-Length fixed.
func (w *hostileWriter) rewrite(p []byte) (int, error) {
	i := bytes.Index(p, []byte("\r\n\r\n"))
	if i < 0 {
		return w.out.Write(p)
	}
	body := p[i+4:]
	if _, err := fmt.Fprintf(w.out, "Content-Length: %d\r\n\r\n%s", len(body), body); err != nil {
		return 0, err
	}
	return len(p), nil
}

// after runs the mode's behaviour once the client sent initialized.
func (w *hostileWriter) after() {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.out
	switch w.mode {
	case "silent":
		w.out = io.Discard
	case "sigstop":
		_ = syscall.Kill(os.Getpid(), syscall.SIGSTOP)
	case "frame-100mb":
		fmt.Fprintf(out, "Content-Length: %d\r\n\r\n", 100<<20)
		chunk := bytes.Repeat([]byte(" "), 1<<20)
		for range 100 {
			if _, err := out.Write(chunk); err != nil {
				break
			}
		}
		w.out = io.Discard
	case "endless-header":
		fmt.Fprint(out, "Content-Length: 2\r\nX-Endless: ")
		chunk := bytes.Repeat([]byte("a"), 64<<10)
		for {
			if _, err := out.Write(chunk); err != nil {
				os.Exit(1)
			}
		}
	case "short-body":
		fmt.Fprint(out, "Content-Length: 1000\r\n\r\n{\"jsonrpc\"")
		os.Exit(0)
	case "bad-content-length":
		fmt.Fprint(out, "Content-Length: 0x20\r\n\r\n{\"jsonrpc\":\"2.0\"}      ")
		fmt.Fprint(out, "Content-Length: -5\r\n\r\n")
		fmt.Fprint(out, "Content-Length: 1e3\r\n\r\n")
		w.out = io.Discard
	case "deep-nesting":
		body := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
		fmt.Fprintf(out, "Content-Length: %d\r\n\r\n%s", len(body), body)
	case "unknown-id":
		body := `{"jsonrpc":"2.0","id":7777777,"result":null}`
		fmt.Fprintf(out, "Content-Length: %d\r\n\r\n%s", len(body), body)
	case "notify-flood":
		w.mu.Unlock()
		defer w.mu.Lock()
		body := `{"jsonrpc":"2.0","method":"engine/log","params":{"line":"flood"}}`
		frame := []byte(fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body))
		batch := bytes.Repeat(frame, 1000)
		for {
			w.mu.Lock()
			_, err := w.out.Write(batch)
			w.mu.Unlock()
			if err != nil {
				return
			}
		}
	}
}
