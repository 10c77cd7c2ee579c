package client_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/e2e-conform/toolkit/protocol/transport"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// peer is a scripted engine server: the test reads what the client sends
// and writes exact bytes back.
type peer struct {
	t    testing.TB
	rwc  io.ReadWriteCloser
	msgs chan map[string]json.RawMessage
}

// scripted is a transport whose every Open hands a new peer to script,
// which runs in its own goroutine until the connection closes. opens counts
// the connections.
type scripted struct {
	transport.Transport
	opens atomic.Int32
}

func newScripted(t testing.TB, script func(p *peer)) *scripted {
	s := &scripted{}
	s.Transport = transport.Loopback("scripted", func(ctx context.Context, rwc io.ReadWriteCloser) error {
		s.opens.Add(1)
		p := &peer{t: t, rwc: rwc, msgs: make(chan map[string]json.RawMessage, 64)}
		go p.readLoop()
		script(p)
		// Drain until the client closes its end, answering any request
		// (the close sequence's dispose and shutdown) with null.
		for m := range p.msgs {
			if _, isReq := m["id"]; isReq {
				if _, hasMethod := m["method"]; hasMethod {
					p.result(m, "null")
				}
			}
		}
		return nil
	})
	return s
}

func (p *peer) readLoop() {
	defer close(p.msgs)
	r := bufio.NewReader(p.rwc)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		n, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "Content-Length: ")))
		if err != nil {
			p.t.Errorf("client wrote a bad header %q", line)
			return
		}
		r.ReadString('\n')
		buf := make([]byte, n)
		if _, err := io.ReadFull(r, buf); err != nil {
			return
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(buf, &m); err != nil {
			p.t.Errorf("client wrote invalid JSON %s", buf)
			return
		}
		p.msgs <- m
	}
}

// next returns the next message from the client, or nil when it closed.
func (p *peer) next() map[string]json.RawMessage {
	select {
	case m := <-p.msgs:
		return m
	case <-time.After(10 * time.Second):
		p.t.Error("scripted peer: no message from the client within 10 s")
		return nil
	}
}

// expect reads the next message and checks its method.
func (p *peer) expect(method string) map[string]json.RawMessage {
	m := p.next()
	if m == nil {
		p.t.Errorf("scripted peer: connection ended, want %s", method)
		return map[string]json.RawMessage{}
	}
	if got := str(m["method"]); got != method {
		p.t.Errorf("scripted peer: got %s (%s), want %s", got, m, method)
	}
	return m
}

func str(raw json.RawMessage) string {
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}

func (p *peer) write(content string) {
	fmt.Fprintf(p.rwc, "Content-Length: %d\r\n\r\n%s", len(content), content)
}

func (p *peer) result(m map[string]json.RawMessage, result string) {
	p.write(`{"jsonrpc":"2.0","id":` + string(m["id"]) + `,"result":` + result + `}`)
}

func (p *peer) fail(m map[string]json.RawMessage, eo string) {
	p.write(`{"jsonrpc":"2.0","id":` + string(m["id"]) + `,"error":` + eo + `}`)
}

// handshake answers initialize with manifest and reads initialized.
func (p *peer) handshake(manifest wire.Manifest) {
	m := p.expect(wire.MethodInitialize)
	b, _ := json.Marshal(wire.InitializeResult{ProtocolVersion: 1, Manifest: manifest})
	p.result(m, string(b))
	p.expect(wire.MethodInitialized)
}

// recorder collects what handlers receive.
type recorder struct {
	mu    sync.Mutex
	items []string
}

func (r *recorder) add(format string, args ...any) {
	r.mu.Lock()
	r.items = append(r.items, fmt.Sprintf(format, args...))
	r.mu.Unlock()
}

func (r *recorder) all() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.items...)
}
