package monitor

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/e2e-conform/toolkit/conformance/traffic"
)

// exitDrain bounds how long the engine's stdout is read after the engine
// exited (a process it left behind may hold it open).
const exitDrain = 2 * time.Second

// Run relays and judges one monitored session and returns its report and
// the exit status: the engine's (spawn; 128+n when a signal n ended it),
// 0 for a socket session ended by ctx or a signal, 1 with cfg.Fail when a
// violation was seen. The error says why the session could not run, or a
// report could not be written.
func Run(ctx context.Context, cfg Config) (*Report, int, error) {
	if (len(cfg.Command) == 0) == (cfg.Listen == "") {
		return nil, 2, errors.New("monitor: give the engine's command (after --) or --listen and --connect")
	}
	if cfg.Listen != "" && cfg.Connect == "" {
		return nil, 2, errors.New("monitor: --listen needs --connect")
	}
	m, err := New(cfg)
	if err != nil {
		return nil, 2, err
	}
	stop := make(chan struct{})
	judged := make(chan struct{})
	go func() { m.judge(ctx, stop); close(judged) }()
	var code int
	if len(cfg.Command) > 0 {
		code, err = m.spawn(ctx)
	} else {
		err = m.socket(ctx)
	}
	close(stop)
	<-judged
	r, werr := m.Snapshot(code)
	if err == nil {
		err = werr
	}
	return r, r.ExitCode, err
}

// snapshot writes the reports of what was judged so far (SIGUSR1): the
// judge first catches up with the reads handed to it before the signal (a
// read is handed over once relayed: one being relayed may be missing).
func (m *Monitor) snapshot() {
	m.judged()
	if _, err := m.Snapshot(0); err != nil {
		m.cfg.Logger.Error("writing the reports", "err", err)
	}
}

// spawn starts the engine and relays the harness's stdin and stdout to it
// until the engine exits.
func (m *Monitor) spawn(ctx context.Context) (int, error) {
	cmd := exec.Command(m.cfg.Command[0], m.cfg.Command[1:]...)
	cmd.Stderr = m.cfg.Stderr
	cmd.SysProcAttr = sysProcAttr()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return 2, fmt.Errorf("monitor: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return 2, fmt.Errorf("monitor: %w", err)
	}
	cmd.Stdout = outW
	if err := cmd.Start(); err != nil {
		outR.Close()
		outW.Close()
		return 2, fmt.Errorf("monitor: starting the engine: %w", err)
	}
	outW.Close()
	c := m.newConn()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := m.relay(m.cfg.Stdout, outR, c, traffic.Engine); err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
			m.cfg.Logger.Debug("engine side ended", "err", err)
		}
	}()
	// The harness's side: not waited for (a read of the harness's stdin
	// cannot be interrupted); it ends when the harness closes it, or when
	// the write to the exited engine fails.
	go func() {
		if err := m.relay(stdin, m.cfg.Stdin, c, traffic.Harness); err != nil {
			m.cfg.Logger.Debug("harness side ended", "err", err)
		}
		stdin.Close()
	}()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var werr error
wait:
	for {
		select {
		case werr = <-exited:
			break wait
		case sig := <-m.cfg.Signals:
			if sig == sigSnapshot {
				m.snapshot()
				continue
			}
			_ = cmd.Process.Signal(sig)
		case <-ctx.Done():
			_ = cmd.Process.Signal(syscall.SIGTERM)
			select {
			case werr = <-exited:
			case <-time.After(exitDrain):
				_ = cmd.Process.Kill()
				werr = <-exited
			}
			break wait
		}
	}
	_ = outR.SetReadDeadline(time.Now().Add(exitDrain))
	wg.Wait()
	outR.Close()
	return exitStatus(cmd.ProcessState, werr), nil
}

// exitStatus is the engine's exit status, 128+n when signal n ended it.
func exitStatus(ps *os.ProcessState, err error) int {
	if ps == nil {
		if err != nil {
			return 4
		}
		return 0
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

// socket relays every connection accepted on Listen to a new connection
// to Connect, until ctx ends or a signal other than SIGUSR1 arrives.
func (m *Monitor) socket(ctx context.Context) error {
	ln, err := net.Listen("tcp", m.cfg.Listen)
	if err != nil {
		return fmt.Errorf("monitor: %w", err)
	}
	if m.cfg.Ready != nil {
		m.cfg.Ready(ln.Addr().String())
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	open := map[net.Conn]bool{}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			hc, err := ln.Accept()
			if err != nil {
				return
			}
			ec, err := net.Dial("tcp", m.cfg.Connect)
			if err != nil {
				m.cfg.Logger.Error("connecting to the engine", "err", err)
				hc.Close()
				continue
			}
			mu.Lock()
			open[hc], open[ec] = true, true
			mu.Unlock()
			c := m.newConn()
			wg.Add(2)
			var halves sync.WaitGroup
			halves.Add(2)
			half := func(dst, src net.Conn, from traffic.Side) {
				defer wg.Done()
				_ = m.relay(dst, src, c, from)
				if tc, ok := dst.(*net.TCPConn); ok {
					_ = tc.CloseWrite()
				}
				halves.Done()
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				halves.Wait()
				hc.Close()
				ec.Close()
				mu.Lock()
				delete(open, hc)
				delete(open, ec)
				mu.Unlock()
			}()
			go half(ec, hc, traffic.Harness)
			go half(hc, ec, traffic.Engine)
		}
	}()
loop:
	for {
		select {
		case <-ctx.Done():
			break loop
		case sig := <-m.cfg.Signals:
			if sig == sigSnapshot {
				m.snapshot()
				continue
			}
			break loop
		}
	}
	ln.Close()
	mu.Lock()
	for c := range open {
		c.Close()
	}
	mu.Unlock()
	wg.Wait()
	return nil
}
