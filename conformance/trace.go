package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/e2e-conform/toolkit/conformance/report"
	"github.com/e2e-conform/toolkit/protocol/rpc"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// Connection roles in traces and exchanges.
const (
	roleClient = "client" // a protocol/client connection (handshake by the client library)
	roleRaw    = "raw"    // a rawConn, driven byte by byte
)

// Bounds of what is kept of frames.
const (
	// traceCap bounds the --trace output; past it a final marker line
	// says how many frames were left out.
	traceCap = 256 << 20
	// exchangeCap bounds one spec's exchange (SpecResult.LastFrames):
	// exchangeHead bytes of its first frames, the rest of its last ones,
	// and an elision marker between.
	exchangeCap  = 64 << 10
	exchangeHead = 16 << 10
	// frameCap bounds one frame in an exchange; a longer one keeps its
	// start and end around an elision marker.
	frameCap = 16 << 10
	// recentFrames is how many frames a connection keeps for the
	// violations found on it.
	recentFrames = 6
	// keptFrames and keptFrameBytes bound the whole frames the suite keeps
	// (actLastResult reads results from them): the last 12, and no more
	// than 8 MiB of them but the newest (legal 60 MiB frames cost 1 GB
	// when 12 were kept whole).
	keptFrames     = 12
	keptFrameBytes = 8 << 20
)

// keepFrames trims frames, oldest first, to keptFrames frames and
// keptFrameBytes bytes; the newest frame is always kept.
func keepFrames(frames []frameRecord) []frameRecord {
	if len(frames) > keptFrames {
		frames = frames[len(frames)-keptFrames:]
	}
	total := 0
	for i := len(frames) - 1; i >= 0; i-- {
		total += len(frames[i].content)
		if total > keptFrameBytes && i < len(frames)-1 {
			return append([]frameRecord(nil), frames[i+1:]...)
		}
	}
	return frames
}

// connInfo identifies one connection of the run: its number (in opening
// order, from 1) and role. It keeps its last frames, so that a run-wide
// violation found on it carries the exchange around it.
type connInfo struct {
	id   int
	role string

	mu     sync.Mutex
	recent []string // the last frames, labelled and bounded
	last   string   // the request the suite sent last on it, as "method (id N)"

	attempts attemptWindow  // its open attempts (S2C-001)
	requests serverRequests // the server's requests the suite has not answered (S2C-004)

	// secretAsks counts the attempt/resolveSecret requests read per
	// attempt id (at most secretAskKeys ids; others count under "");
	// secretAnswers those the client library asked the suite to answer
	// since the suite last wrote a startAttempt (maxSecretRequests).
	secretAsks    map[string]int
	secretAnswers int
}

// suiteWrote files a message the suite writes on the connection with the
// run-wide checks that follow the connection's state.
func (c *connInfo) suiteWrote(content []byte) {
	c.attempts.sent(content)
	c.requests.sent(content)
}

// secretAskKeys bounds the attempt ids a connection counts requests for.
const secretAskKeys = 64

// askSecret counts an attempt/resolveSecret for attempt and returns how
// many the connection read for it.
func (c *connInfo) askSecret(attempt string) int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.secretAsks == nil {
		c.secretAsks = map[string]int{}
	}
	if _, ok := c.secretAsks[attempt]; !ok && len(c.secretAsks) >= secretAskKeys {
		attempt = ""
	}
	c.secretAsks[attempt]++
	return c.secretAsks[attempt]
}

// answerSecret counts a secret the client library asks the suite for and
// returns how many it asked since the last startAttempt.
func (c *connInfo) answerSecret() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.secretAnswers++
	return c.secretAnswers
}

// sentMaybeStart starts the count of answerSecret over when content is a
// lifecycle/startAttempt request.
func (c *connInfo) sentMaybeStart(content []byte) {
	if !bytes.Contains(content, []byte(wire.MethodStartAttempt)) || !strings.HasPrefix(describeRequest(content), wire.MethodStartAttempt+" ") {
		return
	}
	c.mu.Lock()
	c.secretAnswers = 0
	c.mu.Unlock()
}

// label is "conn 3 (raw)".
func (c *connInfo) label() string {
	if c == nil {
		return "conn ? (unknown)"
	}
	return fmt.Sprintf("conn %d (%s)", c.id, c.role)
}

// remember keeps line among the connection's recent frames.
func (c *connInfo) remember(line string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.recent = append(c.recent, line)
	if len(c.recent) > recentFrames {
		c.recent = c.recent[len(c.recent)-recentFrames:]
	}
}

// recentExchange renders the connection's recent frames.
func (c *connInfo) recentExchange() string {
	if c == nil {
		return ""
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var b strings.Builder
	for _, l := range c.recent {
		b.WriteString("  " + l + "\n")
	}
	return b.String()
}

// newConn numbers a new connection.
func (e *runEnv) newConn(role string) *connInfo {
	return &connInfo{id: e.exchanges.nextConn(), role: role}
}

// frameLine is one frame as an exchange shows it: "conn 3 (raw) send {…}",
// the frame bounded by frameCap.
func frameLine(c *connInfo, dir rpc.Direction, redacted string) string {
	return c.label() + " " + dir.String() + " " + elideMiddle(redacted, frameCap)
}

// elideMiddle keeps s whole up to max bytes, else its start and end around
// "… [N bytes elided] …" (cut on UTF-8 boundaries).
func elideMiddle(s string, max int) string {
	if len(s) <= max {
		return s
	}
	head, tail := max/4, max-max/4
	for head > 0 && !utf8Start(s[head]) {
		head--
	}
	start := len(s) - tail
	for start < len(s) && !utf8Start(s[start]) {
		start++
	}
	return s[:head] + fmt.Sprintf(" … [%d bytes elided] … ", start-head) + s[start:]
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// exchange is the frames of one spec, in order, bounded: the first frames
// up to exchangeHead bytes, then the last ones up to the rest of
// exchangeCap; what falls between is counted and shown as elided.
//
// It also keeps when each kept frame was recorded, in µs since the exchange
// began (start; 0 when start is unset): the HTML report's sequence diagram
// reads them (SpecResult.FrameTimes).
type exchange struct {
	head    []string
	headLen int
	tail    []string
	tailLen int
	elided  int // bytes of frames dropped between head and tail
	frames  int

	start        time.Time
	headT, tailT []int64 // µs since start of each line of head and tail
}

// newExchange starts an exchange now.
func newExchange() *exchange { return &exchange{start: time.Now()} }

func (x *exchange) add(line string) {
	x.frames++
	var t int64
	if !x.start.IsZero() {
		t = time.Since(x.start).Microseconds()
	}
	n := len(line) + 1
	if x.tail == nil && x.headLen+n <= exchangeHead {
		x.head = append(x.head, line)
		x.headT = append(x.headT, t)
		x.headLen += n
		return
	}
	x.tail = append(x.tail, line)
	x.tailT = append(x.tailT, t)
	x.tailLen += n
	for x.tailLen > exchangeCap-exchangeHead && len(x.tail) > 1 {
		x.elided += len(x.tail[0]) + 1
		x.tailLen -= len(x.tail[0]) + 1
		x.tail, x.tailT = x.tail[1:], x.tailT[1:]
	}
}

// times is when each frame render shows was recorded, in order, in µs
// since the exchange began (nil for a nil exchange or one never started).
func (x *exchange) times() []int64 {
	if x == nil || x.start.IsZero() {
		return nil
	}
	return append(append([]int64(nil), x.headT...), x.tailT...)
}

// render is the exchange as text, one frame a line, indented.
func (x *exchange) render() string {
	if x == nil {
		return ""
	}
	var b strings.Builder
	for _, l := range x.head {
		b.WriteString("  " + l + "\n")
	}
	if x.elided > 0 {
		fmt.Fprintf(&b, "  … [%d bytes elided] …\n", x.elided)
	}
	for _, l := range x.tail {
		b.WriteString("  " + l + "\n")
	}
	return b.String()
}

// traceLog holds the --trace lines until the run ends: they are written
// then, redacted once more with every secret the run registered (a value
// registered after the frame that carried it, such as a derived secret,
// is redacted too). It holds at most traceCap bytes.
type traceLog struct {
	mu      sync.Mutex
	start   time.Time
	lines   [][]byte
	size    int
	dropped int
}

// add records one frame.
func (t *traceLog) add(c *connInfo, dir rpc.Direction, redacted string, spec string) {
	line, err := report.TraceLine(report.TraceRecord{T: time.Since(t.start).Microseconds(), Conn: c.id, Role: c.role, Dir: dir.String(), Spec: spec}, []byte(redacted))
	if err != nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.size+len(line)+1 > traceCap {
		t.dropped++
		return
	}
	t.lines = append(t.lines, line)
	t.size += len(line) + 1
}

// flush writes every line, each redacted by redact, and the marker line
// when lines were dropped.
func (t *traceLog) flush(w io.Writer, redact func(string) string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, l := range t.lines {
		s := redact(string(l))
		if !json.Valid([]byte(s)) {
			// Redaction cut through JSON syntax: keep the line valid.
			b, _ := json.Marshal(map[string]any{"t": 0, "conn": 0, "role": "", "dir": "", "frame": s, "notJSON": true})
			s = string(b)
		}
		if _, err := io.WriteString(w, s+"\n"); err != nil {
			return fmt.Errorf("writing the trace: %w", err)
		}
	}
	if t.dropped > 0 {
		b, _ := json.Marshal(map[string]any{"truncated": true, "droppedFrames": t.dropped,
			"note": fmt.Sprintf("the trace reached its cap of %d bytes: %d later frames are not in it", traceCap, t.dropped)})
		if _, err := fmt.Fprintf(w, "%s\n", b); err != nil {
			return fmt.Errorf("writing the trace: %w", err)
		}
	}
	t.lines, t.size = nil, 0
	return nil
}

// recordFrame is every frame of every connection, read or written: it is
// redacted, labelled with its connection, kept for the running spec's
// exchange and the connection's recent frames, written to Verbose, and to
// the trace.
func (e *runEnv) recordFrame(c *connInfo, dir rpc.Direction, content []byte) {
	if dir == rpc.Received {
		e.frameReceived()
		e.registerDerived(content) // before the frame is shown anywhere
	}
	s := e.Redact(string(content))
	line := frameLine(c, dir, s)
	if c != nil {
		c.remember(line)
		if dir == rpc.Sent {
			if d := describeRequest([]byte(s)); d != "" {
				c.mu.Lock()
				c.last = d
				c.mu.Unlock()
			}
		}
	}
	e.exchanges.record(frameRecord{dir, s}, line)
	spec := strings.Join(e.evidence.specIDs(), ",")
	if e.trace != nil && c != nil {
		e.trace.add(c, dir, s, spec)
	}
	if e.cfg.Verbose != nil {
		fmt.Fprintf(e.cfg.Verbose, "%s %s %s\n", c.label(), dir, s)
	}
}

// describeRequest is "engine/observe (id 7)" for a request, "" otherwise.
func describeRequest(content []byte) string {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(content, &m) != nil || m.Method == "" || len(m.ID) == 0 {
		return ""
	}
	return fmt.Sprintf("%s (id %s)", m.Method, m.ID)
}

// LastFrames renders the running (or last) spec's exchange, every frame
// labelled with its connection, and, for each of its requirements with a
// run-wide violation, the frames around the first one.
func (e *runEnv) LastFrames() string {
	x, ids := e.exchanges.last()
	var b strings.Builder
	b.WriteString(x.render())
	for _, id := range ids {
		if v := e.violationRecords(id); len(v) > 0 && v[0].exchange != "" {
			fmt.Fprintf(&b, "  around the first %s violation (%s):\n%s", id, clip(v[0].msg), indentLines(v[0].exchange))
		}
	}
	return b.String()
}

// LastFrameTimes is when each frame of the running (or last) spec's own
// exchange (the first part of LastFrames, before any run-wide violation's
// frames) was recorded, in µs since the spec began.
func (e *runEnv) LastFrameTimes() []int64 {
	return e.exchanges.lastTimes()
}

// indentLines indents every line of s by two more spaces.
func indentLines(s string) string {
	lines := strings.SplitAfter(s, "\n")
	var b strings.Builder
	for _, l := range lines {
		if l != "" {
			b.WriteString("  " + l)
		}
	}
	return b.String()
}

// writeTrace writes the run's trace to cfg.Trace, if set.
func (e *runEnv) writeTrace() error {
	if e == nil || e.trace == nil || e.cfg.Trace == nil {
		return nil
	}
	return e.trace.flush(e.cfg.Trace, e.Redact)
}

// streamBroke records that the stream of a connection broke (a framing
// fault of the server's) while the running spec used it: a failure of the
// spec is then reported not verified, with how, unless the spec checks the
// framing itself (suite.go, verdict.go). prepareSpec forgets it.
func (e *runEnv) streamBroke(how string) {
	e.exchanges.broke(func() string { return e.secrets.redact(how) })
}

// brokenStream says how the stream of a connection the running spec used
// broke: a raw connection's framing fault (streamBroke), or a client
// connection whose stream failed on a malformed message; "" when none did.
// It is called before endSpec.
func (e *runEnv) brokenStream() string {
	b, clients := e.exchanges.broken()
	if b != "" {
		return b
	}
	for _, c := range clients {
		if d := c.Diagnostics(); strings.HasPrefix(d, "malformed ") {
			fault, _, _ := strings.Cut(d, "; ")
			return e.Redact("the stream of a client connection broke at a frame the client library could not read (" + fault + ")")
		}
	}
	return ""
}
