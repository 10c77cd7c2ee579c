package conformance

import (
	"sync"

	"github.com/e2e-conform/toolkit/protocol/client"
)

// exchangeRecorder is what runEnv records of the frames exchanged, under
// its own lock: the last frames of the run, the running spec's exchange
// and the last spec's, and how a connection the running spec used broke.
// The zero value is ready.
type exchangeRecorder struct {
	mu     sync.Mutex
	frames []frameRecord // the last frames exchanged (actLastResult)
	conns  int           // connections opened so far (connInfo ids)
	// specExchange is the running spec's frames, labelled by connection;
	// lastExchange and lastIDs those of the spec that ran last (trace.go).
	specExchange *exchange
	lastExchange *exchange
	lastIDs      []string
	// specBroken is how the stream of a connection the running spec used
	// broke ("" while none did): the spec then ends at once, not verified.
	specBroken string
	// specClients are the client connections the running spec opened.
	specClients []*client.Conn
}

// nextConn numbers a new connection.
func (x *exchangeRecorder) nextConn() int {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.conns++
	return x.conns
}

// record keeps f among the last frames and line in the running spec's
// exchange.
func (x *exchangeRecorder) record(f frameRecord, line string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.frames = keepFrames(append(x.frames, f))
	if x.specExchange != nil {
		x.specExchange.add(line)
	}
}

// recent returns the last frames exchanged.
func (x *exchangeRecorder) recent() []frameRecord {
	x.mu.Lock()
	defer x.mu.Unlock()
	return append([]frameRecord(nil), x.frames...)
}

// begin starts the running spec's exchange; ids are its requirements.
func (x *exchangeRecorder) begin(ids []string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.specExchange = newExchange()
	x.lastExchange, x.lastIDs = x.specExchange, ids
	x.specClients = nil
}

// prepare forgets the previous spec's exchange and broken stream.
func (x *exchangeRecorder) prepare(ids []string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.lastExchange, x.lastIDs = nil, ids
	x.specBroken, x.specClients = "", nil
}

// end stops recording the running spec's exchange (the last one keeps it).
func (x *exchangeRecorder) end() {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.specExchange = nil
}

// last returns the running (or last) spec's exchange and requirements.
func (x *exchangeRecorder) last() (*exchange, []string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.lastExchange, append([]string(nil), x.lastIDs...)
}

// lastTimes is when each frame of the last exchange was recorded.
func (x *exchangeRecorder) lastTimes() []int64 {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.lastExchange.times()
}

// usedBy notes that the running spec uses client connection c.
func (x *exchangeRecorder) usedBy(c *client.Conn) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if len(x.specClients) < 64 {
		x.specClients = append(x.specClients, c)
	}
}

// broke records how a stream broke under the running spec, unless one
// did already (how is asked only then, under the lock, as before).
func (x *exchangeRecorder) broke(how func() string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.specBroken == "" {
		x.specBroken = how()
	}
}

// broken returns how a stream broke under the running spec ("" when none
// did) and the client connections it used.
func (x *exchangeRecorder) broken() (string, []*client.Conn) {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.specBroken, append([]*client.Conn(nil), x.specClients...)
}
