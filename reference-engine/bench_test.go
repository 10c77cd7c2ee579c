package webengine

import (
	"context"
	"fmt"
	"testing"

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
