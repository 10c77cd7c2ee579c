package report

import (
	"encoding/json"
	"regexp"
	"strings"
)

// exchangeFrame is one labelled frame of a spec's exchange text (a raw
// write of several frames spans several lines).
type exchangeFrame struct {
	label  string // "conn 3 (raw)"
	sent   bool   // written by the suite
	text   string // the frame as shown
	around bool   // in the frames around a run-wide violation
}

// method is the frame's JSON-RPC method ("" for a response or a line
// that is no message).
func (f exchangeFrame) method() string {
	if m := frameMethodRE.FindStringSubmatch(f.text); m != nil {
		return m[1]
	}
	return ""
}

// id is the frame's JSON-RPC id as written ("" when it has none).
func (f exchangeFrame) id() string {
	if m := frameIDRE.FindStringSubmatch(f.text); m != nil {
		return m[1]
	}
	return ""
}

// answer reports whether the frame is a JSON-RPC response (the suite's
// answer to a server request, when sent): an object with an id and a
// result or an error, and no method.
func (f exchangeFrame) answer() bool {
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(f.text), &m) != nil {
		return false
	}
	_, id := m["id"]
	_, method := m["method"]
	_, result := m["result"]
	_, failure := m["error"]
	return id && !method && (result || failure)
}

// line is the frame as the exchange shows it.
func (f exchangeFrame) line() string {
	dir := "recv"
	if f.sent {
		dir = "send"
	}
	return f.label + " " + dir + " " + f.text
}

var (
	frameMethodRE = regexp.MustCompile(`"method":"([^"]*)"`)
	frameIDRE     = regexp.MustCompile(`"id":(-?\d+|"(?:[^"\\]|\\.)*"|null)`)
	// suiteRequestRE and serverRequestRE find the request a run-wide
	// violation was recorded in ("in reading the frame after the suite's
	// request initialize (id 0), conn 1 (raw)"; "in the request
	// attempt/resolveSecret (id 1), conn 5 (raw)").
	suiteRequestRE  = regexp.MustCompile(`the suite's request (\S+) \(id ([^)]+)\), (conn \d+ \([a-z]+\))`)
	serverRequestRE = regexp.MustCompile(`in the request (\S+) \(id ([^)]+)\), (conn \d+ \([a-z]+\))`)
	// namedMethodRE is the first protocol method a failure names.
	namedMethodRE = regexp.MustCompile(`\$/abort|\b(?:engine|session|lifecycle|state|artifacts|keyboard|attempt)/[A-Za-z]+|\binitialize\b|\bshutdown\b`)
)

// exchangeFrames is an exchange's frames in order, read by the report's
// parser (parseExchange): its own, then those around run-wide violations.
func exchangeFrames(exchange string) []exchangeFrame {
	var frames []exchangeFrame
	for _, g := range parseExchange(exchange, nil).Groups {
		for _, r := range g.Rows {
			if r.Elided == "" {
				frames = append(frames, exchangeFrame{label: r.Conn, sent: r.Sent, text: r.Text, around: g.Caption != ""})
			}
		}
	}
	return frames
}

// requestUnderTest is the frame the suite sent that a failure is about,
// found in its exchange from what the failure says (reason) and what came:
// the request a run-wide violation names; the request a response that came
// answers; the last message of the method the failure names; else the last
// request or notification the suite wrote before the server's last frame.
// Never the suite's own answer to a server request, nor the close sequence
// when anything else was sent. "" when the exchange holds no such frame.
func requestUnderTest(exchange, reason, came string) string {
	frames := exchangeFrames(exchange)
	if len(frames) == 0 {
		return ""
	}
	if m := suiteRequestRE.FindStringSubmatch(reason); m != nil {
		if i := lastFrame(frames, len(frames), func(f exchangeFrame) bool {
			return f.sent && f.label == m[3] && f.method() == m[1] && f.id() == m[2]
		}); i >= 0 {
			return frames[i].line()
		}
	}
	if m := serverRequestRE.FindStringSubmatch(reason); m != nil {
		at := lastFrame(frames, len(frames), func(f exchangeFrame) bool {
			return !f.sent && f.label == m[3] && f.method() == m[1] && f.id() == m[2]
		})
		if at >= 0 {
			if i := lastFrame(frames, at, func(f exchangeFrame) bool { return f.sent && f.label == m[3] && f.method() != "" }); i >= 0 {
				return frames[i].line()
			}
		}
	}
	if strings.HasPrefix(came, "conn ") {
		at := lastFrame(frames, len(frames), func(f exchangeFrame) bool { return !f.sent && f.line() == came })
		if at >= 0 && frames[at].method() == "" {
			if id := frames[at].id(); id != "" && id != "null" {
				label := frames[at].label
				if i := lastFrame(frames, at, func(f exchangeFrame) bool {
					return f.sent && f.label == label && f.id() == id && f.method() != ""
				}); i >= 0 {
					return frames[i].line()
				}
			}
		}
	}
	if m := namedMethodRE.FindString(reason); m != "" {
		if i := lastFrame(frames, len(frames), func(f exchangeFrame) bool { return f.sent && !f.around && f.method() == m }); i >= 0 {
			return frames[i].line()
		}
	}
	end := lastFrame(frames, len(frames), func(f exchangeFrame) bool { return !f.sent && !f.around })
	if end < 0 {
		end = len(frames)
	}
	for _, bound := range []int{end, len(frames)} {
		for _, closing := range []bool{false, true} {
			if i := lastFrame(frames, bound, func(f exchangeFrame) bool {
				m := f.method()
				return f.sent && !f.around && !f.answer() && (closing || (m != "shutdown" && m != "exit"))
			}); i >= 0 {
				return frames[i].line()
			}
		}
	}
	return ""
}

// lastFrame is the index of the last of frames[:before] that ok accepts,
// -1 when none does.
func lastFrame(frames []exchangeFrame, before int, ok func(exchangeFrame) bool) int {
	for i := before - 1; i >= 0; i-- {
		if ok(frames[i]) {
			return i
		}
	}
	return -1
}

// IsAnswerLine reports whether an exchange line is a JSON-RPC response.
func IsAnswerLine(line string) bool {
	fs := exchangeFrames(line)
	return len(fs) == 1 && fs[0].answer()
}
