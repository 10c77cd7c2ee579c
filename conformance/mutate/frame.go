package mutate

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	scan "github.com/e2e-conform/toolkit/protocol/frame"
)

// Limits of §1.1 and §1.2.
const (
	// MaxHeaderBytes is the largest header part, CRLFCRLF included.
	MaxHeaderBytes = 4096
	// MaxMessageBytes is the largest content part (MAX_MESSAGE_BYTES).
	MaxMessageBytes = 64 << 20
)

// frame is one framed message as read: the header part verbatim
// (CRLFCRLF included) and the content.
type frame struct {
	header  []byte
	content []byte
}

// bytes is the frame as written.
func (f frame) bytes() []byte {
	return append(append([]byte{}, f.header...), f.content...)
}

// reframe is the frame with new content: the header keeps its fields, the
// Content-Length value replaced.
func (f frame) reframe(content []byte) frame {
	return frame{header: setLength(f.header, strconv.Itoa(len(content))), content: content}
}

// setLength replaces the value of every Content-Length field of header.
func setLength(header []byte, n string) []byte {
	lines := strings.Split(string(header), "\r\n")
	for i, l := range lines {
		name, _, ok := strings.Cut(l, ":")
		if ok && strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			lines[i] = name + ": " + n
		}
	}
	return []byte(strings.Join(lines, "\r\n"))
}

// errNotFramed is returned by readFrame when the stream does not hold a
// well-formed frame.
var errNotFramed = errors.New("not a frame")

// scanOptions is how the relay reads frames: the lenient scanner of
// package frame (header part kept verbatim, 4096 bytes at most).
var scanOptions = scan.Options{Mode: scan.Lenient, Limit: MaxMessageBytes}

// readFrame reads one frame. On a header the proxy cannot parse it returns
// errNotFramed and leaves the header part unread in r (the caller passes r
// through as it is); at the end of the stream inside a frame it returns the
// partial bytes and io.ErrUnexpectedEOF.
func readFrame(r *bufio.Reader) (frame, []byte, error) {
	f, err := scan.NewBufReader(r, scanOptions).Next()
	var fe *scan.Error
	switch {
	case err == nil:
		return frame{header: f.Header.Raw, content: f.Content}, nil, nil
	case err == io.EOF:
		return frame{}, nil, io.EOF
	case !errors.As(err, &fe):
		return frame{}, nil, errNotFramed
	case fe.Fault == scan.FaultContentEOF:
		return frame{}, append(f.Header.Raw, fe.Content...), io.ErrUnexpectedEOF
	case fe.Fault == scan.FaultHeaderEOF:
		rest, _ := io.ReadAll(r) // the partial header part, left unread
		return frame{}, rest, io.ErrUnexpectedEOF
	}
	return frame{}, nil, errNotFramed
}

// frameParser splits a byte stream into frames incrementally, to observe
// the client's messages without holding up their relay. It goes blind for
// good on input it cannot frame (the suite sends malformed frames on
// purpose), keeping at most one frame buffered.
type frameParser struct {
	buf   []byte
	blind bool
}

// push adds bytes and returns the contents of the frames they complete.
func (p *frameParser) push(b []byte) [][]byte {
	if p.blind {
		return nil
	}
	p.buf = append(p.buf, b...)
	var out [][]byte
	for {
		f, n, err := scan.Split(p.buf, scanOptions)
		switch {
		case errors.Is(err, scan.ErrIncomplete):
			return out
		case err != nil:
			p.goBlind()
			return out
		}
		out = append(out, append([]byte{}, f.Content...))
		p.buf = append(p.buf[:0], p.buf[n:]...)
	}
}

func (p *frameParser) goBlind() { p.blind, p.buf = true, nil }

// utf16Length counts the UTF-16 code units of UTF-8 text.
func utf16Length(b []byte) int {
	n := 0
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		b = b[size:]
		n += len(utf16.Encode([]rune{r}))
	}
	return n
}

// nonASCII reports whether b has a byte above 0x7f.
func nonASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return true
		}
	}
	return false
}

// ApplyFrame applies a frame operator that rewrites one frame's bytes
// (OpUTF16Length, OpCharLength, OpHeaderCase, OpExtraHeader,
// OpConflictingLength, OpTruncate) to the frame header+content. It
// returns the bytes to write, or ok false when the operator does not apply
// (a length operator on ASCII content).
func ApplyFrame(op Operator, header, content []byte) (out []byte, ok bool) {
	f := frame{header: header, content: content}
	switch op {
	case OpUTF16Length, OpCharLength:
		if !nonASCII(content) {
			return nil, false
		}
		n := utf8.RuneCount(content)
		if op == OpUTF16Length {
			n = utf16Length(content)
		}
		return frame{header: setLength(header, strconv.Itoa(n)), content: content}.bytes(), true
	case OpHeaderCase:
		h := string(header)
		if !strings.Contains(h, "Content-Length") {
			return nil, false
		}
		return frame{header: []byte(strings.ReplaceAll(h, "Content-Length", "content-length")), content: content}.bytes(), true
	case OpExtraHeader:
		return frame{header: append([]byte("X-E2e-Mutant: 1\r\n"), header...), content: content}.bytes(), true
	case OpConflictingLength:
		return frame{header: append([]byte(fmt.Sprintf("Content-Length: %d\r\n", len(content)+7)), header...), content: content}.bytes(), true
	case OpTruncate:
		return append(append([]byte{}, header...), content[:len(content)/2]...), true
	}
	return f.bytes(), false
}
