package locate_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/e2e-conform/toolkit/protocol/engineerr"
	"github.com/e2e-conform/toolkit/protocol/locate"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// attr sets one member of a fixture node.
type attr func(*wire.SemanticNode)

func el(id string, attrs ...attr) wire.SemanticNode {
	n := wire.SemanticNode{Ref: wire.NodeRef{ID: id}}
	for _, a := range attrs {
		a(&n)
	}
	return n
}

func role(r string) attr     { return func(n *wire.SemanticNode) { n.Role = wire.Str(r) } }
func name(s string) attr     { return func(n *wire.SemanticNode) { n.Name = wire.Str(s) } }
func text(s string) attr     { return func(n *wire.SemanticNode) { n.Text = wire.Str(s) } }
func value(s string) attr    { return func(n *wire.SemanticNode) { n.Value = wire.Str(s) } }
func testID(s string) attr   { return func(n *wire.SemanticNode) { n.TestID = wire.Str(s) } }
func level(l int64) attr     { return func(n *wire.SemanticNode) { n.Level = wire.Int(l) } }
func selector(s string) attr { return func(n *wire.SemanticNode) { n.Selector = wire.Str(s) } }
func placeholder(s string) attr {
	return func(n *wire.SemanticNode) {
		if n.Attributes == nil {
			n.Attributes = map[string]string{}
		}
		n.Attributes["placeholder"] = s
	}
}
func states(f func(*wire.NodeStates)) attr {
	return func(n *wire.SemanticNode) {
		if n.States == nil {
			n.States = &wire.NodeStates{}
		}
		f(n.States)
	}
}

var hidden = states(func(s *wire.NodeStates) { s.Hidden = wire.Bool(true) })

func kids(c ...wire.SemanticNode) attr { return func(n *wire.SemanticNode) { n.Children = c } }

// fixtureTree mirrors the spec's "tree" fixture screen (§11): nested
// containers echoing a descendant's text, hidden nodes, duplicate "Save"
// buttons, headings of levels 1–3, a pressed toggle, a 600-character text, a
// 300-character name, test ids, a textbox with placeholder and value, and a
// node below the fold. Node ids are the names tests compare.
func fixtureTree() *wire.SemanticNode {
	root := el("root", kids(
		el("main", role("main"), kids(
			el("h1", role("heading"), level(1), name("Tree fixture")),
			el("echo-outer", role("group"), text("Echo me"), testID("echo-box"), kids(
				el("echo-mid", text("Echo me"), testID("echo-box"), kids(
					el("echo-leaf", text("Echo me")),
				)),
			)),
			el("label-outer", role("group"), name("Email address"), kids(
				el("label-inner", role("textbox"), name("Email address"), placeholder("you@example.com")),
			)),
			el("h2", role("heading"), level(2), name("Section two")),
			el("toolbar", role("toolbar"), name("Actions"), selector("#toolbar"), kids(
				el("save-1", role("button"), name("Save"), testID("save-primary"), selector("button.save")),
				el("save-2", role("button"), name("Save"), testID("save-secondary"), selector("button.save")),
				el("bold", role("button"), name("Bold"), states(func(s *wire.NodeStates) { s.Pressed = wire.Bool(true) })),
				el("italic", role("button"), name("Italic"), states(func(s *wire.NodeStates) { s.Pressed = wire.Bool(false) })),
				el("underline", role("button"), name("Underline")),
			)),
			el("h3", role("heading"), level(3), name("Subsection three")),
			el("search", role("textbox"), name("Search"), placeholder("Type to search"), value("hello   world")),
			el("subscribe", role("checkbox"), name("Subscribe"), states(func(s *wire.NodeStates) { s.Checked = wire.Bool(true) })),
			el("cafe", text("Café ÉLAN")),
			el("spaces", text("  Multiple \t spaces\u00a0and\u2003more \n")),
			el("long-name", role("link"), name(strings.Repeat("Long name ", 30))),
			el("long-text", text(strings.Repeat("0123456789", 60))),
			el("ghost-region", role("region"), name("Ghost region"), testID("ghost-region"), hidden, kids(
				el("ghost-button", role("button"), name("Ghost"), hidden),
				el("ghost-input", role("textbox"), name("Ghost label"), placeholder("Ghost placeholder"),
					value("ghost value"), testID("ghost-id"), hidden),
				el("ghost-text", text("Ghost text"), hidden),
				el("ghost-heading", role("heading"), level(2), name("Hidden heading"), hidden),
			)),
			el("ghost-visible-box", role("group"), testID("ghost-box"), kids(
				el("ghost-visible", text("Ghost text")),
			)),
			el("lists", kids(
				el("fruits", role("list"), name("Fruits"), kids(
					el("fruit-apple", role("listitem"), text("Apple")),
					el("fruit-banana", role("listitem"), text("Banana")),
				)),
				el("vegetables", role("list"), name("Vegetables"), kids(
					el("veg-apple", role("listitem"), text("Apple")),
					el("veg-leek", role("listitem"), text("Leek")),
				)),
			)),
			el("nest-a", role("group"), name("Nest"), kids(
				el("nest-b", role("group"), name("Nest"), kids(
					el("nest-leaf", role("button"), name("Deep")),
				)),
			)),
			el("below-fold", role("button"), name("Below the fold"),
				func(n *wire.SemanticNode) { n.Rect = &wire.Rect{X: 0, Y: 3000, Width: 100, Height: 20} }),
		)),
	))
	return &root
}

// ids returns the ref ids of nodes.
func ids(nodes []*wire.SemanticNode) []string {
	out := make([]string, len(nodes))
	for i, n := range nodes {
		out[i] = n.Ref.ID
	}
	return out
}

// Expression builders.

func exact(v string) wire.TextPattern       { return wire.StringPattern(v, true) }
func sub(v string) wire.TextPattern         { return wire.StringPattern(v, false) }
func re(src, flags string) wire.TextPattern { return wire.RegexpPattern(src, flags) }
func ptr[T any](v T) *T                     { return &v }
func sel(s string) *wire.LocatorExpression {
	return &wire.LocatorExpression{Kind: wire.ExprSelector, Selector: s}
}
func scope(e, s *wire.LocatorExpression) *wire.LocatorExpression { e.Scope = s; return e }

type qmod func(*wire.SemanticQuery)

func q(kind string, v wire.TextPattern, mods ...qmod) *wire.LocatorExpression {
	sq := &wire.SemanticQuery{Kind: kind, Value: v}
	for _, m := range mods {
		m(sq)
	}
	return &wire.LocatorExpression{Kind: wire.ExprQuery, Query: sq}
}

func roleQ(r string, mods ...qmod) *wire.LocatorExpression {
	return q(wire.QueryRole, exact(r), mods...)
}
func textQ(v wire.TextPattern, mods ...qmod) *wire.LocatorExpression {
	return q(wire.QueryText, v, mods...)
}

func named(p wire.TextPattern) qmod { return func(s *wire.SemanticQuery) { s.Name = &p } }
func lvl(n int64) qmod              { return func(s *wire.SemanticQuery) { s.Level = wire.Int(n) } }
func visible(s *wire.SemanticQuery) { s.Visible = wire.Bool(true) }
func qstates(f func(*wire.QueryStates)) qmod {
	return func(s *wire.SemanticQuery) {
		s.States = &wire.QueryStates{}
		f(s.States)
	}
}

func filter(src *wire.LocatorExpression, hasText *wire.TextPattern, has *wire.LocatorExpression) *wire.LocatorExpression {
	return &wire.LocatorExpression{Kind: wire.ExprFilter, Source: src, HasText: hasText, Has: has}
}

func index(src *wire.LocatorExpression, pos string, n int64) *wire.LocatorExpression {
	return &wire.LocatorExpression{Kind: wire.ExprIndex, Source: src, Index: wire.Index{Pos: pos, N: n}}
}

func frame(s string, src *wire.LocatorExpression) *wire.LocatorExpression {
	return &wire.LocatorExpression{Kind: wire.ExprFrame, Selector: s, Source: src}
}

// fakeSelector is a tiny platform selector language over fixture nodes:
// "*" every candidate; "testId=X", "role=X", "css=X" (the node's selector
// member); "reverse" every candidate backwards, twice; "error" an e2e
// INVALID_ARGUMENT; "outside" a node that is not in the tree.
func fakeSelector(s string, cand []*wire.SemanticNode) ([]*wire.SemanticNode, error) {
	var out []*wire.SemanticNode
	pick := func(f func(*wire.SemanticNode) bool) {
		for _, n := range cand {
			if f(n) {
				out = append(out, n)
			}
		}
	}
	eq := func(p *string, v string) bool { return p != nil && *p == v }
	switch {
	case s == "*":
		pick(func(*wire.SemanticNode) bool { return true })
	case s == "reverse":
		for range 2 {
			for i := len(cand) - 1; i >= 0; i-- {
				out = append(out, cand[i])
			}
		}
	case s == "error":
		return nil, engineerr.NewE2E(engineerr.CategoryTest, "INVALID_ARGUMENT", "bad selector %q", s)
	case s == "outside":
		n := el("stranger")
		return []*wire.SemanticNode{&n}, nil
	case strings.HasPrefix(s, "testId="):
		pick(func(n *wire.SemanticNode) bool { return eq(n.TestID, s[7:]) })
	case strings.HasPrefix(s, "role="):
		pick(func(n *wire.SemanticNode) bool { return eq(n.Role, s[5:]) })
	case strings.HasPrefix(s, "css="):
		pick(func(n *wire.SemanticNode) bool { return eq(n.Selector, s[4:]) })
	}
	return out, nil
}

// naiveResolve transcribes spec §10.1 literally (quadratic, lazy errors,
// parent walks for "strict descendant"), as an oracle for ResolveExpression.
// Selector answers are taken in document order without duplicates, and the
// selector is not called over no candidates, as the package documents.
func naiveResolve(expr *wire.LocatorExpression, root *wire.SemanticNode, opts locate.Options) ([]*wire.SemanticNode, error) {
	var all []*wire.SemanticNode
	parent := map[*wire.SemanticNode]*wire.SemanticNode{}
	var walk func(n, p *wire.SemanticNode)
	walk = func(n, p *wire.SemanticNode) {
		all = append(all, n)
		parent[n] = p
		for i := range n.Children {
			walk(&n.Children[i], n)
		}
	}
	walk(root, nil)
	strictDesc := func(c, x *wire.SemanticNode) bool {
		for p := parent[c]; p != nil; p = parent[p] {
			if p == x {
				return true
			}
		}
		return false
	}
	var resolve func(e *wire.LocatorExpression, cand []*wire.SemanticNode) ([]*wire.SemanticNode, error)
	resolve = func(e *wire.LocatorExpression, cand []*wire.SemanticNode) ([]*wire.SemanticNode, error) {
		switch e.Kind {
		case wire.ExprQuery:
			pool := cand
			if e.Scope != nil {
				s, err := resolve(e.Scope, cand)
				if err != nil {
					return nil, err
				}
				pool = nil
				for _, c := range cand {
					if slices.ContainsFunc(s, func(x *wire.SemanticNode) bool { return strictDesc(c, x) }) {
						pool = append(pool, c)
					}
				}
			}
			var matches []*wire.SemanticNode
			for _, n := range pool {
				ok, err := locate.MatchesQuery(n, e.Query)
				if err != nil {
					return nil, err
				}
				if ok {
					matches = append(matches, n)
				}
			}
			if e.Query.Kind == wire.QueryText || e.Query.Kind == wire.QueryLabel {
				var inner []*wire.SemanticNode
				for _, n := range matches {
					if !slices.ContainsFunc(matches, func(m *wire.SemanticNode) bool { return m != n && strictDesc(m, n) }) {
						inner = append(inner, n)
					}
				}
				matches = inner
			}
			return matches, nil
		case wire.ExprFilter:
			s, err := resolve(e.Source, cand)
			if err != nil {
				return nil, err
			}
			var out []*wire.SemanticNode
			for _, n := range s {
				if e.HasText != nil {
					found := false
					for _, c := range append([]*wire.SemanticNode{n}, cand...) {
						if c != n && !strictDesc(c, n) {
							continue
						}
						for _, v := range []*string{c.Name, c.Text, c.Value} {
							if v == nil {
								continue
							}
							ok, err := locate.MatchesText(*v, e.HasText)
							if err != nil {
								return nil, err
							}
							found = found || ok
						}
					}
					if !found {
						continue
					}
				}
				if e.Has != nil {
					var subc []*wire.SemanticNode
					for _, c := range cand {
						if strictDesc(c, n) {
							subc = append(subc, c)
						}
					}
					h, err := resolve(e.Has, subc)
					if err != nil {
						return nil, err
					}
					if len(h) == 0 {
						continue
					}
				}
				out = append(out, n)
			}
			return out, nil
		case wire.ExprIndex:
			s, err := resolve(e.Source, cand)
			if err != nil {
				return nil, err
			}
			i := e.Index.N
			switch e.Index.Pos {
			case "first":
				i = 0
			case "last":
				i = int64(len(s)) - 1
			}
			if i >= 0 && i < int64(len(s)) {
				return s[i : i+1], nil
			}
			return nil, nil
		case wire.ExprSelector:
			if opts.Selector == nil {
				return nil, engineerr.New(engineerr.UnsupportedCapability, "selector %q needs a platform selector language, and this surface has none", e.Selector)
			}
			if len(cand) == 0 { // documented: not called over no candidates
				return nil, nil
			}
			got, err := opts.Selector(e.Selector, cand)
			if err != nil {
				return nil, err
			}
			for _, g := range got {
				if !slices.Contains(cand, g) {
					return nil, engineerr.New(engineerr.EngineFailure, "selector answered a non-candidate")
				}
			}
			var out []*wire.SemanticNode
			for _, c := range cand {
				if slices.Contains(got, c) {
					out = append(out, c)
				}
			}
			return out, nil
		case wire.ExprFrame:
			return nil, engineerr.New(engineerr.FrameNotFound, "no nested document matches %q: this surface has none to scope a query into", e.Selector)
		}
		return nil, fmt.Errorf("unknown kind %q", e.Kind)
	}
	return resolve(expr, all)
}

// checkErr reports whether err is one of the documented error kinds.
func documentedErr(err error) bool {
	var ee *engineerr.EngineError
	if errors.As(err, &ee) {
		switch ee.Code {
		case engineerr.UnsupportedCapability, engineerr.FrameNotFound, engineerr.EngineFailure:
			return !ee.Retryable
		}
		return false
	}
	var e2 *engineerr.E2EError
	return errors.As(err, &e2) && e2.Category == engineerr.CategoryTest && e2.Code == "INVALID_ARGUMENT"
}

func jsonOf(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}
