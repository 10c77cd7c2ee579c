package mutate

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
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
// well-formed frame; the bytes read so far are returned with it.
var errNotFramed = errors.New("not a frame")

// readFrame reads one frame. On a header the proxy cannot parse it returns
// the raw bytes read and errNotFramed; at the end of the stream inside a
// frame it returns the partial bytes and io.ErrUnexpectedEOF.
func readFrame(r *bufio.Reader) (frame, []byte, error) {
	var header []byte
	length := int64(-1)
	for {
		line, err := r.ReadSlice('\n')
		header = append(header, line...)
		if err != nil {
			if err == bufio.ErrBufferFull && len(header) <= MaxHeaderBytes {
				continue
			}
			if err == io.EOF && len(header) == 0 {
				return frame{}, nil, io.EOF
			}
			if err == io.EOF {
				return frame{}, header, io.ErrUnexpectedEOF
			}
			return frame{}, header, errNotFramed
		}
		if len(header) > MaxHeaderBytes {
			return frame{}, header, errNotFramed
		}
		l := strings.TrimSuffix(strings.TrimSuffix(string(line), "\n"), "\r")
		if l == "" {
			break
		}
		name, v, ok := strings.Cut(l, ":")
		if !ok {
			return frame{}, header, errNotFramed
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil || n < 0 || n > MaxMessageBytes {
				return frame{}, header, errNotFramed
			}
			length = n
		}
	}
	if length < 0 {
		return frame{}, header, errNotFramed
	}
	content := make([]byte, length)
	n, err := io.ReadFull(r, content)
	if err != nil {
		return frame{}, append(header, content[:n]...), io.ErrUnexpectedEOF
	}
	return frame{header: header, content: content}, nil, nil
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
		end := bytes.Index(p.buf, []byte("\r\n\r\n"))
		if end < 0 {
			if len(p.buf) > MaxHeaderBytes {
				p.goBlind()
			}
			return out
		}
		if end+4 > MaxHeaderBytes {
			p.goBlind()
			return out
		}
		length := -1
		for _, l := range strings.Split(string(p.buf[:end]), "\r\n") {
			name, v, ok := strings.Cut(l, ":")
			if ok && strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
				n, err := strconv.Atoi(strings.TrimSpace(v))
				if err != nil || n < 0 || n > MaxMessageBytes {
					p.goBlind()
					return out
				}
				length = n
			}
		}
		if length < 0 {
			p.goBlind()
			return out
		}
		if len(p.buf) < end+4+length {
			return out
		}
		out = append(out, append([]byte{}, p.buf[end+4:end+4+length]...))
		p.buf = append(p.buf[:0], p.buf[end+4+length:]...)
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
