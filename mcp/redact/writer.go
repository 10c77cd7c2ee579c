package redact

import (
	"io"
	"sync"
)

// MaxHeld bounds what a Writer holds back between writes; a longer end
// that could begin a value is written, masked as a cut value if it is long
// enough.
const MaxHeld = 4096

// Writer is a stream redactor: it redacts every write before passing it on
// and holds back an end that could be the start of a value (Redactor.HeldTail)
// until the next write completes or refutes it, so that a value split over
// two writes is still masked. Flush writes what is held (masked as a cut
// value when long enough, see Redactor.Cut); Close flushes. Safe for
// concurrent use.
type Writer struct {
	mu   sync.Mutex
	r    *Redactor
	w    io.Writer
	held []byte
}

// NewWriter returns a Writer redacting with r into w.
func NewWriter(r *Redactor, w io.Writer) *Writer { return &Writer{r: r, w: w} }

// Write redacts p and writes what can be written now; it reports len(p)
// on success.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	buf := append(w.held, p...)
	out, held := w.r.split(string(buf))
	if held > MaxHeld {
		out, held = out+w.r.Cut(string(buf[len(buf)-held:])), 0
	}
	w.held = append(w.held[:0:0], buf[len(buf)-held:]...)
	if out != "" {
		if _, err := io.WriteString(w.w, out); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// Flush writes what is held back, masked as a cut value when it is long
// enough to be one.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.held) == 0 {
		return nil
	}
	out := w.r.Cut(string(w.held))
	w.held = nil
	_, err := io.WriteString(w.w, out)
	return err
}

// Close flushes the writer; it does not close the underlying writer.
func (w *Writer) Close() error { return w.Flush() }
