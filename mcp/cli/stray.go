package cli

import (
	"bytes"
	"io"
	"sync"

	"github.com/e2e-conform/toolkit/mcp/oplog"
	"github.com/e2e-conform/toolkit/mcp/redact"
)

// Stray carries what code in the host process prints to os.Stdout or
// os.Stderr (not the operator log) to the operator's stderr: through one
// stream redactor (a tail that could begin a secret is held until the next
// write or Close, spec mcp.md §6.2), every line prefixed `e2e mcp: `.
type Stray struct {
	red *redact.Writer
}

// NewStray returns a Stray redacting with r into w.
func NewStray(r *redact.Redactor, w io.Writer) *Stray {
	return &Stray{red: redact.NewWriter(r, &prefixer{w: w, bol: true})}
}

// Write implements io.Writer.
func (s *Stray) Write(p []byte) (int, error) { return s.red.Write(p) }

// Flush writes what is held back (masked if it could be a cut secret).
func (s *Stray) Flush() error { return s.red.Flush() }

// Close flushes the Stray.
func (s *Stray) Close() error { return s.red.Close() }

// prefixer starts every line with the operator prefix.
type prefixer struct {
	mu  sync.Mutex
	w   io.Writer
	bol bool // at the beginning of a line
}

func (p *prefixer) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := len(b)
	var out bytes.Buffer
	for len(b) > 0 {
		if p.bol {
			out.WriteString(oplog.Prefix)
			p.bol = false
		}
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			out.Write(b)
			break
		}
		out.Write(b[:i+1])
		b = b[i+1:]
		p.bol = true
	}
	if _, err := p.w.Write(out.Bytes()); err != nil {
		return 0, err
	}
	return n, nil
}
