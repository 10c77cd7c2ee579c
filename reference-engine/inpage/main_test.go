package inpage

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/e2e-conform/toolkit/internal/chromium"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/e2e-conform/toolkit/protocol/wire"
)

// env is the browser and page server shared by the test binary; it is set
// once in TestMain.
type env struct {
	browser context.Context
	srv     *httptest.Server
	mu      sync.Mutex
	pages   map[string]string
}

var testEnv *env

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	exe := os.Getenv("E2E_CHROMIUM")
	bctx, stop, err := chromium.Start(exe)
	if err != nil { // make test installs Chromium (make browser): a missing one fails
		fmt.Fprintln(os.Stderr, "inpage tests:", err)
		return 1
	}
	defer stop()
	e := &env{browser: bctx, pages: map[string]string{}}
	e.srv = httptest.NewServer(http.HandlerFunc(e.serve))
	defer e.srv.Close()
	testEnv = e
	return m.Run()
}

func (e *env) serve(w http.ResponseWriter, r *http.Request) {
	e.mu.Lock()
	body, ok := e.pages[r.URL.Path]
	e.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprint(w, body)
}

// addPage serves html at path (unique per test) and returns its URL.
func addPage(path, html string) string {
	testEnv.mu.Lock()
	testEnv.pages[path] = html
	testEnv.mu.Unlock()
	return testEnv.srv.URL + path
}

// tab is one browser tab with the init script installed.
type tab struct {
	t   testing.TB
	ctx context.Context
}

func newTab(t testing.TB, initScript bool) *tab {
	t.Helper()
	ctx, cancel := chromedp.NewContext(testEnv.browser)
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("new tab: %v", err)
	}
	if _, err := chromedp.Call(ctx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
		Width: 1280, Height: 720, DeviceScaleFactor: 1,
	}); err != nil {
		t.Fatalf("viewport: %v", err)
	}
	if initScript {
		if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
			Source: InitScript(), RunImmediately: new(true),
		}); err != nil {
			t.Fatalf("init script: %v", err)
		}
	}
	return &tab{t: t, ctx: ctx}
}

func (tb *tab) open(url string) {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 20*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		tb.t.Fatalf("navigate %s: %v", url, err)
	}
}

// openHTML serves html under a path derived from the test name and opens it.
func (tb *tab) openHTML(html string) string {
	tb.t.Helper()
	path := "/" + strings.NewReplacer("/", "_", " ", "_").Replace(tb.t.Name())
	u := addPage(path, html)
	tb.open(u)
	return u
}

// raw evaluates a method and returns the JSON result or the exception text.
func (tb *tab) raw(method string, args ...any) (json.RawMessage, error) {
	expr, err := Expr(method, args...)
	if err != nil {
		return nil, err
	}
	return tb.evalRaw(expr)
}

func (tb *tab) evalRaw(expr string) (json.RawMessage, error) {
	ctx, cancel := context.WithTimeout(tb.ctx, 20*time.Second)
	defer cancel()
	res, err := chromedp.Call(ctx, runtime.Evaluate, runtime.EvaluateParams{
		Expression: expr, ReturnByValue: new(true), AwaitPromise: new(true),
	})
	if err != nil {
		return nil, err
	}
	if res.ExceptionDetails != nil {
		msg := res.ExceptionDetails.Text
		if res.ExceptionDetails.Exception != nil {
			msg = res.ExceptionDetails.Exception.Description
		}
		return nil, fmt.Errorf("%s", msg)
	}
	if res.Result == nil || len(res.Result.Value) == 0 {
		return json.RawMessage("null"), nil
	}
	return json.RawMessage(res.Result.Value), nil
}

// call evaluates a method and decodes its result into out.
func (tb *tab) call(out any, method string, args ...any) {
	tb.t.Helper()
	data, err := tb.raw(method, args...)
	if err != nil {
		tb.t.Fatalf("%s: %v", method, err)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			tb.t.Fatalf("%s: decode %s: %v", method, truncate(string(data), 300), err)
		}
	}
}

// js evaluates a plain expression (test set-up) and decodes it into out.
func (tb *tab) js(out any, expr string) {
	tb.t.Helper()
	data, err := tb.evalRaw(expr)
	if err != nil {
		tb.t.Fatalf("eval %q: %v", truncate(expr, 80), err)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			tb.t.Fatalf("eval decode: %v", err)
		}
	}
}

func (tb *tab) read(args ReadArgs) ReadResult {
	tb.t.Helper()
	if args.NextID == 0 {
		args.NextID = 1
	}
	var r ReadResult
	tb.call(&r, MethodRead, args)
	return r
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// byTestID finds the node with the given test id.
func byTestID(root *wire.SemanticNode, id string) *wire.SemanticNode {
	var found *wire.SemanticNode
	root.Walk(func(n *wire.SemanticNode) bool {
		if n.TestID != nil && *n.TestID == id {
			found = n
			return false
		}
		return true
	})
	return found
}

// find returns the first node satisfying pred.
func find(root *wire.SemanticNode, pred func(*wire.SemanticNode) bool) *wire.SemanticNode {
	var found *wire.SemanticNode
	root.Walk(func(n *wire.SemanticNode) bool {
		if pred(n) {
			found = n
			return false
		}
		return true
	})
	return found
}

func str(p *string) string {
	if p == nil {
		return "<nil>"
	}
	return *p
}

func page_(title, body string) string {
	return "<!doctype html><html><head><meta charset=utf-8><title>" + title + "</title></head><body>" + body + "</body></html>"
}
