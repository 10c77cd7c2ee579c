package rpc

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func frame(content string) string {
	return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(content), content)
}

type msg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Error  *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// readFrames parses every frame in b.
func readFrames(t *testing.T, b []byte) []msg {
	t.Helper()
	r := bufio.NewReader(bytes.NewReader(b))
	var out []msg
	for {
		line, err := r.ReadString('\n')
		if err == io.EOF {
			return out
		}
		if !strings.HasPrefix(line, "Content-Length: ") {
			t.Fatalf("bad header line %q", line)
		}
		n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "Content-Length: ")))
		blank, _ := r.ReadString('\n')
		if blank != "\r\n" {
			t.Fatalf("header not ended by CRLFCRLF")
		}
		content := make([]byte, n)
		if _, err := io.ReadFull(r, content); err != nil {
			t.Fatal(err)
		}
		var m msg
		if err := json.Unmarshal(content, &m); err != nil {
			t.Fatalf("invalid JSON written: %s", content)
		}
		out = append(out, m)
	}
}

func TestServerModeFaults(t *testing.T) {
	good := frame(`{"jsonrpc":"2.0","id":9,"method":"ping"}`)
	cases := []struct {
		name     string
		input    string
		answers  []int64 // error codes written, in order
		answerID string  // id of the first answer
		fatal    FaultKind
		reads    int // good messages delivered
	}{
		{"valid", good, nil, "", "", 1},
		{"two frames in one read", good + good, nil, "", "", 2},
		{"content-type utf-8", "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n" + good, nil, "", "", 1},
		{"content-type utf8 upper", "Content-Type: application/json; charset=UTF8\r\n" + good, nil, "", "", 1},
		{"lowercase header name", strings.Replace(good, "Content-Length", "content-length", 1), nil, "", "", 1},
		{"unknown header ignored", "X-Foo: bar\r\n" + good, nil, "", "", 1},
		{"not json", frame(`{"jsonrpc":`) + good, []int64{-32700}, "null", "", 1},
		{"not utf-8", frame("{\"a\":\"\xff\"}") + good, []int64{-32700}, "null", "", 1},
		{"bom", frame("\ufeff{}") + good, []int64{-32700}, "null", "", 1},
		{"batch", frame(`[{"jsonrpc":"2.0","id":1,"method":"a"}]`) + good, []int64{-32600}, "null", "", 1},
		{"wrong jsonrpc with id", frame(`{"jsonrpc":"1.0","id":4,"method":"a"}`) + good, []int64{-32600}, "4", "", 1},
		{"missing jsonrpc", frame(`{"id":"x","method":"a"}`) + good, []int64{-32600}, `"x"`, "", 1},
		{"boolean id", frame(`{"jsonrpc":"2.0","id":true,"method":"a"}`) + good, []int64{-32600}, "null", "", 1},
		{"fractional id", frame(`{"jsonrpc":"2.0","id":1.5,"method":"a"}`) + good, []int64{-32600}, "null", "", 1},
		{"method not string", frame(`{"jsonrpc":"2.0","id":3,"method":7}`) + good, []int64{-32600}, "3", "", 1},
		{"response with both", frame(`{"jsonrpc":"2.0","id":3,"result":1,"error":{"code":1,"message":"m"}}`) + good, []int64{-32600}, "3", "", 1},
		{"not an object", frame(`42`) + good, []int64{-32600}, "null", "", 1},
		{"no content-length", "X: y\r\n\r\n{}", []int64{-32700}, "null", FaultHeader, 0},
		{"length not decimal", "Content-Length: +5\r\n\r\nhello", []int64{-32700}, "null", FaultHeader, 0},
		{"oversized", "Content-Length: 99999999999\r\n\r\n", []int64{-32600}, "null", FaultSize, 0},
		{"charset latin1", "Content-Type: text/plain; charset=latin1\r\n" + good, []int64{-32700}, "null", FaultHeader, 0},
		{"header too long", "X: " + strings.Repeat("a", 5000) + "\r\n" + good, []int64{-32700}, "null", FaultHeader, 0},
		{"no CRLF", "Content-Length: 2\n\n{}", []int64{-32700}, "null", FaultHeader, 0},
		{"truncated content", "Content-Length: 10\r\n\r\n{}", []int64{-32700}, "null", FaultHeader, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			s := NewStream(strings.NewReader(tc.input), &out, nil, StreamOptions{Mode: ServerMode, MaxMessageBytes: 1 << 20})
			reads := 0
			var err error
			for {
				var m *Message
				if m, err = s.ReadMessage(); err != nil {
					break
				}
				if !bytes.Contains(m.Content, []byte(`"2.0"`)) || m.Method != "ping" || string(m.ID) != "9" {
					t.Errorf("delivered message lacks its content: %+v", m)
				}
				reads++
			}
			if reads != tc.reads {
				t.Errorf("delivered %d messages, want %d", reads, tc.reads)
			}
			var fe *FrameError
			if tc.fatal == "" {
				if err != io.EOF {
					t.Errorf("ended with %v, want io.EOF", err)
				}
			} else if !errors.As(err, &fe) || fe.Kind != tc.fatal {
				t.Errorf("ended with %v, want fatal %s", err, tc.fatal)
			}
			got := readFrames(t, out.Bytes())
			if len(got) != len(tc.answers) {
				t.Fatalf("wrote %d answers, want %d: %s", len(got), len(tc.answers), out.String())
			}
			for i, code := range tc.answers {
				if got[i].Error == nil || got[i].Error.Code != code {
					t.Errorf("answer %d: %+v, want code %d", i, got[i], code)
				}
			}
			if len(got) > 0 && string(got[0].ID) != tc.answerID {
				t.Errorf("answer id %s, want %s", got[0].ID, tc.answerID)
			}
		})
	}
}

func TestClientModeFaultsAreFatal(t *testing.T) {
	for _, in := range []string{frame(`{"jsonrpc":`), frame(`[1]`), frame(`{"jsonrpc":"2.0","id":1}`), "Content-Length: x\r\n\r\n"} {
		var out bytes.Buffer
		s := NewStream(strings.NewReader(in), &out, nil, StreamOptions{Mode: ClientMode})
		_, err := s.ReadMessage()
		var fe *FrameError
		if !errors.As(err, &fe) {
			t.Errorf("%q: got %v, want a FrameError", in, err)
		}
		if out.Len() != 0 {
			t.Errorf("%q: client wrote %q", in, out.String())
		}
		if s.Err() == nil {
			t.Errorf("%q: Err() not kept", in)
		}
	}
}

// oneByteReader returns one byte per Read: a frame split at every position.
type oneByteReader struct{ r io.Reader }

func (o oneByteReader) Read(p []byte) (int, error) { return o.r.Read(p[:1]) }

func TestSplitReads(t *testing.T) {
	in := frame(`{"jsonrpc":"2.0","id":1,"method":"a","params":{"x":"é"}}`) + frame(`{"jsonrpc":"2.0","method":"b"}`)
	s := NewStream(oneByteReader{strings.NewReader(in)}, io.Discard, nil, StreamOptions{})
	for i := 0; i < 2; i++ {
		if _, err := s.ReadMessage(); err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
	}
}

func TestOversizedIsRefusedWithoutReading(t *testing.T) {
	// The reader holds only a header announcing 64 MiB + 1; content would
	// block forever, so a pass proves nothing was read or awaited.
	r, w := io.Pipe()
	defer r.Close()
	go func() {
		fmt.Fprintf(w, "Content-Length: %d\r\n\r\n", 64<<20+1)
	}()
	s := NewStream(r, io.Discard, nil, StreamOptions{Mode: ClientMode})
	_, err := s.ReadMessage()
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("got %v, want ErrTooLarge", err)
	}
	w.Close()
}

func TestWriteRefusesOversized(t *testing.T) {
	var out bytes.Buffer
	s := NewStream(strings.NewReader(""), &out, nil, StreamOptions{MaxMessageBytes: 10})
	err := s.WriteResult(json.RawMessage("1"), map[string]string{"a": "0123456789"})
	if !errors.Is(err, ErrTooLarge) || out.Len() != 0 {
		t.Fatalf("got %v and %d bytes written", err, out.Len())
	}
}

func TestNegativeIDRoundTrip(t *testing.T) {
	in := frame(`{"jsonrpc":"2.0","id":-7,"method":"a"}`)
	var out bytes.Buffer
	s := NewStream(strings.NewReader(in), &out, nil, StreamOptions{})
	m, err := s.ReadMessage()
	if err != nil {
		t.Fatal(err)
	}
	if string(m.ID) != "-7" {
		t.Fatalf("id %s, want -7 as written", m.ID)
	}
	if err := s.WriteResult(m.ID, nil); err != nil {
		t.Fatal(err)
	}
	got := readFrames(t, out.Bytes())
	if string(got[0].ID) != "-7" {
		t.Fatalf("response id %s, want -7", got[0].ID)
	}
}

func FuzzReadFrames(f *testing.F) {
	for _, s := range []string{
		frame(`{"jsonrpc":"2.0","id":1,"method":"a"}`), frame(`[]`), frame(`{`), "Content-Length: 5\r\n\r\n{}",
		"content-length: 2\r\nContent-Type: a; charset=utf8\r\n\r\n{}", "Content-Length: -1\r\n\r\n", "\r\n\r\n",
		frame(`{"jsonrpc":"2.0","id":-1,"result":null}`), frame(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}`),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, mode := range []Mode{ServerMode, ClientMode} {
			var out bytes.Buffer
			s := NewStream(bytes.NewReader(data), &out, nil, StreamOptions{Mode: mode, MaxMessageBytes: 1 << 16})
			for i := 0; i < 100; i++ {
				m, err := s.ReadMessage()
				if err != nil {
					break
				}
				var env map[string]json.RawMessage
				if json.Unmarshal(m.Content, &env) != nil || string(env["jsonrpc"]) != `"2.0"` {
					t.Fatalf("delivered a message that is not JSON-RPC 2.0: %s", m.Content)
				}
				if (m.Method == "") != (env["method"] == nil) || string(env["id"]) != string(m.ID) {
					t.Fatalf("members misread: %+v from %s", m, m.Content)
				}
			}
			if mode == ClientMode && out.Len() > 0 {
				t.Fatal("client mode wrote an answer")
			}
			// Every answer the server wrote is a well-formed frame.
			if mode == ServerMode {
				readFrames(t, out.Bytes())
			}
		}
	})
}

// endless yields the same byte forever and counts what was read.
type endless struct {
	b    byte
	read int
}

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = e.b
	}
	e.read += len(p)
	return len(p), nil
}

// An endless header line is refused once 4096 bytes of it are buffered:
// the reader never takes in more than its fixed read buffer.
func TestEndlessHeaderIsBounded(t *testing.T) {
	for _, b := range []byte{'a', '\r'} {
		src := &endless{b: b}
		s := NewStream(src, io.Discard, nil, StreamOptions{Mode: ClientMode})
		_, err := s.ReadMessage()
		var fe *FrameError
		if !errors.As(err, &fe) || fe.Kind != FaultHeader || !strings.Contains(fe.Msg, "4096") {
			t.Fatalf("%q: got %v, want a header fault naming 4096 bytes", b, err)
		}
		if src.read > 64<<10 {
			t.Errorf("%q: read %d bytes of header, want at most the 64 KiB read buffer", b, src.read)
		}
	}
}

// The header part may be 4096 bytes, its final CRLFCRLF included, and not
// one more.
func TestHeaderLimitBoundary(t *testing.T) {
	content := `{"jsonrpc":"2.0","method":"a"}`
	head := fmt.Sprintf("Content-Length: %d\r\n", len(content))
	pad := func(total int) string {
		// X: <filler>\r\n makes the header part total bytes long.
		n := total - len(head) - len("X: \r\n") - 2
		return head + "X: " + strings.Repeat("x", n) + "\r\n\r\n" + content
	}
	for _, tc := range []struct {
		total int
		ok    bool
	}{{4096, true}, {4097, false}} {
		s := NewStream(strings.NewReader(pad(tc.total)), io.Discard, nil, StreamOptions{Mode: ClientMode})
		_, err := s.ReadMessage()
		if (err == nil) != tc.ok {
			t.Errorf("header part of %d bytes: %v, want ok=%v", tc.total, err, tc.ok)
		}
	}
}
