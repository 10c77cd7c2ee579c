package server

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/e2e-conform/toolkit/protocol/schema"
	"github.com/e2e-conform/toolkit/protocol/transport"
)

// ServeListener accepts connections on l and serves each with ServeEngine
// (a shared engine) or ServeFactory (one engine per connection), concurrently,
// until ctx is cancelled or l fails (spec §9.2, §9.4). One connection's end,
// with or without shutdown, disturbs no other. It closes l and returns after
// every connection has ended.
//
// Implements: TRN-003, TRN-004, TRN-005, TRN-006.
func ServeListener(ctx context.Context, l net.Listener, engine Engine, factory Factory, opts Options) error {
	if (engine == nil) == (factory == nil) {
		return errors.New("server: ServeListener needs exactly one of engine and factory")
	}
	if opts.Schemas == nil {
		s, err := schema.Load()
		if err != nil {
			return err
		}
		opts.Schemas = s
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		<-ctx.Done()
		l.Close()
	}()
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		nc, err := l.Accept()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return nil
			}
			return err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			var err error
			if engine != nil {
				err = ServeEngine(ctx, engine, nc, opts)
			} else {
				err = ServeFactory(ctx, factory, nc, opts)
			}
			log.Debug("connection ended", "remote", nc.RemoteAddr().String(), "error", err)
		}()
	}
}

// LoopbackTransport serves engine in this process over in-memory streams
// (spec §9.3): every message is still framed and serialised.
func LoopbackTransport(engine Engine, opts Options) transport.Transport {
	name := engine.Info().Name
	return transport.Loopback(name, func(ctx context.Context, rwc io.ReadWriteCloser) error {
		err := ServeEngine(ctx, engine, rwc, opts)
		if errors.Is(err, ErrClosedWithoutShutdown) {
			return nil
		}
		return err
	})
}

// ServeStdio serves engine over the process's stdin and stdout, the way a
// spawned server runs (spec §9.1), and returns the process exit status:
// 0 after shutdown and exit, 1 otherwise (spec §2.5, §2.6). SIGTERM ends the
// connection as a close without shutdown. Nothing but the protocol is
// written to stdout; logs go to opts.Logger (use stderr).
//
// Implements: TRN-001, TRN-002, LIFE-007, LIFE-008.
func ServeStdio(engine Engine, opts Options) int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	err := ServeEngine(ctx, engine, Stdio(), opts)
	if err != nil {
		if opts.Logger != nil && !errors.Is(err, ErrClosedWithoutShutdown) {
			opts.Logger.Error("serve", "error", err)
		}
		return 1
	}
	return 0
}

// stdio joins stdin and stdout.
type stdio struct{ in, out io.ReadWriteCloser }

// Stdio returns the process's stdin and stdout as one stream for a
// spawned server (Close closes the input), each made pollable when it is a
// pipe or a socket: a read then parks only its goroutine, where a blocking
// pipe read holds a thread and every request's hand-off to its worker
// goroutine wakes another one (issue 11: the spawn round trip); on one P
// a pipe or socket is then read and written with raw system calls, which
// leave the runtime's monitor thread asleep (rawFile, stdioEnd; issue 30). Every server of
// this toolkit serving stdin and stdout uses it.
func Stdio() io.ReadWriteCloser {
	return stdio{in: stdioEnd(os.Stdin, "stdin", true), out: stdioEnd(os.Stdout, "stdout", false)}
}

func (s stdio) Read(p []byte) (int, error)  { return s.in.Read(p) }
func (s stdio) Write(p []byte) (int, error) { return s.out.Write(p) }
func (s stdio) Close() error {
	s.in.Close()
	return nil
}
