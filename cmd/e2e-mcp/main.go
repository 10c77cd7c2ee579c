// Command e2e-mcp is the reference MCP host for coding agents: it serves an
// e2e project's app over MCP on stdio (see mcp/README.md).
//
//	e2e-mcp [--config <path>] [--target <name>] [--headed] [--max-sessions <n>]
package main

import (
	"os"
	"os/signal"
	"syscall"

	webengine "github.com/e2e-conform/toolkit/reference-engine"

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
	os.Exit(cli.Main(cli.Env{
		Args: os.Args[1:], Stdin: os.Stdin, Stdout: proto, Stderr: os.Stderr, Cwd: cwd,
		BuiltinWeb: func(headed bool) transport.Transport {
			return webengine.Transport(webengine.Options{Headed: headed})
		},
	}))
}
