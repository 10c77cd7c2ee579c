package conformance_test

import (
	"context"
	"fmt"
	"net"

	"github.com/e2e-conform/toolkit/conformance"
	"github.com/e2e-conform/toolkit/conformance/report"
	"github.com/e2e-conform/toolkit/fixtures/example"
	"github.com/e2e-conform/toolkit/protocol/server"
)

// Run checks an engine listening on a TCP address (here the example
// engine, served in this process) for a selection of requirements and
// gives the verdict. In a vendor's own `go test`, RunTests does the same
// per configuration and fails the test for each MUST that failed.
func ExampleRun() {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- server.ServeListener(ctx, l, example.New(), nil, server.Options{}) }()
	defer func() { stop(); <-served }()

	res, err := conformance.Run(conformance.Config{Connect: l.Addr().String(), Only: []string{"LIFE-001", "MAN"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Verdict, res.ExitCode, res.Counts[report.Failed])
	// Output: conformant 0 0
}
