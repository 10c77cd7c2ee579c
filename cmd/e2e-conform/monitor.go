package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"github.com/e2e-conform/toolkit/conformance/monitor"
	"github.com/e2e-conform/toolkit/conformance/report"
)

// runMonitor is `e2e-conform monitor [flags] -- ./my-engine args…` and
// `e2e-conform monitor --listen ADDR --connect ADDR`: flags to a
// monitor.Config (package conformance/monitor relays and judges). In spawn
// mode stdin and stdout are the protocol's: the summary goes to stderr.
func runMonitor(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("e2e-conform monitor", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg monitor.Config
	fs.StringVar(&cfg.Listen, "listen", "", "accept harness connections on `host:port` (socket; with --connect)")
	fs.StringVar(&cfg.Connect, "connect", "", "relay each accepted connection to the engine at `host:port`")
	fs.StringVar(&cfg.JSON, "json", "", "write the JSON report to `path` (%p in a path: the monitor's process id)")
	fs.StringVar(&cfg.HTML, "html", "", "write the HTML report to `path`")
	fs.StringVar(&cfg.JUnit, "junit", "", "write a JUnit XML report to `path`")
	fs.StringVar(&cfg.Trace, "trace", "", "write every frame judged, as JSON lines, to `path`")
	fs.BoolVar(&cfg.Fail, "fail", false, "exit 1 at the end of the session when a violation was seen (else: the engine's exit status)")
	judge := fs.String("judge", string(monitor.JudgeBoth), "the sides judged: `both`, engine or harness")
	fs.IntVar(&cfg.QueueChunks, "queue", 1024, "the judge's queue, in reads of up to 32 KiB: past it traffic is relayed and counted, not judged")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), `usage: e2e-conform monitor [flags] -- ./my-engine args...
       e2e-conform monitor [flags] --listen 127.0.0.1:7001 --connect 127.0.0.1:7000
  relays every byte between a harness and an engine unchanged, judges the traffic with the
  rules traffic alone can decide (engine and harness side), and writes a report at exit and on
  SIGUSR1. Its verdict is "violations" or "no violation seen in this traffic (N frames, M methods)",
  never "conformant".
exit status: the engine's (spawn) or 0 (socket); 1 with --fail when a violation was seen; 2 usage error`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return report.ExitUsage
	}
	switch monitor.Judge(*judge) {
	case monitor.JudgeBoth, monitor.JudgeEngine, monitor.JudgeHarness:
		cfg.Judge = monitor.Judge(*judge)
	default:
		fmt.Fprintf(stderr, "e2e-conform monitor: --judge %q: want both, engine or harness\n", *judge)
		return report.ExitUsage
	}
	// A harness that spawns an engine per connection spawns a monitor per
	// connection: %p in a report path is the monitor's process id.
	for _, p := range []*string{&cfg.JSON, &cfg.HTML, &cfg.JUnit, &cfg.Trace} {
		*p = strings.ReplaceAll(*p, "%p", strconv.Itoa(os.Getpid()))
	}
	cfg.Command = fs.Args()
	if len(cfg.Command) == 0 {
		cfg.Command = nil
	}
	cfg.Stdin, cfg.Stdout, cfg.Stderr = stdin, stdout, stderr
	cfg.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGUSR1)
	defer signal.Stop(sigs)
	cfg.Signals = sigs
	if cfg.Listen != "" {
		cfg.Ready = func(addr string) {
			fmt.Fprintf(stderr, "e2e-conform monitor: listening on %s, relaying to %s\n", addr, cfg.Connect)
		}
	}
	r, code, err := monitor.Run(context.Background(), cfg)
	if err != nil {
		fmt.Fprintf(stderr, "e2e-conform monitor: %v\n", err)
		if r == nil {
			fs.Usage()
			return report.ExitUsage
		}
	}
	fmt.Fprintf(stderr, "e2e-conform monitor: %s\n", r.Verdict)
	for _, v := range r.Monitor.Violations {
		fmt.Fprintf(stderr, "  %s (%s) %s at fault, conn %d: %s\n", v.Requirement, v.Section, v.Side, v.Conn, report.FirstLine(v.Message))
	}
	return code
}
