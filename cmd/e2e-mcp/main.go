// Command e2e-mcp is the reference MCP host for coding agents: it serves an
// e2e project's app over MCP on stdio (see mcp/README.md).
//
//	e2e-mcp [--config <path>] [--target <name>] [--headed] [--max-sessions <n>]
//
// On Linux it is a child subreaper: a process a session started that left
// its process group (setsid) and lost its parent comes back to it, and
// every process still below it at exit is killed and reaped. On other
// systems such a process is adopted by init and can outlive the host.
package main

import (
	"io"
	"log"
	"os"
	"os/signal"
	"syscall"
	"time"

	webengine "github.com/e2e-conform/toolkit/reference-engine"

	"github.com/e2e-conform/toolkit/internal/procs"
	"github.com/e2e-conform/toolkit/mcp/cli"
	"github.com/e2e-conform/toolkit/mcp/redact"
	"github.com/e2e-conform/toolkit/protocol/transport"
)

func main() { os.Exit(run()) }

func run() int {
	// A vanished client must not kill the host before it stops its
	// children (spec mcp.md §8.6).
	signal.Ignore(syscall.SIGPIPE)
	proto, stderr := os.Stdout, os.Stderr
	cwd, err := os.Getwd()
	if err != nil {
		stderr.WriteString("e2e mcp: " + err.Error() + "\n")
		return cli.ExitInfra
	}
	// Stray prints never reach the protocol stream, nor the operator's
	// stderr unredacted: they go through one stream redactor (spec §6.2,
	// §8.6).
	red := redact.New()
	copied := make(chan struct{})
	var stray *cli.Stray
	if pr, pw, err := os.Pipe(); err == nil {
		stray = cli.NewStray(red, stderr)
		go func() {
			defer close(copied)
			_, _ = io.Copy(stray, pr)
			_ = stray.Close()
		}()
		os.Stdout, os.Stderr = pw, pw
		log.SetOutput(pw)
		defer func() { _ = pw.Close(); <-copied }()
	} else {
		os.Stdout = stderr
		close(copied)
	}
	// A child subreaper (Linux): what an engine, an app command or a
	// Chromium started and orphaned (setsid and a dead parent) comes back
	// here, and is killed and reaped before exit.
	_ = procs.BecomeSubreaper()
	code := cli.Main(cli.Env{
		Args: os.Args[1:], Stdin: os.Stdin, Stdout: proto, Stderr: stderr, Cwd: cwd, Redactor: red, Stray: stray,
		BuiltinWeb: func(headed bool) transport.Transport {
			return webengine.Transport(webengine.Options{Headed: headed})
		},
	})
	procs.EndChildren(time.Now().Add(endWait))
	return code
}

// endWait bounds how long the last step waits for the leftover processes
// it kills to exit.
const endWait = 5 * time.Second
