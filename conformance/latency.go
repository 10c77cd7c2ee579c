package conformance

import (
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/e2e-conform/toolkit/conformance/report"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

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
func (l *latencyRecorder) snapshot() []report.MethodLatency {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []report.MethodLatency
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
func latencyOf(name string, m *methodSamples) report.MethodLatency {
	sorted := slices.Clone(m.samples)
	slices.Sort(sorted)
	return report.MethodLatency{
		Method: name, Count: m.count, Errors: m.errors,
		P50Ms: report.Millis(percentile(sorted, 50)), P90Ms: report.Millis(percentile(sorted, 90)),
		P99Ms: report.Millis(percentile(sorted, 99)), MaxMs: report.Millis(m.max),
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
