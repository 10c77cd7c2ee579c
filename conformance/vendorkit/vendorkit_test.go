// Package vendorkit_test shows and checks the vendor kit: the conformance
// suite run inside an engine vendor's own `go test`, against two
// configurations of one engine (spawned, and over TCP).
package vendorkit_test

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/e2e-conform/toolkit/conformance"
)

func TestVendorKit(t *testing.T) {
	dir := t.TempDir()
	if out, err := exec.Command("go", "build", "-o", dir+"/", "../../fixtures/example/cmd/example-engine").CombinedOutput(); err != nil {
		t.Fatalf("building the example engine: %v\n%s", err, out)
	}
	engine := filepath.Join(dir, "example-engine")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	ctx, cancel := context.WithCancel(context.Background())
	srv := exec.CommandContext(ctx, engine, "--listen", addr)
	srv.Stderr = os.Stderr
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cancel(); srv.Wait() }()
	for deadline := time.Now().Add(10 * time.Second); ; {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the engine does not listen on %s", addr)
		}
		time.Sleep(20 * time.Millisecond) // polling a port the child opens
	}
	conformance.RunTests(t,
		conformance.Config{Name: "example engine over stdio", Spawn: []string{engine}},
		conformance.Config{Name: "example engine over TCP", Connect: addr})
}
