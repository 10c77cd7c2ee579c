package conformance

import (
	"slices"
	"strings"
	"testing"
)

// TestExchangeKeepsFrameTimes: an exchange keeps one time per frame it
// renders, in order, and drops a frame's time with the frame.
func TestExchangeKeepsFrameTimes(t *testing.T) {
	x := newExchange()
	for range 3 {
		x.add("conn 1 (client) send {}")
	}
	if ts := x.times(); len(ts) != 3 || !slices.IsSorted(ts) || ts[0] < 0 {
		t.Fatalf("times %v", ts)
	}
	big := newExchange()
	line := "conn 1 (raw) recv " + strings.Repeat("y", 4000)
	for range 40 { // past exchangeCap: the middle is elided
		big.add(line)
	}
	rendered := strings.Count(big.render(), "conn 1 (raw) recv")
	if big.elided == 0 || len(big.times()) != rendered {
		t.Errorf("elided %d bytes, %d times for %d frames rendered", big.elided, len(big.times()), rendered)
	}
	if (&exchange{}).times() != nil {
		t.Error("an exchange never started has times")
	}
}
