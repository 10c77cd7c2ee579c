package inpage

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/e2e-conform/toolkit/protocol/wire"
)

// nodeCase is one row of the role/name table: html holds TID where the
// data-testid attribute of the element under test goes.
type nodeCase struct {
	name   string
	html   string
	role   string // "" = no role member
	acc    string // "" = no name member
	absent bool   // the element must not be a node
	hidden bool   // the element is a node marked hidden
	check  func(t *testing.T, n *wire.SemanticNode)
}

const tableCSS = `<style>
.next::before{content:"→ "}
.badge::after{content:"3 new"}
.glyph::before{content:"\e900";font-family:monospace}
.gen::before{content:"Gen: "}
img.sz{display:inline-block;width:20px;height:20px}
</style>`

func isState(t *testing.T, n *wire.SemanticNode, state string, want bool) {
	t.Helper()
	if got := n.State(state); got != want {
		t.Errorf("state %s = %v, want %v", state, got, want)
	}
}

func stateAbsentOrFalse(t *testing.T, n *wire.SemanticNode, state string) {
	t.Helper()
	if n.State(state) {
		t.Errorf("state %s is true", state)
	}
}

var roleNameCases = []nodeCase{
	// roles by tag (HTML-AAM table of spec 2.3)
	{name: "a[href] link", html: `<a TID href="/x">Home</a>`, role: "link", acc: "Home"},
	{name: "a without href", html: `<a TID>No href</a>`, check: func(t *testing.T, n *wire.SemanticNode) {
		if str(n.Text) != "No href" {
			t.Errorf("text %q", str(n.Text))
		}
	}},
	{name: "button", html: `<button TID>Save</button>`, role: "button", acc: "Save"},
	{name: "select combobox", html: `<select TID><option>A</option></select>`, role: "combobox"},
	{name: "select multiple listbox", html: `<select TID multiple><option>A</option></select>`, role: "listbox"},
	{name: "textarea", html: `<textarea TID></textarea>`, role: "textbox"},
	{name: "img alt", html: `<img class=sz TID alt="Logo">`, role: "image", acc: "Logo"},
	{name: "img alt empty", html: `<img class=sz TID alt="">`, role: "presentation"},
	{name: "role img spelled image", html: `<div TID role="img" aria-label="Pic">x</div>`, role: "image", acc: "Pic"},
	{name: "explicit role first token", html: `<div TID role="tab button">T</div>`, role: "tab", acc: "T"},
	{name: "nav", html: `<nav TID>n</nav>`, role: "navigation"},
	{name: "main", html: `<main TID>m</main>`, role: "main"},
	{name: "aside", html: `<aside TID>a</aside>`, role: "complementary"},
	{name: "header top banner", html: `<header TID>h</header>`, role: "banner"},
	{name: "header in article", html: `<article><header TID>h</header></article>`, role: ""},
	{name: "footer contentinfo", html: `<footer TID>f</footer>`, role: "contentinfo"},
	{name: "section named region", html: `<section TID aria-label="Sec">s</section>`, role: "region", acc: "Sec"},
	{name: "section unnamed", html: `<section TID>s</section>`, role: ""},
	{name: "form titled", html: `<form TID title="Login">x</form>`, role: "form", acc: "Login"},
	{name: "form unnamed", html: `<form TID>x</form>`, role: ""},
	{name: "hr separator", html: `<hr TID>`, role: "separator"},
	{name: "progress", html: `<progress TID value=1 max=2></progress>`, role: "progressbar"},
	{name: "meter", html: `<meter TID value=1 max=2></meter>`, role: "meter"},
	{name: "menu list", html: `<menu TID><li>x</li></menu>`, role: "list"},
	{name: "address group", html: `<address TID>addr</address>`, role: "group"},
	{name: "heading level", html: `<h3 TID>Head</h3>`, role: "heading", acc: "Head", check: func(t *testing.T, n *wire.SemanticNode) {
		if n.Level == nil || *n.Level != 3 {
			t.Errorf("level %v", n.Level)
		}
	}},
	{name: "role heading default level", html: `<div TID role="heading">H</div>`, role: "heading", acc: "H", check: func(t *testing.T, n *wire.SemanticNode) {
		if n.Level == nil || *n.Level != 2 {
			t.Errorf("level %v", n.Level)
		}
	}},
	{name: "aria-level", html: `<h2 TID aria-level="5">H</h2>`, role: "heading", acc: "H", check: func(t *testing.T, n *wire.SemanticNode) {
		if n.Level == nil || *n.Level != 5 {
			t.Errorf("level %v", n.Level)
		}
	}},
	{name: "listitem named from content", html: `<ul><li TID>Item one</li></ul>`, role: "listitem", acc: "Item one"},
	// tables: HTML-AAM as Playwright computes it (decision 9)
	{name: "th alone in a one-row table heads nothing", html: `<table><tr><th TID>Col</th></tr></table>`, check: func(t *testing.T, n *wire.SemanticNode) {
		if str(n.Text) != "Col" {
			t.Errorf("text %q", str(n.Text))
		}
	}},
	{name: "th alone in its row of a two-row table", html: `<table><tr><th TID>Col</th></tr><tr><td>1</td></tr></table>`, role: "columnheader", acc: "Col"},
	{name: "th first of a header row", html: `<table><tr><th TID>First</th><th>Second</th></tr><tr><td>1</td><td>2</td></tr></table>`, role: "columnheader", acc: "First"},
	{name: "th between header cells", html: `<table><tr><th>A</th><th TID>Mid</th><th>C</th></tr></table>`, role: "columnheader", acc: "Mid"},
	{name: "th beside a filled data cell", html: `<table><tr><th>H</th><th>H2</th></tr><tr><th TID>Row head</th><td>1</td></tr></table>`, role: "rowheader", acc: "Row head"},
	{name: "th beside an empty data cell", html: `<table><tr><th>H</th><th>H2</th></tr><tr><th TID>Head</th><td></td></tr></table>`, role: "columnheader", acc: "Head"},
	{name: "th scope row", html: `<table><tr><th TID scope=row>Row</th></tr></table>`, role: "rowheader", acc: "Row"},
	{name: "th scope col beside a data cell", html: `<table><tr><th TID scope=col>Col</th><td>1</td></tr></table>`, role: "columnheader", acc: "Col"},
	{name: "td cell", html: `<table><tr><td TID>Plain</td></tr></table>`, role: "cell", acc: "Plain"},
	{name: "td in a grid is a gridcell", html: `<table role=grid aria-label="G"><tr><td TID>In grid</td></tr></table>`, role: "gridcell", acc: "In grid"},
	{name: "td in a treegrid is a gridcell", html: `<table role=treegrid aria-label="T"><tbody><tr><td TID>In treegrid</td></tr></tbody></table>`, role: "gridcell", acc: "In treegrid"},
	{name: "row of a presentation table", html: `<table role=presentation><tr TID><td>A</td></tr></table>`, role: "presentation"},
	{name: "cell of a presentation table", html: `<table role=presentation><tbody><tr><td TID>Layout</td></tr></tbody></table>`, role: "presentation", check: func(t *testing.T, n *wire.SemanticNode) {
		if str(n.Text) != "Layout" {
			t.Errorf("text %q", str(n.Text))
		}
	}},
	{name: "header cell of a none table", html: `<table role=none><tr><th TID>H</th><td>x</td></tr></table>`, role: "none"},
	{name: "rowgroup of a presentation table", html: `<table role=presentation><tbody TID><tr><td>A</td></tr></tbody></table>`, role: "presentation"},
	{name: "a cell with its own role keeps it", html: `<table role=presentation><tr><td TID role=button>Own</td></tr></table>`, role: "button", acc: "Own"},
	{name: "cell of a nested table under a presentation table", html: `<table role=presentation><tr><td><table><tr><td TID>Inner</td></tr></table></td></tr></table>`, role: "cell", acc: "Inner"},
	// svg: SVG-AAM and accname (decision 9)
	{name: "svg with a title is an image", html: `<svg TID width=16 height=16><title>Close dialog</title><path d="M0 0h16v16z"/></svg>`, role: "image", acc: "Close dialog"},
	{name: "svg labelled is an image", html: `<svg TID width=16 height=16 aria-label="Logo"><path d="M0 0h16v16z"/></svg>`, role: "image", acc: "Logo"},
	{name: "svg without a title has no role", html: `<svg TID width=16 height=16><path d="M0 0h16v16z"/></svg>`},
	{name: "svg with role img", html: `<svg TID role=img aria-label="Chart" width=16 height=16></svg>`, role: "image", acc: "Chart"},
	{name: "button named by its svg's title", html: `<button TID><svg width=16 height=16><title>Close</title><path d="M0 0h16v16z"/></svg></button>`, role: "button", acc: "Close"},
	{name: "svg title joins a name from content", html: `<a TID href="/s"><svg width=16 height=16><title>Search</title></svg> results</a>`, role: "link", acc: "Search results"},
	{name: "aria-hidden svg adds nothing", html: `<button TID><svg aria-hidden="true" width=16 height=16><title>Icon</title></svg>Save</button>`, role: "button", acc: "Save"},
	{name: "labelledby an svg reads its title", html: `<svg id=lbsvg width=16 height=16><title>From svg</title></svg><button TID aria-labelledby="lbsvg">x</button>`, role: "button", acc: "From svg"},
	// aria-hidden text is not text (decision 10)
	{name: "aria-hidden element carries no text", html: `<span TID aria-hidden="true">Decor</span>`, hidden: true, check: func(t *testing.T, n *wire.SemanticNode) {
		if n.Text != nil {
			t.Errorf("text %q under aria-hidden", *n.Text)
		}
	}},
	{name: "text under aria-hidden is not text", html: `<div aria-hidden="true"><p TID>Hidden words</p></div>`, absent: true, check: func(t *testing.T, n *wire.SemanticNode) {
		if n.Text != nil {
			t.Errorf("text %q under aria-hidden", *n.Text)
		}
	}},
	{name: "tr row named", html: `<table><tr TID><td>A</td><td>B</td></tr></table>`, role: "row", acc: "A B"},
	{name: "tbody rowgroup", html: `<table><tbody TID><tr><td>A</td></tr></tbody></table>`, role: "rowgroup"},
	{name: "output status", html: `<output TID>Done</output>`, role: "status", acc: "Done"},
	{name: "dialog", html: `<dialog TID open>Hi</dialog>`, role: "dialog"},
	{name: "checkbox", html: `<input TID type=checkbox>`, role: "checkbox", check: func(t *testing.T, n *wire.SemanticNode) {
		if n.States == nil || n.States.Checked == nil || *n.States.Checked {
			t.Errorf("checked should be present and false: %+v", n.States)
		}
	}},
	{name: "radio checked", html: `<input TID type=radio checked>`, role: "radio", check: func(t *testing.T, n *wire.SemanticNode) {
		isState(t, n, "checked", true)
	}},
	{name: "aria-checked mixed is false", html: `<div TID role=checkbox aria-checked="mixed">Tri</div>`, role: "checkbox", acc: "Tri", check: func(t *testing.T, n *wire.SemanticNode) {
		if n.States == nil || n.States.Checked == nil || *n.States.Checked {
			t.Errorf("checked: %+v", n.States)
		}
	}},
	{name: "range slider", html: `<input TID type=range>`, role: "slider"},
	{name: "number spinbutton", html: `<input TID type=number>`, role: "spinbutton"},
	{name: "search searchbox", html: `<input TID type=search>`, role: "searchbox"},
	{name: "date textbox", html: `<input TID type=date>`, role: "textbox"},
	{name: "submit button value", html: `<input TID type=submit value="Go">`, role: "button", acc: "Go"},
	{name: "submit default name", html: `<input TID type=submit>`, role: "button", acc: "Submit"},
	{name: "pressed and expanded", html: `<button TID aria-pressed="true" aria-expanded="false">Tog</button>`, role: "button", acc: "Tog", check: func(t *testing.T, n *wire.SemanticNode) {
		isState(t, n, "pressed", true)
		if n.States.Expanded == nil || *n.States.Expanded {
			t.Errorf("expanded: %+v", n.States)
		}
	}},

	// name sources in order
	{name: "labelledby before aria-label before label", html: `<span id=l1>From LB</span><label for=i1>Lab</label><input id=i1 TID aria-labelledby=l1 aria-label="AL">`, role: "textbox", acc: "From LB"},
	{name: "aria-label before label", html: `<label for=i2>Lab</label><input id=i2 TID aria-label="AL">`, role: "textbox", acc: "AL"},
	{name: "label for", html: `<label for=i3>Email address</label><input id=i3 TID>`, role: "textbox", acc: "Email address"},
	{name: "wrapping label drops aria-hidden marker", html: `<label>Name <span aria-hidden="true">*</span><input TID></label>`, role: "textbox", acc: "Name"},
	{name: "two labelledby references", html: `<span id=p1>First</span><span id=p2>Pic</span><img class=sz TID aria-labelledby="p1 p2">`, role: "image", acc: "First Pic"},
	{name: "hidden labelledby target read whole", html: `<span id=h1 hidden>Secret <b>label</b></span><button TID aria-labelledby=h1>x</button>`, role: "button", acc: "Secret label"},
	{name: "whitespace labelledby names nothing", html: `<span id=w1> </span><button TID aria-labelledby=w1 title="T">x</button>`, role: "button", acc: ""},
	{name: "fieldset legend", html: `<fieldset TID><legend>Options</legend>x</fieldset>`, role: "group", acc: "Options"},
	{name: "figure figcaption", html: `<figure TID><figcaption>Cap</figcaption>x</figure>`, role: "figure", acc: "Cap"},
	{name: "table caption", html: `<table TID><caption>Prices</caption><tr><td>1</td></tr></table>`, role: "table", acc: "Prices"},
	{name: "block children padded", html: `<button TID><div>A</div><div>B</div></button>`, role: "button", acc: "A B"},
	{name: "inline children concatenated", html: `<a TID href="#"><img class=sz alt="Search">Go</a>`, role: "link", acc: "SearchGo"},
	{name: "br padded", html: `<button TID>Line<br>Two</button>`, role: "button", acc: "Line Two"},
	{name: "before content", html: `<a TID class=next href="#">Next</a>`, role: "link", acc: "→ Next"},
	{name: "after content", html: `<a TID class=badge href="#">Inbox</a>`, role: "link", acc: "Inbox3 new"},
	{name: "PUA glyph as space", html: `<button TID>Log<i class=glyph></i>out</button>`, role: "button", acc: "Log out"},
	{name: "glyph link titled", html: `<a TID href="#" title="Settings"><i class=glyph></i></a>`, role: "link", acc: "Settings"},
	{name: "glyph link untitled unnamed", html: `<a TID href="#"><i class=glyph></i></a>`, role: "link", acc: ""},
	{name: "descendant title", html: `<button TID><span title="Child tooltip"></span></button>`, role: "button", acc: "Child tooltip"},
	{name: "control values not embedded", html: `<button TID>Flash <input value="3"> times</button>`, role: "button", acc: "Flash times"},
	{name: "deep descendant name", html: `<a TID href="#"><span><span><b>Deep</b></span></span></a>`, role: "link", acc: "Deep"},
	{name: "title fallback", html: `<div TID title="Tip">x</div>`, acc: "Tip"},
	{name: "placeholder", html: `<input TID placeholder="Email">`, role: "textbox", acc: "Email"},
	{name: "title before placeholder", html: `<input TID title="T" placeholder="P">`, role: "textbox", acc: "T"},
	{name: "aria-placeholder", html: `<div TID role=textbox aria-placeholder="Type here" style="min-height:20px"></div>`, role: "textbox", acc: "Type here"},
	{name: "checkbox never placeholder", html: `<input TID type=checkbox placeholder="P">`, role: "checkbox", acc: ""},
	{name: "editor data-placeholder", html: `<div TID contenteditable="true" style="min-height:20px"><p data-placeholder="Write something"></p></div>`, role: "textbox", acc: "Write something"},

	// states
	{name: "fieldset disabled", html: `<fieldset TID disabled><legend>L</legend></fieldset>`, role: "group", acc: "L", check: func(t *testing.T, n *wire.SemanticNode) {
		isState(t, n, "disabled", true)
	}},
	{name: "disabled via fieldset", html: `<fieldset disabled><legend>L</legend><input TID></fieldset>`, role: "textbox", check: func(t *testing.T, n *wire.SemanticNode) {
		isState(t, n, "disabled", true)
	}},
	{name: "first legend not disabled", html: `<fieldset disabled><legend><input TID></legend></fieldset>`, role: "textbox", check: func(t *testing.T, n *wire.SemanticNode) {
		stateAbsentOrFalse(t, n, "disabled")
	}},
	{name: "aria-disabled ancestor", html: `<div aria-disabled="true"><div><div TID role=button>X</div></div></div>`, role: "button", acc: "X", check: func(t *testing.T, n *wire.SemanticNode) {
		isState(t, n, "disabled", true)
	}},
	{name: "aria-disabled false cuts chain", html: `<div aria-disabled="true"><div aria-disabled="false"><div TID role=button>Y</div></div></div>`, role: "button", acc: "Y", check: func(t *testing.T, n *wire.SemanticNode) {
		stateAbsentOrFalse(t, n, "disabled")
	}},
	{name: "native disabled", html: `<button TID disabled>D</button>`, role: "button", acc: "D", check: func(t *testing.T, n *wire.SemanticNode) {
		isState(t, n, "disabled", true)
	}},

	// hidden rules
	{name: "display none pruned", html: `<div style="display:none"><button TID>Gone</button></div>`, absent: true},
	{name: "visibility hidden pruned", html: `<div style="visibility:hidden"><button TID>Gone</button></div>`, absent: true},
	{name: "aria-hidden pruned", html: `<div aria-hidden="true"><button TID>Gone</button></div>`, absent: true},
	{name: "zero-size box not listed", html: `<div TID style="width:0;height:0;overflow:hidden">x</div>`, absent: true},
	{name: "fixed child of zero-size wrapper", html: `<div style="height:0;overflow:visible"><button TID style="position:fixed;right:0;bottom:0">Fixed</button></div>`, role: "button", acc: "Fixed"},
	{name: "display contents walked through", html: `<div style="display:contents"><button TID>In contents</button></div>`, role: "button", acc: "In contents"},
	{name: "display contents with content listed", html: `<div TID role=group aria-label="G" style="display:contents"><span>x</span></div>`, role: "group", acc: "G"},
	{name: "display contents empty hidden", html: `<div TID role=group aria-label="G" style="display:contents"></div>`, absent: true},
	{name: "closed details content hidden", html: `<details><summary>Sum</summary><div><button TID>Inside</button></div></details>`, absent: true},
	{name: "a hidden element is listed, marked hidden (its subtree is not walked)", html: `<button TID hidden>Gone</button>`, role: "button", acc: "Gone", hidden: true, check: func(t *testing.T, n *wire.SemanticNode) {
		if n.Rect != nil {
			t.Errorf("a hidden node has a rect: %+v", *n.Rect)
		}
	}},
	{name: "closed details summary kept", html: `<details><summary TID>Sum</summary><p>x</p></details>`, acc: "", check: func(t *testing.T, n *wire.SemanticNode) {
		if str(n.Text) != "Sum" {
			t.Errorf("text %q", str(n.Text))
		}
	}},
	{name: "open details content", html: `<details open><summary>S</summary><button TID>Inside</button></details>`, role: "button", acc: "Inside"},
	{name: "empty painted box", html: `<div TID style="width:20px;height:20px;background:#c00"></div>`, role: "box"},

	// value, editable, secure
	{name: "textbox value", html: `<input TID value="hello">`, role: "textbox", check: func(t *testing.T, n *wire.SemanticNode) {
		if str(n.Value) != "hello" {
			t.Errorf("value %q", str(n.Value))
		}
	}},
	{name: "contenteditable host", html: `<div TID contenteditable="true"><p>Hello <b>world</b></p></div>`, role: "textbox", check: func(t *testing.T, n *wire.SemanticNode) {
		if str(n.Value) != "Hello world" || len(n.Children) != 0 {
			t.Errorf("value %q children %d", str(n.Value), len(n.Children))
		}
	}},
	{name: "secure field", html: `<label for=pw>Password</label><input id=pw TID type="PassWord" value="hunter2" autocomplete="current-password">`, role: "textbox", acc: "Password", check: func(t *testing.T, n *wire.SemanticNode) {
		isState(t, n, "secure", true)
		if n.Value != nil || n.Text != nil || n.Selection != nil || n.InputPurpose != "password" {
			t.Errorf("secure leaked: %+v", n)
		}
		if _, ok := n.Attributes["value"]; ok {
			t.Errorf("value attribute kept")
		}
	}},
	{name: "username purpose", html: `<input TID autocomplete="section-a username">`, role: "textbox", check: func(t *testing.T, n *wire.SemanticNode) {
		if n.InputPurpose != "username" {
			t.Errorf("inputPurpose %q", n.InputPurpose)
		}
	}},
	{name: "iframe boundary", html: `<iframe TID title="Embedded" srcdoc="<p>in frame</p>"></iframe>`, role: "iframe", acc: "Embedded"},
}

func tid(i int) string { return fmt.Sprintf("c%d", i) }

func TestRoleNameTable(t *testing.T) {
	if len(roleNameCases) < 40 {
		t.Fatalf("only %d rows", len(roleNameCases))
	}
	var b strings.Builder
	for i, c := range roleNameCases {
		fmt.Fprintf(&b, "<div>%s</div>\n", strings.ReplaceAll(c.html, "TID", `data-testid="`+tid(i)+`"`))
	}
	tb := newTab(t, true)
	tb.openHTML("<!doctype html><html><head><meta charset=utf-8><title>Table</title>" + tableCSS + "</head><body>" + b.String() + "</body></html>")
	for _, mode := range []string{ModeTree, ModeFull} {
		res := tb.read(ReadArgs{Mode: mode, Budget: 20000})
		for i, c := range roleNameCases {
			t.Run(mode+"/"+c.name, func(t *testing.T) {
				n := byTestID(&res.Root, tid(i))
				if mode == ModeFull {
					// Full mode lists hidden elements too, marked hidden.
					if n == nil {
						t.Fatalf("missing in full mode")
					}
					if c.absent {
						isState(t, n, "hidden", true)
						if c.check != nil {
							c.check(t, n)
						}
						return
					}
				} else {
					if c.absent {
						if n != nil {
							t.Fatalf("listed: %+v", n)
						}
						return
					}
					if n == nil {
						t.Fatalf("missing")
					}
				}
				if c.hidden {
					isState(t, n, "hidden", true)
				} else {
					stateAbsentOrFalse(t, n, "hidden")
				}
				if got := str(n.Role); (c.role == "" && n.Role != nil) || (c.role != "" && got != c.role) {
					t.Errorf("role = %s, want %q", got, c.role)
				}
				if got := str(n.Name); (c.acc == "" && n.Name != nil) || (c.acc != "" && got != c.acc) {
					t.Errorf("name = %q, want %q", got, c.acc)
				}
				if n.Ref.Revision != "" || !strings.HasPrefix(n.Ref.ID, "n") {
					t.Errorf("ref %+v", n.Ref)
				}
				if c.check != nil {
					c.check(t, n)
				}
			})
		}
	}
}

func TestSelectOptions(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<select data-testid="s">`)
	for i := range 70 {
		sel := ""
		if i == 2 {
			sel = " selected"
		}
		fmt.Fprintf(&b, `<option value="v%d"%s>Option %d</option>`, i, sel, i)
	}
	b.WriteString(`</select>`)
	tb := newTab(t, true)
	tb.openHTML(page_("Sel", b.String()))
	// An <option> carries no value in either mode (decision 8): only its
	// select is a displayValue candidate.
	full := tb.read(ReadArgs{Mode: ModeFull, Budget: 3000})
	for _, o := range byTestID(&full.Root, "s").Children {
		if o.Value != nil {
			t.Errorf("full read: option %s carries value %q", str(o.Name), *o.Value)
		}
	}
	res := tb.read(ReadArgs{Mode: ModeTree, Budget: 3000, NextID: full.NextID})
	s := byTestID(&res.Root, "s")
	if s == nil {
		t.Fatal("no select")
	}
	if str(s.Value) != "v2" {
		t.Errorf("select value %q", str(s.Value))
	}
	if len(s.Children) != 60 {
		t.Fatalf("options listed: %d, want 60", len(s.Children))
	}
	for i, o := range s.Children {
		if str(o.Role) != "option" || str(o.Name) != fmt.Sprintf("Option %d", i) || o.Value != nil {
			t.Errorf("option %d: role %s name %s value %v", i, str(o.Role), str(o.Name), o.Value)
		}
		if o.States == nil || o.States.Hidden == nil || *o.States.Hidden {
			t.Errorf("option %d: hidden should be false: %+v", i, o.States)
		}
		if o.State("selected") != (i == 2) {
			t.Errorf("option %d selected %v", i, o.State("selected"))
		}
	}
}

func TestSecureNeverLeaks(t *testing.T) {
	tb := newTab(t, true)
	tb.openHTML(page_("Secret", `<form><label>Pass <input id=p type=password value="hunter2"></label>
<button aria-labelledby="p">Go</button><div style="display:none"><input type=password value="hunter2"></div></form>`))
	tb.js(nil, `(()=>{const p=document.getElementById('p'); p.focus(); p.select(); return 1})()`)
	for _, mode := range []string{ModeTree, ModeFull} {
		data, err := tb.raw(MethodRead, ReadArgs{Mode: mode, Budget: 3000, NextID: 1})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), "hunter2") {
			t.Errorf("%s read leaks the password: %s", mode, data)
		}
		var r ReadResult
		if err := json.Unmarshal(data, &r); err != nil {
			t.Fatal(err)
		}
		n := find(&r.Root, func(n *wire.SemanticNode) bool { return n.State("secure") && n.State("focused") })
		if n == nil {
			t.Errorf("%s: focused secure field missing", mode)
		}
	}
}
