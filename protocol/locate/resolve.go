package locate

import (
	"slices"

	"github.com/e2e-conform/toolkit/protocol/engineerr"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// Options of [ResolveExpression].
type Options struct {
	// Selector answers a selector expression over candidates (a platform's
	// selector language); nil: the surface has none, and a selector
	// expression fails with UNSUPPORTED_CAPABILITY. It must answer a subset
	// of candidates (in any order; duplicates are dropped); an error it
	// returns is passed through unchanged.
	Selector func(selector string, candidates []*wire.SemanticNode) ([]*wire.SemanticNode, error)
}

// ResolveExpression answers expr over the top-level nodes per spec §10.1:
// every match in document order, each node at most once. The answer holds the
// caller's own nodes; it is a non-nil empty slice when nothing matches. The
// expression is checked and its patterns compiled before any node is looked
// at (see the package documentation for the errors).
func ResolveExpression(expr *wire.LocatorExpression, nodes []*wire.SemanticNode, opts Options) ([]*wire.SemanticNode, error) {
	c := compiler{opts: opts}
	e, err := c.expr(expr)
	if err != nil {
		return nil, err
	}
	t := flatten(nodes)
	r := resolver{t: t, opts: opts}
	all := make([]int32, len(t.nodes))
	for i := range all {
		all[i] = int32(i)
	}
	got, err := r.resolve(e, all)
	if err != nil {
		return nil, err
	}
	out := make([]*wire.SemanticNode, len(got))
	for i, n := range got {
		out[i] = t.nodes[n]
	}
	return out, nil
}

// tree is the flattened input: nodes in document order and, for each, the
// index of the last node of its subtree, so that c is a strict descendant of
// n exactly when n < c <= end[n].
type tree struct {
	nodes []*wire.SemanticNode
	end   []int32
	index map[*wire.SemanticNode]int32 // built on first use by a selector answer
}

func flatten(tops []*wire.SemanticNode) *tree {
	keep := tops
	if len(tops) > 1 {
		// Take each node once: drop nil and repeated top-level nodes and
		// those that lie under another top-level node.
		inner := make(map[*wire.SemanticNode]bool)
		for _, n := range tops {
			if n == nil || inner[n] {
				continue
			}
			for i := range n.Children {
				n.Children[i].Walk(func(d *wire.SemanticNode) bool {
					inner[d] = true
					return true
				})
			}
		}
		keep = make([]*wire.SemanticNode, 0, len(tops))
		for _, n := range tops {
			if n != nil && !inner[n] {
				inner[n] = true // a repeated top-level node counts once
				keep = append(keep, n)
			}
		}
	}
	size := 0
	for _, n := range keep {
		if n != nil {
			n.Walk(func(*wire.SemanticNode) bool { size++; return true })
		}
	}
	t := &tree{nodes: make([]*wire.SemanticNode, 0, size), end: make([]int32, size)}
	for _, n := range keep {
		if n != nil {
			t.add(n)
		}
	}
	return t
}

func (t *tree) add(n *wire.SemanticNode) {
	i := len(t.nodes)
	t.nodes = append(t.nodes, n)
	for c := range n.Children {
		t.add(&n.Children[c])
	}
	t.end[i] = int32(len(t.nodes) - 1)
}

// expr is a checked, compiled LocatorExpression.
type expr struct {
	kind     string
	query    *query
	scope    *expr
	source   *expr
	hasText  *Matcher
	has      *expr
	index    wire.Index
	selector string
}

// compiler checks and compiles an expression in evaluation order.
type compiler struct {
	opts Options
	done map[*wire.LocatorExpression]*expr // nil value: being compiled (a cycle)
}

func (c *compiler) expr(e *wire.LocatorExpression) (*expr, error) {
	if e == nil {
		return nil, engineerr.New(engineerr.EngineFailure, "locator expression is missing")
	}
	if c.done == nil {
		c.done = make(map[*wire.LocatorExpression]*expr)
	}
	if x, ok := c.done[e]; ok {
		if x == nil {
			return nil, engineerr.New(engineerr.EngineFailure, "locator expression is cyclic")
		}
		return x, nil
	}
	c.done[e] = nil
	x, err := c.compile(e)
	if err != nil {
		return nil, err
	}
	c.done[e] = x
	return x, nil
}

func (c *compiler) compile(e *wire.LocatorExpression) (*expr, error) {
	x := &expr{kind: e.Kind}
	var err error
	switch e.Kind {
	case wire.ExprQuery:
		if e.Scope != nil {
			if x.scope, err = c.expr(e.Scope); err != nil {
				return nil, err
			}
		}
		if x.query, err = compileQuery(e.Query); err != nil {
			return nil, err
		}
	case wire.ExprFilter:
		if x.source, err = c.expr(e.Source); err != nil {
			return nil, err
		}
		if e.HasText != nil {
			if x.hasText, err = Compile(e.HasText); err != nil {
				return nil, err
			}
		}
		if e.Has != nil {
			if x.has, err = c.expr(e.Has); err != nil {
				return nil, err
			}
		}
	case wire.ExprIndex:
		if x.source, err = c.expr(e.Source); err != nil {
			return nil, err
		}
		switch e.Index.Pos {
		case "", "first", "last":
		default:
			return nil, engineerr.New(engineerr.EngineFailure, "unknown index position %q", e.Index.Pos)
		}
		x.index = e.Index
	case wire.ExprSelector:
		if c.opts.Selector == nil {
			return nil, engineerr.New(engineerr.UnsupportedCapability,
				"selector %q needs a platform selector language, and this surface has none", e.Selector)
		}
		x.selector = e.Selector
	case wire.ExprFrame:
		return nil, engineerr.New(engineerr.FrameNotFound,
			"no nested document matches %q: this surface has none to scope a query into", e.Selector)
	default:
		return nil, engineerr.New(engineerr.EngineFailure, "unknown locator expression kind %q", e.Kind)
	}
	return x, nil
}

// resolver evaluates compiled expressions over candidate lists: sorted,
// duplicate-free lists of indices into tree.nodes. Every answer is a subset of
// its candidates, and no list is modified once built.
type resolver struct {
	t    *tree
	opts Options
}

func (r *resolver) resolve(e *expr, cand []int32) ([]int32, error) {
	if len(cand) == 0 {
		return nil, nil
	}
	switch e.kind {
	case wire.ExprQuery:
		return r.query(e, cand)
	case wire.ExprFilter:
		return r.filter(e, cand)
	case wire.ExprIndex:
		s, err := r.resolve(e.source, cand)
		if err != nil {
			return nil, err
		}
		i := e.index.N
		switch e.index.Pos {
		case "first":
			i = 0
		case "last":
			i = int64(len(s)) - 1
		}
		if i < 0 || i >= int64(len(s)) {
			return nil, nil
		}
		return s[i : i+1 : i+1], nil
	case wire.ExprSelector:
		return r.selector(e, cand)
	}
	// compile admits no other kind.
	return nil, engineerr.New(engineerr.EngineFailure, "unknown locator expression kind %q", e.kind)
}

// subtree returns the candidates that are strict descendants of n, a
// candidate: a contiguous run of cand, since cand is in document order.
func (r *resolver) subtree(cand []int32, n int32) []int32 {
	lo, _ := slices.BinarySearch(cand, n+1)
	hi, _ := slices.BinarySearch(cand[lo:], r.t.end[n]+1)
	return cand[lo : lo+hi]
}

func (r *resolver) query(e *expr, cand []int32) ([]int32, error) {
	pool := cand
	if e.scope != nil {
		s, err := r.resolve(e.scope, cand)
		if err != nil {
			return nil, err
		}
		pool = r.under(s, cand)
	}
	var matches []int32
	for _, n := range pool {
		if e.query.matches(r.t.nodes[n]) {
			matches = append(matches, n)
		}
	}
	if e.query.innermost && len(matches) > 1 {
		// A match has another match as a strict descendant exactly when the
		// next match in document order lies in its subtree.
		out := matches[:0]
		for i, n := range matches {
			if i+1 < len(matches) && matches[i+1] <= r.t.end[n] {
				continue
			}
			out = append(out, n)
		}
		matches = out
	}
	return matches, nil
}

// under returns the candidates that are strict descendants of some node of
// s (a subset of cand), in document order.
func (r *resolver) under(s, cand []int32) []int32 {
	var out []int32
	covered := int32(-1) // the end of the last subtree taken; subtrees nest or are disjoint
	for _, n := range s {
		if n <= covered {
			continue
		}
		sub := r.subtree(cand, n)
		covered = r.t.end[n]
		if out == nil && len(sub) > 0 {
			out = sub[:len(sub):len(sub)] // one subtree needs no copy
			continue
		}
		out = append(out, sub...)
	}
	return out
}

// ownText reports whether n has a defined name, text or value matching m.
func ownText(n *wire.SemanticNode, m *Matcher) bool {
	return (n.Name != nil && m.Match(*n.Name)) || (n.Text != nil && m.Match(*n.Text)) ||
		(n.Value != nil && m.Match(*n.Value))
}

func (r *resolver) filter(e *expr, cand []int32) ([]int32, error) {
	s, err := r.resolve(e.source, cand)
	if err != nil || len(s) == 0 {
		return nil, err
	}
	keep := s
	if e.hasText != nil {
		// prefix[i] counts the candidates before position i whose own name,
		// text or value matches; only positions inside some source match's
		// subtree are tested (the rest count as no match and are never asked).
		prefix := make([]int32, len(cand)+1)
		covered := 0
		for _, n := range s {
			lo, _ := slices.BinarySearch(cand, n)
			hi, _ := slices.BinarySearch(cand[lo:], r.t.end[n]+1)
			hi += lo
			for p := max(lo, covered); p < hi; p++ {
				if ownText(r.t.nodes[cand[p]], e.hasText) {
					prefix[p+1] = 1
				}
			}
			covered = max(covered, hi)
		}
		for i := 1; i < len(prefix); i++ {
			prefix[i] += prefix[i-1]
		}
		keep = nil
		for _, n := range s {
			lo, _ := slices.BinarySearch(cand, n)
			hi, _ := slices.BinarySearch(cand[lo:], r.t.end[n]+1)
			if prefix[lo+hi] > prefix[lo] {
				keep = append(keep, n)
			}
		}
	}
	if e.has != nil {
		var out []int32
		for _, n := range keep {
			sub := r.subtree(cand, n)
			if len(sub) == 0 {
				continue
			}
			h, err := r.resolve(e.has, sub)
			if err != nil {
				return nil, err
			}
			if len(h) > 0 {
				out = append(out, n)
			}
		}
		keep = out
	}
	return keep, nil
}

func (r *resolver) selector(e *expr, cand []int32) ([]int32, error) {
	nodes := make([]*wire.SemanticNode, len(cand))
	for i, n := range cand {
		nodes[i] = r.t.nodes[n]
	}
	got, err := r.opts.Selector(e.selector, nodes)
	if err != nil {
		return nil, err
	}
	if len(got) == 0 {
		return nil, nil
	}
	if r.t.index == nil {
		r.t.index = make(map[*wire.SemanticNode]int32, len(r.t.nodes))
		for i, n := range r.t.nodes {
			r.t.index[n] = int32(i)
		}
	}
	out := make([]int32, 0, len(got))
	for _, n := range got {
		i, ok := r.t.index[n]
		if ok {
			_, ok = slices.BinarySearch(cand, i)
		}
		if !ok {
			return nil, engineerr.New(engineerr.EngineFailure,
				"selector %q answered a node that is not one of its candidates", e.selector)
		}
		out = append(out, i)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}
