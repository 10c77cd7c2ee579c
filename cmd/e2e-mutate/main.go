// Command e2e-mutate is a mutating proxy for the e2e engine protocol: it
// starts an engine server as its child and relays its traffic, applying one
// mutation to what the engine sends (client-to-engine traffic is never
// changed):
//
//	e2e-mutate --mutant ID [--mutant-seed N] [--record FILE [--census]] -- ENGINE ARGS...
//	e2e-mutate --mutant ID --listen 127.0.0.1:7001 --connect 127.0.0.1:7000
//	e2e-mutate --list
//
// With --mutant none the proxy is transparent: the child's exit status is
// passed on, SIGTERM and SIGINT are forwarded, the end of stdin closes the
// child's stdin, stderr passes through. Give the whole command to a client
// as the engine, e.g. e2e-conform --spawn "e2e-mutate --mutant
// drop@result:engine/observe#/viewport -- ./my-engine".
//
// The TCP form relays each connection accepted on --listen to a new
// connection to the engine server at --connect.
//
// --record names a file the relays of one run share: a mutant fires once
// per run (not once per connection) and each firing is logged there;
// --census also logs every mutant the traffic could have fired. Mutants
// and their classification are in package conformance/mutate.
package main

import (
	"context"
	"flag"
	"fmt"
	"github.com/e2e-conform/toolkit/internal/buildinfo"
	"io"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/e2e-conform/toolkit/conformance/mutate"
)

func main() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("e2e-mutate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	id := fs.String("mutant", "none", "the mutant `ID` to apply (none: relay unchanged)")
	seed := fs.Int("mutant-seed", 0, "skip the first `N` eligible messages of each connection")
	record := fs.String("record", "", "run record `file` shared by the connections of one run")
	census := fs.Bool("census", false, "with --record: log every mutant the traffic could fire")
	list := fs.Bool("list", false, "list the mutants with their classification")
	listen := fs.String("listen", "", "TCP form: accept clients on `host:port`")
	connect := fs.String("connect", "", "TCP form: the engine server's `host:port`")
	version := fs.Bool("version", false, "print the version (module, VCS revision, Go) and exit")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *version {
		fmt.Fprintln(stdout, buildinfo.Read().Line("e2e-mutate"))
		return 0
	}
	if *list {
		ms, err := mutate.Mutants()
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		for _, m := range ms {
			fmt.Fprintf(stdout, "%s\t%s\t%s\n", m.ID, m.Class, m.Rule)
		}
		return 0
	}
	tcp := *listen != "" || *connect != ""
	if tcp && (*listen == "" || *connect == "" || fs.NArg() > 0) {
		fmt.Fprintln(stderr, "e2e-mutate: the TCP form takes --listen and --connect and no engine command")
		return 2
	}
	if !tcp && fs.NArg() == 0 {
		fmt.Fprintln(stderr, "e2e-mutate: no engine command: e2e-mutate --mutant ID -- ENGINE ARGS...")
		return 2
	}
	m, err := mutate.Lookup(*id)
	if err != nil {
		fmt.Fprintln(stderr, "e2e-mutate:", err)
		return 2
	}
	opts := mutate.Options{Mutant: m, Seed: *seed, Census: *census}
	if *record != "" {
		opts.Record = mutate.NewRecord(*record)
	}
	if tcp {
		l, err := net.Listen("tcp", *listen)
		if err != nil {
			fmt.Fprintln(stderr, "e2e-mutate:", err)
			return 1
		}
		fmt.Fprintf(stderr, "e2e-mutate: listening on %s, relaying to %s\n", l.Addr(), *connect)
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
		defer stop()
		if err := mutate.Serve(ctx, l, *connect, opts); err != nil {
			fmt.Fprintln(stderr, "e2e-mutate:", err)
			return 1
		}
		return 0
	}
	code, err := mutate.Spawn(context.Background(), mutate.SpawnOptions{
		Command: fs.Arg(0), Args: fs.Args()[1:],
		Stdin: stdin, Stdout: stdout, Stderr: stderr,
		ForwardSignals: true, Relay: opts,
	})
	if err != nil {
		fmt.Fprintln(stderr, "e2e-mutate:", err)
	}
	return code
}
