package report

import (
	"fmt"
	"io"
	"math"
	"time"
)

// MethodLatency is the round-trip time of one method's calls in a run: from
// the moment the suite wrote a request to the moment it read the response
// (a result or an error), in milliseconds with 0.1 ms precision. The
// percentiles are nearest-rank percentiles of the calls recorded (all of
// them, or a uniform sample of latencySamples of the suite's recorder when there were more: then
// Sampled is true; Count and MaxMs always cover every call).
type MethodLatency struct {
	Method  string  `json:"method"`
	Count   int     `json:"count"`
	Errors  int     `json:"errors"`
	P50Ms   float64 `json:"p50Ms"`
	P90Ms   float64 `json:"p90Ms"`
	P99Ms   float64 `json:"p99Ms"`
	MaxMs   float64 `json:"maxMs"`
	Sampled bool    `json:"sampled,omitempty"`
}

// writeLatency writes the latency table of the console summary.
func writeLatency(w io.Writer, rows []MethodLatency) {
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(w, "\nround trips per method (ms):\n%-24s %6s %6s %8s %8s %8s %8s\n", "method", "count", "errors", "p50", "p90", "p99", "max")
	for _, m := range rows {
		fmt.Fprintf(w, "%-24s %6d %6d %8.1f %8.1f %8.1f %8.1f\n", m.Method, m.Count, m.Errors, m.P50Ms, m.P90Ms, m.P99Ms, m.MaxMs)
	}
}

// Millis is d in milliseconds rounded to 0.1 ms.
func Millis(d time.Duration) float64 {
	return math.Round(float64(d)/float64(100*time.Microsecond)) / 10
}
