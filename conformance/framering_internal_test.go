package conformance

import (
	"strings"
	"testing"

	"github.com/e2e-conform/toolkit/protocol/rpc"
)

// The frames the suite keeps whole are bounded in bytes: large legal frames
// leave at most 8 MiB besides the newest one, small ones the last 12.
func TestKeptFramesAreBoundedInBytes(t *testing.T) {
	cases := []struct {
		name      string
		size, n   int
		wantCount int
	}{
		{"small frames: the last 12", 100, 40, keptFrames},
		{"3 MiB frames: 8 MiB of them", 3 << 20, 12, 2},
		{"one frame above the bound: the newest kept", 10 << 20, 3, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var frames []frameRecord
			for i := 0; i < tc.n; i++ {
				frames = keepFrames(append(frames, frameRecord{rpc.Received, strings.Repeat("x", tc.size)}))
			}
			total := 0
			for _, f := range frames {
				total += len(f.content)
			}
			if len(frames) != tc.wantCount {
				t.Errorf("kept %d frames, want %d", len(frames), tc.wantCount)
			}
			if total > keptFrameBytes+tc.size {
				t.Errorf("kept %d bytes, want at most %d", total, keptFrameBytes+tc.size)
			}
		})
	}
}
