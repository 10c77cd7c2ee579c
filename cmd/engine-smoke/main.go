// Command engine-smoke connects to an engine server, sends every method its
// manifest lists once, and reports which were answered. It is a smoke
// check, not a conformance verdict (that is e2e-conform's job): a method
// passes when the server answers it with a result or a classified engine or
// e2e error; it fails on a lost connection, a malformed answer or -32601.
//
//	engine-smoke --spawn "./bin/example-engine"
//	engine-smoke --connect 127.0.0.1:7000
//
// Exit status: 0 every listed method answered, 1 some did not, 2 usage.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/e2e-conform/toolkit/internal/buildinfo"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/e2e-conform/toolkit/protocol/client"
	"github.com/e2e-conform/toolkit/protocol/engineerr"
	"github.com/e2e-conform/toolkit/protocol/transport"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("engine-smoke", flag.ContinueOnError)
	fs.SetOutput(stderr)
	spawn := fs.String("spawn", "", "start the engine server as a child process: `command and arguments`")
	connect := fs.String("connect", "", "connect to an engine server listening on `host:port`")
	timeout := fs.Duration("timeout", 30*time.Second, "budget of each call")
	version := fs.Bool("version", false, "print the version (module, VCS revision, Go) and exit")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *version {
		fmt.Fprintln(stdout, buildinfo.Read().Line("engine-smoke"))
		return 0
	}
	var tr transport.Transport
	switch {
	case *spawn != "" && *connect == "":
		parts := strings.Fields(*spawn)
		tr = transport.Spawn(transport.SpawnOptions{Command: parts[0], Args: parts[1:], Env: map[string]string{"PATH": os.Getenv("PATH")}})
	case *connect != "" && *spawn == "":
		host, port, err := net.SplitHostPort(*connect)
		n, perr := strconv.Atoi(port)
		if err != nil || perr != nil {
			fmt.Fprintf(stderr, "engine-smoke: --connect %q is not host:port\n", *connect)
			return 2
		}
		tr = transport.Socket(transport.SocketOptions{Host: host, Port: n})
	default:
		fmt.Fprintln(stderr, "engine-smoke: give exactly one of --spawn and --connect")
		fs.Usage()
		return 2
	}
	cwd, _ := os.Getwd()
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	c, err := client.Open(ctx, client.ConnConfig{Transport: tr, Context: transport.Context{Role: wire.RoleWorker, Cwd: cwd, Env: map[string]string{}}})
	cancel()
	if err != nil {
		fmt.Fprintf(stderr, "engine-smoke: %v\n", err)
		return 1
	}
	m := c.Manifest()
	fmt.Fprintf(stdout, "engine %s %s (platform %q): %d methods\n", m.Name, m.Version, m.Platform, len(m.Methods))
	dir, err := os.MkdirTemp("", "engine-smoke-*")
	if err != nil {
		fmt.Fprintf(stderr, "engine-smoke: %v\n", err)
		return 1
	}
	defer os.RemoveAll(dir)
	s := &smoke{c: c, m: m, out: stdout, timeout: *timeout, dir: dir}
	s.all()
	if err := c.Close(5 * time.Second); err != nil {
		fmt.Fprintf(stdout, "FAIL close: %v\n", err)
		s.failed++
	}
	fmt.Fprintf(stdout, "%d passed, %d failed\n", s.passed, s.failed)
	if s.failed > 0 {
		return 1
	}
	return 0
}

type smoke struct {
	c              *client.Conn
	m              wire.Manifest
	out            io.Writer
	timeout        time.Duration
	dir            string
	passed, failed int
}

// check records one method's outcome: classified engine and e2e errors are
// answers; infrastructure failures are not.
func (s *smoke) check(method string, err error) {
	var e2 *engineerr.E2EError
	switch {
	case err == nil:
		fmt.Fprintf(s.out, "ok   %s\n", method)
		s.passed++
	case errors.As(err, &e2) && e2.Category == engineerr.CategoryInfrastructure:
		fmt.Fprintf(s.out, "FAIL %s: %v\n", method, err)
		s.failed++
	default:
		fmt.Fprintf(s.out, "ok   %s (answered with an error: %v)\n", method, err)
		s.passed++
	}
}

func (s *smoke) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), s.timeout)
}

func (s *smoke) do(method string, fn func(ctx context.Context) error) {
	if !s.m.Lists(method) {
		return
	}
	ctx, cancel := s.ctx()
	defer cancel()
	s.check(method, fn(ctx))
}

func (s *smoke) all() {
	c := s.c
	op := client.Op{RunID: "smoke-run", AttemptID: "smoke-attempt"}
	env := map[string]string{}
	s.do(wire.MethodPrepare, func(ctx context.Context) error {
		_, err := c.Prepare(ctx, wire.PrepareParams{RunID: "smoke-run", TargetName: "smoke", ProjectRoot: s.dir, Slots: 1, Env: env})
		return err
	})
	s.do(wire.MethodInit, func(ctx context.Context) error {
		return c.Init(ctx, wire.InitParams{RunID: "smoke-run", TargetName: "smoke", ProjectRoot: s.dir, Env: env})
	})
	s.do(wire.MethodStartAttempt, func(ctx context.Context) error {
		return c.StartAttempt(ctx, wire.StartAttemptParams{AttemptID: "smoke-attempt", ArtifactsDir: s.dir})
	})
	s.do(wire.MethodOpen, func(ctx context.Context) error { return c.Open(ctx, op, "about:blank") })
	var snap *wire.EngineSnapshot
	s.do(wire.MethodObserve, func(ctx context.Context) (err error) {
		snap, err = c.Observe(ctx, op, nil)
		return err
	})
	target := wire.NodeRef{ID: "root"}
	if snap != nil {
		target = snap.Root.Ref
		snap.Root.Walk(func(n *wire.SemanticNode) bool {
			if n.Role != nil {
				target = n.Ref
				return false
			}
			return true
		})
	}
	s.do(wire.MethodLocate, func(ctx context.Context) error {
		_, err := c.Locate(ctx, op, wire.LocatorExpression{Kind: "query", Query: &wire.SemanticQuery{Kind: "text", Value: wire.StringPattern("a", false)}})
		return err
	})
	s.do(wire.MethodPerform, func(ctx context.Context) error {
		kind := s.m.Actions[0]
		if s.m.HasAction("focus") {
			kind = "focus"
		}
		return c.Perform(ctx, op, target, smokeAction(kind, target))
	})
	s.do(wire.MethodPerformAt, func(ctx context.Context) error {
		kind := s.m.PointerActions[0]
		if s.m.HasPointerAction("hover") {
			kind = "hover"
		}
		return c.PerformAt(ctx, op, wire.ViewportPoint{X: 1, Y: 1}, smokePointer(kind))
	})
	s.do(wire.MethodType, func(ctx context.Context) error { return c.Type(ctx, op, "a", false) })
	s.do(wire.MethodPress, func(ctx context.Context) error { return c.Press(ctx, op, "Tab") })
	s.do(wire.MethodDismiss, func(ctx context.Context) error { return c.Dismiss(ctx, op) })
	var state *wire.EngineState
	s.do(wire.MethodCapture, func(ctx context.Context) (err error) {
		state, err = c.Capture(ctx, op)
		return err
	})
	s.do(wire.MethodRestore, func(ctx context.Context) error {
		if state == nil {
			return c.Restore(ctx, op, wire.EngineState{Format: "engine-smoke", Version: 1, Data: []byte(`{}`)})
		}
		return c.Restore(ctx, op, *state)
	})
	s.do(wire.MethodScreenshot, func(ctx context.Context) error { _, err := c.Screenshot(ctx, op, "smoke"); return err })
	s.do(wire.MethodStartVideo, func(ctx context.Context) error { return c.StartVideo(ctx, op) })
	s.do(wire.MethodStopVideo, func(ctx context.Context) error { _, err := c.StopVideo(ctx, op); return err })
	s.do(wire.MethodBack, func(ctx context.Context) error { return c.Back(ctx, op) })
	s.do(wire.MethodRestart, func(ctx context.Context) error { return c.Restart(ctx, op) })
	s.do(wire.MethodReset, func(ctx context.Context) error { return c.Reset(ctx, op) })
	s.do(wire.MethodSettleAttempt, func(ctx context.Context) error { return c.SettleAttempt(ctx, 5000) })
	s.do(wire.MethodEndAttempt, func(ctx context.Context) error { return c.EndAttempt(ctx, 5000) })
	s.do(wire.MethodDispose, func(ctx context.Context) error { return c.Dispose(ctx, 5000, nil) })
	s.do(wire.MethodFinish, func(ctx context.Context) error {
		return c.Finish(ctx, wire.FinishParams{RunID: "smoke-run", TargetName: "smoke", Env: env, TimeoutMs: 5000})
	})
}

func smokeAction(kind string, target wire.NodeRef) wire.LocatorAction {
	a := wire.LocatorAction{Kind: kind}
	switch kind {
	case "fill":
		a.Value = "smoke"
	case "press":
		a.Key = "Tab"
	case "selectOption":
		a.Option = wire.SelectOption{By: "index", Index: 0}
	case "setInputFiles":
		a.Paths = []string{"/dev/null"}
	case "dragTo":
		a.Target = &target
	case "swipe":
		a.Direction = "down"
	}
	return a
}

func smokePointer(kind string) wire.PointerAction {
	a := wire.PointerAction{Kind: kind}
	switch kind {
	case "dragTo", "swipeTo":
		a.Target = &wire.ViewportPoint{X: 2, Y: 2}
	case "swipe":
		a.Direction = "down"
	}
	return a
}
