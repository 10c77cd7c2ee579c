package chromium

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// Listening is a Chromium serving the DevTools protocol on a loopback port
// of its own choosing (--remote-debugging-port=0): what a browser pool or a
// container offers, and what tests attach to in its place. It runs in a
// directory of its own (a Dir holding one Instance), gets the project's
// flags, and dies with its owner (Pdeathsig on Linux). Close kills it and
// removes its directory.
type Listening struct {
	// WebSocketURL is the browser's websocket address,
	// ws://127.0.0.1:<port>/devtools/browser/<id>.
	WebSocketURL string
	// HTTPURL is http://127.0.0.1:<port>, the root of /json/version.
	HTTPURL string

	cmd     *exec.Cmd
	dir     *Dir
	in      *Instance
	drained chan struct{} // closed when its stderr is read to the end
	once    sync.Once
}

// listenFlags are the command line flags of a listening Chromium: the
// project's (AllocatorOptions), on the command line.
var listenFlags = []string{
	"--headless", "--no-first-run", "--no-default-browser-check",
	"--disable-background-networking", "--disable-component-update", "--disable-sync",
	"--disable-quic", "--disable-gpu", "--enable-unsafe-swiftshader", "--disable-dev-shm-usage",
	"--disable-extensions", "--disable-default-apps", "--disable-features=Translate,MediaRouter,OptimizationHints",
	"--metrics-recording-only", "--password-store=basic", "--use-mock-keychain",
	"--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0",
}

// Listen starts Chromium (path; "" is DefaultPath) listening on a loopback
// port, with extra flags after the project's, and waits until it prints
// its DevTools address, within ctx.
func Listen(ctx context.Context, path string, extra ...string) (*Listening, error) {
	if path == "" {
		path = DefaultPath
	}
	dir, err := NewDir("")
	if err != nil {
		return nil, err
	}
	in, err := dir.NewInstance()
	if err != nil {
		dir.Remove()
		return nil, err
	}
	args := append([]string{}, listenFlags...)
	for k, v := range in.flags {
		args = append(args, "--"+k+"="+v)
	}
	args = append(args, "--disable-breakpad", "--disable-crash-reporter")
	if os.Geteuid() == 0 {
		args = append(args, "--no-sandbox")
	}
	args = append(args, extra...)
	args = append(args, "about:blank")
	cmd := exec.Command(path, args...)
	cmd.Env = append(os.Environ(), in.env...)
	setDeathSignal(cmd)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		in.Remove()
		dir.Remove()
		return nil, fmt.Errorf("listening chromium: %w", err)
	}
	if err := cmd.Start(); err != nil {
		in.Remove()
		dir.Remove()
		return nil, fmt.Errorf("listening chromium (%s): %w", path, err)
	}
	l := &Listening{cmd: cmd, dir: dir, in: in, drained: make(chan struct{})}
	found := make(chan string, 1)
	go func() {
		defer close(l.drained)
		sc := bufio.NewScanner(stderr)
		sent := false
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), "DevTools listening on "); ok && !sent {
				found <- strings.TrimSpace(rest)
				sent = true
			}
		}
		_, _ = io.Copy(io.Discard, stderr)
	}()
	select {
	case ws := <-found:
		u, err := url.Parse(ws)
		if err != nil || u.Host == "" {
			l.Close()
			return nil, fmt.Errorf("listening chromium printed no usable address: %q", ws)
		}
		l.WebSocketURL = ws
		l.HTTPURL = "http://" + u.Host
		return l, nil
	case <-l.drained:
		l.Close()
		return nil, errors.New("listening chromium exited before it printed its DevTools address")
	case <-ctx.Done():
		l.Close()
		return nil, fmt.Errorf("listening chromium: %w", context.Cause(ctx))
	}
}

// Pid returns the browser process's pid.
func (l *Listening) Pid() int { return l.cmd.Process.Pid }

// Close kills the Chromium, waits until it is reaped (its helpers too) and
// removes its directory. It is idempotent.
func (l *Listening) Close() error {
	var err error
	l.once.Do(func() {
		_ = l.cmd.Process.Kill()
		t := time.NewTimer(10 * time.Second)
		select {
		case <-l.drained:
		case <-t.C: // a helper holding stderr open: Remove kills it
		}
		t.Stop()
		_ = l.cmd.Wait()
		err = errors.Join(l.in.Remove(), l.dir.Remove())
		<-l.drained
	})
	return err
}
