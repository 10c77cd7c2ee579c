package conformance

import (
	"testing"
	"time"

	"github.com/e2e-conform/toolkit/conformance/report"
)

func ms(f float64) time.Duration { return time.Duration(f * float64(time.Millisecond)) }

func TestLatencyPercentile(t *testing.T) {
	// 1..100 ms: the p-th nearest-rank percentile is p ms.
	hundred := make([]time.Duration, 100)
	for i := range hundred {
		hundred[i] = ms(float64(i + 1))
	}
	for _, tc := range []struct {
		name   string
		sorted []time.Duration
		p      float64
		want   time.Duration
	}{
		{"empty", nil, 50, 0},
		{"one value p50", []time.Duration{ms(7)}, 50, ms(7)},
		{"one value p99", []time.Duration{ms(7)}, 99, ms(7)},
		{"two values p50 is the lower", []time.Duration{ms(1), ms(2)}, 50, ms(1)},
		{"two values p51 is the upper", []time.Duration{ms(1), ms(2)}, 51, ms(2)},
		{"two values p90", []time.Duration{ms(1), ms(2)}, 90, ms(2)},
		{"ten values p90 is the ninth", []time.Duration{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 90, 9},
		{"ten values p91 is the tenth", []time.Duration{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 91, 10},
		{"ten values p99 is the tenth", []time.Duration{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 99, 10},
		{"hundred p50", hundred, 50, ms(50)},
		{"hundred p90", hundred, 90, ms(90)},
		{"hundred p99", hundred, 99, ms(99)},
		{"hundred p100", hundred, 100, ms(100)},
		{"tiny p", hundred, 0.1, ms(1)},
		{"equal values", []time.Duration{ms(3), ms(3), ms(3)}, 90, ms(3)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := percentile(tc.sorted, tc.p); got != tc.want {
				t.Errorf("percentile(%v, %v) = %v, want %v", tc.sorted, tc.p, got, tc.want)
			}
		})
	}
}

func TestLatencyRecorder(t *testing.T) {
	for _, tc := range []struct {
		name  string
		calls []struct {
			method string
			d      time.Duration
			failed bool
		}
		want []report.MethodLatency
	}{
		{
			name: "nothing recorded",
			want: nil,
		},
		{
			name: "unknown methods stay out, rows in protocol order",
			calls: []struct {
				method string
				d      time.Duration
				failed bool
			}{
				{"no/such/method", ms(1), true},
				{"engine/observe", ms(4), false},
				{"initialize", ms(2), false},
				{"engine/observe", ms(2), false},
				{"engine/observe", ms(3), true},
				{"engine/observe", ms(1), false},
				{"shutdown", -ms(1), false},
			},
			want: []report.MethodLatency{
				{Method: "initialize", Count: 1, P50Ms: 2, P90Ms: 2, P99Ms: 2, MaxMs: 2},
				{Method: "engine/observe", Count: 4, Errors: 1, P50Ms: 2, P90Ms: 4, P99Ms: 4, MaxMs: 4},
				{Method: "shutdown", Count: 1},
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var l latencyRecorder
			for _, c := range tc.calls {
				l.record(c.method, c.d, c.failed)
			}
			got := l.snapshot()
			if len(got) != len(tc.want) {
				t.Fatalf("got %d rows %+v, want %d %+v", len(got), got, len(tc.want), tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("row %d: got %+v, want %+v", i, got[i], tc.want[i])
				}
			}
		})
	}
}

// TestLatencyRecorderBounded: past latencySamples calls the store stops
// growing, Count and MaxMs still cover every call, and the sampled
// percentiles stay close to the real ones.
func TestLatencyRecorderBounded(t *testing.T) {
	var l latencyRecorder
	const n = 5 * latencySamples
	for i := range n {
		// 0.0 … 99.99 ms, cycling, the max once at the end.
		l.record("engine/perform", time.Duration(i%1000)*100*time.Microsecond, false)
	}
	l.record("engine/perform", 5*time.Second, false)
	if got := len(l.methods["engine/perform"].samples); got != latencySamples {
		t.Fatalf("kept %d samples, want the bound %d", got, latencySamples)
	}
	row := l.snapshot()[0]
	if row.Count != n+1 || row.MaxMs != 5000 || !row.Sampled {
		t.Fatalf("row %+v: want count %d, max 5000 ms, sampled", row, n+1)
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{{"p50", row.P50Ms, 50}, {"p90", row.P90Ms, 90}, {"p99", row.P99Ms, 99}} {
		if c.got < c.want-5 || c.got > c.want+5 {
			t.Errorf("%s = %.1f ms, want about %.0f ms", c.name, c.got, c.want)
		}
	}
}
