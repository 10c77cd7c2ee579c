package webengine

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/heapprofiler"
	"github.com/chromedp/chromedp"

	"github.com/e2e-conform/toolkit/protocol/wire"
)

// The benchmarks run on generated pages of 200, 1,000 and 5,000 elements.
// BenchmarkBaseline gives, in the same run, the floor every figure is read
// against: an empty evaluate round trip, and a simple in-page walk (every
// element's tag, rect and text, returned by value) like the one the spec's
// figures were measured with.
var benchSizes = []int{200, 1000, 5000}

// benchPage opens a generated page of n elements on a fresh engine.
func benchPage(b *testing.B, n int) (*Engine, *tab) {
	b.Helper()
	srv := pageServer(b)
	e := newTestEngine(b)
	ctx := context.Background()
	if err := e.Open(ctx, testOp, fmt.Sprintf("%s/gen/%d", srv.URL, n)); err != nil {
		b.Fatal(err)
	}
	t, err := e.page(ctx, testOp)
	if err != nil {
		b.Fatal(err)
	}
	return e, t
}

const simpleWalk = `(() => { const out = []; for (const el of document.querySelectorAll("body *")) {
  const r = el.getBoundingClientRect(); const s = getComputedStyle(el);
  out.push({t: el.localName, r: el.getAttribute("role"), x: r.x, y: r.y, w: r.width, h: r.height, v: s.visibility,
    text: el.childElementCount ? "" : (el.textContent || "").trim().slice(0, 80)}); }
  return out.length; })()`

func BenchmarkBaseline(b *testing.B) {
	for _, n := range benchSizes {
		e, t := benchPage(b, n)
		_ = e
		b.Run(fmt.Sprintf("eval/%d", n), func(b *testing.B) {
			for b.Loop() {
				if err := t.eval(t.ctx, "1+1", nil); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("walk/%d", n), func(b *testing.B) {
			for b.Loop() {
				var k int
				if err := t.eval(t.ctx, simpleWalk, &k); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkObserve(b *testing.B) {
	for _, n := range benchSizes {
		e, _ := benchPage(b, n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				if _, err := e.Observe(context.Background(), testOp, wire.EngineObserveOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkLocate(b *testing.B) {
	for _, n := range benchSizes {
		e, _ := benchPage(b, n)
		expr := &wire.LocatorExpression{Kind: wire.ExprQuery, Query: &wire.SemanticQuery{Kind: wire.QueryRole, Value: wire.StringPattern("button", false), Name: ptr(wire.StringPattern("Button 0", true))}}
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				got, err := e.Locate(context.Background(), testOp, expr)
				if err != nil {
					b.Fatal(err)
				}
				if len(got) != 1 {
					b.Fatalf("found %d, want 1", len(got))
				}
			}
		})
	}
}

// BenchmarkTapThenObserve is a tap on a button followed by the next
// observation, the unit of an agent's step.
func BenchmarkTapThenObserve(b *testing.B) {
	for _, n := range benchSizes {
		e, _ := benchPage(b, n)
		ctx := context.Background()
		expr := &wire.LocatorExpression{Kind: wire.ExprQuery, Query: &wire.SemanticQuery{Kind: wire.QueryTestID, Value: wire.StringPattern("b0", true)}}
		got, err := e.Locate(ctx, testOp, expr)
		if err != nil || len(got) != 1 {
			b.Fatalf("locate: %v (%d found)", err, len(got))
		}
		ref := got[0].Ref
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				if err := e.Perform(ctx, testOp, ref, wire.LocatorAction{Kind: wire.ActionTap}); err != nil {
					b.Fatal(err)
				}
				if _, err := e.Observe(ctx, testOp, wire.EngineObserveOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkScreenshot(b *testing.B) {
	e, _ := benchPage(b, 1000)
	b.Run("masked-png/1000", func(b *testing.B) {
		for b.Loop() {
			if _, err := e.Screenshot(context.Background(), testOp, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// rawRead is the reader's read as one bare Runtime.evaluate, its answer
// taken back as the JSON string the engine decodes: the in-page walk alone,
// the floor the engine's locate and observe are read against.
func rawRead(b *testing.B, t *tab, plan any) string {
	b.Helper()
	args, err := json.Marshal(readArgs{Mode: "tree", Budget: 3000, NextID: 1 << 40, Prune: true})
	if err != nil {
		b.Fatal(err)
	}
	if plan != nil {
		var m map[string]any
		if err := json.Unmarshal(args, &m); err != nil {
			b.Fatal(err)
		}
		m["plan"] = plan
		if args, err = json.Marshal(m); err != nil {
			b.Fatal(err)
		}
	}
	return `(() => { const c = globalThis.__e2eConform; return c.json(c.read(` + string(args) + `)); })()`
}

// lap times fn into d, after an untimed garbage collection in the page
// (so that no lap pays for the garbage of the one before).
func lap(b *testing.B, t *tab, d *time.Duration, fn func() error) {
	b.Helper()
	b.StopTimer()
	if _, err := chromedp.Call(t.ctx, heapprofiler.CollectGarbage, cdp.Empty{}); err != nil {
		b.Fatal(err)
	}
	b.StartTimer()
	start := time.Now()
	if err := fn(); err != nil {
		b.Fatal(err)
	}
	*d += time.Since(start)
}

// report writes each duration as ms/op and, against the floor (the first),
// as a ratio.
func report(b *testing.B, names []string, ds []time.Duration) {
	n := float64(b.N)
	for i, d := range ds {
		b.ReportMetric(float64(d.Microseconds())/1000/n, names[i]+"-ms")
		if i > 0 {
			b.ReportMetric(float64(d)/float64(ds[0]), names[i]+"/"+names[0])
		}
	}
}

// BenchmarkLocate5k: one engine/locate (a role query with an exact name)
// on the 5,000-element page, against, in the same run and interleaved: the
// same sparse in-page walk as a bare evaluate ("raw"), the simple walk of
// BenchmarkBaseline ("walk"), and the whole-read resolution in Go the
// sparse one replaced ("whole").
func BenchmarkLocate5k(b *testing.B) {
	e, t := benchPage(b, 5000)
	ctx := context.Background()
	for _, c := range []struct {
		name string
		expr *wire.LocatorExpression
	}{
		{"role", &wire.LocatorExpression{Kind: wire.ExprQuery, Query: &wire.SemanticQuery{Kind: wire.QueryRole, Value: wire.StringPattern("button", false), Name: ptr(wire.StringPattern("Button 0", true))}}},
		{"text", &wire.LocatorExpression{Kind: wire.ExprQuery, Query: &wire.SemanticQuery{Kind: wire.QueryText, Value: wire.StringPattern("Two 11", true)}}},
		{"testId", &wire.LocatorExpression{Kind: wire.ExprQuery, Query: &wire.SemanticQuery{Kind: wire.QueryTestID, Value: wire.StringPattern("b0", true)}}},
	} {
		plan, ok := planOf(c.expr)
		if !ok {
			b.Fatal("no plan")
		}
		raw := rawRead(b, t, plan)
		b.Run(c.name, func(b *testing.B) {
			ds := make([]time.Duration, 4)
			for b.Loop() {
				lap(b, t, &ds[0], func() error { var s string; return t.eval(t.ctx, raw, &s) })
				lap(b, t, &ds[1], func() error { var k int; return t.eval(t.ctx, simpleWalk, &k) })
				lap(b, t, &ds[2], func() error {
					got, err := e.Locate(ctx, testOp, c.expr)
					if err == nil && len(got) != 1 {
						err = fmt.Errorf("found %d, want 1", len(got))
					}
					return err
				})
				lap(b, t, &ds[3], func() error {
					_, cctx, done, err := e.begin(ctx, testOp)
					if err != nil {
						return err
					}
					defer done()
					_, err = e.locateWhole(ctx, cctx, t, c.expr)
					return err
				})
			}
			report(b, []string{"raw", "walk", "engine", "whole"}, ds)
		})
	}
}

// BenchmarkObserve5k: one engine/observe of the 5,000-element page (cut at
// the node budget), against the same in-page walk as a bare evaluate
// ("raw") and the simple walk ("walk"), interleaved in the same run.
func BenchmarkObserve5k(b *testing.B) {
	e, t := benchPage(b, 5000)
	ctx := context.Background()
	raw := rawRead(b, t, nil)
	ds := make([]time.Duration, 3)
	for b.Loop() {
		lap(b, t, &ds[0], func() error { var s string; return t.eval(t.ctx, raw, &s) })
		lap(b, t, &ds[1], func() error { var k int; return t.eval(t.ctx, simpleWalk, &k) })
		lap(b, t, &ds[2], func() error {
			_, err := e.Observe(ctx, testOp, wire.EngineObserveOptions{})
			return err
		})
	}
	report(b, []string{"raw", "walk", "engine"}, ds)
}
