package mutate

import (
	"context"
	"errors"
	"io"
	"net"
	"sync"
)

// Serve is the TCP form of the proxy: it accepts connections on l and
// relays each (see Relay) to a new connection to the engine server at
// engineAddr. Share a Record in opts to fire a Once mutant once over all
// connections. Serve returns when ctx ends or l fails, after closing l and
// every connection it opened.
func Serve(ctx context.Context, l net.Listener, engineAddr string, opts Options) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() { <-ctx.Done(); l.Close() }()
	var wg sync.WaitGroup
	defer wg.Wait()
	var d net.Dialer
	for {
		client, err := l.Accept()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return nil
			}
			return err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer client.Close()
			eng, err := d.DialContext(ctx, "tcp", engineAddr)
			if err != nil {
				return
			}
			defer eng.Close()
			stop := context.AfterFunc(ctx, func() { client.Close(); eng.Close() })
			defer stop()
			_ = Relay(ctx, client, halfCloser{eng}, eng, client, opts)
		}()
	}
}

// halfCloser closes the write side of a TCP connection, as the end of the
// client's stream.
type halfCloser struct{ net.Conn }

func (h halfCloser) Close() error {
	if tc, ok := h.Conn.(interface{ CloseWrite() error }); ok {
		return tc.CloseWrite()
	}
	return h.Conn.Close()
}

var _ io.WriteCloser = halfCloser{}
