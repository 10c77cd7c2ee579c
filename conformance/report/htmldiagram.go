package report

import (
	"encoding/json"
	"fmt"
	"html/template"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The HTML report draws a failing requirement's exchange as a sequence
// diagram: the suite's column on the left, the engine's on the right, one
// arrow a frame, each with its time in µs since the spec began, its
// connection, a one-line summary and the frame (folded when long); the
// frame the failure is about is highlighted.

// diagramFold is the length past which a frame is folded under its
// summary (the whole frame one click away).
const diagramFold = 240

// Why a frame of the diagram is highlighted.
const (
	// highlightCame: the failure quotes this frame (what came).
	highlightCame = "the failing frame: the failure quotes it"
	// highlightViolation: the last frame read before a run-wide
	// violation was found on its connection.
	highlightViolation = "the last frame read before the violation was found"
	// highlightLastRead: the failure quotes no frame; the last frame the
	// suite read before it failed.
	highlightLastRead = "the last frame read before the failure (the failure quotes no frame)"
	// highlightUnanswered: nothing came from the server; the last frame
	// the suite sent.
	highlightUnanswered = "the last frame sent: nothing came back"
)

// htmlDiagram is one exchange drawn as a sequence diagram.
type htmlDiagram struct {
	Groups []htmlFrameGroup
	// Timed: the own group's frames carry their times.
	Timed bool
	// Highlighted is why a frame is highlighted ("" when none is).
	Highlighted string
}

// htmlFrameGroup is the spec's own exchange (Caption "") or the frames of
// a connection around a run-wide violation.
type htmlFrameGroup struct {
	Caption string
	Rows    []htmlFrame
}

// htmlFrame is one row of a diagram: a frame, or an elision marker.
type htmlFrame struct {
	Conn    string // "conn 3 (raw)"; "" when the line named none
	Sent    bool   // the suite wrote it (an arrow to the engine)
	Time    string // "1 204 µs", "" when unknown
	Summary string // "engine/observe (id 7)", "error -32601 (id 1)"
	Text    string // the frame as recorded (the template escapes bytes that are not UTF-8)
	Bytes   int    // the frame's length
	Folded  bool   // longer than diagramFold: shown under a fold
	Head    string // when folded, its start
	// Elided is an elision marker's text; the row is then no frame.
	Elided string
	// Failing is set on the highlighted frame.
	Failing bool
}

var (
	frameLineRE = regexp.MustCompile(`^\s*(?:(conn \d+ \([^)]*\)) )?(send|recv) (.*)$`)
	elidedRE    = regexp.MustCompile(`^\s*… \[\d+ bytes elided\] …$`)
)

// parseExchange reads an exchange's text (SpecResult.LastFrames) into
// diagram groups: its own frames, then one group per "around the first …
// violation" part. A line that is neither a frame nor a marker continues
// the frame before it (a frame holding a line break). times, when it has
// one entry per frame of the own group, gives their times.
func parseExchange(text string, times []int64) htmlDiagram {
	var d htmlDiagram
	group := &htmlFrameGroup{}
	flush := func() {
		if len(group.Rows) > 0 || group.Caption != "" {
			d.Groups = append(d.Groups, *group)
		}
	}
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		trimmed := strings.TrimSpace(line)
		switch m := frameLineRE.FindStringSubmatch(line); {
		case strings.HasPrefix(trimmed, "around the first ") && strings.HasSuffix(trimmed, ":"):
			flush()
			group = &htmlFrameGroup{Caption: strings.TrimSuffix(trimmed, ":")}
		case elidedRE.MatchString(line):
			group.Rows = append(group.Rows, htmlFrame{Elided: trimmed})
		case m != nil:
			group.Rows = append(group.Rows, htmlFrame{Conn: m[1], Sent: m[2] == "send", Text: m[3]})
		case len(group.Rows) > 0 && group.Rows[len(group.Rows)-1].Elided == "":
			group.Rows[len(group.Rows)-1].Text += "\n" + line
		case trimmed != "":
			group.Rows = append(group.Rows, htmlFrame{Elided: trimmed})
		}
	}
	flush()
	if len(d.Groups) > 0 && d.Groups[0].Caption == "" {
		own := d.Groups[0].Rows
		n := 0
		for _, f := range own {
			if f.Elided == "" {
				n++
			}
		}
		if n > 0 && n == len(times) {
			d.Timed = true
			i := 0
			for j := range own {
				if own[j].Elided == "" {
					own[j].Time = formatMicros(times[i])
					i++
				}
			}
		}
	}
	for gi := range d.Groups {
		for ri := range d.Groups[gi].Rows {
			f := &d.Groups[gi].Rows[ri]
			if f.Elided != "" {
				continue
			}
			f.Bytes = len(f.Text)
			f.Summary = frameSummary(f.Text)
			if len(f.Text) > diagramFold {
				f.Folded = true
				f.Head = clipUTF8(f.Text, diagramFold/2) + " …"
			}
		}
	}
	return d
}

// highlight marks the frame the failure is about: the last frame read
// whose text the failure (came, or the whole reason) quotes; else the last
// frame read before a run-wide violation; else the last frame read; else,
// nothing having come, the last frame sent. It records why in
// d.Highlighted.
func (d *htmlDiagram) highlight(came, reason string) {
	came, reason = strings.ToValidUTF8(came, "\uFFFD"), strings.ToValidUTF8(reason, "\uFFFD")
	type pos struct{ g, r int }
	var lastRead, lastSent, quoted, violation *pos
	for gi, g := range d.Groups {
		for ri, f := range g.Rows {
			if f.Elided != "" {
				continue
			}
			p := &pos{gi, ri}
			if f.Sent {
				if g.Caption == "" {
					lastSent = p
				}
				continue
			}
			if g.Caption == "" {
				lastRead = p
			} else {
				violation = p
			}
			// The frame as the failure would quote it: its bytes that
			// are not UTF-8 read as U+FFFD, as Go decodes them.
			text := strings.ToValidUTF8(f.Text, "\uFFFD")
			if len(text) >= 2 && (strings.Contains(came, text) || strings.Contains(reason, text)) {
				quoted = p
			}
		}
	}
	var p *pos
	switch {
	case quoted != nil:
		p, d.Highlighted = quoted, highlightCame
	case violation != nil:
		p, d.Highlighted = violation, highlightViolation
	case lastRead != nil:
		p, d.Highlighted = lastRead, highlightLastRead
	case lastSent != nil:
		p, d.Highlighted = lastSent, highlightUnanswered
	default:
		return
	}
	d.Groups[p.g].Rows[p.r].Failing = true
}

// frameSummary is a frame in a few words: "engine/observe (id 7)",
// "initialized (notification)", "result (id 7)", "error -32601 method not
// found (id 1)", "batch of 2", "not UTF-8", "not JSON".
func frameSummary(text string) string {
	if !utf8.ValidString(text) {
		return "not UTF-8 (" + strconv.Itoa(len(text)) + " bytes)"
	}
	t := strings.TrimSpace(text)
	if strings.HasPrefix(t, "[") {
		var batch []json.RawMessage
		if json.Unmarshal([]byte(t), &batch) == nil {
			return fmt.Sprintf("batch of %d", len(batch))
		}
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method *string         `json:"method"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    json.RawMessage `json:"code"`
			Message any             `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(t), &m) != nil {
		if strings.Contains(t, "bytes elided]") {
			return "frame (elided)"
		}
		return "not JSON"
	}
	id := ""
	if len(m.ID) > 0 {
		id = " (id " + clipUTF8(string(m.ID), 40) + ")"
	}
	switch {
	case m.Method != nil && len(m.ID) > 0:
		return clipUTF8(*m.Method, 80) + id
	case m.Method != nil:
		return clipUTF8(*m.Method, 80) + " (notification)"
	case m.Error != nil:
		msg := ""
		if s, ok := m.Error.Message.(string); ok && s != "" {
			msg = " " + clipUTF8(s, 80)
		}
		return "error " + clipUTF8(string(m.Error.Code), 20) + msg + id
	case m.Result != nil:
		return "result" + id
	default:
		return "message" + id
	}
}

// clipUTF8 keeps s whole up to n bytes, else its start cut on a rune
// boundary and "…".
func clipUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// formatMicros writes µs with thin spaces between thousands: "12 345 µs".
func formatMicros(us int64) string {
	s := strconv.FormatInt(us, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteString("\u202f")
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String() + " µs"
	}
	return b.String() + " µs"
}

// escapeNonUTF8 writes every byte of s that is not part of valid UTF-8 as
// \xNN, so the page stays UTF-8 and shows what was sent.
func escapeNonUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n <= 1 {
			fmt.Fprintf(&b, `\x%02x`, s[i])
			i++
			continue
		}
		b.WriteString(s[i : i+n])
		i += n
	}
	return b.String()
}

// escapeNonUTF8Bytes is escapeNonUTF8 over a whole page.
func escapeNonUTF8Bytes(p []byte) []byte {
	if utf8.Valid(p) {
		return p
	}
	return []byte(escapeNonUTF8(string(p)))
}

// codeSpanRE is a markdown code span on one line.
var codeSpanRE = regexp.MustCompile("`([^`\n]+)`")

// markdownCode escapes s as HTML text and renders its code spans
// (`x` → <code>x</code>); nothing else of markdown is read.
func markdownCode(s string) template.HTML {
	esc := template.HTMLEscapeString(escapeNonUTF8(s))
	return template.HTML(codeSpanRE.ReplaceAllString(esc, "<code>$1</code>"))
}
