package webengine

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"

	"github.com/e2e-conform/toolkit/protocol/engineerr"
	"github.com/e2e-conform/toolkit/protocol/server"
	"github.com/e2e-conform/toolkit/protocol/wire"
	"github.com/e2e-conform/toolkit/reference-engine/inpage"
	"github.com/e2e-conform/toolkit/reference-engine/media"
)

// Observation limits (spec web-engine §2.2, §5). The node budget, the same
// for observe and locate, is inpage.NodeBudget.
const (
	pixelsBudget   = 10 * time.Second
	fallbackMargin = 2 * time.Second
)

// eval evaluates expr in the page's main world and decodes its value (by
// value, promises awaited) into out (nil: ignored).
func (t *tab) eval(ctx context.Context, expr string, out any) error {
	res, err := chromedp.Call(ctx, runtime.Evaluate, runtime.EvaluateParams{
		Expression: expr, ReturnByValue: ptr(true), AwaitPromise: ptr(true), Silent: ptr(true)})
	if err != nil {
		return err
	}
	if d := res.ExceptionDetails; d != nil {
		text := d.Text
		if d.Exception != nil && d.Exception.Description != "" {
			text = d.Exception.Description
		}
		return &jsError{text: text}
	}
	if out == nil || res.Result == nil || len(res.Result.Value) == 0 {
		return nil
	}
	if tb, ok := out.(*textBytes); ok {
		return tb.unquote(res.Result.Value)
	}
	return json.Unmarshal(res.Result.Value, out)
}

// textBytes receives a string value as its bytes (the reader's answers,
// which are JSON text to be decoded next).
type textBytes []byte

// unquote decodes the JSON string v with jsontext (2.3x encoding/json on a
// 548 KB answer full of escaped quotes); a value it refuses (not a string,
// a lone surrogate escape) is decoded as encoding/json reads it.
func (tb *textBytes) unquote(v []byte) error {
	if len(v) > 0 && v[0] == '"' {
		if b, err := jsontext.AppendUnquote((*tb)[:0], v); err == nil {
			*tb = b
			return nil
		}
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return err
	}
	*tb = append((*tb)[:0], s...)
	return nil
}

// call evaluates the reader's method with args.
func (t *tab) call(ctx context.Context, out any, method string, args ...any) error {
	return t.callWrapped(ctx, out, method, "%s", args...)
}

// callWrapped evaluates wrap (a JS expression with one %s, where the
// method's awaited result goes) around the reader's method. It first sends
// a short expression that calls the installed reader; only a document
// without it (loaded before the init script was added) gets the whole
// reader source, once.
func (t *tab) callWrapped(ctx context.Context, out any, method, wrap string, args ...any) error {
	enc := make([]string, len(args))
	for i, a := range args {
		b, err := json.Marshal(a)
		if err != nil {
			return err
		}
		enc[i] = string(b)
	}
	callExpr := fmt.Sprintf("(await c.%s(%s))", method, strings.Join(enc, ","))
	// The answer comes back as one JSON string made by the reader's own
	// JSON.stringify: cheaper than a by-value transfer of a large tree.
	fast := `(async () => { const c = globalThis.__e2eConform; if (!c || !c.json) return ""; return c.json({v: ` + fmt.Sprintf(wrap, callExpr) + `}); })()`
	var text textBytes
	if err := t.eval(ctx, fast, &text); err != nil {
		return err
	}
	if len(text) == 0 {
		full, err := inpage.Expr(method, args...)
		if err != nil {
			return err
		}
		return t.eval(ctx, `(async () => { const c = {`+method+`: () => `+full+`}; return `+fmt.Sprintf(wrap, "(await c."+method+"())")+`; })()`, out)
	}
	if out == nil {
		return nil
	}
	// One decoding pass, with encoding/json's semantics, filling the value
	// out points to through the interface. go-json-experiment's v1 package
	// decodes these answers 1.4x faster than encoding/json (a 3,000-node
	// read: 6.0 ms against 8.3 ms), with the same results: it is
	// encoding/json's behaviour on the v2 implementation.
	res := struct {
		V any `json:"v"`
	}{V: out}
	if err := jsonv1.Unmarshal(text, &res); err != nil {
		return fmt.Errorf("the reader's answer is not JSON: %w", err)
	}
	return nil
}

// pageRead is a tree read with the page's facts around it.
type pageRead struct {
	R    readResult `json:"r"`
	Href string     `json:"href"`
	W    float64    `json:"w"`
	H    float64    `json:"h"`
}

// read runs one reader pass over the page (all reachable documents).
// A plan (engine/locate) makes it sparse: only the nodes the plan may match
// are emitted, each with its subtree. The budget is inpage.NodeBudget.
func (e *Engine) read(ctx context.Context, t *tab, mode string, plan *inpage.Plan) (*pageRead, error) {
	const budget = inpage.NodeBudget
	args := readArgs{Mode: mode, Budget: budget, NextID: e.reserve(budget + 1), TestIDAttribute: e.opts.TestIDAttribute, Prune: true, Plan: plan}
	var pr pageRead
	if err := t.callWrapped(ctx, &pr, "read", settleJS+"{r: %s, href: location.href, w: innerWidth, h: innerHeight})", args); err != nil {
		return nil, err
	}
	return &pr, nil
}

// settleJS opens a comma expression that first waits (best effort, at most
// 5 s) for the document to be parsed: a read never sees a half-built
// page, and it costs no round trip of its own.
const settleJS = `(await (document.readyState !== "loading" ? 0 : new Promise(r => { document.addEventListener("DOMContentLoaded", r, {once: true}); setTimeout(r, 5000); })), `

// Observe implements server.Observer: one in-page pass per document,
// optionally with masked pixels taken concurrently, or, with pixelFallback
// when the tree cannot be read in time, pixels alone.
//
// Implements: OBS-001, OBS-002, OBS-003, OBS-004, OBS-005, OBS-006, OBS-007, OBS-008, OBS-011, OBS-012, OBS-013.
func (e *Engine) Observe(ctx context.Context, op server.Operation, opts wire.EngineObserveOptions) (*wire.EngineSnapshot, error) {
	t, cctx, done, err := e.begin(ctx, op)
	if err != nil {
		return nil, err
	}
	defer done()
	type shot struct {
		px  *wire.ObservationPixels
		n   int64
		err error
	}
	var shots chan shot
	if opts.Pixels {
		shots = make(chan shot, 1)
		go func() {
			px, n, err := e.pixels(cctx, t)
			shots <- shot{px, n, err}
		}()
	}

	rctx, rcancel := cctx, context.CancelFunc(func() {})
	if opts.PixelFallback {
		if d, ok := cctx.Deadline(); ok {
			margin := min(fallbackMargin, time.Until(d)/4)
			rctx, rcancel = context.WithDeadline(cctx, d.Add(-margin))
		}
	}
	pr, err := e.read(rctx, t, inpage.ModeTree, nil)
	rcancel()
	if err != nil && opts.PixelFallback && ctx.Err() == nil && cctx.Err() == nil {
		px, n, perr := e.pixels(cctx, t)
		if perr == nil {
			return &wire.EngineSnapshot{
				Location: t.url(), Root: wire.SemanticNode{Ref: wire.NodeRef{ID: "root"}}, Truncated: true, TreeUnavailable: true,
				Viewport: wire.ViewportSize{Width: float64(e.opts.Width), Height: float64(e.opts.Height)},
				Pixels:   px, MaskedRegionCount: &n,
			}, nil
		}
	}
	if err != nil {
		return nil, classify(ctx, cctx, "engine/observe", false, err)
	}
	snap := &wire.EngineSnapshot{
		Location: pr.Href, Root: pr.R.Root, Truncated: pr.R.Truncated,
		Viewport: wire.ViewportSize{Width: pr.W, Height: pr.H},
	}
	if shots != nil {
		s := <-shots
		if s.err != nil {
			return nil, classify(ctx, cctx, "engine/observe pixels", false, s.err)
		}
		snap.Pixels, snap.MaskedRegionCount = s.px, &s.n
	}
	if a := op.Attempt; a != nil {
		a.Screen(snap)
	}
	return snap, nil
}

// maskedPNG captures the viewport as PNG with every secure field painted
// black, and the number of secure fields (hidden ones included).
//
// Implements: OBS-010.
func (e *Engine) maskedPNG(ctx context.Context, t *tab) ([]byte, int64, error) {
	var sec secureRects
	if err := t.call(ctx, &sec, "secureRects"); err != nil {
		return nil, 0, err
	}
	pctx, cancel := context.WithTimeout(ctx, pixelsBudget)
	defer cancel()
	img, err := chromedp.Call(pctx, page.CaptureScreenshot, page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatPng, FromSurface: ptr(true)})
	if err != nil {
		return nil, 0, err
	}
	data := img.Data
	// Masks are read again after the capture: a field that moved in between
	// is covered at both places.
	var after secureRects
	if err := t.call(ctx, &after, "secureRects"); err != nil {
		return nil, 0, err
	}
	rects := make([]media.Rect, 0, len(sec.Rects)+len(after.Rects))
	for _, r := range append(sec.Rects, after.Rects...) {
		rects = append(rects, media.Rect{X: r.X, Y: r.Y, Width: r.Width, Height: r.Height})
	}
	w, _, err := media.PNGSize(data)
	if err != nil {
		return nil, 0, err
	}
	scale := float64(w) / float64(e.opts.Width)
	masked, err := media.MaskPNG(data, rects, scale)
	if err != nil {
		return nil, 0, err
	}
	return masked, int64(max(sec.Count, after.Count)), nil
}

// pixels is maskedPNG as observation pixels.
//
// Implements: OBS-009, OBS-010.
func (e *Engine) pixels(ctx context.Context, t *tab) (*wire.ObservationPixels, int64, error) {
	data, n, err := e.maskedPNG(ctx, t)
	if err != nil {
		return nil, 0, err
	}
	w, h, err := media.PNGSize(data)
	if err != nil {
		return nil, 0, engineerr.New(engineerr.EngineFailure, "the screenshot is not a PNG: %v", err)
	}
	return &wire.ObservationPixels{
		Data: base64.StdEncoding.EncodeToString(data), MediaType: "image/png",
		Width: int64(w), Height: int64(h), Scale: float64(w) / float64(e.opts.Width),
	}, n, nil
}
