package conformance

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/e2e-conform/toolkit/protocol/wire"
)

// MethodLatency is the round-trip time of one method's calls in a run: from
// the moment the suite wrote a request to the moment it read the response
// (a result or an error), in milliseconds with 0.1 ms precision. The
// percentiles are nearest-rank percentiles of the calls recorded (all of
// them, or a uniform sample of latencySamples when there were more: then
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

// latencySamples bounds the round trips kept per method; beyond it the
// recorder keeps a uniform sample (reservoir sampling, Vitter's algorithm
// R), so a long run costs at most latencySamples durations per method.
const latencySamples = 4096

// latencyRecorder collects the round trips of a run per method. Only the
// protocol's own client-to-server requests are recorded (initialize,
// shutdown and the engine methods): the few dozen methods bound the map,
// and a raw spec's made-up method names stay out of the table. The zero
// value is ready to use and safe for concurrent use.
type latencyRecorder struct {
	mu      sync.Mutex
	methods map[string]*methodSamples
	rng     *rand.Rand
}

// methodSamples is one method's record.
type methodSamples struct {
	count, errors int
	max           time.Duration
	samples       []time.Duration // at most latencySamples
}

// latencyMethods is the order of the latency table: initialize, the engine
// methods in ENGINE_METHODS order, shutdown.
func latencyMethods() []string {
	return append(append([]string{wire.MethodInitialize}, wire.EngineMethods()...), wire.MethodShutdown)
}

// record notes one round trip of method that took d; failed marks an error
// response.
func (l *latencyRecorder) record(method string, d time.Duration, failed bool) {
	if !slices.Contains(latencyMethods(), method) {
		return
	}
	if d < 0 {
		d = 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.methods == nil {
		l.methods = map[string]*methodSamples{}
		// A fixed seed: the same run samples the same way.
		l.rng = rand.New(rand.NewPCG(1, 2))
	}
	m := l.methods[method]
	if m == nil {
		m = &methodSamples{}
		l.methods[method] = m
	}
	m.count++
	if failed {
		m.errors++
	}
	m.max = max(m.max, d)
	switch {
	case len(m.samples) < latencySamples:
		m.samples = append(m.samples, d)
	default:
		if i := l.rng.IntN(m.count); i < latencySamples {
			m.samples[i] = d
		}
	}
}

// snapshot returns the table: one row per method called, in
// latencyMethods order.
func (l *latencyRecorder) snapshot() []MethodLatency {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []MethodLatency
	for _, name := range latencyMethods() {
		m := l.methods[name]
		if m == nil || m.count == 0 {
			continue
		}
		out = append(out, latencyOf(name, m))
	}
	return out
}

// latencyOf summarises one method's record.
func latencyOf(name string, m *methodSamples) MethodLatency {
	sorted := slices.Clone(m.samples)
	slices.Sort(sorted)
	return MethodLatency{
		Method: name, Count: m.count, Errors: m.errors,
		P50Ms: millis(percentile(sorted, 50)), P90Ms: millis(percentile(sorted, 90)),
		P99Ms: millis(percentile(sorted, 99)), MaxMs: millis(m.max),
		Sampled: m.count > len(m.samples),
	}
}

// percentile is the nearest-rank p-th percentile (0 < p ≤ 100) of sorted,
// an ascending list: the smallest value with at least p % of the values at
// or below it, i.e. sorted[⌈p/100·n⌉−1]. It is 0 for an empty list.
func percentile(sorted []time.Duration, p float64) time.Duration {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	rank := int(math.Ceil(p * float64(n) / 100))
	rank = min(max(rank, 1), n)
	return sorted[rank-1]
}

// millis is d in milliseconds rounded to 0.1 ms.
func millis(d time.Duration) float64 {
	return math.Round(float64(d)/float64(100*time.Microsecond)) / 10
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
