// Package oplog is the MCP host's operator log (spec mcp.md §7.1): one line
// per record on stderr, `e2e mcp: [<level>] <message> key=value…`, with
// every secret value redacted.
package oplog

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"

	"github.com/e2e-conform/toolkit/mcp/redact"
)

// Prefix starts every operator line.
const Prefix = "e2e mcp: "

// Handler is an slog.Handler writing operator lines.
type Handler struct {
	mu    *sync.Mutex
	w     io.Writer
	r     *redact.Redactor
	level slog.Leveler
	attrs []slog.Attr
	fwd   Forward
}

// Forward receives each operator line of level info and above, redacted,
// as its level name ("info", "warning", "error") and its text without the
// prefix and level: what the MCP server sends the client as a log
// notification (spec mcp.md §7.1). It must not block.
type Forward func(level, text string)

// New returns a logger writing to w, redacting with r, at level and above.
func New(w io.Writer, r *redact.Redactor, level slog.Leveler) *slog.Logger {
	return NewForwarding(w, r, level, nil)
}

// NewForwarding is New whose lines of level info and above also go to fwd
// (nil: nowhere).
func NewForwarding(w io.Writer, r *redact.Redactor, level slog.Leveler, fwd Forward) *slog.Logger {
	return slog.New(&Handler{mu: &sync.Mutex{}, w: w, r: r, level: level, fwd: fwd})
}

// Enabled implements slog.Handler.
func (h *Handler) Enabled(_ context.Context, l slog.Level) bool { return l >= h.level.Level() }

func levelName(l slog.Level) string {
	switch {
	case l >= slog.LevelError:
		return "error"
	case l >= slog.LevelWarn:
		return "warning"
	case l >= slog.LevelInfo:
		return "info"
	default:
		return "debug"
	}
}

// Handle implements slog.Handler.
func (h *Handler) Handle(_ context.Context, rec slog.Record) error {
	var b strings.Builder
	b.WriteString(rec.Message)
	write := func(a slog.Attr) bool {
		if a.Equal(slog.Attr{}) {
			return true
		}
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value.Resolve().Any())
		return true
	}
	for _, a := range h.attrs {
		write(a)
	}
	rec.Attrs(write)
	text := b.String()
	if h.r != nil {
		text = h.r.String(text)
	}
	if h.fwd != nil && rec.Level >= slog.LevelInfo {
		h.fwd(levelName(rec.Level), text)
	}
	line := Prefix + "[" + levelName(rec.Level) + "] " + strings.ReplaceAll(text, "\n", "\n"+Prefix+"  ")
	h.mu.Lock()
	defer h.mu.Unlock()
	_, err := io.WriteString(h.w, line+"\n")
	return err
}

// WithAttrs implements slog.Handler.
func (h *Handler) WithAttrs(as []slog.Attr) slog.Handler {
	n := *h
	n.attrs = append(append([]slog.Attr{}, h.attrs...), as...)
	return &n
}

// WithGroup implements slog.Handler (groups are flattened).
func (h *Handler) WithGroup(string) slog.Handler { return h }
