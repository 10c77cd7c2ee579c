package webengine

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/e2e-conform/toolkit/internal/buildinfo"
	"github.com/e2e-conform/toolkit/protocol/server"
)

// Main is the e2e-web-engine command:
//
//	e2e-web-engine [--listen host:port] [--chromium PATH | --cdp-endpoint URL [--cdp-header "Name: value"]...] [--headed] [--no-video] [-v]
//
// Without --listen it serves stdin and stdout (the spawn transport); with it,
// every TCP connection gets its own engine and browser. With --cdp-endpoint
// (default $E2E_CDP_ENDPOINT) the engine attaches to that remote browser (a
// pool) instead of launching Chromium; --cdp-header adds a header to its
// requests. Neither is ever logged unredacted. Logs go to stderr;
// stdout carries the protocol only. Exit status: 0 after shutdown and exit,
// 1 otherwise, 2 for a usage error.
func Main(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet(Name, flag.ContinueOnError)
	fl.SetOutput(stderr)
	listen := fl.String("listen", "", "serve TCP connections on `host:port` instead of stdin and stdout")
	chromium := fl.String("chromium", "", "Chromium's binary (default $E2E_CHROMIUM, else /usr/bin/chromium-headless-shell when installed and not --headed, else /usr/bin/chromium)")
	headed := fl.Bool("headed", false, "show the browser window")
	noVideo := fl.Bool("no-video", false, "leave video recording out of the manifest")
	cdpEndpoint := fl.String("cdp-endpoint", os.Getenv("E2E_CDP_ENDPOINT"), "attach to the remote browser (a pool) at `URL` (ws://, wss://, http:// or https://) instead of launching Chromium (default $E2E_CDP_ENDPOINT)")
	var cdpHeaders headerFlag
	fl.Var(&cdpHeaders, "cdp-header", "a `\"Name: value\"` header for --cdp-endpoint's requests (repeatable)")
	verbose := fl.Bool("v", false, "log diagnostics to stderr")
	version := fl.Bool("version", false, "print the version (module, VCS revision, Go) and exit")
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: e2e-web-engine [--listen host:port] [--chromium PATH | --cdp-endpoint URL [--cdp-header \"Name: value\"]...] [--headed] [--no-video] [-v] | --version")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fl.NArg() > 0 {
		fmt.Fprintf(stderr, "%s: unexpected argument %q\n", Name, fl.Arg(0))
		return 2
	}
	if *version {
		fmt.Fprintln(stdout, buildinfo.Read().Line(Name))
		return 0
	}
	level := slog.LevelWarn
	if *verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level})).With("engine", Name)
	opts := Options{ExecutablePath: *chromium, Headed: *headed, NoVideo: *noVideo, Logger: log,
		CDPEndpoint: *cdpEndpoint, CDPHeaders: cdpHeaders.h}
	if err := opts.validate(); err != nil {
		fmt.Fprintf(stderr, "%s: --cdp-endpoint: %v\n", Name, err)
		return 2
	}
	sopts := server.Options{Logger: log}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if *listen != "" {
		l, err := net.Listen("tcp", *listen)
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", Name, err)
			return 1
		}
		fmt.Fprintf(stderr, "%s: listening on %s\n", Name, l.Addr())
		if err := server.ServeListener(ctx, l, nil, Factory(opts), sopts); err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", Name, err)
			return 1
		}
		return 0
	}
	var rw io.ReadWriteCloser = stdio{stdout}
	if stdout == os.Stdout {
		rw = server.Stdio()
	}
	err := server.ServeFactory(ctx, Factory(opts), rw, sopts)
	if err != nil {
		if !errors.Is(err, server.ErrClosedWithoutShutdown) {
			log.Error("serve", "error", err)
		}
		return 1
	}
	return 0
}

// headerFlag is the repeatable --cdp-header "Name: value".
type headerFlag struct{ h http.Header }

// String implements flag.Value; header values are secrets and are not
// shown.
func (f *headerFlag) String() string {
	if f == nil || len(f.h) == 0 {
		return ""
	}
	names := make([]string, 0, len(f.h))
	for k := range f.h {
		names = append(names, k+": …")
	}
	return strings.Join(names, ", ")
}

// Set implements flag.Value.
func (f *headerFlag) Set(v string) error {
	name, value, ok := strings.Cut(v, ":")
	name = strings.TrimSpace(name)
	if !ok || name == "" || strings.ContainsAny(name, " \t") {
		return errors.New(`want "Name: value"`)
	}
	if f.h == nil {
		f.h = http.Header{}
	}
	f.h.Add(name, strings.TrimSpace(value))
	return nil
}

// stdio joins stdin and the given stdout.
type stdio struct{ out io.Writer }

func (stdio) Read(p []byte) (int, error)    { return os.Stdin.Read(p) }
func (s stdio) Write(p []byte) (int, error) { return s.out.Write(p) }
func (stdio) Close() error {
	os.Stdin.Close()
	return nil
}
