package webengine

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/e2e-conform/toolkit/protocol/server"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// generatedPage is a page of about n elements: headings, paragraphs, links,
// buttons, inputs and list items in sections, the mix of a typical app.
func generatedPage(n int) string {
	var b strings.Builder
	b.WriteString("<!doctype html><html><head><title>generated</title></head><body><main>")
	for i := 0; i < n; {
		fmt.Fprintf(&b, "<section aria-label=\"Section %d\"><h2>Heading %d</h2>", i, i)
		fmt.Fprintf(&b, "<p>Paragraph %d with <a href=\"/item/%d?q=1\">a link %d</a>.</p>", i, i, i)
		fmt.Fprintf(&b, "<label>Field %d <input name=\"f%d\" value=\"v%d\"></label>", i, i, i)
		fmt.Fprintf(&b, "<button data-testid=\"b%d\">Button %d</button>", i, i)
		fmt.Fprintf(&b, "<ul><li>One %d</li><li>Two %d</li></ul></section>", i, i)
		i += 11
	}
	b.WriteString(`</main><output data-testid="count">taps: 0</output><script>
let taps = 0;
document.addEventListener("click", e => { if (e.target.localName === "button") document.querySelector("[data-testid=count]").textContent = "taps: " + (++taps); });
</script></body></html>`)
	return b.String()
}

// pageServer serves generated pages at /gen/<n> and a small form at /.
func pageServer(t testing.TB) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/gen/{n}", func(w http.ResponseWriter, r *http.Request) {
		var n int
		fmt.Sscan(r.PathValue("n"), &n)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, generatedPage(n))
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><title>form</title><label>Name <input data-testid="name"></label>
<label>Password <input type="password" data-testid="pw" value="hunter2-secret"></label>
<button data-testid="go" onclick="this.textContent='Went'">Go</button>`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// newTestEngine starts an engine (and Chromium) closed at the end of t.
func newTestEngine(t testing.TB) *Engine {
	t.Helper()
	e := newEngine(Options{NoVideo: true}.withDefaults())
	if err := e.Init(context.Background(), server.InitInfo{Log: func(string) {}}); err != nil {
		t.Fatalf("init: %v", err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

var testOp = server.Operation{TimeoutMs: 15000}

func TestObserveLocateTapOnAPage(t *testing.T) {
	srv := pageServer(t)
	e := newTestEngine(t)
	ctx := context.Background()
	if err := e.Open(ctx, testOp, srv.URL+"/"); err != nil {
		t.Fatal(err)
	}
	snap, err := e.Observe(ctx, testOp, wire.EngineObserveOptions{Pixels: true})
	if err != nil {
		t.Fatal(err)
	}
	if snap.Root.Ref.ID != "root" {
		t.Errorf("root id %q, want root", snap.Root.Ref.ID)
	}
	if snap.MaskedRegionCount == nil || *snap.MaskedRegionCount != 1 {
		t.Errorf("maskedRegionCount %v, want 1", snap.MaskedRegionCount)
	}
	var pw *wire.SemanticNode
	snap.Root.Walk(func(n *wire.SemanticNode) bool {
		if n.TestID != nil && *n.TestID == "pw" {
			pw = n
		}
		return true
	})
	if pw == nil {
		t.Fatal("the password field is not in the observation")
	}
	if pw.Value != nil && *pw.Value != "" {
		t.Errorf("the password field carries a value")
	}
	found, err := e.Locate(ctx, testOp, &wire.LocatorExpression{Kind: wire.ExprQuery, Query: &wire.SemanticQuery{Kind: wire.QueryRole, Value: wire.StringPattern("button", false), Name: ptr(wire.StringPattern("Go", true))}})
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 1 {
		t.Fatalf("locate found %d buttons named Go, want 1", len(found))
	}
	if err := e.Perform(ctx, testOp, found[0].Ref, wire.LocatorAction{Kind: wire.ActionTap}); err != nil {
		t.Fatal(err)
	}
	after, err := e.Locate(ctx, testOp, &wire.LocatorExpression{Kind: wire.ExprQuery, Query: &wire.SemanticQuery{Kind: wire.QueryText, Value: wire.StringPattern("Went", true)}})
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != 1 || after[0].Ref.ID != found[0].Ref.ID {
		t.Fatalf("after the tap, text Went is on %v, want the tapped button %s", after, found[0].Ref.ID)
	}
}

// TestReaderInstallsLate: a document loaded without the init script (a tab
// the engine did not prepare) still answers reads: the first call installs
// the reader from its source.
func TestReaderInstallsLate(t *testing.T) {
	srv := pageServer(t)
	e := newTestEngine(t)
	br, err := e.browser(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	tctx, cancel := chromedp.NewContext(br.bctx)
	defer cancel()
	if err := chromedp.Do(tctx, chromedp.Navigate(srv.URL+"/")); err != nil {
		t.Fatal(err)
	}
	bare := &tab{ctx: tctx}
	var installed bool
	if err := bare.eval(tctx, "Object.getOwnPropertyDescriptor(globalThis, '__e2eConform') !== undefined", &installed); err != nil || installed {
		t.Fatalf("the bare tab already has the reader (%v)", err)
	}
	pr, err := e.read(tctx, bare, "tree", nil)
	if err != nil {
		t.Fatal(err)
	}
	if pr.R.Root.Ref.ID != "root" || pr.R.Count < 4 {
		t.Fatalf("late read: root %q, %d nodes", pr.R.Root.Ref.ID, pr.R.Count)
	}
	var rects secureRects
	if err := bare.call(tctx, &rects, "secureRects"); err != nil || rects.Count != 1 {
		t.Fatalf("secureRects after the late install: %+v %v", rects, err)
	}
}
