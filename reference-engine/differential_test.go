package webengine

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/e2e-conform/toolkit/protocol/wire"
)

// The differential test of engine/locate's in-page (sparse) resolution
// against the Go resolution over the whole read (protocol/locate over every
// node of an observation's walk, locateWhole): on generated pages mixing
// roles, names, text, labels, test ids, frames, shadow roots, aria-hidden,
// hidden content and tables, many generated expressions per page (every
// query kind, every match option, scopes, filters, indexes, selectors and
// their nestings) must answer the same nodes, field for field and subtree
// for subtree, or fail with the same error.

// diffWords are the words of generated text: mixed case, non-ASCII (a
// dotted capital I, a final sigma, an accented letter), so that inexact
// patterns meet the simple lower-case mapping.
var diffWords = []string{"Save", "save", "Open", "Close", "Report", "İstanbul", "ΟΔΟΣ", "café", "Menu", "Item",
	"Alpha", "beta", "GAMMA", "delta", "Submit", "Cancel", "Total", "price", "Name", "Notes"}

// diffGen writes one generated page.
type diffGen struct {
	r     *rand.Rand
	b     strings.Builder
	ids   int
	depth int
}

func (g *diffGen) word() string { return diffWords[g.r.IntN(len(diffWords))] }

// phrase is one to four words with varied white space.
func (g *diffGen) phrase() string {
	n := 1 + g.r.IntN(4)
	seps := []string{" ", "  ", "\n ", "\u00a0", "\t"}
	var s strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			s.WriteString(seps[g.r.IntN(len(seps))])
		}
		s.WriteString(g.word())
	}
	if g.r.IntN(20) == 0 { // past the 256-unit name cut
		s.WriteString(strings.Repeat(" long", 60))
	}
	return s.String()
}

func (g *diffGen) text() string { return html.EscapeString(g.phrase()) }

// attrs returns random common attributes: a test id, aria states, hiding.
func (g *diffGen) attrs() string {
	var a []string
	if g.r.IntN(3) == 0 {
		g.ids++
		a = append(a, fmt.Sprintf(`data-testid="t%d"`, g.ids%7))
	}
	if g.r.IntN(12) == 0 {
		a = append(a, `aria-hidden="true"`)
	}
	if g.r.IntN(15) == 0 {
		a = append(a, `style="display:none"`)
	}
	if g.r.IntN(20) == 0 {
		a = append(a, `style="visibility:hidden"`)
	}
	if g.r.IntN(10) == 0 {
		a = append(a, fmt.Sprintf(`aria-label="%s"`, g.text()))
	}
	if g.r.IntN(10) == 0 {
		a = append(a, fmt.Sprintf(`title="%s"`, g.text()))
	}
	if g.r.IntN(12) == 0 {
		a = append(a, []string{`aria-pressed="true"`, `aria-pressed="false"`, `aria-expanded="true"`, `aria-selected="true"`, `aria-disabled="true"`}[g.r.IntN(5)])
	}
	if len(a) == 0 {
		return ""
	}
	return " " + strings.Join(a, " ")
}

// leaf writes one control or text element.
func (g *diffGen) leaf() {
	b := &g.b
	switch g.r.IntN(16) {
	case 0:
		fmt.Fprintf(b, `<button%s>%s</button>`, g.attrs(), g.text())
	case 1:
		fmt.Fprintf(b, `<button%s><svg width="10" height="10"><title>%s</title></svg></button>`, g.attrs(), g.text())
	case 2:
		fmt.Fprintf(b, `<a href="/x/%d?q=1"%s>%s <span>%s</span></a>`, g.r.IntN(9), g.attrs(), g.text(), g.text())
	case 3:
		l := 1 + g.r.IntN(6)
		fmt.Fprintf(b, `<h%d%s>%s</h%d>`, l, g.attrs(), g.text(), l)
	case 4:
		fmt.Fprintf(b, `<div role="heading" aria-level="%d"%s>%s</div>`, 1+g.r.IntN(6), g.attrs(), g.text())
	case 5:
		g.ids++
		fmt.Fprintf(b, `<label for="f%d">%s</label><input id="f%d" placeholder="%s" value="%s"%s>`, g.ids, g.text(), g.ids, g.text(), g.text(), g.attrs())
	case 6:
		checked := []string{"", " checked"}[g.r.IntN(2)]
		fmt.Fprintf(b, `<label><input type="%s"%s%s> %s</label>`, []string{"checkbox", "radio"}[g.r.IntN(2)], checked, g.attrs(), g.text())
	case 7:
		fmt.Fprintf(b, `<textarea%s placeholder="%s">%s</textarea>`, g.attrs(), g.text(), g.text())
	case 8:
		fmt.Fprintf(b, `<select%s><option>%s</option><option selected>%s</option><option disabled>%s</option></select>`, g.attrs(), g.text(), g.text(), g.text())
	case 9:
		fmt.Fprintf(b, `<input type="password" value="secret" placeholder="%s"%s>`, g.text(), g.attrs())
	case 10:
		fmt.Fprintf(b, `<p%s>%s <b%s>%s</b> %s</p>`, g.attrs(), g.text(), g.attrs(), g.text(), g.text())
	case 11:
		fmt.Fprintf(b, `<span%s>%s</span>`, g.attrs(), g.text())
	case 12:
		fmt.Fprintf(b, `<div role="checkbox" aria-checked="%v"%s>%s</div>`, g.r.IntN(2) == 0, g.attrs(), g.text())
	case 13:
		fmt.Fprintf(b, `<img alt="%s" width="12" height="12"%s>`, g.text(), g.attrs())
	case 14:
		fmt.Fprintf(b, `<div contenteditable="true"%s>%s</div>`, g.attrs(), g.text())
	case 15:
		fmt.Fprintf(b, `<div style="width:20px;height:20px;background:red"%s></div>`, g.attrs())
	}
}

// table writes a table: with or without scope, a grid, or a presentation
// table.
func (g *diffGen) table() {
	b := &g.b
	kind := []string{"", ` role="grid"`, ` role="presentation"`}[g.r.IntN(3)]
	fmt.Fprintf(b, `<table%s%s><caption>%s</caption>`, kind, g.attrs(), g.text())
	fmt.Fprintf(b, `<tr><th>%s</th><th scope="col">%s</th><th>%s</th></tr>`, g.text(), g.text(), g.text())
	for i := 0; i < 1+g.r.IntN(3); i++ {
		fmt.Fprintf(b, `<tr><th%s>%s</th><td>%s</td><td%s>%s</td></tr>`, []string{"", ` scope="row"`}[g.r.IntN(2)], g.text(), g.text(), g.attrs(), g.text())
	}
	b.WriteString(`</table>`)
}

// block writes a container with children, a table, a frame or a shadow
// host.
func (g *diffGen) block() {
	b := &g.b
	if g.depth > 3 {
		g.leaf()
		return
	}
	g.depth++
	defer func() { g.depth-- }()
	switch g.r.IntN(9) {
	case 0, 1:
		tag := []string{"section", "nav", "main", "div", "form", "fieldset", "ul"}[g.r.IntN(7)]
		named := ""
		if g.r.IntN(2) == 0 {
			named = fmt.Sprintf(` aria-label="%s"`, g.text())
		}
		if tag == "fieldset" && g.r.IntN(2) == 0 {
			named += " disabled"
		}
		fmt.Fprintf(b, `<%s%s%s>`, tag, named, g.attrs())
		for i := 0; i < 2+g.r.IntN(4); i++ {
			if tag == "ul" {
				b.WriteString("<li>")
				g.leaf()
				b.WriteString("</li>")
				continue
			}
			g.block()
		}
		fmt.Fprintf(b, `</%s>`, tag)
	case 2:
		g.table()
	case 3:
		if g.depth == 1 && g.r.IntN(2) == 0 { // a same-origin frame
			var inner diffGen
			inner.r = g.r
			inner.depth = g.depth
			for i := 0; i < 3; i++ {
				inner.leaf()
			}
			fmt.Fprintf(b, `<iframe title="%s"%s width="300" height="200" srcdoc="%s"></iframe>`, g.text(), g.attrs(), html.EscapeString(inner.b.String()))
			return
		}
		g.leaf()
	case 4:
		b.WriteString(`<div><template shadowrootmode="open">`)
		g.leaf()
		b.WriteString(`<slot></slot></template>`)
		g.leaf()
		b.WriteString(`</div>`)
	case 5:
		fmt.Fprintf(b, `<details><summary>%s</summary>`, g.text())
		g.leaf()
		b.WriteString(`</details>`)
	default:
		g.leaf()
	}
}

// diffPage is generated page seed: about n blocks.
func diffPage(seed uint64, n int) string {
	g := &diffGen{r: rand.New(rand.NewPCG(seed, 7))}
	g.b.WriteString("<!doctype html><html><head><title>diff " + fmt.Sprint(seed) + "</title></head><body>")
	for i := 0; i < n; i++ {
		g.block()
	}
	g.b.WriteString("</body></html>")
	return g.b.String()
}

// diffExprs generates expressions from the whole read of a page.
func diffExprs(r *rand.Rand, root *wire.SemanticNode, n int) []*wire.LocatorExpression {
	var nodes []*wire.SemanticNode
	root.Walk(func(x *wire.SemanticNode) bool { nodes = append(nodes, x); return true })
	pick := func() *wire.SemanticNode { return nodes[r.IntN(len(nodes))] }
	// pattern derives a pattern from s: exact, a changed-case part, a
	// regexp, or a miss.
	pattern := func(s string) wire.TextPattern {
		f := strings.Fields(s)
		part := s
		if len(f) > 0 {
			part = f[r.IntN(len(f))]
		}
		switch r.IntN(7) {
		case 0:
			return wire.StringPattern(s, true)
		case 1:
			return wire.StringPattern(strings.ToUpper(part), false)
		case 2:
			return wire.StringPattern(strings.ToLower(part), false)
		case 3:
			return wire.TextPattern{Kind: wire.PatternRegexp, Source: "^" + prefix(strings.ToLower(part), 2), Flags: "i"}
		case 4:
			return wire.TextPattern{Kind: wire.PatternRegexp, Source: prefix(strings.ToLower(part), 3), Flags: "y"}
		case 5:
			return wire.StringPattern("  "+part+"\n", r.IntN(2) == 0)
		}
		return wire.StringPattern(part+" nowhere", false)
	}
	field := func(x *wire.SemanticNode) string {
		for _, s := range []*string{x.Name, x.Text, x.Value, x.TestID} {
			if s != nil && r.IntN(2) == 0 {
				return *s
			}
		}
		return diffWords[r.IntN(len(diffWords))]
	}
	var query func() *wire.LocatorExpression
	query = func() *wire.LocatorExpression {
		x := pick()
		q := &wire.SemanticQuery{}
		switch r.IntN(8) {
		case 0, 1, 2:
			q.Kind = wire.QueryRole
			role := ""
			if x.Role != nil {
				role = *x.Role
			}
			q.Value = wire.StringPattern(role, r.IntN(2) == 0)
			if x.Name != nil && r.IntN(3) > 0 {
				q.Name = ptr(pattern(*x.Name))
			}
			if r.IntN(4) == 0 {
				q.States = &wire.QueryStates{}
				b := r.IntN(2) == 0
				switch r.IntN(5) {
				case 0:
					q.States.Checked = &b
				case 1:
					q.States.Disabled = &b
				case 2:
					q.States.Selected = &b
				case 3:
					q.States.Expanded = &b
				default:
					q.States.Pressed = &b
				}
			}
			if r.IntN(5) == 0 {
				q.Level = ptr(int64(1 + r.IntN(6)))
			}
		case 3:
			q.Kind, q.Value = wire.QueryText, pattern(field(x))
		case 4:
			q.Kind, q.Value = wire.QueryLabel, pattern(field(x))
		case 5:
			p := diffWords[r.IntN(len(diffWords))]
			if v, ok := x.Attributes["placeholder"]; ok {
				p = v
			}
			q.Kind, q.Value = wire.QueryPlaceholder, pattern(p)
		case 6:
			q.Kind, q.Value = wire.QueryDisplayValue, pattern(field(x))
		default:
			q.Kind, q.Value = wire.QueryTestID, pattern(fmt.Sprintf("t%d", r.IntN(7)))
		}
		if r.IntN(4) == 0 {
			q.Visible = ptr(true)
		}
		return &wire.LocatorExpression{Kind: wire.ExprQuery, Query: q}
	}
	selectors := []string{"button", "li", "[data-testid]", "section button", "//p", "xpath=//input", "css=table td", "!!bad(", "//[", "iframe"}
	var expr func(depth int) *wire.LocatorExpression
	expr = func(depth int) *wire.LocatorExpression {
		if depth > 2 {
			return query()
		}
		switch r.IntN(9) {
		case 0:
			x := query()
			x.Scope = expr(depth + 1)
			return x
		case 1:
			f := &wire.LocatorExpression{Kind: wire.ExprFilter, Source: expr(depth + 1)}
			if r.IntN(2) == 0 {
				f.HasText = ptr(pattern(field(pick())))
			}
			if r.IntN(2) == 0 {
				f.Has = expr(depth + 1)
			}
			return f
		case 2:
			ix := wire.Index{Pos: []string{"first", "last", ""}[r.IntN(3)], N: int64(r.IntN(4)) - 1}
			return &wire.LocatorExpression{Kind: wire.ExprIndex, Source: expr(depth + 1), Index: ix}
		case 3:
			return &wire.LocatorExpression{Kind: wire.ExprSelector, Selector: selectors[r.IntN(len(selectors))]}
		case 4:
			if r.IntN(4) == 0 {
				return &wire.LocatorExpression{Kind: wire.ExprFrame, Selector: "iframe", Source: query()}
			}
		}
		return query()
	}
	out := make([]*wire.LocatorExpression, n)
	for i := range out {
		out[i] = expr(0)
	}
	return out
}

// TestLocateDifferential: engine/locate resolved in the page (a sparse
// read) answers, on generated pages, exactly what the Go resolution over
// the whole read answers: the same nodes in the same order with the same
// fields and subtrees, or the same error.
func TestLocateDifferential(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/diff/{seed}/{n}", func(w http.ResponseWriter, r *http.Request) {
		var seed uint64
		var n int
		fmt.Sscan(r.PathValue("seed"), &seed)
		fmt.Sscan(r.PathValue("n"), &n)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, diffPage(seed, n))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	e := newTestEngine(t)
	ctx := context.Background()
	pages := []struct {
		seed    uint64
		blocks  int
		queries int
	}{{1, 30, 150}, {2, 40, 150}, {3, 50, 150}, {4, 60, 150}, {5, 25, 150}, {6, 1400, 40}} // the last is cut at the node budget
	for _, p := range pages {
		t.Run(fmt.Sprint(p.seed), func(t *testing.T) {
			if err := e.Open(ctx, testOp, fmt.Sprintf("%s/diff/%d/%d", srv.URL, p.seed, p.blocks)); err != nil {
				t.Fatal(err)
			}
			tb, cctx, done, err := e.begin(ctx, testOp)
			if err != nil {
				t.Fatal(err)
			}
			pr, err := e.read(cctx, tb, "tree", nil)
			done()
			if err != nil {
				t.Fatal(err)
			}
			if p.blocks > 1000 && !pr.R.Truncated {
				t.Fatal("the large page is not cut at the node budget")
			}
			r := rand.New(rand.NewPCG(p.seed, 11))
			matched, failed, sparse := 0, 0, 0
			for _, x := range diffExprs(r, &pr.R.Root, p.queries) {
				key, _ := json.Marshal(x)
				if _, ok := planOf(x); ok {
					sparse++
				}
				tb, cctx, done, err := e.begin(ctx, testOp)
				if err != nil {
					t.Fatal(err)
				}
				want, werr := e.locateWhole(ctx, cctx, tb, x)
				if werr == nil && len(want) > 0 {
					// both answers fully read, as engine/locate answers
					if err := e.complete(cctx, tb, want); err != nil {
						t.Fatal(err)
					}
				}
				done()
				got, gerr := e.Locate(ctx, testOp, x)
				if fmt.Sprint(werr) != fmt.Sprint(gerr) {
					t.Errorf("%s: in the page: error %v; over the whole read: %v", key, gerr, werr)
					continue
				}
				if werr != nil {
					failed++
					continue
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s: in the page %v, over the whole read %v", key, nodeIDs(got), nodeIDs(want))
					for i := range min(len(got), len(want)) {
						if !reflect.DeepEqual(got[i], want[i]) {
							g, _ := json.Marshal(got[i])
							w, _ := json.Marshal(want[i])
							t.Logf("first difference at %d:\n got %.600s\nwant %.600s", i, g, w)
							break
						}
					}
					continue
				}
				if len(want) > 0 {
					matched++
				}
			}
			t.Logf("page %d: %d expressions (%d resolved in the page), %d with matches, %d failing alike", p.seed, p.queries, sparse, matched, failed)
			if matched < p.queries/5 || sparse < p.queries*3/4 {
				t.Errorf("too few expressions matched (%d) or were resolved in the page (%d): the test shows little", matched, sparse)
			}
		})
	}
}

// prefix is the first n runes of s, quoted for a regular expression.
func prefix(s string, n int) string {
	r := []rune(s)
	return regexp.QuoteMeta(string(r[:min(len(r), n)]))
}

func nodeIDs(ns []wire.SemanticNode) []string {
	out := make([]string, len(ns))
	for i := range ns {
		out[i] = ns[i].Ref.ID
	}
	return out
}
