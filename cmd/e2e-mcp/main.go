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
	"os"
	"os/signal"
	"syscall"
	"time"

	webengine "github.com/e2e-conform/toolkit/reference-engine"

	"github.com/e2e-conform/toolkit/internal/procs"
	"github.com/e2e-conform/toolkit/mcp/cli"
	"github.com/e2e-conform/toolkit/protocol/transport"
)

func main() {
	// A vanished client must not kill the host before it stops its
	// children (spec mcp.md §8.6).
	signal.Ignore(syscall.SIGPIPE)
	proto := os.Stdout
	os.Stdout = os.Stderr // stray prints never reach the protocol stream
	cwd, err := os.Getwd()
	if err != nil {
		os.Stderr.WriteString("e2e mcp: " + err.Error() + "\n")
		os.Exit(cli.ExitInfra)
	}
	// A child subreaper (Linux): what an engine, an app command or a
	// Chromium started and orphaned (setsid and a dead parent) comes back
	// here, and is killed and reaped before exit.
	_ = procs.BecomeSubreaper()
	code := cli.Main(cli.Env{
		Args: os.Args[1:], Stdin: os.Stdin, Stdout: proto, Stderr: os.Stderr, Cwd: cwd,
		BuiltinWeb: func(headed bool) transport.Transport {
			return webengine.Transport(webengine.Options{Headed: headed})
		},
	})
	procs.EndChildren(time.Now().Add(endWait))
	os.Exit(code)
}

// endWait bounds how long the last step waits for the leftover processes
// it kills to exit.
const endWait = 5 * time.Second
