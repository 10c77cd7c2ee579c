package conformance

import (
	"cmp"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/e2e-conform/toolkit/conformance/report"
)

// shardClaims shares a run's specs among the shards of `e2e-conform
// --parallel` (Config.ShardClaims): every shard walks the specs in the same
// order and runs a spec when it claims it first, by creating the spec's
// file in the shared directory (O_EXCL: exactly one shard succeeds), so
// that a shard that finished its spec takes the next one and the shards
// end together, whatever each spec costs on the engine at hand (the fixed
// rule of --shard, a hash of the spec's text, left one of three shards of
// a full web run 30 s of work against 20 s for another). Which shard ran
// a spec changes from run to run; what the spec finds does not (selection
// invariance), and each shard's report lists the specs it held
// (Selection.Held), which is what Merge goes by. Safe for concurrent use.
type shardClaims struct {
	dir string

	mu  sync.Mutex
	won map[string]bool // the decided specs: true when this shard claimed it
}

// newShardClaims returns the claims of a run sharing dir, nil when dir is
// "" (the shards follow the fixed rule).
func newShardClaims(dir string) *shardClaims {
	if dir == "" {
		return nil
	}
	return &shardClaims{dir: dir, won: map[string]bool{}}
}

// claim tries to claim the spec of text for this shard, once: later calls
// return the first answer. A directory that cannot be written is a harness
// fault, reported as err (the spec is then not claimed).
func (c *shardClaims) claim(text string) (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if won, ok := c.won[text]; ok {
		return won, nil
	}
	h := fnv.New64a()
	_, _ = h.Write([]byte(text))
	f, err := os.OpenFile(filepath.Join(c.dir, strconv.FormatUint(h.Sum64(), 16)), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	switch {
	case err == nil:
		_ = f.Close()
		c.won[text] = true
		return true, nil
	case errors.Is(err, fs.ErrExist):
		c.won[text] = false
		return false, nil
	}
	return false, err
}

// decided returns whether this shard holds the spec of text, and whether
// that is decided yet (a spec not reached yet may still be claimed).
func (c *shardClaims) decided(text string) (held, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	held, ok = c.won[text]
	return held, ok
}

// holds reports whether the spec of text runs in the shard of s's run: by
// its claim when the shards share their specs (a spec not claimed yet
// counts as held: the console's plan cannot know), else by the fixed rule.
func (s *suite) holds(text string) bool {
	if s.shardClaims() == nil || isRunWide(text) {
		return s.cfg.Shard.Holds(text, isRunWide(text))
	}
	held, ok := s.claims.decided(text)
	return held || !ok
}

// heldBy reports, once the run is over, whether the spec of text ran in
// this shard: what the report's Selection.Held lists.
func (s *suite) heldBy(text string, runWide bool) bool {
	if s.shardClaims() == nil || runWide {
		return s.cfg.Shard.Holds(text, runWide)
	}
	held, _ := s.claims.decided(text)
	return held
}

// takeSpec decides, as the spec of text starts, whether this shard runs
// it; when it does not, why (the skip message).
func (s *suite) takeSpec(text string) (run bool, why string) {
	if s.shardClaims() == nil || isRunWide(text) {
		if s.cfg.Shard.Holds(text, isRunWide(text)) {
			return true, ""
		}
		return false, notInShard + report.HolderOf(text, s.cfg.Shard.Count).String()
	}
	won, err := s.claims.claim(text)
	if err != nil {
		// The suite's fault, not the engine's: a panicking spec is not
		// verified and makes the run a harness error (suiteError).
		panic(fmt.Errorf("sharing the specs through %s: %w", s.claims.dir, err))
	}
	if !won {
		return false, report.ClaimedElsewhere
	}
	return true, ""
}

// shardClaims returns the run's claims (Config.ShardClaims), nil when the
// shards follow the fixed rule.
func (s *suite) shardClaims() *shardClaims {
	s.claimsOnce.Do(func() { s.claims = newShardClaims(s.cfg.ShardClaims) })
	return s.claims
}

// registration is one spec an area declared: its text, its requirements,
// and the call that registers it with ginkgo.
type registration struct {
	text string
	ids  []string
	do   func()
}

// longSpecs are the requirements whose specs take long on any engine, for
// a wait the protocol sets (a quiet window, a delay, an abort bound) or
// for the work they stage, and about how long (measured on the reference
// web engine and the saboteur, docs/perf.md). Only the order of a run
// whose shards claim their specs uses it: a wrong figure costs balance,
// never a verdict.
var longSpecs = map[string]time.Duration{
	"SIG-003":   7 * time.Second, // two aborted opens of the slow page, and the late-landing watch
	"STATE-003": 3 * time.Second, // two attempts, each staging the storage fixture
	"STATE-002": 3 * time.Second,
	"SIG-007":   2 * time.Second, // the quiet window after an unknown id's $/abort
	"S2C-007":   2 * time.Second, // the 2000 ms the suite delays its secret answer
	"ACT-002":   2 * time.Second, // long presses
	"PTR-002":   2 * time.Second,
	"ACT-005":   2 * time.Second, // a run of key presses
	"ACT-006":   2 * time.Second,
	"LOC-004":   2 * time.Second,
	"STATE-004": 1500 * time.Millisecond,
	"SESS-004":  1500 * time.Millisecond,
	"SIG-001":   1500 * time.Millisecond,
	"ACT-016":   1500 * time.Millisecond,
	"OBS-005":   1 * time.Second,
	"ACT-001":   1 * time.Second,
	"SIG-012":   1 * time.Second, // the open's own 1000 ms timeout
	"KEY-004":   1 * time.Second,
}

// weight is how long the spec of r is expected to take (longSpecs), 0 for
// a short one.
func (r registration) weight() time.Duration {
	var w time.Duration
	for _, id := range r.ids {
		w = max(w, longSpecs[id])
	}
	return w
}

// runOrder is the order the specs are registered in: the areas' own,
// except that shards claiming their specs take the long ones first, so
// that no shard is left running a long spec alone at the end (the run-wide
// checks stay last: they judge the run's traffic).
func (s *suite) runOrder() []registration {
	out := slices.Clone(s.registrations)
	if s.shardClaims() == nil {
		return out
	}
	slices.SortStableFunc(out, func(a, b registration) int {
		if ra, rb := isRunWide(a.text), isRunWide(b.text); ra != rb {
			if ra {
				return 1
			}
			return -1
		}
		return cmp.Compare(b.weight(), a.weight())
	})
	return out
}
