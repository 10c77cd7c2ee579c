// Package cli is the command line of e2e-mcp (spec mcp.md §1, §7): flags
// mapped to a session.Options, the MCP server on stdio, signals, and exit
// codes. cmd/e2e-mcp is a thin main around Main.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/e2e-conform/toolkit/internal/buildinfo"
	"github.com/e2e-conform/toolkit/mcp/oplog"
	"github.com/e2e-conform/toolkit/mcp/redact"
	"github.com/e2e-conform/toolkit/mcp/server"
	"github.com/e2e-conform/toolkit/mcp/session"
	"github.com/e2e-conform/toolkit/mcp/stdio"
	"github.com/e2e-conform/toolkit/protocol/transport"
)

// Exit codes (spec §7.2).
const (
	ExitOK    = 0
	ExitUsage = 2
	ExitInfra = 3
	// ExitInternal: the MCP session ended although the client neither
	// disconnected nor was the host signalled (a defect of the host).
	ExitInternal = 4
)

// MCPServersSnippet is the mcpServers entry --help prints.
const MCPServersSnippet = `{"mcpServers": {"e2e": {"command": "/abs/path/to/bin/e2e-mcp", "args": ["--target", "web"]}}}`

// Version is the host's version.
const Version = "0.1.0"

// Env is what Main runs with.
type Env struct {
	Args   []string // without the program name
	Stdin  io.ReadCloser
	Stdout io.WriteCloser // the protocol stream only
	Stderr io.Writer
	Cwd    string
	// BuiltinWeb is the built-in web engine's transport.
	BuiltinWeb func(headed bool) transport.Transport
	// Signals delivers SIGINT/SIGTERM; nil subscribes to the process's.
	Signals <-chan os.Signal
	// Redactor holds the secret values; nil makes one. Pass the one a
	// Stray of the process redacts with.
	Redactor *redact.Redactor
	// Stray, when set, carries the process's stray output: the tail it
	// holds back is released each time no tool call is in flight (spec
	// mcp.md §6.2).
	Stray *Stray
}

// maxSessions is the --max-sessions flag value.
type maxSessions int

func (m *maxSessions) String() string { return strconv.Itoa(int(*m)) }

func (m *maxSessions) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > session.MaxMaxSessions {
		return errors.New("must be an integer from 1 through 16")
	}
	*m = maxSessions(n)
	return nil
}

// ErrVersion is what Parse returns for --version: Main prints the
// version and exits 0.
var ErrVersion = errors.New("--version")

// Parse maps the command line to host options.
func Parse(args []string, stderr io.Writer) (session.Options, error) {
	fs := flag.NewFlagSet("e2e-mcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o session.Options
	ms := maxSessions(session.DefaultMaxSessions)
	fs.StringVar(&o.ConfigPath, "config", "", "default `path` of the e2e.config.json every open_session loads (default: discovered from the working directory)")
	fs.StringVar(&o.Target, "target", "", "target `name` every session opens on unless open_session names one")
	fs.BoolVar(&o.Headed, "headed", false, "show the browser or simulator for every session whose open_session does not set headed")
	fs.Var(&ms, "max-sessions", "concurrent session slots, `n` from 1 through 16")
	version := fs.Bool("version", false, "print the version (module, VCS revision, Go) and exit")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "e2e-mcp: serve the project to a coding agent over MCP (stdio)\n\n"+
			"usage: e2e-mcp [--config <path>] [--target <name>] [--headed] [--max-sessions <n>]\n\n"+
			"examples:\n  e2e-mcp\n  e2e-mcp --target web --headed\n  e2e-mcp --max-sessions 8\n  claude mcp add e2e -- e2e-mcp\n\nflags:\n")
		fs.PrintDefaults()
		fmt.Fprintf(stderr, "\nregister it with an MCP client (.mcp.json, .cursor/mcp.json, .vscode/mcp.json; the absolute path of this binary):\n  %s\n", MCPServersSnippet)
	}
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if *version {
		return o, ErrVersion
	}
	o.MaxSessions = int(ms)
	return o, nil
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// Main runs e2e-mcp and returns its exit code.
func Main(env Env) int {
	opts, err := Parse(env.Args, env.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return ExitOK
	}
	if errors.Is(err, ErrVersion) {
		fmt.Fprintln(env.Stdout, buildinfo.Read().Line("e2e-mcp")+", mcp host "+Version)
		return ExitOK
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "%s%v\n", oplog.Prefix, err)
		return ExitUsage
	}
	red := env.Redactor
	if red == nil {
		red = redact.New()
	}
	// Operator lines go to stderr and, once the client set a level, to
	// the client as log notifications (spec §7.1).
	fw := server.NewForwarder()
	log := oplog.NewForwarding(env.Stderr, red, slog.LevelInfo, fw.Log)
	opts.Cwd, opts.Redactor, opts.Logger, opts.Version = env.Cwd, red, log, Version
	opts.BuiltinWeb = env.BuiltinWeb
	if env.Stray != nil {
		opts.OnIdle = func() { _ = env.Stray.Flush() }
	}
	// The SDK's own diagnostics: stderr only, never the client (they
	// would report on the sending of the notifications themselves).
	sdkLog := oplog.New(env.Stderr, red, slog.LevelInfo).With("component", "sdk")
	h, err := session.New(opts)
	if err != nil {
		fmt.Fprintf(env.Stderr, "%sINVALID_CONFIG: %v\n", oplog.Prefix, err)
		return ExitUsage
	}
	sigs := env.Signals
	if sigs == nil {
		c := make(chan os.Signal, 2)
		signal.Notify(c, os.Interrupt, syscall.SIGTERM)
		defer signal.Stop(c)
		sigs = c
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-sigs:
		case <-done:
			return
		}
		log.Info("signal received; closing every session")
		cancel()
		select {
		case <-sigs:
			log.Warn("second signal: killing every app process")
			h.KillAll()
		case <-done:
		}
	}()
	log.Info(fmt.Sprintf("e2e mcp %s serving %s", Version, env.Cwd))
	srv := server.New(server.Options{Host: h, Version: Version, Logger: sdkLog})
	fctx, fstop := context.WithCancel(context.Background())
	fdone := make(chan struct{})
	go func() { defer close(fdone); fw.Run(fctx, srv) }()
	// Not the SDK's stdio transport: one malformed line would end it
	// (see package stdio).
	t := &stdio.Transport{Reader: env.Stdin, Writer: nopCloser{env.Stdout}, Logger: log}
	err = server.Serve(ctx, srv, h, t, log)
	fstop()
	// A send blocked on a client that stopped reading must not hold the
	// exit.
	select {
	case <-fdone:
	case <-time.After(time.Second):
	}
	switch {
	case ctx.Err() != nil:
		return ExitOK // a signal
	case t.Disconnected():
		if err != nil && !errors.Is(err, io.EOF) {
			log.Info("server stopped: " + err.Error())
		}
		return ExitOK
	}
	// Only a disconnect or a signal ends the server with 0 (spec §7.2).
	msg := "the MCP session ended without a client disconnect"
	if err != nil {
		msg += ": " + err.Error()
	}
	log.Error(msg)
	return ExitInternal
}
