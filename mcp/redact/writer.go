package redact

import (
	"io"
	"sync"
)

// Writer redacts every write before passing it on. It suits writers that
// receive whole lines (an slog handler writes one record per call).
type Writer struct {
	mu sync.Mutex
	r  *Redactor
	w  io.Writer
}

// NewWriter returns a Writer redacting with r into w.
func NewWriter(r *Redactor, w io.Writer) *Writer { return &Writer{r: r, w: w} }

// Write redacts p and writes it; it reports len(p) on success.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, err := io.WriteString(w.w, w.r.String(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
