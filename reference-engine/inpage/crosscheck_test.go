package inpage

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/chromedp"

	"github.com/e2e-conform/toolkit/protocol/wire"
)

// axDifferences are the documented differences between the reader and
// Chromium's accessibility tree (web-engine spec §4): test id → what Chrome
// reports instead ("role|name"). Every other row must agree.
var axDifferences = map[string]string{
	"x-img":      "image|Logo",         // agrees; listed to pin Chrome's spelling
	"x-iframe":   "Iframe|Embedded",    // engine-only role iframe
	"x-date":     "Date|",              // date/time/color inputs: Chrome has its own roles (reader: textbox)
	"x-ce":       "generic|",           // contenteditable host: reader textbox
	"x-li":       "listitem|",          // listitem named from content by the reader only
	"x-status":   "status|",            // status named from content by the reader only
	"x-ws":       "button|x",           // whitespace-only labelledby: Chrome falls back to content; the reader names nothing
	"x-row":      "LayoutTableRow|",    // layout table: Chrome drops row semantics; the reader names rows from content
	"x-fieldset": "group|Opts",         // agrees
	"x-flash":    "button|Flash times", // Chrome embeds nothing for a non-labelled input inside a button
}

const crossHTML = `<!doctype html><html><head><meta charset=utf-8><title>Cross</title>
<style>.next::before{content:"→ "}</style></head><body>
<a data-testid="x-link" href="/a">Home page</a>
<button data-testid="x-btn">Save changes</button>
<a data-testid="x-next" class=next href="/n">Next</a>
<img data-testid="x-img" alt="Logo" style="width:20px;height:20px;display:inline-block">
<nav data-testid="x-nav">n</nav>
<main data-testid="x-main"><h2 data-testid="x-h2">Section title</h2>
<label for=e>Email</label><input id=e data-testid="x-email">
<input data-testid="x-ph" placeholder="Search here">
<input data-testid="x-cb" type=checkbox aria-label="Accept">
<select data-testid="x-sel" aria-label="Fruit"><option>Apple</option></select>
<textarea data-testid="x-ta" aria-label="Notes"></textarea>
<input data-testid="x-range" type=range aria-label="Volume">
<input data-testid="x-num" type=number aria-label="Qty">
<input data-testid="x-search" type=search aria-label="Find">
<input data-testid="x-submit" type=submit value="Send">
<input data-testid="x-date" type=date>
<div data-testid="x-ce" contenteditable style="min-height:20px">text</div>
<ul><li data-testid="x-li">Item</li></ul>
<output data-testid="x-status">Done</output>
<span id=ws> </span><button data-testid="x-ws" aria-labelledby="ws" title="T">x</button>
<table><tr data-testid="x-row"><td>A</td><td>B</td></tr></table>
<fieldset data-testid="x-fieldset"><legend>Opts</legend></fieldset>
<button data-testid="x-flash">Flash <input aria-hidden=true style="display:none"> times</button>
<iframe data-testid="x-iframe" title="Embedded" srcdoc="<p>x</p>"></iframe>
<span id=l1>First</span><span id=l2>Last</span><button data-testid="x-lb" aria-labelledby="l1 l2">x</button>
</main></body></html>`

func axString(v *accessibility.Value) string {
	if v == nil || len(v.Value) == 0 {
		return ""
	}
	var s string
	if err := json.Unmarshal(v.Value, &s); err != nil {
		return strings.Trim(string(v.Value), `"`)
	}
	return s
}

// TestCrosscheckAXTree compares the reader's role and name with Chromium's
// accessibility tree (the oracle) on a set of nodes.
func TestCrosscheckAXTree(t *testing.T) {
	tb := newTab(t, true)
	tb.openHTML(crossHTML)
	res := tb.read(ReadArgs{Mode: ModeTree, Budget: 3000})
	if _, err := chromedp.Call(tb.ctx, accessibility.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	doc, err := chromedp.Call(tb.ctx, dom.GetDocument, dom.GetDocumentParams{Depth: new(int64(-1)), Pierce: new(true)})
	if err != nil {
		t.Fatal(err)
	}
	byBackend := map[cdp.BackendNodeID]string{}
	var walk func(n *cdp.Node)
	walk = func(n *cdp.Node) {
		for i := 0; i+1 < len(n.Attributes); i += 2 {
			if n.Attributes[i] == "data-testid" {
				byBackend[n.BackendNodeID] = n.Attributes[i+1]
			}
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(doc.Root)
	ax, err := chromedp.Call(tb.ctx, accessibility.GetFullAXTree, accessibility.GetFullAXTreeParams{})
	if err != nil {
		t.Fatal(err)
	}
	chrome := map[string]string{}
	for _, n := range ax.Nodes {
		if id, ok := byBackend[n.BackendDOMNodeID]; ok && !n.Ignored {
			chrome[id] = axString(n.Role) + "|" + axString(n.Name)
		}
	}
	compared := 0
	for _, id := range byBackend {
		if !strings.HasPrefix(id, "x-") {
			continue
		}
		n := byTestID(&res.Root, id)
		if n == nil {
			t.Errorf("%s: not in the reader's tree", id)
			continue
		}
		ours := readerRoleName(n)
		theirs, ok := chrome[id]
		if !ok {
			t.Errorf("%s: not in Chromium's AX tree", id)
			continue
		}
		compared++
		if want, documented := axDifferences[id]; documented {
			if theirs != want {
				t.Errorf("%s: Chromium now says %q, expectation file says %q (ours %q)", id, theirs, want, ours)
			}
			continue
		}
		if ours != theirs {
			t.Errorf("%s: reader %q, Chromium %q", id, ours, theirs)
		}
	}
	if compared < 20 {
		t.Errorf("only %d nodes compared", compared)
	}
	t.Logf("compared %d nodes", compared)
}

func readerRoleName(n *wire.SemanticNode) string {
	role := ""
	if n.Role != nil {
		role = *n.Role
	}
	name := ""
	if n.Name != nil {
		name = *n.Name
	}
	return fmt.Sprintf("%s|%s", role, name)
}
