package monitor_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/e2e-conform/toolkit/conformance/monitor"
	"github.com/e2e-conform/toolkit/protocol/frame"
)

// TestSignals: SIGUSR1 writes the report of what was judged so far while
// the session goes on; SIGTERM is forwarded to the engine, whose end ends
// the session with its status.
func TestSignals(t *testing.T) {
	dir := t.TempDir()
	sigs := make(chan os.Signal, 1)
	reports := make(chan *monitor.Report, 4)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	type outcome struct {
		code int
		err  error
	}
	done := make(chan outcome, 1)
	go func() {
		_, code, err := monitor.Run(context.Background(), monitor.Config{
			Command: []string{bins.Path(t, "example-engine")}, Stdin: inR, Stdout: outW, Stderr: io.Discard,
			JSON: filepath.Join(dir, "m.json"), Signals: sigs, Reports: func(r *monitor.Report) { reports <- r },
		})
		outW.Close()
		done <- outcome{code, err}
	}()
	fr := frame.NewReader(outR, frame.Options{})
	if _, err := inW.Write(frame.Append(nil, []byte(initialize))); err != nil {
		t.Fatal(err)
	}
	if _, err := fr.Next(); err != nil {
		t.Fatal(err)
	}
	sigs <- syscall.SIGUSR1
	// The report holds what was judged when the signal came: the reads
	// handed to the judge by then (a read is handed over once relayed, so
	// the last one may still be on its way).
	r := <-reports
	if r.Monitor.Frames > 2 {
		t.Errorf("the SIGUSR1 report saw %d frames of 2", r.Monitor.Frames)
	}
	if _, err := os.Stat(filepath.Join(dir, "m.json")); err != nil {
		t.Errorf("no report file at SIGUSR1: %v", err)
	}
	sigs <- syscall.SIGTERM
	go func() { _, _ = io.Copy(io.Discard, outR) }()
	o := <-done
	inW.Close()
	inR.Close()
	if final := <-reports; final.Monitor.Frames != 2 {
		t.Errorf("the final report saw %d frames, want 2", final.Monitor.Frames)
	}
	if o.err != nil || o.code == 0 {
		t.Errorf("after SIGTERM the session ended with %d, %v; want the engine's non-zero status", o.code, o.err)
	}
	t.Logf("engine status after SIGTERM: %d", o.code)
}
