package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
)

// ErrMerge wraps every refusal of Merge (a missing or repeated shard, a
// shard of another suite, profile, engine, manifest or selection).
var ErrMerge = errors.New("the shard reports cannot be merged")

// Merge combines the JSON reports of the shards of one run (Config.Shard,
// `e2e-conform --shard i/n`) into the report one unsharded run would give.
// It works at the level of specs, then decides the requirements, the
// verdict and the exit code with the very code a run uses (Summarize),
// so the rules cannot drift:
//   - every spec but the run-wide checks is held by exactly one shard (the
//     rule the shards ran by: Shard.Holds, or for the shards of
//     --parallel, which claimed their specs as they went, the Held list of
//     each report), and its result is that shard's, also for a spec the
//     selection left out (the profile, Only, Skip), which every shard
//     reports not selected;
//   - a run-wide check ran in every shard over that shard's traffic: it
//     failed when it failed in any shard, passed when it passed in one and
//     failed in none (together the shards observed what it checks), and is
//     not verified otherwise;
//   - a requirement is failed when any of its specs failed, passed only
//     when every spec that ran for it passed, not verified or not
//     applicable as the spec says (Summarize);
//   - the facts that decide applicability are the union of the shards'
//     (the server-to-client messages seen in any shard).
//
// It refuses, wrapping ErrMerge: a report that is no shard, a missing or
// repeated shard, shards of different counts, suite versions or revisions,
// requirement catalogs, profiles, transports, selections (Only, Skip),
// engines (the spawned binary's SHA-256 when both shards have one, else
// the engine's command or address) or manifests, and a shard that ended
// with a harness error (it checked nothing: run it again).
//
// Latency merges per method: the counts add up, each percentile is the
// highest of the shards' (an upper bound, not the merged distribution).
//
// The merged run is judged by the baseline the shards ran with
// (Config.ExpectedFailures, recorded in their reports): shards that ran
// with different baselines are refused. MergeWithBaseline judges by
// another.
func Merge(reports []*Result) (*Result, error) { return MergeWithBaseline(reports, nil) }

// MergeWithBaseline is Merge judged by baseline (requirement ID → reason,
// as Config.ExpectedFailures) instead of the shards' own; a nil baseline
// is the shards' (Merge), an empty one none. Only the merged run calls a
// baseline entry stale: a shard does not (another shard may fail it).
func MergeWithBaseline(reports []*Result, baseline map[string]string) (*Result, error) {
	if len(reports) == 0 {
		return nil, fmt.Errorf("%w: no report given", ErrMerge)
	}
	first := reports[0]
	n := 0
	seen := map[int]bool{}
	for i, r := range reports {
		sh := shardOfReport(r)
		if sh == nil {
			return nil, fmt.Errorf("%w: report %d is not a shard's (it was not run with --shard i/n)", ErrMerge, i+1)
		}
		if n == 0 {
			n = sh.Count
		}
		if sh.Count != n {
			return nil, fmt.Errorf("%w: report %d is shard %s, the first is one of %d shards", ErrMerge, i+1, sh, n)
		}
		if seen[sh.Index] {
			return nil, fmt.Errorf("%w: shard %s is given twice", ErrMerge, sh)
		}
		seen[sh.Index] = true
		if r.ExitCode == ExitHarness {
			return nil, fmt.Errorf("%w: shard %s ended with a harness error (%s); it checked nothing: run it again", ErrMerge, sh, r.Reason)
		}
		if err := sameRun(first, r); err != nil {
			return nil, fmt.Errorf("%w: shard %s and shard %s: %v", ErrMerge, shardOfReport(first), sh, err)
		}
	}
	var missing []string
	for i := 1; i <= n; i++ {
		if !seen[i] {
			missing = append(missing, Shard{Index: i, Count: n}.String())
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%w: shard %s missing (every shard of the %d must be given)", ErrMerge, strings.Join(missing, ", "), n)
	}

	if baseline == nil {
		baseline = first.ExpectedFailures
		for _, r := range reports {
			if !maps.Equal(r.ExpectedFailures, first.ExpectedFailures) {
				return nil, fmt.Errorf("%w: shard %s and shard %s ran with different baselines (--expected-failures): give merge the one to judge by", ErrMerge, shardOfReport(first), shardOfReport(r))
			}
		}
	}
	if err := ValidateExpectedFailures(baseline); err != nil {
		return nil, fmt.Errorf("%w: the baseline: %w", ErrMerge, err)
	}
	specs, err := mergeSpecs(reports)
	if err != nil {
		return nil, err
	}
	in := RunInput{Reached: first.Manifest != nil, Transport: first.Transport}
	if first.Manifest != nil {
		in.Manifest = *first.Manifest
	}
	for _, r := range reports {
		in.Facts.TapModifiersPresent = in.Facts.TapModifiersPresent || r.Facts.TapModifiersPresent
		for _, s := range r.Facts.ServerSent {
			if !slices.Contains(in.Facts.ServerSent, s) {
				in.Facts.ServerSent = append(in.Facts.ServerSent, s)
			}
		}
		if in.Facts.InitRefused == "" {
			in.Facts.InitRefused = r.Facts.InitRefused
		}
	}
	sort.Strings(in.Facts.ServerSent)
	in.Latency = mergeLatency(reports)
	sc := Scope{Engine: first.Engine, Profile: first.Profile, Baseline: baseline}
	if sel := first.Selection; sel != nil {
		sc.Only, sc.Skip = sel.Only, sel.Skip
	}
	res := Summarize(sc, in, specs, nil)
	res.Explain()
	if first.Provenance != nil {
		p := *first.Provenance
		for _, r := range reports {
			if r.Provenance != nil && r.Provenance.StartedAt.Before(p.StartedAt) {
				p.StartedAt = r.Provenance.StartedAt
			}
		}
		res.Provenance = &p
	}
	res.Selection = &Selection{Only: sc.Only, Skip: sc.Skip, MergedShards: n}
	for _, r := range reports {
		res.Duration = max(res.Duration, r.Duration)
	}
	return &res, nil
}

// shardOfReport is r's shard, nil for a report of a whole run.
func shardOfReport(r *Result) *Shard {
	if r.Selection == nil || r.Selection.Shard == nil || !r.Selection.Shard.Sharded() {
		return nil
	}
	return r.Selection.Shard
}

// sameRun says how b differs from a in what makes shards parts of one run
// (nil when it does not).
func sameRun(a, b *Result) error {
	pa, pb := a.Provenance, b.Provenance
	if pa == nil || pb == nil {
		return errors.New("a report without provenance (written by an older suite)")
	}
	var sa, sb Selection
	if a.Selection != nil {
		sa = *a.Selection
	}
	if b.Selection != nil {
		sb = *b.Selection
	}
	ma, _ := json.Marshal(a.Manifest)
	mb, _ := json.Marshal(b.Manifest)
	for _, c := range []struct {
		what   string
		differ bool
		x, y   string
	}{
		{"suite version", a.SuiteVersion != b.SuiteVersion, a.SuiteVersion, b.SuiteVersion},
		{"suite revision", pa.SuiteRevision != pb.SuiteRevision || pa.SuiteModified != pb.SuiteModified, revision(pa), revision(pb)},
		{"requirement catalog", pa.Catalog != pb.Catalog, pa.Catalog, pb.Catalog},
		{"profile", a.Profile != b.Profile, a.Profile, b.Profile},
		{"transport", a.Transport != b.Transport, a.Transport, b.Transport},
		{"selection", !slices.Equal(sa.Only, sb.Only) || !slices.Equal(sa.Skip, sb.Skip), fmt.Sprintf("only %q skip %q", sa.Only, sa.Skip), fmt.Sprintf("only %q skip %q", sb.Only, sb.Skip)},
		{"sharing of the specs", sa.Claimed != sb.Claimed, sharing(sa), sharing(sb)},
		{"engine binary", pa.EngineSHA256 != "" && pb.EngineSHA256 != "" && pa.EngineSHA256 != pb.EngineSHA256, pa.EngineSHA256, pb.EngineSHA256},
		{"engine", (pa.EngineSHA256 == "" || pb.EngineSHA256 == "") && a.Engine != b.Engine, a.Engine, b.Engine},
		{"manifest", !bytes.Equal(ma, mb), string(ma), string(mb)},
	} {
		if c.differ {
			return fmt.Errorf("another %s (%s, %s)", c.what, Clip(c.x), Clip(c.y))
		}
	}
	return nil
}

func revision(p *Provenance) string {
	if p.SuiteModified {
		return p.SuiteRevision + " (modified)"
	}
	return p.SuiteRevision
}

// mergeSpecs takes each spec's result from the shard that held it, and
// combines the run-wide checks over every shard. Which shard held a spec
// is the rule the run itself used: the fixed rule (Shard.Holds, by the
// spec's text) for shards run apart, the report's own Held list for the
// shards of --parallel, which claimed their specs as they went
// (Selection.Claimed). A spec the selection left out (the profile, Only,
// Skip) is reported not selected by every shard; under the fixed rule
// only its holder's report counts, and a claimed run takes the first
// report's when no shard held it. A spec that ran (passed or failed) in a
// shard that does not hold it means the reports follow another rule:
// refused; so is a spec no shard of a claimed run held that one of them
// left to another ("claimed by another shard"): no shard ran it.
func mergeSpecs(reports []*Result) ([]SpecResult, error) {
	var order []string
	merged := map[string]*SpecResult{}
	unheld := map[string]bool{} // taken from a report that did not hold it (claimed runs)
	for _, r := range reports {
		sh := *shardOfReport(r)
		holds := holderRule(r)
		for _, s := range r.Specs {
			if _, ok := merged[s.Text]; !ok && !slices.Contains(order, s.Text) {
				order = append(order, s.Text)
			}
			m, ok := merged[s.Text]
			switch {
			case s.RunWide && ok:
				combineRunWide(m, s, sh.String())
			case holds(s.Text, s.RunWide):
				if ok && !unheld[s.Text] {
					return nil, fmt.Errorf("%w: the spec %q is reported twice by shard %s", ErrMerge, s.Text, sh)
				}
				c := s
				c.Evidence = s.Evidence.Clone()
				merged[s.Text] = &c
				delete(unheld, s.Text)
			case s.Status == Passed || s.Status == Failed:
				return nil, fmt.Errorf("%w: the spec %q %s in shard %s, but %s holds it", ErrMerge, s.Text, s.Status, sh, holderName(r, s.Text))
			case r.Selection.Claimed && !ok:
				c := s
				merged[s.Text] = &c
				unheld[s.Text] = true
			}
		}
	}
	var out []SpecResult
	for _, t := range order {
		m, ok := merged[t]
		if !ok {
			return nil, fmt.Errorf("%w: shard %s, which holds the spec %q, does not report it", ErrMerge, HolderOf(t, shardOfReport(reports[0]).Count), t)
		}
		if unheld[t] && strings.HasPrefix(m.Message, ClaimedElsewhere) {
			return nil, fmt.Errorf("%w: no shard ran the spec %q (each left it to another)", ErrMerge, t)
		}
		out = append(out, *m)
	}
	return out, nil
}

// holderRule returns the rule by which shard report r held its specs: its
// Held list when the shards claimed them (Selection.Claimed), else the
// fixed rule.
func holderRule(r *Result) func(text string, runWide bool) bool {
	sel := r.Selection
	if !sel.Claimed {
		return sel.Shard.Holds
	}
	held := make(map[string]bool, len(sel.Held))
	for _, t := range sel.Held {
		held[t] = true
	}
	return func(text string, runWide bool) bool { return runWide || held[text] }
}

// holderName names the shard that holds the spec of text in the run of
// shard report r ("shard 2/3", or "another shard" when they claimed).
func holderName(r *Result, text string) string {
	if r.Selection.Claimed {
		return "another shard"
	}
	return "shard " + HolderOf(text, r.Selection.Shard.Count).String()
}

// sharing says how the shards of sel's run shared the specs.
func sharing(sel Selection) string {
	if sel.Claimed {
		return "claimed as they went (--parallel)"
	}
	return "the fixed rule (--shard)"
}

// combineRunWide folds shard sh's result s of a run-wide check into m.
func combineRunWide(m *SpecResult, s SpecResult, sh string) {
	switch {
	case m.Status == Failed:
		if s.Status == Failed {
			m.Message += "; in shard " + sh + ": " + s.Message
		}
	case s.Status == Failed:
		m.Status, m.Message, m.NothingToCheck, m.LastFrames = Failed, "in shard "+sh+": "+s.Message, false, s.LastFrames
	case m.Status == Passed:
	case s.Status == Passed:
		m.Status, m.Message, m.NothingToCheck = Passed, "", false
	case m.Status == NotVerified && s.Status == NotVerified:
		m.NothingToCheck = m.NothingToCheck && s.NothingToCheck
	}
	m.Warnings = append(m.Warnings, s.Warnings...)
	if m.Evidence == nil {
		m.Evidence = Evidence{}
	}
	m.Evidence.Merge(s.Evidence)
	m.Duration += s.Duration
}

// mergeLatency adds the shards' counts per method and keeps each
// percentile's highest value.
func mergeLatency(reports []*Result) []MethodLatency {
	by := map[string]*MethodLatency{}
	var order []string
	for _, r := range reports {
		for _, l := range r.Latency {
			m, ok := by[l.Method]
			if !ok {
				c := l
				by[l.Method] = &c
				order = append(order, l.Method)
				continue
			}
			m.Count += l.Count
			m.Errors += l.Errors
			m.P50Ms, m.P90Ms, m.P99Ms, m.MaxMs = max(m.P50Ms, l.P50Ms), max(m.P90Ms, l.P90Ms), max(m.P99Ms, l.P99Ms), max(m.MaxMs, l.MaxMs)
			m.Sampled = m.Sampled || l.Sampled
		}
	}
	var out []MethodLatency
	for _, k := range order {
		out = append(out, *by[k])
	}
	return out
}
