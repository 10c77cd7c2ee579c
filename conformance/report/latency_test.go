package report

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestLatencySummaryTable(t *testing.T) {
	var b bytes.Buffer
	writeLatency(&b, []MethodLatency{{Method: "engine/observe", Count: 3, P50Ms: 1.5, P90Ms: 2.25, P99Ms: 3, MaxMs: 12.3}})
	out := b.String()
	for _, want := range []string{"round trips per method (ms)", "engine/observe", "1.5", "12.3"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary table lacks %q:\n%s", want, out)
		}
	}
	b.Reset()
	writeLatency(&b, nil)
	if b.Len() != 0 {
		t.Errorf("an empty table printed %q", b.String())
	}
}

func TestLatencyMillis(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want float64
	}{
		{0, 0},
		{49 * time.Microsecond, 0},
		{50 * time.Microsecond, 0.1},
		{149 * time.Microsecond, 0.1},
		{1234567 * time.Nanosecond, 1.2},
		{1250 * time.Microsecond, 1.3},
		{2 * time.Second, 2000},
	} {
		if got := Millis(tc.d); got != tc.want {
			t.Errorf("Millis(%v) = %v, want %v", tc.d, got, tc.want)
		}
	}
}
