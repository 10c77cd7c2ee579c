package report

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
)

// Shard selects a deterministic part of a run's specs, for running one
// selection across several CI machines (docs/ci.md) and merging their
// reports (Merge). A spec belongs to shard Index of Count by the FNV-1a
// hash of its text, its identity: the same on every run and machine
// whatever other specs exist. Every shard runs discovery and the run-wide
// checks over its own traffic. The zero Shard is the whole run.
type Shard struct {
	// Index is the shard's number, 1 to Count.
	Index int `json:"index"`
	// Count is the number of shards.
	Count int `json:"count"`
}

// ParseShard reads "i/n" (1 <= i <= n).
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("shard %q: want i/n, e.g. 2/3", s)
	}
	sh := Shard{Index: i, Count: n}
	return sh, sh.Validate()
}

// Validate checks 1 <= Index <= Count (the zero Shard is valid).
func (s Shard) Validate() error {
	if s == (Shard{}) {
		return nil
	}
	if s.Count < 1 || s.Index < 1 || s.Index > s.Count {
		return fmt.Errorf("shard %d/%d: want 1 <= i <= n", s.Index, s.Count)
	}
	return nil
}

// String is "i/n".
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Sharded reports whether s splits the run.
func (s Shard) Sharded() bool { return s.Count > 1 }

// Holds reports whether the spec of text runs in shard s: every spec when
// the run is not split, the run-wide checks (runWide) in every shard.
func (s Shard) Holds(text string, runWide bool) bool {
	if !s.Sharded() || runWide {
		return true
	}
	return shardOf(text, s.Count) == s.Index
}

// shardOf is the shard (1 to n) that holds the spec of text.
func shardOf(text string, n int) int {
	h := fnv.New64a()
	_, _ = h.Write([]byte(text))
	return int(h.Sum64()%uint64(n)) + 1
}

// HolderOf is the one shard of n that holds the spec of text, which is
// no run-wide check (every shard holds those).
func HolderOf(text string, n int) Shard { return Shard{Index: shardOf(text, n), Count: n} }

// ClaimedElsewhere is the reason a shard of `e2e-conform --parallel` gives
// for a spec another shard claimed first (Selection.Claimed): it is
// reported not selected there, and the claiming shard's report counts.
const ClaimedElsewhere = "not selected: claimed by another shard of this run"
