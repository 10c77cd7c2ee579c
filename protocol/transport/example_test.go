package transport_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	"github.com/e2e-conform/toolkit/protocol/transport"
)

// An engine server started as a child process: here cat, which echoes what
// the client writes. The child gets only the environment given (so PATH is
// passed explicitly) and runs in the project root.
func ExampleSpawn() {
	tr := transport.Spawn(transport.SpawnOptions{Command: "cat"})
	conn, err := tr.Open(context.Background(), transport.Context{
		Role: "run",
		Env:  map[string]string{"PATH": "/usr/bin:/bin"},
		Cwd:  os.TempDir(),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Fprint(conn, "Content-Length: 2\r\n\r\n{}")
	buf := make([]byte, 23)
	io.ReadFull(conn, buf)
	fmt.Printf("%q\n", buf)

	// Close ends stdin; cat exits at once.
	conn.Close(2 * time.Second)
	state, _ := conn.(transport.SpawnConn).Wait()
	fmt.Println("label:", tr.Label(), "exit status:", state.ExitCode())
	// Output:
	// "Content-Length: 2\r\n\r\n{}"
	// label: cat exit status: 0
}

// An engine server that already listens on TCP; here a tiny echo server.
func ExampleSocket() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ln.Close()
	served := make(chan struct{})
	go func() {
		defer close(served)
		c, err := ln.Accept()
		if err != nil {
			return
		}
		io.Copy(c, c) // until the client half-closes
		c.Close()
	}()

	addr := ln.Addr().(*net.TCPAddr)
	tr := transport.Socket(transport.SocketOptions{Host: "127.0.0.1", Port: addr.Port, DialTimeout: 5 * time.Second})
	conn, err := tr.Open(context.Background(), transport.Context{Role: "worker"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Fprint(conn, "ping")
	buf := make([]byte, 4)
	io.ReadFull(conn, buf)
	fmt.Println(string(buf))

	// Close half-closes, waits for the server to close its side, then
	// closes the socket.
	fmt.Println("close:", conn.Close(2*time.Second))
	<-served
	// Output:
	// ping
	// close: <nil>
}

// An engine served in this process over in-memory streams.
func ExampleLoopback() {
	tr := transport.Loopback("echo", func(ctx context.Context, rwc io.ReadWriteCloser) error {
		_, err := io.Copy(rwc, rwc) // until the client closes
		return err
	})
	conn, err := tr.Open(context.Background(), transport.Context{Role: "run"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Fprint(conn, "ping")
	buf := make([]byte, 4)
	io.ReadFull(conn, buf)
	fmt.Println(tr.Label(), string(buf))
	conn.Close(time.Second)
	fmt.Println(conn.Diagnostics())
	// Output:
	// loopback:echo ping
	// loopback:echo: serve returned
}
