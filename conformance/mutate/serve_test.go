package mutate

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"testing"
	"time"
)

// fakeEngine answers every request with a null result until its client
// closes.
func fakeEngine(t *testing.T) (addr string, stop func()) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		c, err := l.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		br := bufio.NewReader(c)
		for {
			f, _, err := readFrame(br)
			if err != nil {
				return
			}
			var m struct {
				ID json.RawMessage `json:"id"`
			}
			_ = json.Unmarshal(f.content, &m)
			fmt.Fprint(c, frameOf(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":null}`, m.ID)))
		}
	}()
	return l.Addr().String(), func() { l.Close(); <-done }
}

func TestServe(t *testing.T) {
	engAddr, stopEngine := fakeEngine(t)
	defer stopEngine()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	m, err := Lookup("id-type@response")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- Serve(ctx, l, engAddr, Options{Mutant: m}) }()
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	br := bufio.NewReader(c)
	for i, want := range []string{`{"jsonrpc":"2.0","id":"1","result":null}`, `{"jsonrpc":"2.0","id":2,"result":null}`} {
		fmt.Fprint(c, frameOf(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/open","params":{}}`, i+1)))
		f, _, err := readFrame(br)
		if err != nil {
			t.Fatal(err)
		}
		if string(f.content) != want {
			t.Errorf("response %d: %s, want %s", i+1, f.content, want)
		}
	}
	cancel()
	if err := <-served; err != nil {
		t.Fatal(err)
	}
}
