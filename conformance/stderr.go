package conformance

import "sync"

// stderrRing is the spawned servers' stderr lines the suite keeps, under
// its own lock: the newest, bounded (stderrLines, stderrBytes), after the
// older ones that held a registered secret. The zero value is ready.
type stderrRing struct {
	mu    sync.Mutex
	lines []string // the newest stderr lines, bounded (stderrLines, stderrBytes)
	off   int      // lines[:off] are dropped lines not yet released
	size  int      // bytes in lines[off:]
	leaks []string // lines dropped that held a registered secret
}

// Bounds of the stderr lines the suite keeps: a chatty server's 100k lines
// cost 422 MB when every line was kept, and lines past 100k were no longer
// scanned for secrets.
const (
	stderrLines     = 100000
	stderrBytes     = 8 << 20
	stderrLeakLines = 64
)

// keep adds line to the ring, dropping the oldest lines past its bounds;
// a dropped line that holds a value of secrets (raw or encoded) is kept
// among leaks, so the leak checks still see it (ERR-007).
func (e *stderrRing) keep(line string, secrets *secretStore) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.lines = append(e.lines, line)
	e.size += len(line)
	for len(e.lines)-e.off > 1 && (len(e.lines)-e.off > stderrLines || e.size > stderrBytes) {
		old := e.lines[e.off]
		e.lines[e.off] = ""
		e.size -= len(old)
		e.off++
		if len(e.leaks) >= stderrLeakLines {
			continue
		}
		for _, v := range secrets.values() {
			if _, ok := findLeak(old, v); ok {
				e.leaks = append(e.leaks, old)
				break
			}
		}
	}
	if e.off > len(e.lines)/2 { // release the dropped lines' slots, amortised
		e.lines = append([]string(nil), e.lines[e.off:]...)
		e.off = 0
	}
}

// all returns the lines kept: the dropped ones that held a secret, then
// the newest.
func (e *stderrRing) all() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append(append([]string(nil), e.leaks...), e.lines[e.off:]...)
}

// StderrLines returns the spawned servers' stderr lines so far: the newest
// (up to 100000 lines and 8 MiB), after the older ones that held a
// registered secret.
func (e *runEnv) StderrLines() []string { return e.stderr.all() }
