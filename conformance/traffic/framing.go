package traffic

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/e2e-conform/toolkit/protocol/frame"
)

// Deframer cuts one direction of a connection into frames as its bytes
// arrive, and judges the framing (§1.1, §1.2): for the engine's side
// WIRE-001, WIRE-002 and, over spawn, TRN-001 (stdout carries nothing but
// frames); for the harness's side §1.1. It mirrors the suite's raw reader
// (conformance/raw.go readFrame), which is bound to the suite's connection
// records and cannot be shared as it is. After a framing fault the stream
// is out of step: the rest of the direction is not judged (Lost).
//
// It holds at most one frame's bytes (the frame package's size limit).
type Deframer struct {
	// From is the side that writes this direction.
	From Side
	// Spawn: the engine's side is a child's stdout (TRN-001 applies).
	Spawn bool

	buf  []byte
	lost bool
}

// Lost reports whether a framing fault ended the judging of the direction.
func (d *Deframer) Lost() bool { return d.lost }

// Feed adds bytes read from the direction and calls emit with the content
// of every frame they complete; emit reports whether the content was JSON
// (it decodes it anyway: Conn.Frame's Seen.Kind is not KindInvalid), so
// that content which is not is a framing fault without a second pass over
// every frame. Framing faults go to s.
func (d *Deframer) Feed(s Sink, b []byte, emit func(content []byte) (isJSON bool)) {
	if d.lost {
		return
	}
	d.buf = append(d.buf, b...)
	for len(d.buf) > 0 {
		f, n, err := frame.Split(d.buf, frame.Options{Mode: frame.Lenient})
		if errors.Is(err, frame.ErrIncomplete) {
			break
		}
		if err != nil {
			d.fault(s, err.Error())
			return
		}
		content := f.Content
		d.judgeHeader(s, f.Header)
		if !utf8.Valid(content) {
			d.fault(s, fmt.Sprintf("content is not UTF-8 JSON, or Content-Length (%d) does not match it: not UTF-8", len(content)))
			return
		}
		if !emit(content) {
			d.fault(s, fmt.Sprintf("content is not UTF-8 JSON, or Content-Length (%d) does not match it: not JSON: %q", len(content), clip(string(content))))
			return
		}
		if d.From == Engine {
			s.Observed("WIRE-001", "frame read and framed")
			s.Observed("WIRE-002", "header part read")
			if d.Spawn {
				s.Observed("TRN-001", "stdout frame read")
			}
		}
		d.buf = d.buf[n:]
	}
	if len(d.buf) == 0 {
		d.buf = nil // a long frame's buffer is not kept
	}
}

// Partial returns how many bytes of an unfinished frame the direction
// holds: at its end, a frame cut short. It is not judged: a side killed by
// a signal (a harness's close budget, an operator) is cut mid-write
// without breaking a rule, and traffic alone cannot tell it from a fault.
func (d *Deframer) Partial() int { return len(d.buf) }

func (d *Deframer) judgeHeader(s Sink, h frame.Header) {
	for _, fd := range frame.Fields(h.Raw) {
		switch {
		case strings.EqualFold(fd.Name, "Content-Length"):
		case strings.EqualFold(fd.Name, "Content-Type"):
			if cs, ok := frame.Charset(fd.Value); !ok || (cs != "utf-8" && cs != "utf8") {
				d.violate(s, "WIRE-002", fmt.Sprintf("Content-Type %q does not name charset utf-8", fd.Value))
			}
		default:
			if d.From == Engine {
				d.violate(s, "WIRE-002", fmt.Sprintf("the server wrote the header field %q", fd.Name))
			}
		}
	}
}

func (d *Deframer) fault(s Sink, msg string) {
	d.lost = true
	d.buf = nil
	d.violate(s, "WIRE-001", msg)
	if d.From == Engine && d.Spawn {
		d.violate(s, "TRN-001", "stdout carried bytes that do not frame: "+msg)
	}
}

// violate reports a framing violation: the engine's by its requirement,
// the harness's as §1.1.
func (d *Deframer) violate(s Sink, id, msg string) {
	if d.From == Harness {
		s.Violation(Violation{Requirement: RuleClientFraming, Section: RuleClientFraming, Message: "the client wrote a frame that breaks §1.1: " + msg, Side: Harness})
		return
	}
	s.Violation(Violation{Requirement: id, Section: sectionOf(id), Message: msg, Side: Engine})
}
