package monitor_test

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"testing"

	"github.com/e2e-conform/toolkit/conformance/monitor"
	"github.com/e2e-conform/toolkit/protocol/frame"
)

// plainRelay spawns engine and copies the harness's pipes to it and back
// with io.Copy: the baseline the monitor is measured against.
func plainRelay(b *testing.B, stdin io.Reader, stdout io.Writer, engine string) func() {
	cmd := exec.Command(engine)
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _, _ = io.Copy(in, stdin); in.Close() }()
	go func() { _, _ = io.Copy(stdout, out); close(done) }()
	return func() { <-done; _ = cmd.Wait() }
}

// BenchmarkRelay measures a round trip (a request for an unknown method,
// bare or padded to 256 KiB, and its -32601 answer) between a harness and
// the example engine through a plain byte relay and through the monitor,
// in the same run; the goal is monitor ≤ 1.2x plain.
func BenchmarkRelay(b *testing.B) {
	engine := bins.Path(b, "example-engine")
	for _, pad := range []int{0, 256 << 10} {
		for _, mode := range []string{"plain", "monitor"} {
			b.Run(fmt.Sprintf("pad=%dKiB/%s", pad>>10, mode), func(b *testing.B) { benchRelay(b, engine, mode, pad) })
		}
	}
}

// benchRelay is one case of BenchmarkRelay: requests padded with pad bytes
// through mode ("plain" or "monitor").
func benchRelay(b *testing.B, engine, mode string, pad int) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var wait func()
	switch mode {
	case "plain":
		w := plainRelay(b, inR, outW, engine)
		wait = func() { w(); outW.Close() }
	case "monitor":
		done := make(chan struct{})
		go func() {
			_, _, _ = monitor.Run(context.Background(), monitor.Config{Command: []string{engine}, Stdin: inR, Stdout: outW, Stderr: io.Discard})
			outW.Close()
			close(done)
		}()
		wait = func() { <-done }
	}
	fr := frame.NewReader(outR, frame.Options{})
	padding := strings.Repeat("x", pad)
	roundTrip := func(id int) {
		msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"foo/bar","params":{"pad":%q}}`, id, padding)
		if _, err := inW.Write(frame.Append(nil, []byte(msg))); err != nil {
			b.Fatal(err)
		}
		if _, err := fr.Next(); err != nil {
			b.Fatal(err)
		}
	}
	hs := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientInfo":{"name":"bench"},"role":"worker"}}`
	_, _ = inW.Write(frame.Append(nil, []byte(hs)))
	if _, err := fr.Next(); err != nil {
		b.Fatal(err)
	}
	_, _ = inW.Write(frame.Append(nil, []byte(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)))
	b.SetBytes(int64(pad))
	b.ResetTimer()
	for i := range b.N {
		roundTrip(i + 1)
	}
	b.StopTimer()
	inW.Close()
	go func() { _, _ = io.Copy(io.Discard, outR) }()
	wait()
	inR.Close()
}
