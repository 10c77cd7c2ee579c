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
func (r *stderrRing) keep(line string, secrets *secretStore) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lines = append(r.lines, line)
	r.size += len(line)
	for len(r.lines)-r.off > 1 && (len(r.lines)-r.off > stderrLines || r.size > stderrBytes) {
		old := r.lines[r.off]
		r.lines[r.off] = ""
		r.size -= len(old)
		r.off++
		if len(r.leaks) >= stderrLeakLines {
			continue
		}
		for _, v := range secrets.values() {
			if _, ok := findLeak(old, v); ok {
				r.leaks = append(r.leaks, old)
				break
			}
		}
	}
	if r.off > len(r.lines)/2 { // release the dropped lines' slots, amortised
		r.lines = append([]string(nil), r.lines[r.off:]...)
		r.off = 0
	}
}

// all returns the lines kept: the dropped ones that held a secret, then
// the newest.
func (r *stderrRing) all() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append(append([]string(nil), r.leaks...), r.lines[r.off:]...)
}

// StderrLines returns the spawned servers' stderr lines so far: the newest
// (up to 100000 lines and 8 MiB), after the older ones that held a
// registered secret.
func (e *runEnv) StderrLines() []string { return e.stderr.all() }
