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
