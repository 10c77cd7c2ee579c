package webengine

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/e2e-conform/toolkit/protocol/wire"
)

// fullReadPage is a page whose nodes carry more than an observation
// shows: many attributes (id, class, data-*, style, boolean ones, a long
// one), a 2,000-character text, a 300-character name, a 600-character
// value, an href with a query and fragment, a secure field with a value
// attribute.
func fullReadPage() (page, longText, longName, longValue string) {
	var b strings.Builder
	for i := 0; b.Len() < 2000; i++ {
		fmt.Fprintf(&b, "word%d ", i)
	}
	longText = strings.TrimSpace(b.String())[:2000]
	longText = strings.TrimSpace(longText)
	longName = strings.Repeat("Name ", 60)[:299] + "N"
	longValue = strings.Repeat("v", 600)
	page = `<!doctype html><html><head><title>full read</title></head><body>
<form>
<label for="email">Email</label>
<input id="email" name="email" type="email" class="field wide" data-x="1" data-long="` + strings.Repeat("L", 700) + `"
  autocomplete="username" placeholder="you@example.com" aria-describedby="hint" required readonly
  data-testid="email-field" style="color: red" title="Your email" value="` + longValue + `">
<p id="hint">We never share it.</p>
<input type="password" value="hunter2-secret" data-testid="pw" class="secret" id="pw">
</form>
<article data-testid="long" class="story" lang="en">` + longText + `</article>
<button data-testid="named" aria-label="` + longName + `" class="icon">x</button>
<a href="/path/to?q=secret#frag" data-testid="link" rel="next">Link</a>
</body></html>`
	return page, longText, longName, longValue
}

// TestLocatedNodesAreFullyRead: a located node carries every attribute of
// its element exactly as getAttribute reads it (the test-id attribute is
// testId; a secure field's value is never shown), its whole text (2,000
// characters, where an observation cuts at 512), its whole name (300
// characters, cut at 256 in an observation) and its whole value (600
// characters), web-engine §2.5 and acceptance item 13; the node is the
// observation's (same id, role, states).
func TestLocatedNodesAreFullyRead(t *testing.T) {
	page, longText, longName, longValue := fullReadPage()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, page)
	}))
	t.Cleanup(srv.Close)
	e := newTestEngine(t)
	ctx := context.Background()
	if err := e.Open(ctx, testOp, srv.URL+"/"); err != nil {
		t.Fatal(err)
	}
	snap, err := e.Observe(ctx, testOp, wire.EngineObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	observed := map[string]*wire.SemanticNode{}
	snap.Root.Walk(func(n *wire.SemanticNode) bool {
		if n.TestID != nil {
			observed[*n.TestID] = n
		}
		return true
	})
	t0, err := e.page(ctx, testOp)
	if err != nil {
		t.Fatal(err)
	}
	// attrs is what getAttribute reads on the element of test id tid.
	attrs := func(tid string) map[string]string {
		var m map[string]string
		js := `Object.fromEntries([...document.querySelector('[data-testid="` + tid + `"]').attributes].map(a => [a.name, a.value]))`
		if err := t0.eval(t0.ctx, js, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	locate := func(tid string) wire.SemanticNode {
		t.Helper()
		got, err := e.Locate(ctx, testOp, q(wire.QueryTestID, wire.StringPattern(tid, true)))
		if err != nil || len(got) != 1 {
			t.Fatalf("locate %s: %v (%d nodes)", tid, err, len(got))
		}
		o := observed[tid]
		if o == nil || got[0].Ref.ID != o.Ref.ID || !reflect.DeepEqual(got[0].Role, o.Role) || !reflect.DeepEqual(got[0].States, o.States) {
			t.Fatalf("located %s is not the observed node: %+v against %+v", tid, got[0], o)
		}
		return got[0]
	}

	email := locate("email-field")
	want := attrs("email-field")
	delete(want, "data-testid")
	if len(want) < 12 || !reflect.DeepEqual(email.Attributes, want) {
		t.Errorf("located input's attributes:\n got %v\nwant %v", email.Attributes, want)
	}
	if email.Value == nil || *email.Value != longValue {
		t.Errorf("located input's value: %d units, want the whole %d", len(derefStr(email.Value)), len(longValue))
	}
	if o := observed["email-field"]; o.Value == nil || len(*o.Value) != 512 {
		t.Errorf("the observation's value is not cut at 512: the page does not test the cut")
	}

	long := locate("long")
	if long.Text == nil || *long.Text != longText || len(utf16.Encode([]rune(longText))) != 2000 {
		t.Errorf("located text: %d units, want the whole 2,000", len(derefStr(long.Text)))
	}
	if a := long.Attributes; a["class"] != "story" || a["lang"] != "en" {
		t.Errorf("located article's attributes: %v", a)
	}

	named := locate("named")
	if named.Name == nil || *named.Name != longName {
		t.Errorf("located name: %d units, want the whole %d", len(derefStr(named.Name)), len(longName))
	}

	link := locate("link")
	if link.Attributes["href"] != "/path/to?q=secret#frag" || link.Attributes["rel"] != "next" {
		t.Errorf("located link's attributes %v: want href as getAttribute reads it", link.Attributes)
	}

	pw := locate("pw")
	if _, ok := pw.Attributes["value"]; ok || pw.Value != nil || pw.Attributes["class"] != "secret" || pw.Attributes["id"] != "pw" {
		t.Errorf("located secure field: value %v, attributes %v: want every attribute but value, and no value", pw.Value, pw.Attributes)
	}
}

func derefStr(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
