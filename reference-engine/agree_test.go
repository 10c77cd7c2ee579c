package webengine

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf16"

	"github.com/e2e-conform/toolkit/conformance/fixture/web"
	"github.com/e2e-conform/toolkit/protocol/locate"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// agreePages are the /web/ pages of the semantic cases (and two older ones
// with frames and shadow roots); none runs a script that changes it.
var agreePages = []string{"/web/semantics", "/web/tables", "/web/semantics-frames", "/web/nested-frames", "/web/shadow"}

// maxAgreeQueries bounds the generated queries per page (each is one
// engine/locate, one page read).
const maxAgreeQueries = 800

// agreeQuery is one generated expression, keyed by its JSON.
type agreeQuery struct {
	key  string
	expr *wire.LocatorExpression
}

// queryGen collects distinct expressions.
type queryGen struct {
	seen map[string]bool
	out  []agreeQuery
}

func (g *queryGen) add(x *wire.LocatorExpression) {
	b, err := json.Marshal(x)
	if err != nil {
		panic(err)
	}
	if k := string(b); !g.seen[k] && len(g.out) < maxAgreeQueries {
		g.seen[k] = true
		g.out = append(g.out, agreeQuery{key: k, expr: x})
	}
}

func q(kind string, p wire.TextPattern) *wire.LocatorExpression {
	return &wire.LocatorExpression{Kind: wire.ExprQuery, Query: &wire.SemanticQuery{Kind: kind, Value: p}}
}

func roleQ(role string, name *wire.TextPattern) *wire.LocatorExpression {
	return &wire.LocatorExpression{Kind: wire.ExprQuery, Query: &wire.SemanticQuery{Kind: wire.QueryRole, Value: wire.StringPattern(role, false), Name: name}}
}

func visibleQ(x *wire.LocatorExpression) *wire.LocatorExpression {
	y := *x
	qq := *x.Query
	qq.Visible = ptr(true)
	y.Query = &qq
	return &y
}

// word returns a lower-cased word of s (the longest), for a non-exact
// pattern that is a strict part of s; "" when s has none.
func word(s string) string {
	var best string
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsPunct(r) }) {
		if len(w) > len(best) {
			best = w
		}
	}
	return strings.ToLower(best)
}

// agreeQueries generates, from an observation, role (+ name exact and
// not), text, displayValue, testId and label queries (exact and not) for
// every node's fields, their visible forms, scoped role queries under every
// named container, and hasText filters.
func agreeQueries(root *wire.SemanticNode) []agreeQuery {
	g := &queryGen{seen: map[string]bool{}}
	str := func(kind, v string) {
		if strings.TrimSpace(v) == "" {
			return
		}
		g.add(q(kind, wire.StringPattern(v, true)))
		if w := word(v); w != "" {
			g.add(q(kind, wire.StringPattern(w, true))) // mostly a near miss
			g.add(q(kind, wire.StringPattern(w, false)))
			g.add(visibleQ(q(kind, wire.StringPattern(w, false))))
		}
	}
	root.Walk(func(n *wire.SemanticNode) bool {
		if n.Role != nil && *n.Role != "" {
			g.add(roleQ(*n.Role, nil))
			if n.Name != nil {
				g.add(roleQ(*n.Role, ptr(wire.StringPattern(*n.Name, true))))
				if w := word(*n.Name); w != "" {
					g.add(roleQ(*n.Role, ptr(wire.StringPattern(w, false))))
				}
			}
		}
		for _, f := range []struct {
			kind string
			v    *string
		}{{wire.QueryText, n.Text}, {wire.QueryText, n.Name}, {wire.QueryLabel, n.Name}, {wire.QueryDisplayValue, n.Value}, {wire.QueryTestID, n.TestID}} {
			if f.v != nil {
				str(f.kind, *f.v)
			}
		}
		if n.Role != nil && n.Name != nil && len(n.Children) > 0 {
			scope := roleQ(*n.Role, ptr(wire.StringPattern(*n.Name, true)))
			n.Walk(func(d *wire.SemanticNode) bool {
				if d != n && d.Role != nil {
					g.add(&wire.LocatorExpression{Kind: wire.ExprQuery, Scope: scope, Query: roleQ(*d.Role, nil).Query})
				}
				if d != n && d.Text != nil {
					if w := word(*d.Text); w != "" && n.Role != nil {
						g.add(&wire.LocatorExpression{Kind: wire.ExprFilter, Source: roleQ(*n.Role, nil), HasText: ptr(wire.StringPattern(w, false))})
					}
				}
				return true
			})
		}
		return true
	})
	return g.out
}

// flat is a node without its children: the fields a located node must
// share with the observed one.
func flat(n *wire.SemanticNode) wire.SemanticNode {
	c := *n
	c.Children = nil
	return c
}

// observedPart is what of a node a located one shares with the observed
// one: a located node is fully read (web-engine §2.5), so its text is the
// whole innerText and its attributes all of them
// (TestLocatedNodesAreFullyRead); its name, value and selection are the
// observation's before the cut (cut here as an observation cuts them).
func observedPart(n *wire.SemanticNode) wire.SemanticNode {
	c := flat(n)
	c.Text, c.Attributes = nil, nil
	c.Name = cutField(c.Name, wire.NameMaxUnits)
	c.Value = cutField(c.Value, wire.TextMaxUnits)
	c.Selection = cutField(c.Selection, wire.TextMaxUnits)
	return c
}

// cutField keeps the first limit UTF-16 units of s (never splitting a
// surrogate pair), as the reader cuts.
func cutField(s *string, limit int) *string {
	if s == nil {
		return nil
	}
	u := utf16.Encode([]rune(*s))
	if len(u) <= limit {
		return s
	}
	end := limit
	if utf16.IsSurrogate(rune(u[end-1])) && u[end-1] < 0xdc00 {
		end--
	}
	r := string(utf16.Decode(u[:end]))
	return &r
}

func ids(ns []*wire.SemanticNode) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = n.Ref.ID
	}
	return out
}

// TestLocateAgreesWithObserve: on every semantic fixture page,
// engine/locate answers exactly what the §10 reference resolution
// (protocol/locate.ResolveExpression) answers over the engine's own
// engine/observe of the page, node for node and field for field, for a
// generated set of queries (web-engine spec, decision 8).
func TestLocateAgreesWithObserve(t *testing.T) {
	srv := httptest.NewServer(web.Handler())
	t.Cleanup(srv.Close)
	e := newTestEngine(t)
	ctx := context.Background()
	for _, path := range agreePages {
		t.Run(strings.TrimPrefix(path, "/web/"), func(t *testing.T) {
			if err := e.Open(ctx, testOp, srv.URL+path); err != nil {
				t.Fatalf("open %s: %v", path, err)
			}
			snap, err := e.Observe(ctx, testOp, wire.EngineObserveOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if snap.Truncated {
				t.Fatal("the observation is truncated: the reference would not see the whole page")
			}
			byID := map[string]*wire.SemanticNode{}
			snap.Root.Walk(func(n *wire.SemanticNode) bool { byID[n.Ref.ID] = n; return true })
			queries := agreeQueries(&snap.Root)
			if len(queries) < 40 {
				t.Fatalf("only %d queries generated", len(queries))
			}
			matched := 0
			for _, aq := range queries {
				want, err := locate.ResolveExpression(aq.expr, []*wire.SemanticNode{&snap.Root}, locate.Options{})
				if err != nil {
					t.Fatalf("reference %s: %v", aq.key, err)
				}
				got, err := e.Locate(ctx, testOp, aq.expr)
				if err != nil {
					t.Fatalf("engine/locate %s: %v", aq.key, err)
				}
				gp := make([]*wire.SemanticNode, len(got))
				for i := range got {
					gp[i] = &got[i]
				}
				if !slices.Equal(ids(gp), ids(want)) {
					t.Errorf("%s: engine/locate %v, the reference over the observation %v", aq.key, ids(gp), ids(want))
					continue
				}
				for i := range got {
					if o := observedPart(byID[got[i].Ref.ID]); !reflect.DeepEqual(observedPart(&got[i]), o) {
						t.Errorf("%s: located node %s differs from the observed one:\n got %+v\nwant %+v", aq.key, got[i].Ref.ID, observedPart(&got[i]), o)
					}
				}
				if len(want) > 0 {
					matched++
				}
			}
			t.Logf("%s: %d queries, %d with matches", path, len(queries), matched)
			// The page did not change under the queries.
			again, err := e.Observe(ctx, testOp, wire.EngineObserveOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(again.Root, snap.Root) {
				t.Fatal("the page changed while it was queried")
			}
		})
	}
}

// TestSemanticCases: what the reference resolution finds on the semantic
// pages, by test id (agreement alone would pass if both sides were wrong).
func TestSemanticCases(t *testing.T) {
	srv := httptest.NewServer(web.Handler())
	t.Cleanup(srv.Close)
	e := newTestEngine(t)
	ctx := context.Background()
	exact := func(s string) *wire.TextPattern { return ptr(wire.StringPattern(s, true)) }
	cases := []struct {
		page, what string
		expr       *wire.LocatorExpression
		want       []string // test ids, or "#role:name" for nodes without one
	}{
		{"/web/semantics", "a textarea's content is its text", q(wire.QueryText, wire.StringPattern("Meeting notes for Monday", true)), []string{"notes"}},
		{"/web/semantics", "a textarea's content, not exact", q(wire.QueryText, wire.StringPattern("meeting notes", false)), []string{"notes", "notes-twin"}},
		{"/web/semantics", "displayValue: the select and the input, never an option", q(wire.QueryDisplayValue, wire.StringPattern("banana", true)), []string{"fruit", "typed-fruit"}},
		{"/web/semantics", "displayValue of a multiple select", q(wire.QueryDisplayValue, wire.StringPattern("red", true)), []string{"colours"}},
		{"/web/semantics", "displayValue: no datalist option", q(wire.QueryDisplayValue, wire.StringPattern("banana split", false)), nil},
		{"/web/semantics", "an option is found by its role and name", roleQ("option", exact("Banana")), []string{"#option:Banana"}},
		{"/web/semantics", "a button named by its svg's title", roleQ("button", exact("Close dialog")), []string{"close-icon"}},
		{"/web/semantics", "an svg title in a name from content", roleQ("link", exact("Search results")), []string{"search-link"}},
		{"/web/semantics", "an svg with a title is an image", roleQ("image", exact("Company logo")), []string{"logo"}},
		{"/web/semantics", "an aria-labelled svg is an image", roleQ("image", exact("Labelled chart")), []string{"#image:Labelled chart"}},
		{"/web/semantics", "svgs with a title are images, one without is not", roleQ("image", nil), []string{"#image:Close dialog", "#image:Search", "logo", "#image:Labelled chart"}},
		{"/web/semantics", "an aria-hidden svg names nothing", roleQ("button", exact("Save")), []string{"save-icon"}},
		{"/web/semantics", "text under aria-hidden is not text", q(wire.QueryText, wire.StringPattern("Hidden words", true)), nil},
		{"/web/semantics", "text deeper under aria-hidden is not text", q(wire.QueryText, wire.StringPattern("Hidden span words", true)), nil},
		{"/web/semantics", "a button under aria-hidden is not listed", q(wire.QueryText, wire.StringPattern("Hidden button", true)), nil},
		{"/web/semantics", "an aria-hidden marker adds no text", q(wire.QueryText, wire.StringPattern("Required", true)), []string{"required"}},
		{"/web/semantics", "an aria-hidden button keeps its name, hidden", q(wire.QueryText, wire.StringPattern("Decorative spinner", true)), []string{"decorative"}},
		{"/web/semantics", "an aria-hidden button is not visible", visibleQ(q(wire.QueryText, wire.StringPattern("Decorative spinner", true))), nil},
		{"/web/semantics", "a display:none element keeps its text", q(wire.QueryText, wire.StringPattern("Undisplayed words", true)), []string{"display-none-words"}},
		{"/web/tables", "scope col", roleQ("columnheader", exact("Price")), []string{"#columnheader:Price"}},
		{"/web/tables", "scope row", roleQ("rowheader", exact("Coffee")), []string{"#rowheader:Coffee"}},
		{"/web/tables", "no scope, in a header row", roleQ("columnheader", exact("Stock")), []string{"#columnheader:Stock"}},
		{"/web/tables", "no scope, beside a data cell", roleQ("rowheader", exact("Pens")), []string{"pens"}},
		{"/web/tables", "no scope, beside an empty data cell", roleQ("columnheader", exact("Totals")), []string{"empty-side"}},
		{"/web/tables", "a lone header cell heads nothing", q(wire.QueryText, wire.StringPattern("Lonely header", true)), []string{"lone-header"}},
		{"/web/tables", "a lone header cell is no columnheader", roleQ("columnheader", exact("Lonely header")), nil},
		{"/web/tables", "td in a grid", roleQ("gridcell", exact("Monday")), []string{"#gridcell:Monday"}},
		{"/web/tables", "no cell in a grid", roleQ("cell", exact("Monday")), nil},
		{"/web/tables", "no cell in a presentation table", roleQ("cell", exact("Layout left")), nil},
		{"/web/tables", "no row in a presentation table", roleQ("row", exact("Layout left Layout right")), nil},
		{"/web/tables", "no header in a none table", roleQ("columnheader", exact("Nothing head")), nil},
		{"/web/tables", "presentation table text is text", q(wire.QueryText, wire.StringPattern("Layout right", true)), []string{"#presentation:Layout right"}},
		{"/web/tables", "a data table nested in a layout table", roleQ("cell", exact("blue")), []string{"#cell:blue"}},
		{"/web/semantics-frames", "plain queries reach into same-origin frames", roleQ("button", exact("Shared action")), []string{"top-action", "framed-action", "#button:Shared action"}},
		{"/web/semantics-frames", "a framed textarea's text", q(wire.QueryText, wire.StringPattern("Notes inside the frame", true)), []string{"framed-notes"}},
		{"/web/semantics-frames", "a framed select's value", q(wire.QueryDisplayValue, wire.StringPattern("large", true)), []string{"framed-select"}},
		{"/web/semantics-frames", "a framed rowheader", roleQ("rowheader", exact("Depth")), []string{"#rowheader:Depth"}},
		{"/web/semantics-frames", "framed aria-hidden text is not text", q(wire.QueryText, wire.StringPattern("Framed hidden words", true)), nil},
		{"/web/semantics-frames", "a framed svg icon", roleQ("button", exact("Framed icon")), []string{"framed-icon"}},
		{"/web/semantics-frames", "text in a srcdoc frame", q(wire.QueryText, wire.StringPattern("Inline frame words", true)), []string{"#:Inline frame words"}},
	}
	page := ""
	for _, c := range cases {
		if c.page != page {
			if err := e.Open(ctx, testOp, srv.URL+c.page); err != nil {
				t.Fatalf("open %s: %v", c.page, err)
			}
			page = c.page
		}
		got, err := e.Locate(ctx, testOp, c.expr)
		if err != nil {
			t.Errorf("%s: %v", c.what, err)
			continue
		}
		var keys []string
		for _, n := range got {
			if n.TestID != nil {
				keys = append(keys, *n.TestID)
			} else {
				keys = append(keys, "#"+deref(n.Role)+":"+firstOf(n.Name, n.Text))
			}
		}
		if !slices.Equal(keys, c.want) {
			t.Errorf("%s (%s): found %q, want %q", c.what, c.page, keys, c.want)
		}
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// firstOf is the first of a, b that is set.
func firstOf(a, b *string) string {
	if a != nil {
		return *a
	}
	return deref(b)
}
