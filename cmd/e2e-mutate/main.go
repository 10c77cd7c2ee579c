// Command e2e-mutate is a mutating proxy for the e2e engine protocol: it
// starts an engine server as its child and relays its traffic, applying one
// mutation to what the engine sends (client-to-engine traffic is never
// changed):
//
//	e2e-mutate --mutant ID [--mutant-seed N] [--record FILE [--census]] -- ENGINE ARGS...
//	e2e-mutate --list
//
// With --mutant none the proxy is transparent: the child's exit status is
// passed on, SIGTERM and SIGINT are forwarded, the end of stdin closes the
// child's stdin, stderr passes through. Give the whole command to a client
// as the engine, e.g. e2e-conform --spawn "e2e-mutate --mutant
// drop@result:engine/observe#/viewport -- ./my-engine".
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
	"io"
	"os"

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
	if err := fs.Parse(args); err != nil {
		return 2
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
	if fs.NArg() == 0 {
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
