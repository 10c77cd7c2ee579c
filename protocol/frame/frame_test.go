package frame

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func framed(content string) string {
	return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(content), content)
}

// pad is a header part of exactly total bytes announcing content.
func pad(total int, content string) string {
	head := fmt.Sprintf("Content-Length: %d\r\n", len(content))
	return head + "X: " + strings.Repeat("x", total-len(head)-len("X: \r\n")-2) + "\r\n\r\n" + content
}

// Each fault of §1.3, in both modes: the fault named (or none), and the
// facts kept.
func TestFaults(t *testing.T) {
	const good = "Content-Length: 2\r\n\r\n{}"
	cases := []struct {
		name           string
		in             string
		strict, loose  Fault // 0: the frame is read
		wantLen        int   // when read
		wantDeclared   int64 // the fault's Declared (when a fault)
		wantLineSubstr string
	}{
		{"plain", good, 0, 0, 2, 0, ""},
		{"lower-case name", "content-length: 2\r\n\r\n{}", 0, 0, 2, 0, ""},
		{"space around the name", " Content-Length : 2\r\n\r\n{}", 0, FaultNoLength, 2, -1, ""},
		{"charset utf8", "Content-Type: a; charset=UTF8\r\n" + good, 0, 0, 2, 0, ""},
		{"charset latin1", "Content-Type: a; charset=latin1\r\n" + good, FaultCharset, 0, 2, -1, "latin1"},
		{"unknown field", "X-Y: z\r\n" + good, 0, 0, 2, 0, ""},
		{"no length", "X: y\r\n\r\n{}", FaultNoLength, FaultNoLength, 0, -1, ""},
		{"signed length", "Content-Length: +5\r\n\r\nhello", FaultLength, FaultLength, 0, -1, "+5"},
		{"minus zero", "Content-Length: -0\r\n\r\n", FaultLength, FaultLength, 0, -1, "-0"},
		{"hex length", "Content-Length: 0x2\r\n\r\n{}", FaultLength, FaultLength, 0, -1, "0x2"},
		{"bare LF", "Content-Length: 2\n\n{}", FaultLineEnd, FaultLineEnd, 0, -1, "Content-Length: 2\n"},
		{"bare LF second line", "Content-Length: 2\r\nX: y\n\r\n{}", FaultLineEnd, FaultLineEnd, 0, 2, "X: y\n"},
		{"not a field", "Content-Length: 2\r\nnonsense\r\n\r\n{}", FaultNotField, FaultNotField, 0, 2, "nonsense"},
		{"non-ASCII", "Content-Length: 2\r\nX: \xc3\xa9\r\n\r\n{}", FaultNotASCII, 0, 2, 2, "X: "},
		{"two lengths, same", "Content-Length: 2\r\n" + good, 0, 0, 2, 0, ""},
		{"two lengths, differing", "Content-Length: 9\r\n" + good, 0, FaultSecondLength, 2, 2, "Content-Length: 2"},
		{"over the limit", "Content-Length: 101\r\n\r\n", FaultSize, FaultSize, 0, 101, ""},
		{"absurd length", "Content-Length: 99999999999999999999999\r\n\r\n", FaultSize, FaultSize, 0, 1 << 62, ""},
		{"header part of 4096 bytes", pad(4096, "{}"), 0, 0, 2, 0, ""},
		{"header part of 4097 bytes", pad(4097, "{}"), FaultHeaderTooLong, FaultHeaderTooLong, 0, 2, "\r"},
		// Strict reports a header part without end before its line faults
		// (as rpc always did); Lenient a line fault as soon as it is read.
		{"bad line in a long header", "nonsense\r\n" + strings.Repeat("x", 5000), FaultHeaderTooLong, FaultNotField, 0, -1, ""},
		{"end inside the header", "Content-Length: 2\r\nX: ", FaultHeaderEOF, FaultHeaderEOF, 0, 2, "X: "},
		{"end inside the content", "Content-Length: 10\r\n\r\n{}", FaultContentEOF, FaultContentEOF, 0, 10, ""},
	}
	for _, tc := range cases {
		for _, mode := range []Mode{Strict, Lenient} {
			want := tc.strict
			if mode == Lenient {
				want = tc.loose
			}
			t.Run(fmt.Sprintf("%s/%d", tc.name, mode), func(t *testing.T) {
				r := NewReader(iotest.OneByteReader(strings.NewReader(tc.in)), Options{Mode: mode, Limit: 100})
				f, err := r.Next()
				var fe *Error
				if want == 0 {
					if err != nil || f.Header.Length != tc.wantLen {
						t.Fatalf("Next: %v, %+v; want a frame of %d bytes", err, f.Header, tc.wantLen)
					}
					return
				}
				if !errors.As(err, &fe) || fe.Fault != want {
					t.Fatalf("Next: %v, want the fault %v", err, want)
				}
				if fe.Declared != tc.wantDeclared {
					t.Errorf("Declared %d, want %d", fe.Declared, tc.wantDeclared)
				}
				if !strings.Contains(string(fe.Line)+string(fe.Value)+fe.Charset, tc.wantLineSubstr) {
					t.Errorf("the fault's line %q, value %q: want them to name %q", fe.Line, fe.Value, tc.wantLineSubstr)
				}
				if len(fe.Before)+len(fe.Line) > MaxHeaderBytes {
					t.Errorf("the fault kept %d bytes of header", len(fe.Before)+len(fe.Line))
				}
			})
		}
	}
}

// The facts a lenient reader keeps: the lines before the fault, and the
// bytes of a content part cut short.
func TestLenientKeepsTheFacts(t *testing.T) {
	r := NewReader(strings.NewReader("X-A: 1\r\nContent-Type: t; charset=latin1\r\nContent-Length: 4\r\nContent-Length: 5\r\n\r\n"), Options{Mode: Lenient})
	_, err := r.Next()
	var fe *Error
	if !errors.As(err, &fe) || fe.Fault != FaultSecondLength || fe.Previous != 4 || fe.Declared != 5 {
		t.Fatalf("Next: %v", err)
	}
	got := Fields(fe.Before)
	if len(got) != 3 || got[0].Name != "X-A" || got[1].Value != "t; charset=latin1" || got[2].Value != "4" {
		t.Errorf("the fields before the fault: %+v", got)
	}
	r = NewReader(strings.NewReader("Content-Length: 10\r\nX: y\r\n\r\nabc"), Options{Mode: Lenient})
	f, err := r.Next()
	if !errors.As(err, &fe) || fe.Fault != FaultContentEOF || string(fe.Content) != "abc" || fe.Declared != 10 || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("Next: %v (%+v)", err, fe)
	}
	if h := f.Header.Fields(); len(h) != 2 || h[1].Line != "X: y" {
		t.Errorf("the header of the cut frame: %+v", h)
	}
}

// A content part is held as it arrives: a peer announcing 64 MiB and
// sending 100 KiB makes the reader hold about 100 KiB, not 64 MiB; one
// that sends it all gets it whole.
func TestContentIsHeldAsItArrives(t *testing.T) {
	const announced, sent = 64 << 20, 100 << 10
	head := fmt.Sprintf("Content-Length: %d\r\n\r\n", announced)
	_, err := NewReader(strings.NewReader(head+strings.Repeat("x", sent)), Options{}).Next()
	var fe *Error
	if !errors.As(err, &fe) || fe.Fault != FaultContentEOF || len(fe.Content) != sent {
		t.Fatalf("Next: %v, want the content cut after %d bytes", err, sent)
	}
	if c := cap(fe.Content); c > 4*sent {
		t.Errorf("the reader held %d bytes for %d that arrived", c, sent)
	}
	for _, n := range []int{0, 1, firstContentChunk - 1, firstContentChunk, firstContentChunk + 1, 3*firstContentChunk + 17} {
		want := strings.Repeat("y", n)
		f, err := NewReader(iotest.HalfReader(strings.NewReader(framed(want))), Options{}).Next()
		if err != nil || string(f.Content) != want {
			t.Fatalf("a %d-byte content part: %v, %d bytes", n, err, len(f.Content))
		}
	}
	r := NewReader(strings.NewReader(head), Options{})
	if _, err := r.ReadHeader(); err != nil {
		t.Fatal(err)
	}
	if _, err := r.ReadContent(announced); err != io.EOF {
		t.Fatalf("ReadContent of nothing: %v, want io.EOF", err)
	}
}

// The error texts are the ones the rpc layer always wrote (a server puts
// them in its error response).
func TestErrorTexts(t *testing.T) {
	for in, want := range map[string]string{
		"Content-Length: 2\n\n":                   `header line "Content-Length: 2\n" does not end with CRLF`,
		"X\r\n\r\n":                               `header line "X\r\n" is not "Name: value"`,
		"Content-Length: +5\r\n\r\n":              `Content-Length "+5" is not a decimal integer`,
		"Content-Length: 101\r\n\r\n":             `Content-Length 101 exceeds the limit of 100 bytes: message exceeds the size limit`,
		"Content-Type: a;charset=x\r\n\r\n":       `Content-Type charset "x" is not utf-8`,
		"X: y\r\n\r\n":                            `header part has no Content-Length`,
		"X: y\r\n":                                `stream ended inside a header part: unexpected EOF`,
		"Content-Length: 9\r\n\r\n{":              `stream ended inside a 9-byte content part: unexpected EOF`,
		"X: " + strings.Repeat("y", 5000):         `header part longer than 4096 bytes`,
		"X: \xff\r\n\r\n":                         `header part is not ASCII`,
		"Content-Length: 2\r\nX: " + "\r\r\n\r\n": `header line "Content-Length: 2\r\nX: \r\r\n" is not "Name: value"`,
	} {
		_, err := NewReader(strings.NewReader(in), Options{Limit: 100}).Next()
		if in == "Content-Length: 2\r\nX: \r\r\n\r\n" {
			// A line that ends CR CR LF: "X: \r" is a field; the empty
			// line follows.
			want = "stream ended inside a 2-byte content part: unexpected EOF"
		}
		if err == nil || err.Error() != want {
			t.Errorf("%q: %v\nwant %s", in, err, want)
		}
	}
}

// A strict fault found early is reported once the header part ends, with
// the bytes of its line, though the read buffer moved in between.
func TestStrictFaultSurvivesTheBufferMoving(t *testing.T) {
	// The first read brings the first frame and the faulty line; the rest
	// comes a byte at a time, so the buffer slides past the first frame.
	src := io.MultiReader(strings.NewReader(framed("{}")+"nonsense\r\n"),
		iotest.OneByteReader(strings.NewReader("X: "+strings.Repeat("y", 3000)+"\r\n\r\n")))
	r := NewReader(src, Options{})
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	_, err := r.Next()
	if want := `header line "nonsense\r\n" is not "Name: value"`; err == nil || err.Error() != want {
		t.Fatalf("Next: %v, want %s", err, want)
	}
}

// An endless header is refused once 4096 bytes of it are there: no more is
// read, whatever the header byte.
func TestEndlessHeaderIsBounded(t *testing.T) {
	for _, mode := range []Mode{Strict, Lenient} {
		for _, b := range []byte{'a', '\r', '\n', ':'} {
			src := &counting{r: iotest.OneByteReader(endless(b))}
			_, err := NewReader(src, Options{Mode: mode}).Next()
			var fe *Error
			if !errors.As(err, &fe) {
				t.Fatalf("%q: %v, want a fault", b, err)
			}
			if src.n > MaxHeaderBytes {
				t.Errorf("mode %d, %q: read %d bytes, want at most %d", mode, b, src.n, MaxHeaderBytes)
			}
		}
	}
}

type endless byte

func (e endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(e)
	}
	return len(p), nil
}

type counting struct {
	r io.Reader
	n int
}

func (c *counting) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// Split and ScanHeader read buffers as the Reader reads streams.
func TestSplit(t *testing.T) {
	in := []byte(framed(`{"a":1}`) + framed(`[]`) + "Content-Length: 5\r\n\r\n{")
	f, n, err := Split(in, Options{})
	if err != nil || string(f.Content) != `{"a":1}` || n != len(framed(`{"a":1}`)) {
		t.Fatalf("Split: %q %d %v", f.Content, n, err)
	}
	f, m, err := Split(in[n:], Options{})
	if err != nil || string(f.Content) != `[]` {
		t.Fatalf("Split: %q %v", f.Content, err)
	}
	if _, _, err := Split(in[n+m:], Options{}); !errors.Is(err, ErrIncomplete) {
		t.Fatalf("Split of a cut frame: %v, want ErrIncomplete", err)
	}
	if _, err := ScanHeader([]byte("Content-Length: 5\r\n"), Options{}); !errors.Is(err, ErrIncomplete) {
		t.Fatalf("ScanHeader of a cut header: %v, want ErrIncomplete", err)
	}
	_, _, err = Split([]byte("Content-Length: 99999\r\nX: y\r\n\r\n"), Options{Limit: 10})
	var fe *Error
	if !errors.As(err, &fe) || fe.Fault != FaultSize || !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Split of an oversize frame: %v", err)
	}
}

// FuzzScan checks both modes of the scanner on any input: neither panics;
// a stream read one byte at a time gives what the buffer gives; no header
// byte past the bound is ever read; what Strict accepts Lenient accepts with
// the same contents; and the writer's frames read back.
func FuzzScan(f *testing.F) {
	for _, s := range []string{
		framed(`{"jsonrpc":"2.0","id":1,"method":"a"}`), framed("é"), "Content-Length: 5\r\n\r\n{}",
		"content-length: 2\r\nContent-Type: a; charset=utf8\r\n\r\n{}", "Content-Length: -1\r\n\r\n", "\r\n\r\n",
		"Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}", "Content-Length: 2\n\n{}", "X: \xff\r\nContent-Length: 0\r\n\r\n",
		" Content-Length: 1\r\n\r\n1", "Content-Type: a;charset=latin1\r\nContent-Length: 0\r\n\r\n", pad(4096, "{}"), pad(4097, "{}"),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		const limit = 1 << 12
		var strict []Frame
		for _, mode := range []Mode{Strict, Lenient} {
			o := Options{Mode: mode, Limit: limit}
			src := &counting{r: iotest.OneByteReader(bytes.NewReader(data))}
			r := NewReader(src, o)
			buf := data
			var frames []Frame
			for i := 0; ; i++ {
				before := src.n
				fr, err := r.Next()
				bf, n, berr := Split(buf, o)
				var fe *Error
				switch {
				case err == nil:
					fr.Header.Raw = bf.Header.Raw
					if berr != nil || !bytes.Equal(bf.Content, fr.Content) || bf.Header.Size != fr.Header.Size || n != fr.Header.Size+len(fr.Content) {
						t.Fatalf("mode %d frame %d: the stream read %q, the buffer %q (%v)", mode, i, fr.Content, bf.Content, berr)
					}
					if src.n-before != n {
						t.Fatalf("mode %d frame %d: read %d bytes for a frame of %d", mode, i, src.n-before, n)
					}
					if len(fr.Content) > limit || fr.Header.Size > MaxHeaderBytes {
						t.Fatalf("mode %d: a frame past the bounds: header %d, content %d", mode, fr.Header.Size, len(fr.Content))
					}
					frames = append(frames, fr)
					buf = buf[n:]
					continue
				case errors.Is(err, io.EOF):
					if len(buf) != 0 {
						t.Fatalf("mode %d: EOF with %d bytes left", mode, len(buf))
					}
				case errors.As(err, &fe):
					if src.n-before > MaxHeaderBytes+fe.Offset+len(fe.Content) && fe.Fault != FaultContentEOF {
						t.Fatalf("mode %d: %v after reading %d bytes", mode, err, src.n-before)
					}
					if len(fe.Before)+len(fe.Line) > MaxHeaderBytes {
						t.Fatalf("mode %d: %v keeps %d header bytes", mode, err, len(fe.Before)+len(fe.Line))
					}
					var bfe *Error
					switch {
					case fe.Fault == FaultHeaderEOF || fe.Fault == FaultContentEOF:
						if !errors.Is(berr, ErrIncomplete) {
							t.Fatalf("mode %d: the stream ended inside a frame (%v), the buffer says %v", mode, err, berr)
						}
					case !errors.As(berr, &bfe) || bfe.Fault != fe.Fault:
						t.Fatalf("mode %d: the stream's fault %v, the buffer's %v", mode, err, berr)
					}
				default:
					t.Fatalf("mode %d: %v", mode, err)
				}
				break
			}
			if mode == Strict {
				strict = frames
				continue
			}
			// Lenient is stricter on two points only: a field name is
			// matched as written, and two Content-Length fields must agree.
			for i, fr := range strict {
				if !plainLengths(fr.Header.Raw) {
					strict = strict[:i]
					break
				}
			}
			if len(frames) < len(strict) {
				t.Fatalf("lenient read %d frames, strict %d", len(frames), len(strict))
			}
			for i := range strict {
				if !bytes.Equal(strict[i].Content, frames[i].Content) || strict[i].Header.Length != frames[i].Header.Length {
					t.Fatalf("frame %d: strict %q, lenient %q", i, strict[i].Content, frames[i].Content)
				}
			}
		}
		// Round trip: the writer's frame of the bytes reads back.
		if len(data) <= limit {
			w := Append(nil, data)
			fr, err := NewReader(bytes.NewReader(w), Options{Limit: limit}).Next()
			if err != nil || !bytes.Equal(fr.Content, data) {
				t.Fatalf("round trip: %v", err)
			}
		}
	})
}

// BenchmarkScan reads 1 KiB frames in Strict mode from a stream.
func BenchmarkScan(b *testing.B) {
	one := framed(`{"jsonrpc":"2.0","id":12345,"method":"engine/observe","params":{"x":"` + strings.Repeat("a", 960) + `"}}`)
	src := &repeat{b: []byte(one)}
	r := NewReader(src, Options{})
	b.SetBytes(int64(len(one)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.Next(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkScanFloor reads the same frames knowing their layout (no header
// parsing): the floor BenchmarkScan is measured against.
func BenchmarkScanFloor(b *testing.B) {
	content := `{"jsonrpc":"2.0","id":12345,"method":"engine/observe","params":{"x":"` + strings.Repeat("a", 960) + `"}}`
	one := framed(content)
	br := bufio.NewReaderSize(&repeat{b: []byte(one)}, 64<<10)
	head := len(one) - len(content)
	b.SetBytes(int64(len(one)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := br.Discard(head); err != nil {
			b.Fatal(err)
		}
		if _, err := io.ReadFull(br, make([]byte, len(content))); err != nil {
			b.Fatal(err)
		}
	}
}

// repeat yields b over and over.
type repeat struct {
	b   []byte
	off int
}

func (r *repeat) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		c := copy(p[n:], r.b[r.off:])
		n += c
		r.off = (r.off + c) % len(r.b)
	}
	return n, nil
}

// plainLengths reports whether header writes no field name with space
// around it and no two Content-Length fields that differ.
func plainLengths(header []byte) bool {
	length := ""
	for _, f := range Fields(header) {
		if strings.TrimSpace(f.Name) != f.Name {
			return false
		}
		if strings.EqualFold(f.Name, "content-length") {
			if length != "" && length != f.Value {
				return false
			}
			length = f.Value
		}
	}
	return true
}
