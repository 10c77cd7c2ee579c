package monitor_test

import (
	"context"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/e2e-conform/toolkit/conformance/monitor"
	"github.com/e2e-conform/toolkit/fixtures/example"
	"github.com/e2e-conform/toolkit/protocol/client"
	"github.com/e2e-conform/toolkit/protocol/server"
	"github.com/e2e-conform/toolkit/protocol/transport"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// hashedConn hashes what crosses a connection each way.
type hashedConn struct {
	net.Conn
	read, wrote *hashed
}

func (c hashedConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.read.add(p[:n])
	return n, err
}

func (c hashedConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.wrote.add(p[:n])
	return n, err
}

// hashedTransport is a socket transport whose connection's bytes are
// hashed both ways.
type hashedTransport struct {
	inner       transport.Transport
	read, wrote *hashed
}

func (t hashedTransport) Label() string { return t.inner.Label() }

func (t hashedTransport) Open(ctx context.Context, tc transport.Context) (transport.Conn, error) {
	c, err := t.inner.Open(ctx, tc)
	if err != nil {
		return nil, err
	}
	return hashedTransportConn{Conn: c, read: t.read, wrote: t.wrote}, nil
}

type hashedTransportConn struct {
	transport.Conn
	read, wrote *hashed
}

func (c hashedTransportConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.read.add(p[:n])
	return n, err
}

func (c hashedTransportConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.wrote.add(p[:n])
	return n, err
}

// TestSocketThroughMonitor: `monitor --listen --connect`: the client
// connects to the monitor, which relays to the example engine served on
// TCP in this process; bytes equal both ways, no violation.
func TestSocketThroughMonitor(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	engineRead, engineWrote := newHashed(), newHashed()
	served := make(chan error, 1)
	go func() {
		c, err := ln.Accept()
		ln.Close()
		if err != nil {
			served <- err
			return
		}
		served <- server.ServeEngine(context.Background(), example.New(), hashedConn{Conn: c, read: engineRead, wrote: engineWrote}, server.Options{Schemas: schemas})
	}()
	ctx, stop := context.WithCancel(context.Background())
	addr := make(chan string, 1)
	type outcome struct {
		r    *monitor.Report
		code int
		err  error
	}
	done := make(chan outcome, 1)
	go func() {
		r, code, err := monitor.Run(ctx, monitor.Config{Listen: "127.0.0.1:0", Connect: ln.Addr().String(), Ready: func(a string) { addr <- a }})
		done <- outcome{r, code, err}
	}()
	host, port, _ := net.SplitHostPort(<-addr)
	p, _ := strconv.Atoi(port)
	harnessRead, harnessWrote := newHashed(), newHashed()
	tr := hashedTransport{inner: transport.Socket(transport.SocketOptions{Host: host, Port: p}), read: harnessRead, wrote: harnessWrote}
	cctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := client.Open(cctx, client.ConnConfig{Transport: tr, Schemas: schemas, ClientInfo: wire.ClientInfo{Name: "monitor-test"}, Context: clientContext()})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	if err := c.Init(cctx, wire.InitParams{RunID: "r1", TargetName: "t", ProjectRoot: "/tmp", Env: map[string]string{}}); err != nil {
		t.Fatal(err)
	}
	if err := c.StartAttempt(cctx, wire.StartAttemptParams{AttemptID: "a1", ArtifactsDir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Observe(cctx, client.Op{RunID: "r1"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.EndAttempt(cctx, 1000); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	if err := <-served; err != nil {
		t.Errorf("engine: %v", err)
	}
	stop()
	o := <-done
	if o.err != nil || o.code != 0 {
		t.Fatalf("monitor: %d %v", o.code, o.err)
	}
	if harnessWrote.sum() != engineRead.sum() || harnessWrote.n == 0 {
		t.Errorf("harness → engine: %d bytes written, %d read, hashes differ or nothing crossed", harnessWrote.n, engineRead.n)
	}
	if engineWrote.sum() != harnessRead.sum() || engineWrote.n == 0 {
		t.Errorf("engine → harness: %d bytes written, %d read, hashes differ or nothing crossed", engineWrote.n, harnessRead.n)
	}
	for _, v := range o.r.Monitor.Violations {
		t.Errorf("violation %s (%s at fault): %s", v.Requirement, v.Side, v.Message)
	}
	if o.r.Transport != "socket" || o.r.Monitor.Connections != 1 || o.r.Monitor.Frames == 0 {
		t.Errorf("report: transport %s, %d connections, %d frames", o.r.Transport, o.r.Monitor.Connections, o.r.Monitor.Frames)
	}
}
