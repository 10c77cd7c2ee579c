package mutate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
)

// SpawnOptions configures Spawn.
type SpawnOptions struct {
	Command string
	Args    []string
	// Stdin, Stdout and Stderr are the client side: the proxy's own
	// standard streams in the e2e-mutate command. Stderr receives the
	// engine's stderr unchanged.
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// ForwardSignals relays SIGTERM and SIGINT received by this process to
	// the engine.
	ForwardSignals bool
	Relay          Options
}

// Spawn starts the engine as a child process and relays between the
// client streams and the child's stdin and stdout (see Relay). The child
// stays in this process's process group, so a client that kills the group
// kills both; on Linux it also dies when this process does. Spawn returns
// when the child has exited and its output is written: the exit status to
// pass on is 0 when the child exited with 0, the child's status when it
// exited with another, 1 when a signal ended it.
func Spawn(ctx context.Context, o SpawnOptions) (int, error) {
	cmd := exec.Command(o.Command, o.Args...)
	cmd.Stderr = o.Stderr
	cmd.SysProcAttr = sysProcAttr()
	in, err := cmd.StdinPipe()
	if err != nil {
		return 1, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return 1, err
	}
	if err := cmd.Start(); err != nil {
		return 1, fmt.Errorf("mutate: starting the engine: %w", err)
	}
	stopSignals := func() {}
	if o.ForwardSignals {
		sigs := make(chan os.Signal, 4)
		signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
		done := make(chan struct{})
		go func() {
			for {
				select {
				case s := <-sigs:
					_ = cmd.Process.Signal(s)
				case <-done:
					return
				}
			}
		}()
		stopSignals = func() { signal.Stop(sigs); close(done) }
	}
	defer stopSignals()
	relayErr := Relay(ctx, o.Stdin, in, out, o.Stdout, o.Relay)
	err = cmd.Wait()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, relayErr
	case errors.As(err, &ee):
		if code := ee.ExitCode(); code > 0 {
			return code, relayErr
		}
		return 1, relayErr
	}
	return 1, err
}
