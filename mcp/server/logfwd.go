package server

import (
	"context"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// LoggerName is the logger of the log notifications (spec mcp.md §7.1).
const LoggerName = "e2e"

// MaxQueuedLogs bounds the operator lines waiting to be sent to the client;
// a line logged while the queue is full is dropped (log forwarding is best
// effort: the line is on stderr anyway).
const MaxQueuedLogs = 256

type logLine struct{ level, text string }

// Forwarder sends the operator log lines to the connected client as MCP
// notifications/message (logger "e2e", levels info, warning and error,
// spec §7.1). The Go SDK sends a session none until its client has set a
// level with logging/setLevel, nor a line below that level; a client of
// protocol 2026-07-28 sets no session level, so it gets none (the SDK takes
// the level per request there, and these lines belong to no request).
// Log never blocks: lines queue, at most MaxQueuedLogs, and Run sends them.
type Forwarder struct {
	q       chan logLine
	dropped atomic.Int64
}

// NewForwarder returns a Forwarder with an empty queue.
func NewForwarder() *Forwarder { return &Forwarder{q: make(chan logLine, MaxQueuedLogs)} }

// Log queues one line; it is the oplog.Forward of the operator log.
func (f *Forwarder) Log(level, text string) {
	select {
	case f.q <- logLine{level, text}:
	default:
		f.dropped.Add(1)
	}
}

// Dropped reports how many lines were dropped because the queue was full.
func (f *Forwarder) Dropped() int64 { return f.dropped.Load() }

// Run sends the queued lines to every session of s until ctx ends.
func (f *Forwarder) Run(ctx context.Context, s *mcp.Server) {
	for {
		select {
		case <-ctx.Done():
			return
		case l := <-f.q:
			for ss := range s.Sessions() {
				_ = ss.Log(ctx, &mcp.LoggingMessageParams{Level: mcp.LoggingLevel(l.level), Logger: LoggerName, Data: l.text})
			}
		}
	}
}
