package inpage

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/e2e-conform/toolkit/protocol/wire"
)

func TestExprRejectsBadMethod(t *testing.T) {
	for _, m := range []string{"", "read()", "a.b", "1x", "x;alert(1)"} {
		if _, err := Expr(m); err == nil {
			t.Errorf("Expr(%q) accepted", m)
		}
	}
	if _, err := Expr("read", ReadArgs{Mode: ModeTree}); err != nil {
		t.Fatal(err)
	}
}

func TestIDsStable(t *testing.T) {
	tb := newTab(t, true)
	tb.openHTML(page_("Ids", `<main><button data-testid="a">A</button><button data-testid="b">B</button></main>`))
	r1 := tb.read(ReadArgs{Mode: ModeTree, Budget: 3000, NextID: 10})
	if r1.Root.Ref.ID != "root" || str(r1.Root.Role) != "document" || str(r1.Root.Name) != "Ids" {
		t.Fatalf("root %+v", r1.Root)
	}
	a1, b1 := byTestID(&r1.Root, "a").Ref.ID, byTestID(&r1.Root, "b").Ref.ID
	if a1 != "n11" || b1 != "n12" || r1.NextID != 13 {
		t.Fatalf("ids %s %s next %d", a1, b1, r1.NextID)
	}
	tb.js(nil, `(()=>{const c=document.createElement('button');c.dataset.testid='c';c.textContent='C';document.querySelector('main').prepend(c);return 1})()`)
	r2 := tb.read(ReadArgs{Mode: ModeTree, Budget: 3000, NextID: r1.NextID})
	if got := byTestID(&r2.Root, "a").Ref.ID; got != a1 {
		t.Errorf("a changed id %s → %s", a1, got)
	}
	if got := byTestID(&r2.Root, "b").Ref.ID; got != b1 {
		t.Errorf("b changed id %s → %s", b1, got)
	}
	if got := byTestID(&r2.Root, "c").Ref.ID; got != "n13" || r2.NextID != 14 {
		t.Errorf("new element id %s next %d", got, r2.NextID)
	}
	// ids are invisible to page code
	var visible bool
	tb.js(&visible, `(()=>{const b=document.querySelector('[data-testid=a]');return Object.getOwnPropertySymbols(b).length>0||Object.keys(b).length>0||b.hasAttributes()&&b.attributes.length>1})()`)
	if visible {
		t.Errorf("stamp visible to the page")
	}
	var tag string
	tb.js(&tag, `__e2eConform.element('`+a1+`').dataset.testid`)
	if tag != "a" {
		t.Errorf("element(%s) = %q", a1, tag)
	}
	var liveBefore, liveAfter, liveUnknown bool
	tb.call(&liveBefore, MethodIsLive, a1)
	tb.js(nil, `(()=>{document.querySelector('[data-testid=a]').remove();return 1})()`)
	tb.call(&liveAfter, MethodIsLive, a1)
	tb.call(&liveUnknown, MethodIsLive, "n999")
	if !liveBefore || liveAfter || liveUnknown {
		t.Errorf("isLive before %v after %v unknown %v", liveBefore, liveAfter, liveUnknown)
	}
	var enumerable bool
	tb.js(&enumerable, `Object.keys(window).includes('__e2eConform')`)
	if enumerable {
		t.Errorf("__e2eConform is enumerable")
	}
}

func TestBudgetTruncates(t *testing.T) {
	var b strings.Builder
	b.WriteString("<main>")
	for i := range 20 {
		fmt.Fprintf(&b, "<button>B%d</button>", i)
	}
	b.WriteString("</main>")
	tb := newTab(t, true)
	tb.openHTML(page_("Budget", b.String()))
	full := tb.read(ReadArgs{Mode: ModeTree, Budget: 3000})
	if full.Count != 22 || full.Truncated {
		t.Errorf("count %d truncated %v, want 22 false", full.Count, full.Truncated)
	}
	cut := tb.read(ReadArgs{Mode: ModeTree, Budget: 10, NextID: full.NextID})
	n := 0
	cut.Root.Walk(func(*wire.SemanticNode) bool { n++; return true })
	if cut.Count != 10 || n != 10 || !cut.Truncated {
		t.Errorf("count %d walked %d truncated %v, want 10 10 true", cut.Count, n, cut.Truncated)
	}
}

func TestCuts(t *testing.T) {
	long := strings.Repeat("x", 300)
	text600 := strings.Repeat("t", 600)
	surrogate := strings.Repeat("a", 511) + "😀" + "tail"
	nameSur := strings.Repeat("b", 255) + "😀"
	tb := newTab(t, true)
	tb.openHTML(page_("Cuts", `<div data-testid="n" aria-label="`+long+`">x</div>
<p data-testid="t">`+text600+`</p><p data-testid="s">`+surrogate+`</p>
<input data-testid="v" value="`+text600+`"><div data-testid="ns" aria-label="`+nameSur+`">x</div>`))
	tree := tb.read(ReadArgs{Mode: ModeTree, Budget: 3000})
	cases := []struct {
		id    string
		field func(*wire.SemanticNode) *string
		want  int
	}{
		{"n", func(n *wire.SemanticNode) *string { return n.Name }, 256},
		{"t", func(n *wire.SemanticNode) *string { return n.Text }, 512},
		{"s", func(n *wire.SemanticNode) *string { return n.Text }, 511},
		{"v", func(n *wire.SemanticNode) *string { return n.Value }, 512},
		{"ns", func(n *wire.SemanticNode) *string { return n.Name }, 255},
	}
	for _, c := range cases {
		n := byTestID(&tree.Root, c.id)
		if n == nil {
			t.Fatalf("%s missing", c.id)
		}
		if got := utf16Len(str(c.field(n))); got != c.want {
			t.Errorf("%s: %d UTF-16 units, want %d", c.id, got, c.want)
		}
	}
	full := tb.read(ReadArgs{Mode: ModeFull, Budget: 20000, NextID: tree.NextID})
	if got := utf16Len(str(byTestID(&full.Root, "t").Text)); got != 600 {
		t.Errorf("full text cut to %d", got)
	}
	if got := str(byTestID(&full.Root, "s").Text); got != surrogate {
		t.Errorf("full surrogate text changed")
	}
}

func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

func TestHrefProjection(t *testing.T) {
	cases := []struct{ href, want string }{
		{"/path/a", "{origin}/path/a"},
		{"/p?token=secret", "{origin}/p?…"},
		{"/p#frag", "{origin}/p#…"},
		{"/p?q=1#f", "{origin}/p?…#…"},
		{"http://user:pw@example.com/x", "http://example.com/x"},
		{"data:text/plain,hello", "data:…"},
		{"javascript:alert(1)", "javascript:…"},
		{"mailto:x@example.com?subject=hi", "mailto:x@example.com?…"},
		{"mailto:x@example.com", "mailto:x@example.com"},
		{"tel:+15551234", "tel:+15551234"},
		{"blob:null/1234-5678", "blob:…"},
	}
	var b strings.Builder
	for i, c := range cases {
		fmt.Fprintf(&b, `<a data-testid="h%d" href="%s">L%d</a> `, i, c.href, i)
	}
	tb := newTab(t, true)
	u := tb.openHTML(page_("Href", b.String()))
	origin := u[:strings.Index(u[len("http://"):], "/")+len("http://")]
	tree := tb.read(ReadArgs{Mode: ModeTree, Budget: 3000})
	full := tb.read(ReadArgs{Mode: ModeFull, Budget: 20000, NextID: tree.NextID})
	for i, c := range cases {
		want := strings.ReplaceAll(c.want, "{origin}", origin)
		n := byTestID(&tree.Root, fmt.Sprintf("h%d", i))
		if got := n.Attributes["href"]; got != want {
			t.Errorf("%s: tree href %q, want %q", c.href, got, want)
		}
		if got := byTestID(&full.Root, fmt.Sprintf("h%d", i)).Attributes["href"]; got != c.href {
			t.Errorf("%s: full href %q", c.href, got)
		}
	}
}

func TestAttributesProjection(t *testing.T) {
	tb := newTab(t, true)
	tb.openHTML(page_("Attrs", `<input data-qa="q" data-testid="ignored" class="c" type="text" aria-describedby="x" readonly placeholder="P" autocomplete="one-time-code">`))
	tree := tb.read(ReadArgs{Mode: ModeTree, Budget: 3000, TestIDAttribute: "data-qa"})
	n := byTestID(&tree.Root, "q")
	if n == nil {
		t.Fatal("data-qa test id not reported")
	}
	want := map[string]string{"type": "text", "aria-describedby": "x", "placeholder": "P", "autocomplete": "one-time-code"}
	if fmt.Sprint(n.Attributes) != fmt.Sprint(want) {
		t.Errorf("tree attributes %v", n.Attributes)
	}
	if n.InputPurpose != "one-time-code" {
		t.Errorf("inputPurpose %q", n.InputPurpose)
	}
	full := tb.read(ReadArgs{Mode: ModeFull, Budget: 20000, NextID: tree.NextID, TestIDAttribute: "data-qa"})
	f := byTestID(&full.Root, "q")
	if f.Attributes["class"] != "c" || f.Attributes["data-testid"] != "ignored" || f.Attributes["readonly"] != "" {
		t.Errorf("full attributes %v", f.Attributes)
	}
	if _, ok := f.Attributes["data-qa"]; ok {
		t.Errorf("test id duplicated in attributes")
	}
}

const framesChild = `<!doctype html><html><head><title>child</title><style>body{margin:0}</style></head><body>
<button data-testid="inner-btn" style="position:absolute;left:10px;top:20px;width:50px;height:20px">Inner</button>
<div id=host style="position:absolute;left:0;top:60px"></div>
<iframe name="inner" style="position:absolute;left:100px;top:0;width:200px;height:100px;border:0" srcdoc="&lt;body style=margin:0&gt;&lt;a data-testid=deep href=/z style=position:absolute;left:5px;top:5px&gt;Deep&lt;/a&gt;&lt;button data-testid=clipped style=position:absolute;left:190px;top:5px;width:40px&gt;Clip&lt;/button&gt;&lt;button data-testid=gone style=position:absolute;left:400px;top:5px&gt;Gone&lt;/button&gt;"></iframe>
<script>const r=document.getElementById('host').attachShadow({mode:'closed'});r.innerHTML='<button>Closed in frame</button>';</script>
</body></html>`

func TestNestedFrames(t *testing.T) {
	addPage("/frames-child", framesChild)
	tb := newTab(t, true)
	tb.openHTML(`<!doctype html><html><head><title>Frames</title><style>body{margin:0}</style></head><body>
<div style="height:50px"></div>
<iframe data-testid="outer" title="Outer" src="/frames-child" style="margin-left:30px;width:400px;height:200px;border:5px solid black;padding:3px"></iframe>
<div><iframe src="/frames-child" style="width:400px;height:200px"></iframe></div>
<iframe src="data:text/html,<button>data</button>"></iframe>
<iframe style="width:0;height:0;border:0" src="/frames-child"></iframe>
</body></html>`)
	tb.js(nil, `new Promise(r=>{const f=()=>{const fs=document.querySelectorAll('iframe');const d=fs[0].contentDocument;const i=d&&d.querySelector('iframe');if(i&&i.contentDocument&&i.contentDocument.querySelector('[data-testid=deep]'))r(1);else setTimeout(f,20)};f()})`)
	res := tb.read(ReadArgs{Mode: ModeTree, Budget: 3000})
	if res.Truncated {
		t.Errorf("truncated without reason")
	}
	outer := byTestID(&res.Root, "outer")
	if outer == nil || str(outer.Role) != "iframe" || str(outer.Name) != "Outer" {
		t.Fatalf("outer iframe node %+v", outer)
	}
	inner := byTestID(outer, "inner-btn")
	if inner == nil {
		t.Fatal("child document not stitched under the iframe node")
	}
	if want := []string{`iframe[data-testid="outer"]`}; fmt.Sprint(inner.FramePath) != fmt.Sprint(want) {
		t.Errorf("framePath %q", inner.FramePath)
	}
	// content box of the outer iframe: x = 30 + 5 + 3, y = 50 + 5 + 3
	if inner.Rect == nil || inner.Rect.X != 48 || inner.Rect.Y != 78 || inner.Rect.Width != 50 {
		t.Errorf("inner rect %+v, want x=48 y=78 w=50", inner.Rect)
	}
	deep := byTestID(outer, "deep")
	if deep == nil {
		t.Fatal("grandchild document missing")
	}
	if want := []string{`iframe[data-testid="outer"]`, `iframe[name="inner"]`}; fmt.Sprint(deep.FramePath) != fmt.Sprint(want) {
		t.Errorf("deep framePath %q", deep.FramePath)
	}
	if deep.Rect == nil || deep.Rect.X != 38+100+5 || deep.Rect.Y != 58+5 {
		t.Errorf("deep rect %+v", deep.Rect)
	}
	clipped := byTestID(outer, "clipped")
	if clipped == nil || clipped.Rect == nil || clipped.Rect.Width != 10 {
		t.Errorf("clipped rect %+v, want width 10", clipped)
	}
	gone := byTestID(outer, "gone")
	if gone == nil || gone.Rect != nil {
		t.Errorf("rect emptied by the clip should be dropped: %+v", gone)
	}
	closed := find(outer, func(n *wire.SemanticNode) bool { return str(n.Name) == "Closed in frame" })
	if closed == nil {
		t.Errorf("closed shadow root in child frame not read")
	}
	// second (unnamed) frame: nth-child path
	second := find(&res.Root, func(n *wire.SemanticNode) bool {
		return str(n.Role) == "iframe" && n != outer && len(n.Children) > 0 && len(n.FramePath) == 0
	})
	if second == nil {
		t.Fatal("second frame missing")
	}
	b2 := byTestID(second, "inner-btn")
	if b2 == nil || len(b2.FramePath) != 1 || b2.FramePath[0] != "html > body:nth-child(2) > div:nth-child(3) > iframe:nth-child(1)" {
		t.Errorf("nth-child frame path %+v", b2)
	}
	if find(&res.Root, func(n *wire.SemanticNode) bool { return str(n.Name) == "data" }) != nil {
		t.Errorf("data: frame entered")
	}
	count := 0
	res.Root.Walk(func(n *wire.SemanticNode) bool {
		if n.TestID != nil && *n.TestID == "inner-btn" {
			count++
		}
		return true
	})
	if count != 2 {
		t.Errorf("inner-btn listed %d times, want 2 (zero-size frame not listed)", count)
	}
	// the reader of the top document finds child-frame elements by id
	var ok bool
	tb.js(&ok, `__e2eConform.element('`+deep.Ref.ID+`').textContent==='Deep'`)
	if !ok {
		t.Errorf("element() of a frame node")
	}
	// depth limit
	nested := "<p>leaf</p>"
	for i := range 6 {
		nested = fmt.Sprintf(`<iframe name="d%d" style="width:300px;height:150px" srcdoc="%s"></iframe>`, i, strings.ReplaceAll(strings.ReplaceAll(nested, "&", "&amp;"), `"`, "&quot;"))
	}
	tb2 := newTab(t, true)
	tb2.openHTML(page_("Deep", nested))
	tb2.js(nil, `new Promise(r=>setTimeout(()=>r(1),300))`)
	deepRes := tb2.read(ReadArgs{Mode: ModeTree, Budget: 3000})
	if !deepRes.Truncated {
		t.Errorf("frames deeper than 4 should truncate")
	}
	maxDepth := 0
	deepRes.Root.Walk(func(n *wire.SemanticNode) bool {
		maxDepth = max(maxDepth, len(n.FramePath))
		return true
	})
	if maxDepth != 4 {
		t.Errorf("max frame depth %d, want 4", maxDepth)
	}
}

func TestShadowRoots(t *testing.T) {
	tb := newTab(t, true)
	tb.openHTML(page_("Shadow", `<div id=open><span>light</span></div><div id=closed aria-disabled="true"></div>
<script>
const o=document.getElementById('open').attachShadow({mode:'open'});
o.innerHTML='<button data-testid="ob">Open btn</button><slot></slot><span id=lbl>Label in shadow</span><input data-testid="oi" aria-labelledby="lbl">';
const c=document.getElementById('closed').attachShadow({mode:'closed'});
c.innerHTML='<div role=button data-testid="cb" class=x>Closed btn</div><input type=password data-testid="cp" value="pw">';
</script>`))
	res := tb.read(ReadArgs{Mode: ModeTree, Budget: 3000})
	ob, oi, cb := byTestID(&res.Root, "ob"), byTestID(&res.Root, "oi"), byTestID(&res.Root, "cb")
	if ob == nil || str(ob.Name) != "Open btn" {
		t.Errorf("open shadow button %+v", ob)
	}
	if oi == nil || str(oi.Name) != "Label in shadow" {
		t.Errorf("labelledby inside shadow root %+v", oi)
	}
	if cb == nil || str(cb.Name) != "Closed btn" || !cb.State("disabled") {
		t.Errorf("closed shadow button (disabled across the root) %+v", cb)
	}
	var ids []string
	tb.call(&ids, MethodQuery, ".x", nil)
	if len(ids) != 1 || ids[0] != cb.Ref.ID {
		t.Errorf("query into closed root: %v", ids)
	}
	var sr SecureRects
	tb.call(&sr, MethodSecureRects)
	if sr.Count != 1 || len(sr.Rects) != 1 {
		t.Errorf("secure field in closed root: %+v", sr)
	}
	// Without the init script the closed root is unreachable.
	tb2 := newTab(t, false)
	tb2.open(testEnv.srv.URL + "/" + strings.ReplaceAll(t.Name(), "/", "_"))
	r2 := tb2.read(ReadArgs{Mode: ModeTree, Budget: 3000})
	if byTestID(&r2.Root, "cb") != nil || byTestID(&r2.Root, "ob") == nil {
		t.Errorf("late install: closed root should be unreachable, open reachable")
	}
}

func TestPageOverridesDoNotBreakRead(t *testing.T) {
	tb := newTab(t, true)
	tb.openHTML(page_("Hostile", `<button data-testid="b" aria-label="Real">x</button><a href="/x" data-testid="a">Link</a>
<script>
JSON.stringify=()=>{throw new Error('no stringify')};
JSON.parse=()=>{throw new Error('no parse')};
Object.prototype.toJSON=function(){return 'hijacked'};
Array.prototype.toJSON=function(){return 'hijacked'};
Array.prototype.map=function(){throw new Error('no map')};
Array.prototype.push=function(){throw new Error('no push')};
Array.prototype.forEach=function(){throw new Error('no forEach')};
Array.prototype[Symbol.iterator]=function(){throw new Error('no iterator')};
String.prototype.trim=function(){return 'hijacked'};
String.prototype.slice=function(){return 'hijacked'};
Element.prototype.getAttribute=function(){return 'hijacked'};
Element.prototype.getBoundingClientRect=function(){throw new Error('no rect')};
Element.prototype.matches=function(){throw new Error('no matches')};
window.getComputedStyle=function(){throw new Error('no style')};
Map.prototype.get=function(){throw new Error('no map get')};
WeakMap.prototype.get=function(){throw new Error('no weakmap get')};
Function.prototype.call=function(){throw new Error('no call')};
Function.prototype.apply=function(){throw new Error('no apply')};
</script>`))
	res := tb.read(ReadArgs{Mode: ModeTree, Budget: 3000})
	b := byTestID(&res.Root, "b")
	if b == nil || str(b.Name) != "Real" || str(b.Role) != "button" || b.Rect == nil {
		t.Fatalf("button read wrong under overrides: %+v", b)
	}
	a := byTestID(&res.Root, "a")
	if a == nil || !strings.HasSuffix(a.Attributes["href"], "/x") {
		t.Errorf("link %+v", a)
	}
	var p Probe
	tb.call(&p, MethodProbe, b.Ref.ID, ProbeArgs{})
	if !p.Hit.OK || !p.Visible {
		t.Errorf("probe under overrides %+v", p)
	}
}

func TestQuery(t *testing.T) {
	tb := newTab(t, true)
	tb.openHTML(page_("Query", `<div><button id=b1 class=btn>One</button><button id=b2 class=btn>Two</button><span class=btn id=plain></span></div>
<iframe data-testid="f" srcdoc="<button class=btn>In frame</button>"></iframe>`))
	tb.js(nil, `new Promise(r=>{const f=()=>{const d=document.querySelector('iframe').contentDocument;if(d&&d.querySelector('.btn'))r(1);else setTimeout(f,20)};f()})`)
	res := tb.read(ReadArgs{Mode: ModeTree, Budget: 3000})
	one := find(&res.Root, func(n *wire.SemanticNode) bool { return str(n.Name) == "One" }).Ref.ID
	two := find(&res.Root, func(n *wire.SemanticNode) bool { return str(n.Name) == "Two" }).Ref.ID
	inFrame := find(&res.Root, func(n *wire.SemanticNode) bool { return str(n.Name) == "In frame" }).Ref.ID
	frame := byTestID(&res.Root, "f").Ref.ID
	cases := []struct {
		sel   string
		scope []string
		want  []string
	}{
		{".btn", nil, []string{one, two}}, // the span was never read: no id
		{"css=button", nil, []string{one, two}},
		{"//button", nil, []string{one, two}},
		{"xpath=//button[@id='b2']", nil, []string{two}},
		{"(//button)[2]", nil, []string{two}},
		{".btn", []string{frame}, []string{inFrame}},
		{"#none", nil, []string{}},
	}
	for _, c := range cases {
		var got []string
		tb.call(&got, MethodQuery, c.sel, c.scope)
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("query(%q, %v) = %v, want %v", c.sel, c.scope, got, c.want)
		}
	}
	for _, bad := range []string{"div[", "//button[", "xpath=!!"} {
		_, err := tb.raw(MethodQuery, bad, nil)
		if err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("invalid selector %q: err %v", bad, err)
		}
	}
	var st QueryStampResult
	tb.call(&st, MethodQueryStamp, ".btn", nil, res.NextID)
	if len(st.IDs) != 3 || st.IDs[0] != one || st.NextID != res.NextID+1 {
		t.Errorf("queryStamp %+v", st)
	}
	var nodes ReadNodesResult
	tb.call(&nodes, MethodReadNodes, []string{one, "n9999"}, ReadNodesArgs{})
	if len(nodes.Nodes) != 2 || nodes.Nodes[0] == nil || str(nodes.Nodes[0].Name) != "One" || nodes.Nodes[1] != nil {
		t.Errorf("readNodes %+v", nodes)
	}
	var labels []string
	tb.call(&labels, MethodLabels, one)
	if len(labels) != 0 {
		t.Errorf("labels %v", labels)
	}
}

func TestProbe(t *testing.T) {
	tb := newTab(t, true)
	tb.openHTML(page_("Probe", `<button data-testid="ok" style="position:absolute;left:100px;top:100px;width:100px;height:40px">OK</button>
<button data-testid="covered" style="position:absolute;left:100px;top:200px;width:100px;height:40px">Covered</button>
<div class="overlay" style="position:absolute;left:50px;top:180px;width:300px;height:100px;background:rgba(0,0,0,.2)"></div>
<button data-testid="dis" disabled style="position:absolute;left:100px;top:300px">Disabled</button>
<button data-testid="hid" style="position:absolute;left:100px;top:350px">Hidden</button>
<input data-testid="cb" type=checkbox checked style="position:absolute;left:100px;top:400px">
<input data-testid="ro" readonly value="r" style="position:absolute;left:200px;top:400px">
<button data-testid="far" style="position:absolute;left:100px;top:3000px">Far</button>`))
	res := tb.read(ReadArgs{Mode: ModeTree, Budget: 3000})
	id := func(tid string) string { return byTestID(&res.Root, tid).Ref.ID }
	tb.js(nil, `(()=>{document.querySelector('[data-testid=hid]').style.display='none';return 1})()`)
	probe := func(tid string) Probe {
		var p Probe
		tb.call(&p, MethodProbe, id(tid), ProbeArgs{})
		return p
	}
	p := probe("ok")
	if !p.Attached || !p.Visible || !p.Enabled || !p.Stable || !p.InViewport || !p.Hit.OK || p.Point == nil ||
		p.Point.X != 150 || p.Point.Y != 120 || p.Checkable.Kind != CheckableNone {
		t.Errorf("ok probe %+v", p)
	}
	p = probe("covered")
	if p.Hit.OK || p.Hit.Blocker != `<div class="overlay"> intercepts pointer events` {
		t.Errorf("covered probe %+v", p.Hit)
	}
	p = probe("dis")
	if p.Enabled || !p.Visible {
		t.Errorf("disabled probe %+v", p)
	}
	p = probe("hid")
	if p.Visible || p.Hit.OK || p.Hit.Blocker != "element is not visible" {
		t.Errorf("hidden probe %+v", p)
	}
	p = probe("cb")
	if p.Checkable != (Checkable{Kind: CheckableCheckbox, Checked: true}) || p.Editable {
		t.Errorf("checkbox probe %+v", p)
	}
	p = probe("ro")
	if p.Editable || !p.Enabled {
		t.Errorf("readonly probe %+v", p)
	}
	p = probe("far")
	if p.InViewport || p.Hit.OK || p.Hit.Blocker != "element is outside of the viewport" {
		t.Errorf("far probe %+v", p)
	}
	var sc ScrollResult
	tb.call(&sc, MethodScrollIntoView, id("far"))
	if !sc.Scrolled || sc.Rect == nil || sc.Rect.Y < 0 || sc.Rect.Y > 720 {
		t.Errorf("scrollIntoView %+v", sc)
	}
	tb.call(&sc, MethodScrollIntoView, id("far"))
	if sc.Scrolled {
		t.Errorf("second scrollIntoView scrolled again")
	}
	p = probe("far")
	if !p.InViewport || !p.Hit.OK {
		t.Errorf("far after scroll %+v", p)
	}
	var hi HitInfo
	tb.js(nil, `(()=>{window.scrollTo(0,0);return 1})()`)
	tb.call(&hi, MethodHitInfo, 200, 190)
	if hi.Description != `<div class="overlay">` {
		t.Errorf("hitInfo %+v", hi)
	}
	tb.js(nil, `(()=>{document.querySelector('[data-testid=ok]').remove();return 1})()`)
	p = probe("ok")
	if p.Attached {
		t.Errorf("removed element still attached")
	}
}

func TestActions(t *testing.T) {
	tb := newTab(t, true)
	tb.openHTML(page_("Actions", `<input data-testid="t" value="hello world"><input data-testid="d" type=date>
<input data-testid="r" type=range min=0 max=10><div data-testid="ce" contenteditable>edit me</div>
<select data-testid="s"><option value="a">Apple</option><option value="b">Banana</option><option value="c" disabled>Cherry</option></select>
<button data-testid="btn">B</button>
<script>window.events=[];for(const e of document.querySelectorAll('input,select'))for(const ty of ['input','change'])e.addEventListener(ty,()=>events.push(e.dataset.testid+':'+ty));</script>`))
	res := tb.read(ReadArgs{Mode: ModeTree, Budget: 3000})
	id := func(tid string) string { return byTestID(&res.Root, tid).Ref.ID }
	var focused bool
	tb.call(&focused, MethodFocus, id("btn"))
	if !focused {
		t.Errorf("focus")
	}
	var fe bool
	tb.call(&fe, MethodFocusedEditable)
	if fe {
		t.Errorf("focusedEditable on a button")
	}
	var ok bool
	tb.call(&ok, MethodSelectText, id("t"))
	tb.call(&fe, MethodFocusedEditable)
	if !ok || !fe {
		t.Errorf("selectText/focusedEditable on input: %v %v", ok, fe)
	}
	r2 := tb.read(ReadArgs{Mode: ModeTree, Budget: 3000, NextID: res.NextID})
	if n := byTestID(&r2.Root, "t"); str(n.Selection) != "hello world" || !n.State("focused") {
		t.Errorf("selection %q focused %v", str(n.Selection), n.State("focused"))
	}
	tb.call(&ok, MethodSelectText, id("ce"))
	r3 := tb.read(ReadArgs{Mode: ModeTree, Budget: 3000, NextID: r2.NextID})
	if n := byTestID(&r3.Root, "ce"); str(n.Selection) != "edit me" {
		t.Errorf("contenteditable selection %q", str(n.Selection))
	}
	var v string
	tb.call(&v, MethodSetValue, id("d"), "2024-05-06")
	if v != "2024-05-06" {
		t.Errorf("setValue date %q", v)
	}
	if _, err := tb.raw(MethodSetValue, id("d"), "not a date"); err == nil || !strings.Contains(err.Error(), "malformed") {
		t.Errorf("malformed date: %v", err)
	}
	tb.call(&v, MethodSetValue, id("r"), "7")
	if _, err := tb.raw(MethodSetValue, id("t"), "x"); err == nil {
		t.Errorf("setValue on a text input accepted")
	}
	tb.call(&v, MethodSelectOption, id("s"), SelectOptionArgs{Label: new("Banana")})
	if v != "b" {
		t.Errorf("selectOption label → %q", v)
	}
	tb.call(&v, MethodSelectOption, id("s"), SelectOptionArgs{Index: new(0)})
	if v != "a" {
		t.Errorf("selectOption index → %q", v)
	}
	if _, err := tb.raw(MethodSelectOption, id("s"), SelectOptionArgs{Value: new("zzz")}); err == nil || !strings.Contains(err.Error(), `value "zzz"`) {
		t.Errorf("selectOption unknown value: %v", err)
	}
	var events []string
	tb.js(&events, `events`)
	want := []string{"d:input", "d:change", "r:input", "r:change", "s:input", "s:change", "s:input", "s:change"}
	if fmt.Sprint(events) != fmt.Sprint(want) {
		t.Errorf("events %v, want %v", events, want)
	}
	if _, err := tb.raw(MethodFocus, "n9999"); err == nil || !strings.Contains(err.Error(), "stale") {
		t.Errorf("stale id: %v", err)
	}
}

func TestFocusedEditableAndSecureRects(t *testing.T) {
	tb := newTab(t, true)
	tb.openHTML(page_("Focus", `<input type=password id=p1 style="position:absolute;left:10px;top:10px;width:100px;height:20px">
<div style="display:none"><input type=password id=p2></div>
<div id=host></div>
<iframe id=f style="position:absolute;left:300px;top:100px;width:300px;height:100px;border:0" srcdoc="<body style=margin:0><input type=PASSWORD style=position:absolute;left:5px;top:5px;width:50px;height:20px><textarea id=ta></textarea></body>"></iframe>
<div tabindex=0 id=widget>w</div><input type=checkbox id=chk><input readonly id=ro>
<script>const r=document.getElementById('host').attachShadow({mode:'closed'});r.innerHTML='<input type=password><div contenteditable id=ce>x</div>';window.shadowCE=r.getElementById('ce');</script>`))
	tb.js(nil, `new Promise(r=>{const f=()=>{const d=document.getElementById('f').contentDocument;if(d&&d.getElementById('ta'))r(1);else setTimeout(f,20)};f()})`)
	var sr SecureRects
	tb.call(&sr, MethodSecureRects)
	if sr.Count != 4 || len(sr.Rects) != 3 {
		t.Fatalf("secureRects %+v, want count 4 with 3 rects", sr)
	}
	foundFrame := false
	for _, r := range sr.Rects {
		if math.Abs(r.X-305) < 0.01 && math.Abs(r.Y-105) < 0.01 {
			foundFrame = true
		}
	}
	if !foundFrame {
		t.Errorf("frame password rect not in top coordinates: %+v", sr.Rects)
	}
	cases := []struct {
		focus string
		want  bool
	}{
		{`document.body.focus()`, false},
		{`document.getElementById('p1').focus()`, true},
		{`document.getElementById('chk').focus()`, false},
		{`document.getElementById('ro').focus()`, false},
		{`document.getElementById('widget').focus()`, true},
		{`document.getElementById('f').contentDocument.getElementById('ta').focus()`, true},
		{`shadowCE.focus()`, true},
	}
	for _, c := range cases {
		tb.js(nil, `(()=>{document.activeElement&&document.activeElement.blur&&document.activeElement.blur();`+c.focus+`;return 1})()`)
		var got bool
		tb.call(&got, MethodFocusedEditable)
		if got != c.want {
			t.Errorf("%s: focusedEditable %v, want %v", c.focus, got, c.want)
		}
	}
	res := tb.read(ReadArgs{Mode: ModeTree, Budget: 3000})
	if find(&res.Root, func(n *wire.SemanticNode) bool { return n.State("focused") && str(n.Role) == "textbox" }) == nil {
		t.Errorf("deep focus through the closed root not marked")
	}
}

// TestJSONEscapesWideUnits: the reader's json answer writes every UTF-16
// unit above U+00FF as a \uXXXX escape, so the engine receives a one-byte
// string (fast over the DevTools protocol), and it is the same JSON: the
// page's own JSON.parse and Go's decoder read back what went in, surrogate
// pairs and lone surrogates included. A page that tampers with the RegExp
// builtins the escaping consults gets the plain text, still the same JSON.
func TestJSONEscapesWideUnits(t *testing.T) {
	const value = `{v: {s: "…“quoted” é\u00a0ÿ\u0100 😀 \ud800 end", k: ["Ω", "\\\"", "\u2028"], n: "plain"}}`
	const check = `(() => { const c = globalThis.__e2eConform; const v = ` + value + `;
	  const s = c.json(v); let wide = 0;
	  for (let i = 0; i < s.length; i++) if (s.codePointAt(i) > 0xff) wide++;
	  return {text: s, wide: wide, same: JSON.stringify(JSON.parse(s)) === JSON.stringify(v)}; })()`
	type answer struct {
		Text string `json:"text"`
		Wide int    `json:"wide"`
		Same bool   `json:"same"`
	}
	want := map[string]any{"s": "…“quoted” é\u00a0ÿĀ 😀 \ufffd end", "k": []any{"Ω", `\"`, "\u2028"}, "n": "plain"}
	decoded := func(t *testing.T, text string) {
		t.Helper()
		var got struct {
			V map[string]any `json:"v"`
		}
		if err := json.Unmarshal([]byte(text), &got); err != nil {
			t.Fatalf("Go cannot decode %q: %v", text, err)
		}
		if fmt.Sprint(got.V) != fmt.Sprint(want) {
			t.Errorf("Go decodes %v, want %v", got.V, want)
		}
	}
	cases := []struct {
		name   string
		script string
		wide   bool // the answer may hold wide units (the escaping stood aside)
	}{
		{name: "untouched page"},
		{name: "page replaced exec", script: `RegExp.prototype.exec = function () { return null; };`, wide: true},
		{name: "page replaced exec with a false match", script: `(() => { const exec = RegExp.prototype.exec; let n = 0;
		  RegExp.prototype.exec = function (s) { if (n++ === 0) { this.lastIndex = 1; const m = ['{']; m.index = 0; m.input = s; return m; } return exec.call(this, s); }; })();`, wide: true},
		{name: "page replaced the flags getter", script: `Object.defineProperty(RegExp.prototype, 'flags', {get() { return ''; }});`, wide: true},
		{name: "page replaced the global getter", script: `Object.defineProperty(RegExp.prototype, 'global', {get() { return false; }});`, wide: true},
		{name: "page replaced Symbol.replace", script: `RegExp.prototype[Symbol.replace] = function (s) { return 'hijacked'; };`, wide: true},
		{name: "page replaced String.prototype.replace and charCodeAt", script: `String.prototype.replace = function () { return 'hijacked'; }; String.prototype.charCodeAt = function () { return 0; };`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tb := newTab(t, true)
			tb.openHTML(page_("Wide", `<p>x</p><script>`+tc.script+`</script>`))
			var a answer
			tb.js(&a, check)
			if !a.Same {
				t.Fatalf("the page's JSON.parse reads back something else: %q", a.Text)
			}
			if !tc.wide && a.Wide != 0 {
				t.Errorf("%d wide units left in %q", a.Wide, a.Text)
			}
			if tc.wide && a.Wide == 0 {
				t.Errorf("escaped although the page replaced a RegExp member the escaping consults: %q", a.Text)
			}
			decoded(t, a.Text)
		})
	}
}
