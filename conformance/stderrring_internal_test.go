package conformance

import (
	"strings"
	"testing"
)

// The stderr lines the suite keeps are bounded in bytes and lines, and a
// line dropped from the ring that held a registered secret is still among
// StderrLines, so the leak checks scan every line the server wrote.
func TestStderrRingIsBoundedAndKeepsLeaks(t *testing.T) {
	e := testEnv()
	e.Secret("s3cr3t-value-0123")
	long := strings.Repeat("y", 64<<10)
	e.stderr.keep("first line leaks s3cr3t-value-0123", &e.secrets)
	for i := 0; i < 300; i++ { // 300 × 64 KiB = 18.75 MiB
		e.stderr.keep(long, &e.secrets)
	}
	for i := 0; i < stderrLines+10; i++ {
		e.stderr.keep("short", &e.secrets)
	}
	lines := e.StderrLines()
	if len(lines) > stderrLines+stderrLeakLines {
		t.Errorf("kept %d lines, want at most %d", len(lines), stderrLines+stderrLeakLines)
	}
	total := 0
	for _, l := range lines {
		total += len(l)
	}
	if total > stderrBytes+len(long) {
		t.Errorf("kept %d bytes, want at most %d", total, stderrBytes+len(long))
	}
	if len(lines) == 0 || !strings.Contains(lines[0], "s3cr3t-value-0123") {
		t.Errorf("the dropped line with the secret is gone: first line %.60q", lines[0])
	}
	if lines[len(lines)-1] != "short" {
		t.Errorf("the newest line is not kept: %.60q", lines[len(lines)-1])
	}
}
