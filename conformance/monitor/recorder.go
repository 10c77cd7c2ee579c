package monitor

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/e2e-conform/toolkit/conformance/report"
	"github.com/e2e-conform/toolkit/conformance/traffic"
	"github.com/e2e-conform/toolkit/protocol/schema"
)

// Bounds of what the recorder keeps.
const (
	// recentFrames is how many frames of a connection a violation's
	// exchange shows.
	recentFrames = 8
	// frameClip bounds one frame in an exchange.
	frameClip = 2 << 10
	// keptViolations bounds the violations kept per requirement (the rest
	// are counted).
	keptViolations = 20
	// latencySamples bounds the round trips kept per method (the count
	// and the maximum cover every one).
	latencySamples = 2048
	// traceCap bounds the --trace lines kept in memory; later frames are
	// counted.
	traceCap = 64 << 20
	// maxSecrets bounds the secret values kept for redaction.
	maxSecrets = 1024
	// maxConns bounds the connections whose state is kept at once.
	maxConns = 256
)

// violationRec is one violation with the exchange around it.
type violationRec struct {
	traffic.Violation
	Conn     int
	Exchange string
}

// reqStat is what a requirement saw.
type reqStat struct {
	evidence   map[string]int
	violations []violationRec
	count      int // violations, kept or not
}

// methodStat is what one method saw.
type methodStat struct {
	fromHarness, fromEngine int
	samples                 []time.Duration
	calls, errors           int
	max                     time.Duration
}

// connRec is the judge's view of one connection.
type connRec struct {
	id       int
	conn     *traffic.Conn
	deframe  map[traffic.Side]*traffic.Deframer
	recent   []string
	sentAt   map[string]time.Time // the harness's pending request ids
	ended    int                  // directions ended
	unjudged *connState
	// next is the seq of the read to judge next; held are the reads that
	// arrived before it (at most the queue's length)
	next uint64
	held map[uint64]chunk
}

// recorder keeps what the judge found. Not safe for concurrent use (the
// Monitor's mu guards it).
type recorder struct {
	judge    Judge
	tracing  bool // --trace asked: frames are kept for it
	conns    map[*connState]*connRec
	closed   []*connState // connections ended, for the unjudged count
	reqs     map[string]*reqStat
	methods  map[string]*methodStat
	frames   int
	cut      []string // directions that ended inside a frame
	secrets  []string
	trace    [][]byte
	traceLen int
	traceOut int // lines left out past traceCap
	start    time.Time
	// release hands a read's buffer back once it is judged (nil: none)
	release func(*[]byte)
}

func newRecorder(j Judge, tracing bool) *recorder {
	return &recorder{judge: j, tracing: tracing, conns: map[*connState]*connRec{}, reqs: map[string]*reqStat{}, methods: map[string]*methodStat{}, start: time.Now()}
}

// harnessRule reports whether requirement id is judged on the harness's
// side (a section, or a CLI row).
func harnessRule(id string) bool { return strings.HasPrefix(id, "§") || strings.HasPrefix(id, "CLI-") }

// judges reports whether the recorder judges requirement id.
func (r *recorder) judges(id string) bool {
	switch r.judge {
	case JudgeEngine:
		return !harnessRule(id)
	case JudgeHarness:
		return harnessRule(id)
	}
	return true
}

func (r *recorder) stat(id string) *reqStat {
	s := r.reqs[id]
	if s == nil {
		s = &reqStat{evidence: map[string]int{}}
		r.reqs[id] = s
	}
	return s
}

// frameSink is the traffic.Sink of one frame of one connection.
type frameSink struct {
	r *recorder
	c *connRec
}

// Observed counts what requirement id checked.
func (s frameSink) Observed(id, what string) {
	if !s.r.judges(id) {
		return
	}
	st := s.r.stat(id)
	if len(st.evidence) < 64 || st.evidence[what] > 0 {
		st.evidence[what]++
	}
}

// Violation keeps v with the connection's recent frames.
func (s frameSink) Violation(v traffic.Violation) {
	if !s.r.judges(v.Requirement) {
		return
	}
	st := s.r.stat(v.Requirement)
	st.count++
	if len(st.violations) < keptViolations {
		st.violations = append(st.violations, violationRec{Violation: v, Conn: s.c.id, Exchange: strings.Join(s.c.recent, "\n")})
	}
}

func (r *recorder) connOf(cs *connState, rules traffic.Rules, spawn bool) *connRec {
	c := r.conns[cs]
	if c == nil {
		if len(r.conns) >= maxConns {
			for other := range r.conns {
				if other.lost.Load() {
					r.drop(other)
				}
			}
		}
		if len(r.conns) >= maxConns {
			cs.lost.Store(true)
			return nil
		}
		c = &connRec{id: cs.id, conn: traffic.NewConn(rules), sentAt: map[string]time.Time{}, unjudged: cs, next: 1, held: map[uint64]chunk{},
			deframe: map[traffic.Side]*traffic.Deframer{
				traffic.Harness: {From: traffic.Harness},
				traffic.Engine:  {From: traffic.Engine, Spawn: spawn},
			}}
		r.conns[cs] = c
	}
	return c
}

// accept takes one read of a connection and judges, in seq order, every
// read of it that is due. A connection the queue lost is dropped.
func (r *recorder) accept(s *schema.Set, ch chunk, spawn bool) {
	if ch.conn.lost.Load() {
		r.release1(ch)
		r.drop(ch.conn)
		return
	}
	c := r.connOf(ch.conn, traffic.Rules{Schemas: s}, spawn)
	if c == nil {
		r.release1(ch)
		return
	}
	if ch.seq != c.next {
		c.held[ch.seq] = ch
		return
	}
	for {
		r.chunk(c, ch)
		r.release1(ch)
		c.next++
		next, ok := c.held[c.next]
		if !ok || r.conns[ch.conn] == nil {
			return
		}
		delete(c.held, c.next)
		ch = next
	}
}

func (r *recorder) release1(ch chunk) {
	if ch.buf != nil && r.release != nil {
		r.release(ch.buf)
	}
}

// drop forgets a connection the queue lost (its bytes are counted by the
// relay from then on).
func (r *recorder) drop(cs *connState) {
	c := r.conns[cs]
	if c == nil {
		return
	}
	for _, h := range c.held {
		r.release1(h)
	}
	delete(r.conns, cs)
	if len(r.closed) < maxConns {
		r.closed = append(r.closed, cs)
	}
}

// chunk judges one read of c, in its turn.
func (r *recorder) chunk(c *connRec, ch chunk) {
	sink := frameSink{r: r, c: c}
	d := c.deframe[ch.from]
	if ch.end {
		if n := d.Partial(); n > 0 {
			r.cut = append(r.cut[:min(len(r.cut), 16)], fmt.Sprintf("conn %d: %s's side ended inside a frame (%d bytes of it; not judged: a side killed mid-write breaks no rule)", c.id, ch.from, n))
		}
		c.ended++
		if c.ended == 2 {
			delete(r.conns, ch.conn)
			if len(r.closed) < maxConns {
				r.closed = append(r.closed, ch.conn)
			}
		}
		return
	}
	if c.deframe[traffic.Harness].Lost() || c.deframe[traffic.Engine].Lost() {
		// A direction out of step: neither side's state is known any
		// more, so the connection is relayed, counted, not judged.
		ch.conn.outOfStep.Add(int64(len(ch.data)))
		return
	}
	d.Feed(sink, ch.data, func(content []byte) bool {
		if c.deframe[traffic.Harness].Lost() || c.deframe[traffic.Engine].Lost() {
			return true
		}
		return r.frame(c, sink, ch, content)
	})
}

// arrow labels a direction in exchanges and the trace.
func arrow(from traffic.Side) string {
	if from == traffic.Harness {
		return "harness → engine"
	}
	return "engine → harness"
}

// frame judges one frame's content and reports whether it was JSON.
func (r *recorder) frame(c *connRec, sink frameSink, ch chunk, content []byte) bool {
	r.frames++
	line := fmt.Sprintf("conn %d %s: %s", c.id, arrow(ch.from), clipFrame(content))
	c.recent = append(c.recent, line)
	if len(c.recent) > recentFrames {
		c.recent = c.recent[len(c.recent)-recentFrames:]
	}
	if r.tracing {
		r.traceFrame(c.id, ch, content)
	}
	seen := c.conn.Frame(sink, ch.from, content)
	if seen.Kind == traffic.KindInvalid {
		return false
	}
	for _, v := range seen.Secrets {
		if len(r.secrets) < maxSecrets && v != "" {
			r.secrets = append(r.secrets, v)
		}
	}
	if seen.Method == "" {
		return true
	}
	ms := r.methods[seen.Method]
	if ms == nil {
		if len(r.methods) >= 256 {
			return true
		}
		ms = &methodStat{}
		r.methods[seen.Method] = ms
	}
	switch {
	case seen.Kind == traffic.KindRequest || seen.Kind == traffic.KindNotification:
		if ch.from == traffic.Harness {
			ms.fromHarness++
		} else {
			ms.fromEngine++
		}
		if seen.Kind == traffic.KindRequest && ch.from == traffic.Harness && len(c.sentAt) < 4096 {
			c.sentAt[seen.ID] = ch.at
		}
	case seen.Kind == traffic.KindResponse && ch.from == traffic.Engine:
		at, ok := c.sentAt[seen.ID]
		if !ok {
			return true
		}
		delete(c.sentAt, seen.ID)
		took := ch.at.Sub(at)
		ms.calls++
		if seen.IsError {
			ms.errors++
		}
		if took > ms.max {
			ms.max = took
		}
		if len(ms.samples) < latencySamples {
			ms.samples = append(ms.samples, took)
		} else {
			ms.samples[ms.calls%latencySamples] = took
		}
	}
	return true
}

// clipFrame is content for an exchange: bounded, valid UTF-8.
func clipFrame(b []byte) string {
	if len(b) > frameClip { // cut before the copy: frames may be megabytes
		return strings.ToValidUTF8(string(b[:frameClip/2])+" … "+string(b[len(b)-frameClip/2:]), "\uFFFD")
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

func (r *recorder) traceFrame(conn int, ch chunk, content []byte) {
	if r.traceLen > traceCap {
		r.traceOut++
		return
	}
	dir := "received" // as the suite: what the harness received
	if ch.from == traffic.Harness {
		dir = "sent"
	}
	line, err := report.TraceLine(report.TraceRecord{T: ch.at.Sub(r.start).Microseconds(), Conn: conn, Role: "monitor", Dir: dir}, content)
	if err != nil {
		return
	}
	r.trace = append(r.trace, line)
	r.traceLen += len(line) + 1
}

// methodNames returns the methods seen, sorted.
func (r *recorder) methodNames() []string {
	var out []string
	for m := range r.methods {
		out = append(out, m)
	}
	sort.Strings(out)
	return out
}

// latency is the round trips per method, as the suite reports them.
func (r *recorder) latency() []report.MethodLatency {
	var out []report.MethodLatency
	for _, name := range r.methodNames() {
		ms := r.methods[name]
		if ms.calls == 0 {
			continue
		}
		s := append([]time.Duration(nil), ms.samples...)
		sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
		pct := func(p float64) float64 {
			i := int(p*float64(len(s))+0.999999) - 1
			i = max(0, min(i, len(s)-1))
			return report.Millis(s[i])
		}
		out = append(out, report.MethodLatency{Method: name, Count: ms.calls, Errors: ms.errors, P50Ms: pct(0.5), P90Ms: pct(0.9), P99Ms: pct(0.99), MaxMs: report.Millis(ms.max), Sampled: ms.calls > len(ms.samples)})
	}
	return out
}
