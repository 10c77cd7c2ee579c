package frame

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/e2e-conform/toolkit/protocol/wire"
)

// MaxHeaderBytes bounds the header part, its final CRLFCRLF included
// (spec §1.1, D5).
const MaxHeaderBytes = wire.MaxHeaderBytes

// Mode says which faults a scan reports (see the package doc).
type Mode int

const (
	// Strict applies the fault table of spec §1.3.
	Strict Mode = iota
	// Lenient reads broken frames and keeps the facts of their faults.
	Lenient
)

// Options configure a scan.
type Options struct {
	// Mode is Strict or Lenient.
	Mode Mode
	// Limit is the largest Content-Length accepted; 0 means
	// wire.MaxMessageBytes.
	Limit int
}

func (o Options) limit() int64 {
	if o.Limit <= 0 {
		return wire.MaxMessageBytes
	}
	return int64(o.Limit)
}

// Fault names what is wrong with a frame.
type Fault int

// The faults. Every one ends the stream: nothing after it can be trusted to
// be a frame.
const (
	// FaultHeaderTooLong: no end of the header part within MaxHeaderBytes.
	FaultHeaderTooLong Fault = iota + 1
	// FaultLineEnd: a header line ends with a bare LF.
	FaultLineEnd
	// FaultNotASCII: a header line holds a byte above 0x7f (Strict only).
	FaultNotASCII
	// FaultNotField: a header line is not "Name: value".
	FaultNotField
	// FaultLength: a Content-Length that is not a decimal integer without
	// sign.
	FaultLength
	// FaultSecondLength: a second Content-Length field with another value
	// (Lenient only; Strict takes the last).
	FaultSecondLength
	// FaultNoLength: a header part without Content-Length.
	FaultNoLength
	// FaultSize: a Content-Length above the limit; it wraps ErrTooLarge.
	FaultSize
	// FaultCharset: a Content-Type charset other than utf-8 (Strict only).
	FaultCharset
	// FaultHeaderEOF: the stream ended inside a header part; it wraps
	// io.ErrUnexpectedEOF.
	FaultHeaderEOF
	// FaultContentEOF: the stream ended inside a content part; it wraps
	// io.ErrUnexpectedEOF.
	FaultContentEOF
)

// faultNames is the table of the faults' names.
var faultNames = [...]string{
	FaultHeaderTooLong: "header too long",
	FaultLineEnd:       "line end",
	FaultNotASCII:      "not ASCII",
	FaultNotField:      "not a field",
	FaultLength:        "bad length",
	FaultSecondLength:  "second length",
	FaultNoLength:      "no length",
	FaultSize:          "size",
	FaultCharset:       "charset",
	FaultHeaderEOF:     "end inside header",
	FaultContentEOF:    "end inside content",
}

func (f Fault) String() string {
	if f > 0 && int(f) < len(faultNames) {
		return faultNames[f]
	}
	return "fault " + strconv.Itoa(int(f))
}

// ErrTooLarge is wrapped by a FaultSize error.
var ErrTooLarge = errors.New("message exceeds the size limit")

// ErrIncomplete is returned by Split and ScanHeader when the buffer ends
// before the frame (or its header part) does and holds no fault so far.
var ErrIncomplete = errors.New("frame: incomplete")

// Error is a fault in a frame, with its facts. Its Error text is the one the
// toolkit's rpc layer reports (and a server puts in its error response).
type Error struct {
	Fault Fault
	// Offset is where, in the header part, the line at fault starts (for
	// FaultHeaderTooLong, the unfinished line; for FaultNoLength and
	// FaultSize in Lenient mode, the header part's length).
	Offset int
	// Line is the line at fault as read (its line end included when it has
	// one; for FaultHeaderTooLong the unfinished line up to the bound; for
	// FaultHeaderEOF what arrived of it).
	Line []byte
	// Before holds the complete header lines before the one at fault, as
	// read (CRLFs included): Fields(Before) are the fields already read.
	Before []byte
	// Value is the Content-Length or Content-Type value concerned,
	// trimmed of space.
	Value []byte
	// Declared is the Content-Length announced (-1 when none was read);
	// Previous the one before it (FaultSecondLength).
	Declared, Previous int64
	// Limit is the limit a FaultSize exceeded.
	Limit int64
	// Content is what arrived of a content part cut short
	// (FaultContentEOF): len(Content) bytes of Declared.
	Content []byte
	// Charset is the charset a FaultCharset names.
	Charset string
	// Err is the underlying error (io.ErrUnexpectedEOF, ErrTooLarge), if
	// any.
	Err error
}

// Msg is the fault described, without the underlying error.
func (e *Error) Msg() string {
	switch e.Fault {
	case FaultHeaderTooLong:
		return fmt.Sprintf("header part longer than %d bytes", MaxHeaderBytes)
	case FaultLineEnd:
		return fmt.Sprintf("header line %q does not end with CRLF", Clip(e.Line))
	case FaultNotASCII:
		return "header part is not ASCII"
	case FaultNotField:
		return fmt.Sprintf("header line %q is not \"Name: value\"", Clip(e.Line))
	case FaultLength:
		return fmt.Sprintf("Content-Length %q is not a decimal integer", Clip(e.Value))
	case FaultSecondLength:
		return fmt.Sprintf("a second Content-Length field (%d, after %d)", e.Declared, e.Previous)
	case FaultNoLength:
		return "header part has no Content-Length"
	case FaultSize:
		return fmt.Sprintf("Content-Length %d exceeds the limit of %d bytes", e.Declared, e.Limit)
	case FaultCharset:
		return fmt.Sprintf("Content-Type charset %q is not utf-8", e.Charset)
	case FaultHeaderEOF:
		return "stream ended inside a header part"
	case FaultContentEOF:
		return fmt.Sprintf("stream ended inside a %d-byte content part", e.Declared)
	}
	return e.Fault.String()
}

func (e *Error) Error() string {
	if e.Err != nil {
		return e.Msg() + ": " + e.Err.Error()
	}
	return e.Msg()
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Clip is b quoted-ready, cut to 64 bytes with an ellipsis.
func Clip(b []byte) string {
	if len(b) > 64 {
		return string(b[:64]) + "…"
	}
	return string(b)
}

// Header is a header part read.
type Header struct {
	// Length is the Content-Length.
	Length int
	// Size is the header part's length in bytes, CRLFCRLF included.
	Size int
	// Raw is the header part as read, CRLFCRLF included: a sub-slice of the
	// buffer for Split and ScanHeader, a copy for a Lenient Reader, nil for
	// a Strict Reader (which keeps nothing of it).
	Raw []byte
}

// Fields are the header's fields, in order (nil when Raw is nil).
func (h Header) Fields() []Field { return Fields(h.Raw) }

// Frame is one frame read.
type Frame struct {
	Header  Header
	Content []byte
}

// Field is one header field.
type Field struct {
	// Name is the field's name as written (not trimmed).
	Name string
	// Value is its value, trimmed of space.
	Value string
	// Line is the line without its line end.
	Line string
}

// Fields reads the "Name: value" lines of header bytes already scanned (a
// Header.Raw, an Error.Before): every line up to the empty one or the end.
// A line without a colon is a field with an empty value.
func Fields(b []byte) []Field {
	var out []Field
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			i = len(b) - 1
		}
		line := string(bytes.TrimSuffix(b[:i+1], []byte("\n")))
		line = strings.TrimSuffix(line, "\r")
		b = b[i+1:]
		if line == "" {
			break
		}
		name, value, _ := strings.Cut(line, ":")
		out = append(out, Field{Name: name, Value: strings.TrimSpace(value), Line: line})
	}
	return out
}

// AppendHeader appends the header part a toolkit writer writes for a
// content part of n bytes.
func AppendHeader(dst []byte, n int) []byte {
	dst = append(dst, "Content-Length: "...)
	dst = strconv.AppendInt(dst, int64(n), 10)
	return append(dst, "\r\n\r\n"...)
}

// Append appends content framed.
func Append(dst, content []byte) []byte {
	return append(AppendHeader(dst, len(content)), content...)
}

// scanner finds the end of a header part and checks its lines as they
// arrive. It is fed the same growing buffer (the header part from its first
// byte) until it reports the end or a fault; it examines each byte once.
type scanner struct {
	opts   Options
	pos    int    // bytes examined
	line   int    // start of the current line
	length int64  // the Content-Length, -1 when none yet
	first  *Error // Strict: the first line fault, kept until the end
}

func newScanner(o Options) scanner { return scanner{opts: o, length: -1} }

// step examines buf (the header part so far, from its first byte). It
// returns the header part's size once it is whole, a fault, or (0, nil)
// when more bytes are needed; buf beyond MaxHeaderBytes is never examined.
func (s *scanner) step(buf []byte) (int, *Error) {
	lim := min(len(buf), MaxHeaderBytes)
	for s.pos < lim {
		i := bytes.IndexByte(buf[s.pos:lim], '\n')
		if i < 0 {
			s.pos = lim
			break
		}
		i += s.pos
		s.pos = i + 1
		start := s.line
		s.line = i + 1
		if i == start || buf[i-1] != '\r' {
			if s.first != nil {
				return 0, s.first
			}
			return 0, s.fault(buf, FaultLineEnd, start, i+1)
		}
		text := buf[start : i-1]
		if len(text) == 0 {
			return s.end(buf, i+1)
		}
		if fe := s.field(buf, text, start, i+1); fe != nil {
			if s.opts.Mode == Lenient {
				return 0, fe
			}
			if s.first == nil {
				// Its bytes are copied: a reader's buffer may move
				// before the end of the header part is there.
				s.first = own(fe)
			}
		}
	}
	if s.pos >= MaxHeaderBytes {
		return 0, s.fault(buf, FaultHeaderTooLong, s.line, MaxHeaderBytes)
	}
	return 0, nil
}

// end checks the whole header part of size n.
func (s *scanner) end(buf []byte, n int) (int, *Error) {
	if s.first != nil {
		return 0, s.first
	}
	if s.length < 0 {
		fe := s.fault(buf, FaultNoLength, n, n)
		fe.Before = buf[:n]
		return 0, fe
	}
	if s.opts.Mode == Lenient && s.length > s.opts.limit() {
		fe := s.fault(buf, FaultSize, n, n)
		fe.Before = buf[:n]
		return 0, fe
	}
	return n, nil
}

func (s *scanner) fault(buf []byte, f Fault, start, end int) *Error {
	fe := &Error{Fault: f, Offset: start, Line: buf[start:end], Before: buf[:start], Declared: s.length, Previous: -1}
	switch f {
	case FaultSize:
		fe.Limit, fe.Err = s.opts.limit(), ErrTooLarge
	case FaultHeaderEOF:
		fe.Err = io.ErrUnexpectedEOF
	}
	return fe
}

var (
	contentLength = []byte("content-length")
	contentType   = []byte("content-type")
)

// field checks one header line (text, without CRLF, at buf[start:end]).
func (s *scanner) field(buf, text []byte, start, end int) *Error {
	strict := s.opts.Mode == Strict
	if strict {
		for _, c := range text {
			if c >= 0x80 {
				return s.fault(buf, FaultNotASCII, start, end)
			}
		}
	}
	name, value, ok := bytes.Cut(text, []byte(":"))
	if !ok {
		return s.fault(buf, FaultNotField, start, end)
	}
	value = bytes.TrimSpace(value)
	if strict {
		name = bytes.TrimSpace(name)
	}
	switch {
	case bytes.EqualFold(name, contentLength):
		n, ok := parseLength(value)
		if !ok {
			fe := s.fault(buf, FaultLength, start, end)
			fe.Value = value
			return fe
		}
		if !strict && s.length >= 0 && n != s.length {
			fe := s.fault(buf, FaultSecondLength, start, end)
			fe.Previous, fe.Declared, fe.Value = s.length, n, value
			return fe
		}
		s.length = n
		if strict && n > s.opts.limit() {
			fe := s.fault(buf, FaultSize, start, end)
			fe.Value = value
			return fe
		}
	case strict && bytes.EqualFold(name, contentType):
		if cs, ok := Charset(string(value)); ok && cs != "utf-8" && cs != "utf8" {
			fe := s.fault(buf, FaultCharset, start, end)
			fe.Value, fe.Charset = value, cs
			return fe
		}
	}
	return nil
}

// parseLength reads a decimal integer without sign; more than 18 digits
// read as an absurdly large length, refused by any limit.
func parseLength(v []byte) (int64, bool) {
	if len(v) == 0 {
		return 0, false
	}
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	v = bytes.TrimLeft(v, "0")
	if len(v) > 18 {
		return 1 << 62, true
	}
	var n int64
	for _, c := range v {
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// Charset extracts the lowercased charset parameter of a media type
// (ok false when it names none).
func Charset(v string) (string, bool) {
	for _, p := range strings.Split(v, ";")[1:] {
		k, val, ok := strings.Cut(strings.TrimSpace(p), "=")
		if ok && strings.EqualFold(strings.TrimSpace(k), "charset") {
			return strings.ToLower(strings.Trim(strings.TrimSpace(val), `"`)), true
		}
	}
	return "", false
}

// ScanHeader reads the header part at the start of buf. It returns
// ErrIncomplete when buf ends before the header part does (and is shorter
// than MaxHeaderBytes), or an *Error. Header.Raw is a sub-slice of buf.
func ScanHeader(buf []byte, o Options) (Header, error) {
	s := newScanner(o)
	n, fe := s.step(buf)
	if fe != nil {
		return Header{}, fe
	}
	if n == 0 {
		return Header{}, ErrIncomplete
	}
	return Header{Length: int(s.length), Size: n, Raw: buf[:n]}, nil
}

// Split reads the frame at the start of buf and returns it with its total
// length. The frame's Content is a sub-slice of buf. It returns
// ErrIncomplete when buf ends before the frame does, or an *Error (for a
// FaultSize the header is returned with it).
func Split(buf []byte, o Options) (Frame, int, error) {
	h, err := ScanHeader(buf, o)
	if err != nil {
		var fe *Error
		if errors.As(err, &fe) && fe.Fault == FaultSize {
			end := min(len(buf), MaxHeaderBytes)
			if i := bytes.Index(buf[:end], []byte("\r\n\r\n")); i >= 0 {
				return Frame{Header: Header{Size: i + 4, Raw: buf[:i+4]}}, 0, err
			}
		}
		return Frame{}, 0, err
	}
	n := h.Size + h.Length
	if len(buf) < n {
		return Frame{}, 0, ErrIncomplete
	}
	return Frame{Header: h, Content: buf[h.Size:n:n]}, n, nil
}
