package storage

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/e2e-conform/toolkit/internal/chromium"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"go.uber.org/goleak"
)

// browserCtx is the one browser of this test binary, set by TestMain.
var browserCtx context.Context

func TestMain(m *testing.M) {
	bctx, stop, err := chromium.Start(chromium.DefaultPath)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	browserCtx = bctx
	code := m.Run()
	stop()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// app is a test server that records the Cookie header of each request.
type app struct {
	*httptest.Server
	mu      sync.Mutex
	cookies []string // Cookie headers of /echo requests
	hits    int      // requests of any path
	paths   []string
}

func newApp(t *testing.T) *app {
	a := &app{}
	a.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		a.hits++
		a.paths = append(a.paths, r.URL.Path)
		if r.URL.Path == "/echo" {
			a.cookies = append(a.cookies, r.Header.Get("Cookie"))
		}
		a.mu.Unlock()
		if r.URL.Path == "/login" {
			http.SetCookie(w, &http.Cookie{Name: "session", Value: "s3cret", Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode, Expires: time.Now().Add(time.Hour)})
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<!doctype html><title>app</title><p>app</p>")
	}))
	t.Cleanup(a.Close)
	return a
}

func (a *app) lastCookie() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.cookies) == 0 {
		return ""
	}
	return a.cookies[len(a.cookies)-1]
}

func (a *app) hitCount() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.hits
}

// newBrowserContext creates a browser context and a page in it; cleanup
// disposes both.
func newBrowserContext(t *testing.T) (context.Context, cdp.BrowserContextID, func()) {
	t.Helper()
	res, err := chromedp.CallBrowser(browserCtx, target.CreateBrowserContext, target.CreateBrowserContextParams{})
	if err != nil {
		t.Fatal(err)
	}
	pctx, pcancel := chromedp.NewContext(browserCtx, chromedp.WithExistingBrowserContext(res.BrowserContextID))
	if err := chromedp.Do(pctx); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	dispose := func() {
		once.Do(func() {
			pcancel()
			if _, err := chromedp.CallBrowser(browserCtx, target.DisposeBrowserContext, target.DisposeBrowserContextParams{BrowserContextID: res.BrowserContextID}); err != nil {
				t.Errorf("dispose: %v", err)
			}
		})
	}
	t.Cleanup(dispose)
	return pctx, res.BrowserContextID, dispose
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func readLocalStorage(t *testing.T, pctx context.Context) map[string]string {
	t.Helper()
	m, err := chromedp.Run(pctx, chromedp.Evaluate[map[string]string](`Object.fromEntries(Object.keys(localStorage).map(k => [k, localStorage.getItem(k)]))`))
	must(t, err)
	return m
}

func TestCaptureRestore(t *testing.T) {
	a, b := newApp(t), newApp(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	p1, bc1, dispose1 := newBrowserContext(t)
	must(t, chromedp.Do(p1,
		chromedp.Navigate(a.URL+"/login"),
		chromedp.Evaluate[chromedp.Void](`document.cookie = "pref=dark; path=/"; localStorage.setItem("tokenA", "va"); localStorage.setItem("quote\"key", "line1\nline2 \u2028 é 😀"); localStorage.setItem("empty", "")`),
		chromedp.Navigate(b.URL+"/"),
		chromedp.Evaluate[chromedp.Void](`localStorage.setItem("tokenB", "vb")`),
	))

	start := time.Now()
	s, err := Capture(ctx, p1, bc1, []string{a.URL, b.URL + "/", "about:blank", a.URL})
	must(t, err)
	t.Logf("capture of 2 origins: %v", time.Since(start))
	loc, err := chromedp.Run(p1, chromedp.Location())
	must(t, err)
	if loc != b.URL+"/" {
		t.Fatalf("the page moved to %s during Capture", loc)
	}

	// Cookies: both, with their attributes.
	byName := map[string]Cookie{}
	for _, c := range s.Cookies {
		byName[c.Name] = c
	}
	if c := byName["session"]; c.Value != "s3cret" || !c.HTTPOnly || c.SameSite != "Strict" || c.Expires <= float64(time.Now().Unix()) || c.Domain != "127.0.0.1" || c.Path != "/" {
		t.Fatalf("session cookie = %+v", c)
	}
	if c := byName["pref"]; c.Value != "dark" || c.HTTPOnly || c.Expires != -1 || c.SameSite != "Lax" {
		t.Fatalf("pref cookie = %+v", c)
	}
	if len(s.Cookies) != 2 {
		t.Fatalf("%d cookies, want 2", len(s.Cookies))
	}
	// Origins: both, normalized, with their items.
	if len(s.Origins) != 2 || s.Origins[0].Origin != a.URL || s.Origins[1].Origin != b.URL {
		t.Fatalf("origins = %+v", s.Origins)
	}
	gotA := map[string]string{}
	for _, it := range s.Origins[0].LocalStorage {
		gotA[it.Name] = it.Value
	}
	wantA := map[string]string{"tokenA": "va", "quote\"key": "line1\nline2 \u2028 é 😀", "empty": ""}
	if !reflect.DeepEqual(gotA, wantA) {
		t.Fatalf("localStorage of A = %q, want %q", gotA, wantA)
	}

	// The JSON shape is Playwright's, and it decodes back.
	data, err := json.Marshal(s)
	must(t, err)
	for _, key := range []string{`"cookies":[`, `"origins":[`, `"httpOnly":true`, `"sameSite":"Strict"`, `"localStorage":[`, `"expires":-1`} {
		if !strings.Contains(string(data), key) {
			t.Fatalf("JSON lacks %s: %s", key, data)
		}
	}
	decoded, err := Decode(data)
	must(t, err)
	if !reflect.DeepEqual(decoded, s) {
		t.Fatalf("decoded %+v, want %+v", decoded, s)
	}

	// A key written after the capture must not come back.
	must(t, chromedp.Do(p1, chromedp.Navigate(a.URL+"/"), chromedp.Evaluate[chromedp.Void](`localStorage.setItem("late", "1"); document.cookie = "late=1; path=/"`)))
	dispose1()

	p2, bc2, _ := newBrowserContext(t)
	hits := a.hitCount() + b.hitCount()
	start = time.Now()
	must(t, Restore(ctx, p2, bc2, decoded))
	t.Logf("restore of 2 cookies, 2 origins: %v", time.Since(start))
	if n := a.hitCount() + b.hitCount(); n != hits {
		t.Fatalf("Restore sent %d requests to the apps", n-hits)
	}
	loc, err = chromedp.Run(p2, chromedp.Location())
	must(t, err)
	if loc != "about:blank" {
		t.Fatalf("Restore navigated the page to %s", loc)
	}

	must(t, chromedp.Do(p2, chromedp.Navigate(a.URL+"/echo")))
	if got := readLocalStorage(t, p2); !reflect.DeepEqual(got, wantA) {
		t.Fatalf("restored localStorage of A = %q, want %q", got, wantA)
	}
	sent := strings.Split(a.lastCookie(), "; ")
	slices.Sort(sent)
	if want := []string{"pref=dark", "session=s3cret"}; !slices.Equal(sent, want) {
		t.Fatalf("restored cookies sent to A = %q, want %q", sent, want)
	}
	must(t, chromedp.Do(p2, chromedp.Navigate(b.URL+"/echo")))
	if got := readLocalStorage(t, p2); !reflect.DeepEqual(got, map[string]string{"tokenB": "vb"}) {
		t.Fatalf("restored localStorage of B = %q", got)
	}
	if c := b.lastCookie(); !strings.Contains(c, "session=s3cret") {
		t.Fatalf("cookies sent to B (same host, other port) = %q", c)
	}

	// Capture of the restored context gives the same state.
	again, err := Capture(ctx, p2, bc2, []string{a.URL, b.URL})
	must(t, err)
	if !reflect.DeepEqual(sortedState(again), sortedState(s)) {
		t.Fatalf("capture after restore = %+v, want %+v", again, s)
	}
}

// sortedState orders cookies and items for comparison.
func sortedState(s State) State {
	slices.SortFunc(s.Cookies, func(x, y Cookie) int { return strings.Compare(x.Name, y.Name) })
	for _, o := range s.Origins {
		slices.SortFunc(o.LocalStorage, func(x, y NameValue) int { return strings.Compare(x.Name, y.Name) })
	}
	return s
}

func TestCaptureEmpty(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p, bc, _ := newBrowserContext(t)
	a := newApp(t)
	s, err := Capture(ctx, p, bc, []string{a.URL, "about:blank", "data:text/html,x"})
	must(t, err)
	data, _ := json.Marshal(s)
	if string(data) != `{"cookies":[],"origins":[]}` {
		t.Fatalf("empty state = %s", data)
	}
	if a.hitCount() != 0 {
		t.Fatalf("Capture sent %d requests to the app: %v", a.hitCount(), a.paths)
	}
	must(t, Restore(ctx, p, bc, s))
}

func TestRestoreIntoFreshContextReplaces(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	a := newApp(t)
	// The old context has a key the state does not have.
	old, _, disposeOld := newBrowserContext(t)
	must(t, chromedp.Do(old, chromedp.Navigate(a.URL+"/"), chromedp.Evaluate[chromedp.Void](`localStorage.setItem("before", "1")`)))
	disposeOld()
	p, bc, _ := newBrowserContext(t)
	s := State{Origins: []Origin{{Origin: a.URL, LocalStorage: []NameValue{{"k", "v"}}}}}
	must(t, Restore(ctx, p, bc, s))
	must(t, chromedp.Do(p, chromedp.Navigate(a.URL+"/")))
	if got := readLocalStorage(t, p); !reflect.DeepEqual(got, map[string]string{"k": "v"}) {
		t.Fatalf("localStorage = %q, want only k", got)
	}
}

func TestDecode(t *testing.T) {
	good := `{"cookies":[{"name":"n","value":"SECRETVALUE","domain":"example.com","path":"/","expires":-1,"httpOnly":false,"secure":true,"sameSite":"None"}],"origins":[{"origin":"https://example.com","localStorage":[{"name":"k","value":"SECRETVALUE"}]}]}`
	s, err := Decode([]byte(good))
	must(t, err)
	if len(s.Cookies) != 1 || s.Cookies[0].Value != "SECRETVALUE" || !s.Cookies[0].Secure || s.Origins[0].LocalStorage[0].Value != "SECRETVALUE" {
		t.Fatalf("decoded %+v", s)
	}
	if s, err := Decode([]byte(`{}`)); err != nil || len(s.Cookies) != 0 {
		t.Fatalf("Decode({}) = %+v, %v", s, err)
	}
	if _, err := Decode([]byte(`{"cookies":[],"origins":[],"extra":1}`)); err != nil {
		t.Fatalf("unknown field: %v", err)
	}
	tests := []struct {
		name, in, want string
	}{
		{"empty", ``, "empty input"},
		{"string", `"/etc/passwd"`, "want a JSON object, got a string"},
		{"array", `[]`, "got an array"},
		{"null", `null`, "got null"},
		{"number", `42`, "got a number"},
		{"syntax", `{"cookies": [SECRETVALUE]}`, "not valid JSON"},
		{"truncated", `{"cookies": [`, "not valid JSON"},
		{"cookies not array", `{"cookies": {"name":"x"}}`, "cookies: want an array, got a JSON object"},
		{"expires string", `{"cookies": [{"name":"n","value":"SECRETVALUE","domain":"d","path":"/","expires":"SECRETVALUE"}]}`, "cookies[0].expires: want a number, got a JSON string"},
		{"value number", `{"cookies": [{"name":"n","value":12345678,"domain":"d","path":"/"}]}`, "cookies[0].value: want a string, got a JSON number"},
		{"httpOnly string", `{"cookies": [{"name":"n","value":"v","domain":"d","path":"/","httpOnly":"yes"}]}`, "cookies[0].httpOnly: want a boolean"},
		{"no name", `{"cookies": [{"value":"SECRETVALUE","domain":"d","path":"/"}]}`, "cookies[0].name is empty"},
		{"no domain", `{"cookies": [{"name":"n","value":"SECRETVALUE","path":"/"}]}`, "cookies[0].domain is empty"},
		{"bad path", `{"cookies": [{"name":"n","value":"SECRETVALUE","domain":"d","path":"x"}]}`, "cookies[0].path must start with /"},
		{"bad sameSite", `{"cookies": [{"name":"n","value":"SECRETVALUE","domain":"d","path":"/","sameSite":"SECRETVALUE"}]}`, "cookies[0].sameSite must be"},
		{"origins not array", `{"origins": "x"}`, "origins: want an array, got a JSON string"},
		{"origin scheme", `{"origins": [{"origin":"file:///etc/passwd","localStorage":[]}]}`, "origins[0].origin: want an http or https origin"},
		{"origin path", `{"origins": [{"origin":"https://a.example/SECRETVALUE","localStorage":[]}]}`, "origins[0].origin: want scheme://host[:port] with no path"},
		{"localStorage value", `{"origins": [{"origin":"https://a.example","localStorage":[{"name":"k","value":{"x":"SECRETVALUE"}}]}]}`, "origins[0].localStorage[0].value: want a string, got a JSON object"},
		{"localStorage object", `{"origins": [{"origin":"https://a.example","localStorage":{"k":"SECRETVALUE"}}]}`, "origins[0].localStorage: want an array"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decode([]byte(tt.in))
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %q, want it to contain %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "SECRET") || strings.Contains(err.Error(), "12345678") {
				t.Fatalf("error leaks a value: %q", err)
			}
		})
	}
}

func TestNoBrowserContext(t *testing.T) {
	ctx := context.Background()
	if _, err := Capture(ctx, browserCtx, "", nil); err == nil {
		t.Fatal("Capture without a browser context id")
	}
	if err := Restore(ctx, browserCtx, "", State{}); err == nil {
		t.Fatal("Restore without a browser context id")
	}
}

const idbSetup = `(async () => {
	const done = (req) => new Promise((resolve, reject) => { req.onsuccess = () => resolve(req.result); req.onerror = () => reject(req.error); });
	const open = indexedDB.open("app", 3);
	open.onupgradeneeded = () => {
		const db = open.result;
		const kv = db.createObjectStore("kv", {keyPath: "id"});
		kv.createIndex("by_name", "name", {unique: true});
		kv.createIndex("by_tags", "tags", {multiEntry: true});
		db.createObjectStore("loose");
		db.createObjectStore("auto", {keyPath: ["a", "b"]});
	};
	const db = await done(open);
	const tx = db.transaction(["kv", "loose", "auto"], "readwrite");
	tx.objectStore("kv").put({id: 1, name: "token", tags: ["x", "y"], nested: {ok: true, n: 1.5}});
	tx.objectStore("kv").put({id: 2, name: "when", at: new Date(0)}); // not plain JSON: skipped
	tx.objectStore("loose").put({v: "s3cret"}, "k1");
	tx.objectStore("loose").put("just a string", ["compound", 2]);
	tx.objectStore("auto").put({a: 1, b: "z"});
	await new Promise((resolve, reject) => { tx.oncomplete = resolve; tx.onerror = () => reject(tx.error); });
	db.close();
	return true;
})()`

const idbRead = `(async () => {
	const done = (req) => new Promise((resolve, reject) => { req.onsuccess = () => resolve(req.result); req.onerror = () => reject(req.error); });
	const dbs = await indexedDB.databases();
	if (!dbs.some((d) => d.name === "app")) return "no database";
	const db = await done(indexedDB.open("app"));
	const tx = db.transaction(["kv", "loose", "auto"], "readonly");
	const kv = tx.objectStore("kv");
	const out = {
		version: db.version,
		byName: await done(kv.index("by_name").get("token")),
		byTag: await done(kv.index("by_tags").getAllKeys("y")),
		unique: kv.index("by_name").unique,
		k1: await done(tx.objectStore("loose").get("k1")),
		compound: await done(tx.objectStore("loose").get(["compound", 2])),
		auto: await done(tx.objectStore("auto").get([1, "z"])),
		kvCount: await done(kv.count()),
	};
	db.close();
	return JSON.stringify(out);
})()`

func TestIndexedDB(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	a := newApp(t)
	p1, bc1, dispose1 := newBrowserContext(t)
	must(t, chromedp.Do(p1, chromedp.Navigate(a.URL+"/"), chromedp.Evaluate[chromedp.Void](idbSetup, chromedp.EvalAwaitPromise)))
	s, err := Capture(ctx, p1, bc1, []string{a.URL})
	must(t, err)
	if len(s.Origins) != 1 || len(s.Origins[0].IndexedDB) != 1 || len(s.Origins[0].LocalStorage) != 0 {
		t.Fatalf("captured %+v", s.Origins)
	}
	data, err := json.Marshal(s)
	must(t, err)
	decoded, err := Decode(data)
	must(t, err)
	dispose1()

	p2, bc2, _ := newBrowserContext(t)
	must(t, Restore(ctx, p2, bc2, decoded))
	must(t, chromedp.Do(p2, chromedp.Navigate(a.URL+"/")))
	got, err := chromedp.Run(p2, chromedp.Evaluate[string](idbRead, chromedp.EvalAwaitPromise))
	must(t, err)
	want := `{"version":3,"byName":{"id":1,"name":"token","tags":["x","y"],"nested":{"ok":true,"n":1.5}},"byTag":[1],"unique":true,"k1":{"v":"s3cret"},"compound":"just a string","auto":{"a":1,"b":"z"},"kvCount":1}`
	if got != want {
		t.Fatalf("restored IndexedDB:\n got %s\nwant %s", got, want)
	}
}

func TestDecodeIndexedDB(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`{"origins":[{"origin":"https://a.example","localStorage":[],"indexedDB":[{"version":1,"stores":[]}]}]}`, "origins[0].indexedDB[0].name is missing"},
		{`{"origins":[{"origin":"https://a.example","localStorage":[],"indexedDB":[{"name":"d","version":0,"stores":[]}]}]}`, "origins[0].indexedDB[0].version must be a positive integer"},
		{`{"origins":[{"origin":"https://a.example","localStorage":[],"indexedDB":[{"name":"d","version":1,"stores":{}}]}]}`, "origins[0].indexedDB[0].stores: want an array"},
		{`{"origins":[{"origin":"https://a.example","localStorage":[],"indexedDB":[{"name":"d","version":1,"stores":[{"name":"s","indexes":[{"name":"i"}]}]}]}]}`, "origins[0].indexedDB[0].stores[0].indexes[0] needs a name and a key path"},
		{`{"origins":[{"origin":"https://a.example","localStorage":[],"indexedDB":["SECRETVALUE"]}]}`, "origins[0].indexedDB[0]: want an object, got a JSON string"},
	} {
		_, err := Decode([]byte(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "SECRET") {
			t.Errorf("Decode(%s) = %v, want %q", tt.in, err, tt.want)
		}
	}
}
