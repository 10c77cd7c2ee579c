package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	scan "github.com/e2e-conform/toolkit/protocol/frame"
	"github.com/e2e-conform/toolkit/protocol/transport"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// A socket server MUST serve several connections concurrently (§9.2: "A
// socket server MUST serve several connections, concurrently, and keep
// listening after any of them closes"; TRN-003: "The server serves two
// simultaneous connections, each with its own initialize"). The suite
// keeps connections open across specs (the worker pool, pool.go) and many
// specs open a second one, so a server that serves one connection at a
// time (it accepts the next but reads it only once the first has closed)
// left each such spec waiting its whole budget for an initialize answer
// that could not come, failing requirements it never judged, until the
// run timeout cut the run.
//
// connGuard wraps the socket transport. It bounds the answer to the
// initialize a connection opens with, while another of the suite's
// connections is open, by unservedBound (the bound of TRN-003's own spec):
// a connection whose server wrote nothing by then is the violation of
// TRN-003 it is, recorded at once (the run-wide check of TRN-003 reports
// it), and the connection is closed so that the spec waiting on it ends at
// once; the spec, which needed that connection, is not verified
// (AddReportEntry "connection unserved", specsFrom), unless it checks
// TRN-003 itself. From then on a new connection is not opened while as
// many connections as the server left unserved are open: the suite first
// retires its idle pooled connections, and refuses the open when that is
// not enough, so that no other spec waits for the bound again.
//
// Spawned servers are not guarded: each connection is a process of its
// own (§9.1), which serves exactly that connection.
type connGuard struct {
	tr transport.Transport
	e  *runEnv

	mu   sync.Mutex
	live map[*guardedConn]bool // opened, neither closed by the suite nor ended by the server
	// unserved is the first connection left unserved, "" when none was;
	// limit is the fewest other connections open when one was (0: none).
	unserved string
	limit    int
	// cut says why a connection of the running spec was closed unserved,
	// not opened or ended by the server, "" when none was (takeCut);
	// cutJudges are the requirements whose own specs judge that, which it
	// does not excuse.
	cut connCut
	// lastEnd is when a connection last ended (closed by the suite or
	// ended by the server); lastUnclean when the suite last closed one on
	// which it had not written exit (§2.9: closed without shutdown), or
	// the server ended one on which the suite had written bytes that are
	// not frames (a fatal framing fault ends it as a close without
	// shutdown, §1.2, §2.6).
	lastEnd     time.Time
	lastUnclean time.Time
	// uncleanCloses counts the connections the suite closed without
	// writing exit (the pool's staleness mark, pool.go).
	uncleanCloses int
}

// connCut says why a connection of the running spec was cut (closed
// unserved, not opened, or ended by the server), zero when none was.
type connCut struct {
	why string
	// judges are the requirements whose own specs judge the cause: a
	// spec checking one of them is not excused.
	judges []string
	// endedOnly: only a failure that shows a connection ending
	// (connEndedWords) is excused; a spec that failed otherwise (a connection
	// refused, a wrong answer) failed for its own reasons.
	endedOnly bool
}

// excuses reports whether the cut leaves a spec checking ids, which failed
// with message failure, not verified rather than failed.
func (c connCut) excuses(ids []string, failure string) bool {
	if c.why == "" || slices.ContainsFunc(ids, func(id string) bool { return slices.Contains(c.judges, id) }) {
		return false
	}
	return !c.endedOnly || slices.ContainsFunc(connEndedWords, func(w string) bool { return strings.Contains(failure, w) })
}

// connEndedWords are what a spec's failure says when it failed because a
// connection ended under it: the raw connection's read ("connection
// ended", raw.go, peerend.go) and write ("the server had closed the
// connection", raw.go), and the client library's call ("the connection to
// ADDR was lost", protocol/client).
var connEndedWords = []string{"connection ended", "the server had closed the connection", "was lost"}

// judgedByTRN003 are the requirements a connection refused or left
// unserved beside others breaks: their own specs are not excused by it.
var judgedByTRN003 = []string{"TRN-003"}

// judgedByTRN005 are the requirements a connection the server ends right
// after the suite closed another without shutdown may break: "A connection
// closing without shutdown leaves a request in flight on another
// connection to complete normally" (TRN-005), and "After a connection
// closes, with or without shutdown, a new connection's initialize
// succeeds" (TRN-004). Their own specs are not excused by it.
var judgedByTRN005 = []string{"TRN-004", "TRN-005"}

// recentEnd is how long after a connection of the suite ended a server
// may still count it open: a refusal of a new connection within it is
// the spec's need of a connection beside one the server has not seen go.
const recentEnd = 2 * time.Second

// exitMethod is what the suite's exit notification holds: `"exit"` in any
// frame the suite writes marks the connection as closed with exit (a
// false match only keeps the rule of ended from excusing a failure).
const exitMethod = `"` + wire.MethodExit + `"`

// unservedBound bounds the answer to initialize on a socket connection
// opened while another of the suite's connections is open.
const unservedBound = 10 * time.Second

// errUnserved marks an open the guard refused: the server leaves a new
// connection unserved while as many as are open now stay open.
var errUnserved = errors.New("the suite opened no new connection")

func newConnGuard(e *runEnv, tr transport.Transport) *connGuard {
	return &connGuard{tr: tr, e: e, live: map[*guardedConn]bool{}}
}

// Label is the socket transport's.
func (g *connGuard) Label() string { return g.tr.Label() }

// Open opens a connection, unless the server left one unserved while as
// many others as are open now were open (then the idle pooled connections
// are retired first, and the open is refused when that is not enough).
func (g *connGuard) Open(ctx context.Context, tc transport.Context) (transport.Conn, error) {
	// The idle pooled connections are retired before any other opens:
	// the suite's own pooling never makes a spec need two connections at
	// once. A server's concurrency is TRN-003's to judge, by its own spec
	// and by the specs that hold two connections themselves; otherwise a
	// server refusing a second connection failed, in a full run, every
	// spec that happened to open one beside an idle pooled connection, and
	// passed the same specs under --only (selection invariance), and a
	// server closing every connection when one closes without shutdown
	// broke the idle one under the next spec.
	g.e.emptyPool()
	if limit, open := g.limitAndOpen(); limit > 0 && open >= limit {
		if limit, open = g.limitAndOpen(); open >= limit {
			g.mu.Lock()
			why := fmt.Sprintf("%d connection(s) of the suite are open, and earlier %s", open, g.unserved)
			g.cutFor("this spec needs a connection besides the "+fmt.Sprint(open)+" open, and earlier "+g.unserved, judgedByTRN003)
			g.mu.Unlock()
			return nil, fmt.Errorf("%w: %s", errUnserved, why)
		}
	}
	c, err := g.tr.Open(ctx, tc)
	if err != nil {
		return nil, err
	}
	gc := &guardedConn{Conn: c, g: g}
	g.mu.Lock()
	g.live[gc] = true
	g.mu.Unlock()
	return gc, nil
}

// limitAndOpen returns limit and how many connections are open.
func (g *connGuard) limitAndOpen() (limit, open int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.limit, len(g.live)
}

// cutFor records why a connection of the running spec was cut, unless a
// cut is recorded already, with the requirements whose own specs judge
// it. Called with g.mu held.
func (g *connGuard) cutFor(why string, judges []string) {
	if g.cut.why == "" {
		g.cut = connCut{why: why, judges: judges}
	}
}

// uncleanCount returns how many connections the suite has closed without
// exit; 0 over spawn (g nil).
func (g *connGuard) uncleanCount() int {
	if g == nil {
		return 0
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.uncleanCloses
}

// takeCut returns why a connection of the running spec was closed
// unserved, not opened or ended by the server ("" when none was), with the
// requirements whose specs judge that (a spec checking one of them is not
// excused), and forgets it.
func (g *connGuard) takeCut() connCut {
	if g == nil {
		return connCut{}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	c := g.cut
	g.cut = connCut{}
	return c
}

// ended forgets c as open: closed by the suite (byServer false) or ended
// by its server. A connection the server ends, on which the suite wrote no
// exit, within recentEnd of the suite closing another without shutdown
// (or of the server ending one on which the suite wrote unframed bytes), is
// most likely ended because of that close (a socket server ending every
// connection when one closes without shutdown): TRN-005's and TRN-004's
// own specs judge it, and the spec that needed the connection is cut (not
// verified when it failed) rather than failed under a requirement it does
// not check (issue 25: close-kills-all failed MAN-004, OBS-004, SIG-005
// … in the full run, at random, and none of them under --only).
func (g *connGuard) ended(c *guardedConn, byServer bool) {
	g.mu.Lock()
	if g.live[c] {
		now := time.Now()
		switch {
		case !byServer && !c.exitWritten, byServer && c.unframed && !c.exitWritten:
			g.lastUnclean = now
			g.uncleanCloses++
		case byServer && !c.exitWritten && !g.lastUnclean.IsZero() && now.Sub(g.lastUnclean) < recentEnd && g.cut.why == "":
			g.cut = connCut{why: fmt.Sprintf("the server ended a connection this spec needed %s after the suite closed another without shutdown (a server must not: TRN-005, judged by its own spec)", now.Sub(g.lastUnclean).Round(time.Millisecond)), judges: judgedByTRN005, endedOnly: true}
		}
		g.lastEnd = now
	}
	delete(g.live, c)
	if c.timer != nil {
		c.timer.Stop()
	}
	c.done = true
	g.mu.Unlock()
}

// guardedConn is a socket connection the guard follows: open until the
// suite closes it or its server ends it, and served once its server wrote
// anything.
type guardedConn struct {
	transport.Conn
	g *connGuard

	// Guarded by g.mu.
	done       bool   // closed by the suite or ended by the server
	served     bool   // the server wrote something
	settled    bool   // no (more) initialize to watch for
	written    []byte // what the suite wrote while nothing was read, until an initialize request was found
	read       []byte // what the server wrote, until its first frame (watched connections only)
	recent     bool   // none other was open at the initialize, but one had ended within recentEnd
	wellFormed bool   // the first request is well-formed (validEnvelope): -32600 never answers it
	timer      *time.Timer
	others     []*guardedConn // open when the initialize request was written
	stack      string

	// unframed: the suite wrote bytes that are not whole frames (a
	// header a spec wrote wrong on purpose, unframed).
	unframed bool
	// exitWritten: the suite wrote what looks like an exit notification
	// (a close with shutdown, or a spec's own exit): the server ending
	// the connection then is no sign of another's close.
	exitWritten bool
}

// Read notes the first bytes the server wrote (an initialize answered
// while other connections were open is TRN-003's evidence) and its end.
func (c *guardedConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	g := c.g
	if n > 0 {
		g.mu.Lock()
		first := !c.served
		c.served, c.written = true, nil
		watched := c.timer != nil && len(c.others) > 0
		if c.timer != nil {
			c.timer.Stop()
		}
		refused, decided := false, !(len(c.others) > 0 || c.recent) || !c.wellFormed
		if !decided {
			refused, decided = c.firstFrameRefuses(p[:n])
		}
		if decided {
			c.timer, c.read, c.recent = nil, nil, false
		}
		g.mu.Unlock()
		switch {
		case refused:
			c.refused()
		case first && watched && decided:
			g.e.observed("TRN-003", "initialize answered on a connection opened while another of the suite's was open")
		}
	}
	if err != nil {
		g.ended(c, true)
	}
	return n, err
}

// Write watches for the initialize request a connection opens with. The
// bytes are filed before they are written: the answer can be read before
// Write returns.
func (c *guardedConn) Write(p []byte) (int, error) {
	c.wrote(p)
	return c.Conn.Write(p)
}

// Close forgets the connection as open, then closes it.
func (c *guardedConn) Close(timeout time.Duration) error {
	c.g.ended(c, false)
	return c.Conn.Close(timeout)
}

// wroteUnframed notes that the suite wrote bytes on c that are not whole
// frames: a server ending c then ends it as a close without shutdown.
func (c *guardedConn) wroteUnframed() {
	c.g.mu.Lock()
	c.unframed = true
	c.g.mu.Unlock()
}

// wrote files bytes the suite wrote; once they hold a whole initialize
// request written before anything was read, with other connections open,
// the answer is bounded by unservedBound.
func (c *guardedConn) wrote(p []byte) {
	g := c.g
	g.mu.Lock()
	defer g.mu.Unlock()
	if !c.exitWritten && bytes.Contains(p, []byte(exitMethod)) {
		c.exitWritten = true
	}
	if c.done || c.served || c.settled {
		return
	}
	c.written = append(c.written, p...)
	for len(c.written) > 0 {
		f, n, err := scan.Split(c.written, scan.Options{Mode: scan.Lenient, Limit: wire.MaxMessageBytes})
		if errors.Is(err, scan.ErrIncomplete) && len(c.written) < 1<<20 {
			return
		}
		if err != nil {
			c.written, c.settled = nil, true // not frames a server reads as such: not watched
			return
		}
		c.written = c.written[n:]
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(f.Content, &m) != nil || m.Method == "" || len(m.ID) == 0 || string(m.ID) == "null" {
			continue
		}
		c.written, c.settled = nil, true
		// Whatever the request (an initialize, one LIFE-002 makes
		// invalid, a request before initialize as LIFE-003's), -32600
		// answers no well-formed first request of a connection (§1.3;
		// the order of checks gives it only to a second initialize and
		// after shutdown): a server answering it so refuses the
		// connection.
		c.wellFormed = validEnvelope(f.Content)
		for o := range g.live {
			if o != c {
				c.others = append(c.others, o)
			}
		}
		if len(c.others) == 0 {
			c.recent = !g.lastEnd.IsZero() && time.Since(g.lastEnd) < recentEnd
			return // nothing else open: nothing to bound
		}
		if m.Method == wire.MethodInitialize {
			c.timer = time.AfterFunc(unservedBound, c.expire)
		}
		return
	}
}

// expire ends a connection whose initialize was not answered within
// unservedBound, when some of the connections open at its writing still
// are: the server does not serve it while they are open.
func (c *guardedConn) expire() {
	g := c.g
	g.mu.Lock()
	still := 0
	for _, o := range c.others {
		if g.live[o] {
			still++
		}
	}
	if c.done || c.served || still == 0 {
		g.mu.Unlock()
		return
	}
	msg := fmt.Sprintf("the server did not answer initialize on a new connection within %s while %d other connection(s) of the suite were open (§9.2: \"A socket server MUST serve several connections, concurrently\"; TRN-003: \"The server serves two simultaneous connections, each with its own initialize\")", unservedBound, still)
	if g.unserved == "" {
		g.unserved = msg
	}
	if g.limit == 0 || still < g.limit {
		g.limit = still
	}
	g.cutFor("this spec needs a connection besides those open, and "+msg, judgedByTRN003)
	g.mu.Unlock()
	g.e.violation("TRN-003", "%s", msg)
	_ = c.Close(0) // the spec waiting for the answer ends now
}

// firstFrameRefuses adds p to what the server wrote on a watched
// connection and, once that holds the first frame, says whether it is an
// -32600 error answering the connection's well-formed first request (decided false while
// the frame is incomplete). Called with g.mu held.
func (c *guardedConn) firstFrameRefuses(p []byte) (refused, decided bool) {
	c.read = append(c.read, p...)
	f, _, err := scan.Split(c.read, scan.Options{Mode: scan.Lenient, Limit: wire.MaxMessageBytes})
	if errors.Is(err, scan.ErrIncomplete) && len(c.read) < 1<<20 {
		return false, false
	}
	if err != nil {
		return false, true // not a frame: the framing checks judge it
	}
	var m struct {
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
		Method string `json:"method"`
	}
	if json.Unmarshal(f.Content, &m) != nil || m.Method != "" || m.Error == nil {
		return false, true
	}
	// -32600 only: a valid initialize may still get -32602 (a member a
	// spec made wrong) or another error of right; -32600 answers no
	// well-formed first request (§1.3).
	return m.Error.Code == wire.CodeInvalidRequest, true
}

// validEnvelope reports whether content is a well-formed JSON-RPC 2.0
// request: "jsonrpc": "2.0", a string method, an integer or string id.
func validEnvelope(content []byte) bool {
	var m struct {
		JSONRPC string          `json:"jsonrpc"`
		Method  *string         `json:"method"`
		ID      json.RawMessage `json:"id"`
	}
	if json.Unmarshal(content, &m) != nil || m.JSONRPC != "2.0" || m.Method == nil || len(m.ID) == 0 {
		return false
	}
	var n int64
	var str string
	return json.Unmarshal(m.ID, &n) == nil || json.Unmarshal(m.ID, &str) == nil
}

// refused records a server that answered -32600 to the first request of
// a connection opened beside others of the suite's, or right after one
// ended (recentEnd): for the spec that needed the connection, the cut that
// leaves it not verified when it failed. It is no run-wide evidence:
// TRN-003's own spec and the unserved bound (expire) judge the server.
func (c *guardedConn) refused() {
	g := c.g
	g.mu.Lock()
	defer g.mu.Unlock()
	g.cutFor(fmt.Sprintf("this spec needs a connection besides those open, and the server answered its first request with -32600 while %d other connection(s) of the suite were open, or one had ended %s before at most", len(c.others), recentEnd), judgedByTRN003)
}
