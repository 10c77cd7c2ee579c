package webengine

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/e2e-conform/toolkit/protocol/engineerr"
	"github.com/e2e-conform/toolkit/protocol/locate"
	"github.com/e2e-conform/toolkit/protocol/server"
	"github.com/e2e-conform/toolkit/protocol/wire"
	"github.com/e2e-conform/toolkit/reference-engine/inpage"
)

// Locate implements server.Locator: one read of every reachable document in
// the observation's own mode (the same walk, nodes, fields and node budget,
// inpage.NodeBudget, as engine/observe), then the reference resolver of spec
// §10 over it. Locate and observe agree by construction (web-engine spec,
// decision 8): the answer is what client-side resolution over an
// observation of the same page would give, and a name read off an
// observation finds the control. Selectors are CSS or XPath evaluated in
// the page; frame expressions pick exactly one nested document by a
// selector evaluated in the enclosing one.
//
// The read is sparse (resolved in the page) whenever the expression allows:
// the page walks as an observation does and counts every node, but builds
// only the nodes that may match one of the expression's queries, has-text
// patterns or selectors (see planOf), with their subtrees, so that a role
// query computes names only for elements of that role and nothing else
// crosses the wire. The §10 resolver then runs over that sparse tree, where
// it answers exactly what it answers over the whole read: a node left out
// matches no query of the expression, and strict descendance among the
// nodes kept is unchanged. Expressions with a frame expression, and plans
// whose selectors the page cannot parse (so that the error, or its absence,
// is the lazy resolver's), are resolved over the whole read instead.
//
// Implements: LOC-001, LOC-002, LOC-003, LOC-004, LOC-005, LOC-006, LOC-007, LOC-008, LOC-009, LOC-010, LOC-011, LOC-012.
func (e *Engine) Locate(ctx context.Context, op server.Operation, expr *wire.LocatorExpression) ([]wire.SemanticNode, error) {
	t, cctx, done, err := e.begin(ctx, op)
	if err != nil {
		return nil, err
	}
	defer done()
	out, err := e.resolve(ctx, cctx, t, expr)
	if err != nil || len(out) == 0 {
		return out, err
	}
	if err := e.complete(cctx, t, out); err != nil {
		return nil, classify(ctx, cctx, "engine/locate", false, err)
	}
	return out, nil
}

// resolve answers expr with the nodes of the read (sparse when the
// expression allows, else whole), before their full read.
func (e *Engine) resolve(ctx, cctx context.Context, t *tab, expr *wire.LocatorExpression) ([]wire.SemanticNode, error) {
	if plan, ok := planOf(expr); ok {
		pr, err := e.read(cctx, t, inpage.ModeTree, plan)
		if err != nil {
			return nil, classify(ctx, cctx, "engine/locate", false, err)
		}
		if pr.R.Error == "" {
			out, whole, err := e.resolveSparse(ctx, cctx, t, pr, expr)
			if !whole {
				return out, err
			}
		}
	}
	return e.locateWhole(ctx, cctx, t, expr)
}

// complete gives each located node its full read (web-engine §2.5: "each
// fully read (node mode: full text, all attributes, no cuts)"; acceptance
// item 13, "located node attributes complete"), in one more evaluate for
// the located nodes only: text becomes the element's whole innerText
// (nothing for a secure field or an aria-hidden element, decision 10),
// attributes every attribute as getAttribute reads it (the test-id
// attribute, which is testId, and a secure field's value aside), and a
// name, value or selection cut at 256 or 512 units its whole string. What
// the query matched stays as the read saw it (decision 8: the same nodes,
// roles, states and rects as an observation); only these fields grow. A
// node whose element went away between the two evaluations keeps what the
// read saw of it: it was a match when the read ran.
func (e *Engine) complete(ctx context.Context, t *tab, nodes []wire.SemanticNode) error {
	ids := make([]string, len(nodes))
	for i := range nodes {
		ids[i] = nodes[i].Ref.ID
	}
	var res fullNodes
	if err := t.call(ctx, &res, inpage.MethodReadNodes, ids, inpage.ReadNodesArgs{NextID: e.reserve(len(ids) + 1), TestIDAttribute: e.opts.TestIDAttribute}); err != nil {
		return err
	}
	if len(res.Nodes) != len(nodes) {
		return fmt.Errorf("the full read answered %d nodes for %d ids", len(res.Nodes), len(nodes))
	}
	for i, f := range res.Nodes {
		if f == nil {
			continue
		}
		n := &nodes[i]
		n.Text = f.Text
		n.Attributes = f.Attributes
		n.Name = uncut(n.Name, f.Name)
		n.Value = uncut(n.Value, f.Value)
		n.Selection = uncut(n.Selection, f.Selection)
	}
	return nil
}

// fullNodes is the answer of the reader's readNodes: the fields of the
// full read, one entry per id (null where the element is gone).
type fullNodes struct {
	Nodes []*struct {
		Name       *string           `json:"name"`
		Text       *string           `json:"text"`
		Value      *string           `json:"value"`
		Selection  *string           `json:"selection"`
		Attributes map[string]string `json:"attributes"`
	} `json:"nodes"`
}

// uncut returns full where the read's field (seen) is a cut of it (a
// prefix), seen otherwise: the full read differs from the tree read's in
// the cut alone, and a field the tree read computed otherwise stays the
// read's.
func uncut(seen, full *string) *string {
	if seen == nil || full == nil || !strings.HasPrefix(*full, *seen) {
		return seen
	}
	return full
}

// locateWhole answers expr over the whole read of the page (every node of
// an observation), the resolution the sparse one must reproduce.
func (e *Engine) locateWhole(ctx, cctx context.Context, t *tab, expr *wire.LocatorExpression) ([]wire.SemanticNode, error) {
	pr, err := e.read(cctx, t, inpage.ModeTree, nil)
	if err != nil {
		return nil, classify(ctx, cctx, "engine/locate", false, err)
	}
	l := &locator{ctx: cctx, t: t, root: &pr.R.Root, synth: map[string]func([]*wire.SemanticNode) ([]*wire.SemanticNode, error){}}
	l.root.Walk(func(n *wire.SemanticNode) bool {
		if n.Role != nil && *n.Role == "iframe" {
			l.hasDocs = true
		}
		return true
	})
	x := l.rewrite(expr, nil)
	found, err := locate.ResolveExpression(x, []*wire.SemanticNode{l.root}, locate.Options{Selector: l.selector(nil)})
	if err != nil {
		return nil, classify(ctx, cctx, "engine/locate", false, err)
	}
	out := make([]wire.SemanticNode, len(found))
	for i, n := range found {
		out[i] = *n
	}
	return out, nil
}

// locator resolves one expression over one read.
type locator struct {
	ctx     context.Context
	t       *tab
	root    *wire.SemanticNode
	hasDocs bool
	synth   map[string]func([]*wire.SemanticNode) ([]*wire.SemanticNode, error)
}

// synthPrefix marks selectors the locator answers itself (frames); no CSS
// or XPath selector starts with a NUL.
const synthPrefix = "\x00frame:"

func (l *locator) register(fn func([]*wire.SemanticNode) ([]*wire.SemanticNode, error)) *wire.LocatorExpression {
	key := fmt.Sprintf("%s%d", synthPrefix, len(l.synth))
	l.synth[key] = fn
	return &wire.LocatorExpression{Kind: wire.ExprSelector, Selector: key}
}

// rewrite copies expr, turning frame expressions into synthetic selectors
// answered in the document at path.
func (l *locator) rewrite(expr *wire.LocatorExpression, path []string) *wire.LocatorExpression {
	if expr == nil {
		return nil
	}
	x := *expr
	switch x.Kind {
	case wire.ExprQuery:
		x.Scope = l.rewrite(x.Scope, path)
	case wire.ExprFilter:
		x.Source = l.rewrite(x.Source, path)
		x.Has = l.rewrite(x.Has, path)
	case wire.ExprIndex:
		x.Source = l.rewrite(x.Source, path)
	case wire.ExprFrame:
		sel, source := x.Selector, x.Source
		return l.register(func(cands []*wire.SemanticNode) ([]*wire.SemanticNode, error) {
			return l.frame(sel, source, cands, path)
		})
	}
	return &x
}

// docNodes returns the nodes of the document at path in document order.
func (l *locator) docNodes(path []string) []*wire.SemanticNode {
	var out []*wire.SemanticNode
	l.root.Walk(func(n *wire.SemanticNode) bool {
		if slices.Equal(n.FramePath, path) {
			out = append(out, n)
		}
		return true
	})
	return out
}

// frame resolves source inside the one nested document of the document at
// path that sel matches.
//
// Implements: LOC-013, LOC-015.
func (l *locator) frame(sel string, source *wire.LocatorExpression, cands []*wire.SemanticNode, path []string) ([]*wire.SemanticNode, error) {
	matched, err := l.query(sel, path, l.docNodes(path))
	if err != nil {
		return nil, err
	}
	var docs []*wire.SemanticNode
	for _, n := range matched {
		if n.Role != nil && *n.Role == "iframe" {
			docs = append(docs, n)
		}
	}
	switch {
	case len(docs) == 0:
		e := engineerr.New(engineerr.FrameNotFound, "no frame matches %s", sel)
		e.Retryable = l.hasDocs
		if !l.hasDocs {
			e.Message += ": this page has none"
		}
		return nil, e
	case len(docs) > 1:
		return nil, engineerr.New(engineerr.FrameAmbiguous, "%d frames match %s", len(docs), sel)
	}
	doc := docs[0]
	if len(doc.Children) == 0 {
		return []*wire.SemanticNode{}, nil
	}
	inner := doc.Children[0].FramePath
	tops := make([]*wire.SemanticNode, len(doc.Children))
	for i := range doc.Children {
		tops[i] = &doc.Children[i]
	}
	x := l.rewrite(source, inner)
	found, err := locate.ResolveExpression(x, tops, locate.Options{Selector: l.selector(inner)})
	if err != nil {
		return nil, err
	}
	out := []*wire.SemanticNode{}
	for _, c := range cands {
		if slices.Contains(found, c) {
			out = append(out, c)
		}
	}
	return out, nil
}

// selector answers selector expressions in the document at path.
//
// Implements: LOC-014.
func (l *locator) selector(path []string) func(string, []*wire.SemanticNode) ([]*wire.SemanticNode, error) {
	return func(sel string, cands []*wire.SemanticNode) ([]*wire.SemanticNode, error) {
		if fn, ok := l.synth[sel]; ok {
			return fn(cands)
		}
		return l.query(sel, path, cands)
	}
}

// query evaluates sel in the page, in the document at path, and keeps the
// candidates it matched.
func (l *locator) query(sel string, path []string, cands []*wire.SemanticNode) ([]*wire.SemanticNode, error) {
	var scope any // null: the top document
	if len(path) > 0 {
		// the iframe node whose document is at path: a node of the
		// enclosing document carrying the path's last selector
		var frameID string
		l.root.Walk(func(n *wire.SemanticNode) bool {
			if frameID == "" && n.Role != nil && *n.Role == "iframe" && len(n.Children) > 0 && slices.Equal(n.Children[0].FramePath, path) {
				frameID = n.Ref.ID
			}
			return frameID == ""
		})
		if frameID == "" {
			return []*wire.SemanticNode{}, nil
		}
		scope = []string{frameID}
	}
	var ids []string
	var res struct {
		IDs   []string `json:"ids"`
		Error string   `json:"error"`
	}
	expr, err := inpageQueryExpr(sel, scope)
	if err != nil {
		return nil, err
	}
	if err := l.t.eval(l.ctx, expr, &res); err != nil {
		return nil, err
	}
	if res.Error != "" {
		return nil, engineerr.New(engineerr.UnsupportedCapability, "selector %q is not a valid CSS or XPath selector: %s", sel, strings.TrimPrefix(res.Error, "Error: "))
	}
	ids = res.IDs
	out := []*wire.SemanticNode{}
	for _, c := range cands {
		if slices.Contains(ids, c.Ref.ID) {
			out = append(out, c)
		}
	}
	return out, nil
}

// resolveSparse answers expr over a sparse read: selectors from the ids the
// read returned for them, the rest as over a whole read. It answers whole
// when the answer holds the root, whose children in a sparse read are not
// all of its subtree: the caller then resolves over the whole read.
func (e *Engine) resolveSparse(ctx, cctx context.Context, t *tab, pr *pageRead, expr *wire.LocatorExpression) (out []wire.SemanticNode, whole bool, err error) {
	l := &locator{ctx: cctx, t: t, root: &pr.R.Root}
	sel := func(s string, cands []*wire.SemanticNode) ([]*wire.SemanticNode, error) {
		ids, ok := pr.R.Selectors[s]
		if !ok {
			return l.query(s, nil, cands)
		}
		out := []*wire.SemanticNode{}
		for _, c := range cands {
			if slices.Contains(ids, c.Ref.ID) {
				out = append(out, c)
			}
		}
		return out, nil
	}
	found, err := locate.ResolveExpression(expr, []*wire.SemanticNode{l.root}, locate.Options{Selector: sel})
	if err != nil {
		return nil, false, classify(ctx, cctx, "engine/locate", false, err)
	}
	if len(found) > 0 && found[0] == l.root { // document order: the root comes first
		return nil, true, nil
	}
	out = make([]wire.SemanticNode, len(found))
	for i, n := range found {
		out[i] = *n
	}
	return out, false, nil
}

// planOf is the sparse-read plan of expr: every query (its kind, role and
// the patterns the page can prefilter), has-text pattern and selector in it.
// It answers false for what the page does not resolve: a frame expression
// (nested documents are chosen by the whole read), and any shape the
// resolver refuses (a nil part, an unknown kind, a cycle, a role query whose
// value is not a string), whose error the whole read's resolution reports.
func planOf(expr *wire.LocatorExpression) (*inpage.Plan, bool) {
	p := &inpage.Plan{}
	seen := map[*wire.LocatorExpression]bool{}
	var walk func(x *wire.LocatorExpression) bool
	walk = func(x *wire.LocatorExpression) bool {
		if x == nil || seen[x] {
			return false
		}
		seen[x] = true
		defer delete(seen, x)
		switch x.Kind {
		case wire.ExprQuery:
			if x.Scope != nil && !walk(x.Scope) {
				return false
			}
			pq, ok := planQuery(x.Query)
			if !ok {
				return false
			}
			p.Queries = append(p.Queries, pq)
			return true
		case wire.ExprFilter:
			if !walk(x.Source) {
				return false
			}
			if x.HasText != nil {
				pp, ok := planPattern(x.HasText)
				if !ok {
					return false
				}
				p.HasText = append(p.HasText, pp)
			}
			return x.Has == nil || walk(x.Has)
		case wire.ExprIndex:
			return walk(x.Source)
		case wire.ExprSelector:
			if !slices.Contains(p.Selectors, x.Selector) {
				p.Selectors = append(p.Selectors, x.Selector)
			}
			return true
		}
		return false // a frame, or an unknown kind
	}
	if !walk(expr) {
		return nil, false
	}
	return p, true
}

// planQuery is q as a plan query; false for a shape the resolver refuses.
func planQuery(q *wire.SemanticQuery) (inpage.PlanQuery, bool) {
	if q == nil {
		return inpage.PlanQuery{}, false
	}
	pq := inpage.PlanQuery{Kind: q.Kind}
	switch q.Kind {
	case wire.QueryRole:
		if q.Value.Kind != wire.PatternString {
			return pq, false
		}
		pq.Role = q.Value.Value
		if q.Name != nil {
			pp, ok := planPattern(q.Name)
			if !ok {
				return pq, false
			}
			pq.Name = pp
		}
		return pq, true
	case wire.QueryLabel, wire.QueryText, wire.QueryPlaceholder, wire.QueryDisplayValue, wire.QueryTestID:
		pp, ok := planPattern(&q.Value)
		if !ok {
			return pq, false
		}
		pq.Value = pp
		return pq, true
	}
	return pq, false
}

// planPattern is p as the page prefilters it; false for an unknown kind.
func planPattern(p *wire.TextPattern) (*inpage.PlanPattern, bool) {
	switch p.Kind {
	case wire.PatternString:
		return &inpage.PlanPattern{Value: p.Value, Exact: p.Exact}, true
	case wire.PatternRegexp:
		return &inpage.PlanPattern{Re: true}, true
	}
	return nil, false
}
