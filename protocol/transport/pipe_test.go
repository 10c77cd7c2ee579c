package transport_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/e2e-conform/toolkit/protocol/transport"
)

func TestPipeCloseSemantics(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		check func(t *testing.T, a, b io.ReadWriteCloser)
	}{
		{"peer reads remaining data then EOF", func(t *testing.T, a, b io.ReadWriteCloser) {
			a.Write([]byte("hello"))
			a.Close()
			if got, err := io.ReadAll(b); err != nil || string(got) != "hello" {
				t.Errorf("ReadAll = %q, %v", got, err)
			}
			if _, err := b.Read(make([]byte, 1)); err != io.EOF {
				t.Errorf("Read after EOF: %v", err)
			}
		}},
		{"write to a closed peer fails", func(t *testing.T, a, b io.ReadWriteCloser) {
			b.Close()
			if _, err := a.Write([]byte("x")); !errors.Is(err, io.ErrClosedPipe) {
				t.Errorf("Write: %v, want io.ErrClosedPipe", err)
			}
		}},
		{"own end fails after close", func(t *testing.T, a, b io.ReadWriteCloser) {
			b.Write([]byte("unread"))
			a.Close()
			if _, err := a.Read(make([]byte, 1)); !errors.Is(err, transport.ErrClosed) {
				t.Errorf("Read: %v, want ErrClosed", err)
			}
			if _, err := a.Write([]byte("x")); !errors.Is(err, transport.ErrClosed) {
				t.Errorf("Write: %v, want ErrClosed", err)
			}
			if err := a.Close(); err != nil {
				t.Errorf("second Close: %v", err)
			}
		}},
		{"other direction still works after the peer closed its writes", func(t *testing.T, a, b io.ReadWriteCloser) {
			b.Write([]byte("late"))
			b.Close()
			got := make([]byte, 4)
			if _, err := io.ReadFull(a, got); err != nil || string(got) != "late" {
				t.Errorf("ReadFull = %q, %v", got, err)
			}
		}},
		{"blocked Read ends at own Close", func(t *testing.T, a, b io.ReadWriteCloser) {
			errc := make(chan error, 1)
			go func() {
				_, err := a.Read(make([]byte, 1))
				errc <- err
			}()
			a.Close()
			if err := <-errc; !errors.Is(err, transport.ErrClosed) {
				t.Errorf("Read: %v, want ErrClosed", err)
			}
		}},
		{"blocked Read ends at peer Close", func(t *testing.T, a, b io.ReadWriteCloser) {
			errc := make(chan error, 1)
			go func() {
				_, err := a.Read(make([]byte, 1))
				errc <- err
			}()
			b.Close()
			if err := <-errc; err != io.EOF {
				t.Errorf("Read: %v, want EOF", err)
			}
		}},
		{"empty Read and Write", func(t *testing.T, a, b io.ReadWriteCloser) {
			if n, err := a.Write(nil); n != 0 || err != nil {
				t.Errorf("Write(nil) = %d, %v", n, err)
			}
			if n, err := b.Read(nil); n != 0 || err != nil {
				t.Errorf("Read(nil) = %d, %v", n, err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a, b := transport.Pipe()
			defer a.Close()
			defer b.Close()
			tt.check(t, a, b)
		})
	}
}

// TestPipeConcurrentWriters checks that concurrent Writes are not
// interleaved and nothing is lost.
func TestPipeConcurrentWriters(t *testing.T) {
	t.Parallel()
	const writers, records = 8, 2000
	a, b := transport.Pipe()
	defer b.Close()
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rec := make([]byte, 16)
			for i := range records {
				binary.BigEndian.PutUint64(rec[0:], uint64(w))
				binary.BigEndian.PutUint64(rec[8:], uint64(i))
				if _, err := a.Write(rec); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	go func() {
		wg.Wait()
		a.Close()
	}()
	next := make([]uint64, writers)
	rec := make([]byte, 16)
	for {
		if _, err := io.ReadFull(b, rec); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		w, i := binary.BigEndian.Uint64(rec[0:]), binary.BigEndian.Uint64(rec[8:])
		if w >= writers || i != next[w] {
			t.Fatalf("record (%d, %d) out of order", w, i)
		}
		next[w]++
	}
	for w, n := range next {
		if n != records {
			t.Errorf("writer %d: %d records, want %d", w, n, records)
		}
	}
}

// TestPipeLargeFullDuplex writes 8 MiB each way at once, in random chunks.
func TestPipeLargeFullDuplex(t *testing.T) {
	t.Parallel()
	const size = 8 << 20
	a, b := transport.Pipe()
	defer a.Close()
	defer b.Close()
	dataA, dataB := make([]byte, size), make([]byte, size)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range dataA {
		dataA[i], dataB[i] = byte(rng.Uint32()), byte(rng.Uint32())
	}
	var wg sync.WaitGroup
	send := func(w io.Writer, data []byte, chunked bool) {
		defer wg.Done()
		if !chunked {
			if n, err := w.Write(data); n != len(data) || err != nil {
				t.Errorf("Write = %d, %v", n, err)
			}
			return
		}
		r := rand.New(rand.NewPCG(3, 4))
		for len(data) > 0 {
			n := min(len(data), 1+r.IntN(100<<10))
			if _, err := w.Write(data[:n]); err != nil {
				t.Error(err)
				return
			}
			data = data[n:]
		}
	}
	recv := func(r io.Reader, want []byte) {
		defer wg.Done()
		got := make([]byte, len(want))
		if _, err := io.ReadFull(r, got); err != nil {
			t.Error(err)
			return
		}
		if !bytes.Equal(got, want) {
			t.Error("data differs")
		}
	}
	wg.Add(4)
	go send(a, dataA, false) // one 8 MiB write: never blocks
	go send(b, dataB, true)
	go recv(b, dataA)
	go recv(a, dataB)
	wg.Wait()
}

// BenchmarkPipeRoundTrip measures a 1 KiB ping-pong over Pipe.
func BenchmarkPipeRoundTrip(b *testing.B) {
	client, server := transport.Pipe()
	benchRoundTrip(b, client, server, client, server)
	client.Close()
	server.Close()
}

// BenchmarkOSPipeRoundTrip measures the same ping-pong over a pair of
// os.Pipe, for comparison.
func BenchmarkOSPipeRoundTrip(b *testing.B) {
	toServerR, toServerW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	toClientR, toClientW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	benchRoundTrip(b, toClientR, toServerR, toServerW, toClientW)
	for _, f := range []*os.File{toServerR, toServerW, toClientR, toClientW} {
		f.Close()
	}
}

// benchRoundTrip sends 1 KiB from the client and reads it back echoed by a
// server goroutine, b.N times.
func benchRoundTrip(b *testing.B, clientR, serverR io.Reader, clientW, serverW io.Writer) {
	const size = 1 << 10
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, size)
		for {
			if _, err := io.ReadFull(serverR, buf); err != nil {
				return
			}
			if _, err := serverW.Write(buf); err != nil {
				return
			}
		}
	}()
	msg := bytes.Repeat([]byte{'x'}, size)
	got := make([]byte, size)
	b.SetBytes(2 * size)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := clientW.Write(msg); err != nil {
			b.Fatal(err)
		}
		if _, err := io.ReadFull(clientR, got); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	// End the server goroutine: it reads EOF once the client's writer closes.
	if c, ok := clientW.(io.Closer); ok {
		c.Close()
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		b.Fatal("echo goroutine did not end")
	}
}
