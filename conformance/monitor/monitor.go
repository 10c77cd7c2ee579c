// Package monitor is `e2e-conform monitor`: it sits between a harness and an
// engine server (in place of the engine command, or between two TCP
// addresses), relays every byte of both directions unchanged and in order,
// and judges the traffic with the rules that traffic alone can decide
// (package traffic, shared with the conformance suite's run-wide checks),
// on the engine's side and on the harness's. It writes a report in the
// suite's formats (conformance/report) at exit and on SIGUSR1.
//
// The relay never waits for the judge: each direction writes what it reads
// straight to the other side, and only then hands a copy to a bounded
// queue the judge reads. Each read takes its connection's next sequence
// number before it is relayed, and the judge takes a connection's reads in
// that order, so a harness frame is judged before the engine's answer to
// it. When the queue is full the bytes are relayed all the same, and the
// connection's traffic from then on is counted, not judged (its state is
// no longer known). Memory does not grow with the session's length:
// the queue, each connection's recent frames and the kept violations are
// bounded.
package monitor

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/e2e-conform/toolkit/conformance/traffic"
	"github.com/e2e-conform/toolkit/protocol/schema"
)

// Judge selects the sides whose rules are applied.
type Judge string

// Sides to judge.
const (
	JudgeBoth    Judge = "both"
	JudgeEngine  Judge = "engine"
	JudgeHarness Judge = "harness"
)

// Config is what `e2e-conform monitor` is asked to do.
type Config struct {
	// Command is the engine's command and arguments (spawn): the monitor
	// starts it and relays Stdin to its stdin and its stdout to Stdout;
	// its stderr goes to Stderr unchanged.
	Command []string
	// Listen and Connect (socket): every connection accepted on Listen is
	// relayed to a new connection to Connect.
	Listen, Connect string
	// Stdin, Stdout and Stderr are the harness's ends (spawn).
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer

	// Report paths ("" for none).
	JSON, HTML, JUnit, Trace string
	// Fail makes the session exit 1 when a violation was seen.
	Fail bool
	// Judge is the sides judged ("" is both).
	Judge Judge
	// QueueChunks bounds the judge's queue, in reads of up to 32 KiB
	// (0: 1024).
	QueueChunks int
	// Ready, when set, is called with the address listened on (socket).
	Ready func(addr string)
	// Reports, when set, is called with each report built (at SIGUSR1
	// and at the end), after the files are written.
	Reports func(*Report)
	// Signals delivers the signals the monitor receives (the CLI's
	// signal.Notify): SIGUSR1 writes the reports so far; the others are
	// forwarded to the engine (spawn) or end the session (socket).
	Signals <-chan os.Signal
	// Logger logs the monitor's own events (nil: discard).
	Logger *slog.Logger
}

// chunk is what one read of one direction got.
type chunk struct {
	conn *connState
	from traffic.Side
	data []byte // nil at the direction's end
	at   time.Time
	end  bool
	buf  *[]byte // the pooled buffer data lives in
	// seq is the read's place among its connection's reads, both
	// directions: taken before the read is relayed, so a harness frame
	// comes before the engine's answer to it even though each read is
	// handed to the judge after it was relayed.
	seq uint64
	// barrier, when set, is closed by the judge when it reaches the chunk:
	// everything queued before it is judged.
	barrier chan struct{}
}

const readSize = 32 << 10

// Monitor relays and judges the connections of one monitored session.
type Monitor struct {
	cfg     Config
	schemas *schema.Set
	start   time.Time

	queue chan chunk
	pool  sync.Pool
	nconn atomic.Int64

	// judged under mu by the judge goroutine, read by report
	mu   sync.Mutex
	rec  *recorder
	done chan struct{}
}

// New returns a monitor for cfg.
func New(cfg Config) (*Monitor, error) {
	s, err := schema.Load()
	if err != nil {
		return nil, fmt.Errorf("loading the schemas: %w", err)
	}
	if cfg.Judge == "" {
		cfg.Judge = JudgeBoth
	}
	if cfg.QueueChunks <= 0 {
		cfg.QueueChunks = 1024
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	m := &Monitor{cfg: cfg, schemas: s, start: time.Now(), queue: make(chan chunk, cfg.QueueChunks), done: make(chan struct{})}
	m.pool.New = func() any { b := make([]byte, readSize); return &b }
	m.rec = newRecorder(cfg.Judge, cfg.Trace != "")
	m.rec.release = func(b *[]byte) { m.pool.Put(b) }
	return m, nil
}

// connState is one relayed connection.
type connState struct {
	id    int
	seq   atomic.Uint64 // the last read's seq
	lost  atomic.Bool   // the queue overflowed: no longer judged
	bytes atomic.Int64  // bytes relayed unjudged (the queue was full)
	// outOfStep is the bytes relayed unjudged after a framing fault put
	// the connection out of step (judge only).
	outOfStep atomic.Int64
}

func (m *Monitor) newConn() *connState {
	return &connState{id: int(m.nconn.Add(1))}
}

// tee hands a copy of b, the read seq of c read at at, to the judge, or
// counts it unjudged when the queue is full. It never blocks.
func (m *Monitor) tee(c *connState, from traffic.Side, b []byte, seq uint64, at time.Time) {
	if c.lost.Load() {
		c.bytes.Add(int64(len(b)))
		return
	}
	bp := m.pool.Get().(*[]byte)
	n := copy(*bp, b)
	select {
	case m.queue <- chunk{conn: c, from: from, data: (*bp)[:n], at: at, buf: bp, seq: seq}:
	default:
		m.pool.Put(bp)
		c.lost.Store(true)
		c.bytes.Add(int64(len(b)))
	}
}

// teeEnd tells the judge a direction ended; a full queue loses the
// connection as tee does.
func (m *Monitor) teeEnd(c *connState, from traffic.Side) {
	seq := c.seq.Add(1)
	if c.lost.Load() {
		return
	}
	select {
	case m.queue <- chunk{conn: c, from: from, end: true, at: time.Now(), seq: seq}:
	default:
		c.lost.Store(true)
	}
}

// relay copies src to dst until src ends or dst fails, and then hands
// each read to the judge: the copy comes first, the judge's share after
// it, off the relay's way. Each read takes its connection's next seq
// before it is relayed, so the judge, which judges a connection's reads in
// seq order, sees a harness frame before the engine's answer to it. It
// returns the error that stopped it (nil at EOF).
func (m *Monitor) relay(dst io.Writer, src io.Reader, c *connState, from traffic.Side) error {
	buf := make([]byte, readSize)
	defer m.teeEnd(c, from)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			at, seq := time.Now(), c.seq.Add(1)
			_, werr := dst.Write(buf[:n])
			m.tee(c, from, buf[:n], seq, at)
			if werr != nil {
				return fmt.Errorf("relaying %s's bytes: %w", from, werr)
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading %s's bytes: %w", from, err)
		}
	}
}

// judge reads the queue until stop is closed and the queue is drained.
func (m *Monitor) judge(ctx context.Context, stop <-chan struct{}) {
	defer close(m.done)
	for {
		select {
		case ch := <-m.queue:
			m.judgeChunk(ch)
		case <-stop:
			for {
				select {
				case ch := <-m.queue:
					m.judgeChunk(ch)
				default:
					return
				}
			}
		}
	}
}

func (m *Monitor) judgeChunk(ch chunk) {
	if ch.barrier != nil {
		close(ch.barrier)
		return
	}
	m.mu.Lock()
	m.rec.accept(m.schemas, ch, m.cfg.Command != nil)
	m.mu.Unlock()
}

// judged waits until the judge has judged every read queued so far (it
// must be running).
func (m *Monitor) judged() {
	b := make(chan struct{})
	m.queue <- chunk{barrier: b}
	<-b
}
