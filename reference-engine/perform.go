package webengine

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/e2e-conform/toolkit/protocol/engineerr"
	"github.com/e2e-conform/toolkit/protocol/server"
	"github.com/e2e-conform/toolkit/protocol/wire"
	"github.com/e2e-conform/toolkit/reference-engine/inpage"
)

// actionWait bounds how long an action waits for its target to become
// actionable (a blocker that outlasts it is reported as NOT_ACTIONABLE
// naming it). The operation's budget bounds it too.
const actionWait = 2 * time.Second

// backoff is the wait between actionability probes.
var backoff = [...]time.Duration{0, 20 * time.Millisecond, 100 * time.Millisecond, 100 * time.Millisecond, 500 * time.Millisecond}

// needs are the actionability checks of an action kind.
type needs struct{ visible, stable, enabled, editable, hit bool }

var (
	needPointer = needs{visible: true, stable: true, enabled: true, hit: true}
	needHover   = needs{visible: true, stable: true, hit: true}
	needEdit    = needs{visible: true, enabled: true, editable: true}
	needSelect  = needs{visible: true, enabled: true}
)

// probe reads the actionability facts of id.
func (t *tab) probe(ctx context.Context, id string) (*probeResult, error) {
	var p probeResult
	if err := t.call(ctx, &p, "probe", id, map[string]any{}); err != nil {
		return nil, err
	}
	if !p.Attached {
		return nil, stale(id)
	}
	return &p, nil
}

// actionable probes id until n holds (scrolling it into view once when it
// is outside the viewport), or reports NOT_ACTIONABLE with the last blocker.
//
// Implements: ACT-016.
func (e *Engine) actionable(ctx, cctx context.Context, t *tab, id, kind string, n needs) (*probeResult, error) {
	limit := time.Now().Add(actionWait)
	if d, ok := cctx.Deadline(); ok && d.Add(-100*time.Millisecond).Before(limit) {
		limit = d.Add(-100 * time.Millisecond)
	}
	scrolled := false
	for i := 0; ; i++ {
		p, err := t.probe(cctx, id)
		if err != nil {
			return nil, classify(ctx, cctx, kind, false, err)
		}
		var blocker string
		switch {
		case n.visible && !p.Visible:
			blocker = "element is not visible"
		case n.enabled && !p.Enabled:
			blocker = "element is not enabled"
		case n.editable && !p.Editable:
			blocker = "element is not editable"
		case n.hit && !p.InViewport && !scrolled:
			scrolled = true
			if err := t.call(cctx, nil, "scrollIntoView", id); err != nil {
				return nil, classify(ctx, cctx, kind, false, err)
			}
			continue
		case n.hit && !p.InViewport:
			blocker = "element is outside of the viewport"
		case n.stable && !p.Stable:
			blocker = "element is not stable"
		case n.hit && !p.Hit.OK:
			blocker = p.Hit.Blocker
			if blocker == "" {
				blocker = "another element intercepts pointer events"
			}
		case n.hit && p.Point == nil:
			blocker = "element has no point to act on"
		default:
			return p, nil
		}
		wait := backoff[min(i, len(backoff)-1)]
		if time.Now().Add(wait).After(limit) {
			return nil, engineerr.New(engineerr.NotActionable, "%s did not become actionable in time: %s", kind, blocker)
		}
		if wait > 0 {
			tm := time.NewTimer(wait)
			select {
			case <-cctx.Done():
				tm.Stop()
				return nil, classify(ctx, cctx, kind, false, context.Cause(cctx))
			case <-tm.C:
			}
		}
	}
}

// Perform implements server.Performer: the actionability checks of the
// action's kind, then trusted input through CDP. The root takes swipe (a
// viewport scroll) and focus (the active element blurs); other actions on
// the root have no effect.
//
// Implements: ACT-013, ACT-014.
func (e *Engine) Perform(ctx context.Context, op server.Operation, ref wire.NodeRef, a wire.LocatorAction) error {
	t, cctx, done, err := e.begin(ctx, op)
	if err != nil {
		return err
	}
	defer done()
	d := &dispatcher{t: t, ctx: cctx}
	err = e.perform(ctx, cctx, t, d, ref.ID, a)
	if err != nil {
		err = classify(ctx, cctx, a.Kind, d.committed, err)
		if a.Sensitive {
			err = scrub(err, a.Value)
		}
	}
	return err
}

// scrub removes a sensitive value from an error's message and drops its
// cause.
//
// Implements: ACT-004, ERR-007.
func scrub(err error, secret string) error {
	if secret == "" {
		return err
	}
	code := engineerr.CodeOf(err)
	if code == "" {
		code = engineerr.EngineFailure
	}
	msg := strings.ReplaceAll(err.Error(), secret, "[redacted]")
	return &engineerr.EngineError{Code: code, Message: msg, Retryable: engineerr.IsRetryable(err)}
}

// Implements: ACT-001, ACT-002, ACT-005, ACT-007, ACT-008, ACT-009, ACT-010, ACT-012, ACT-017.
func (e *Engine) perform(ctx, cctx context.Context, t *tab, d *dispatcher, id string, a wire.LocatorAction) error {
	if id == "root" {
		switch a.Kind {
		case wire.ActionSwipe:
			w, h := float64(e.opts.Width), float64(e.opts.Height)
			dx, dy := wire.SwipeDelta(a.Direction, a.Momentum, w, h)
			return d.wheel(math.Round(w/2), math.Round(h/2), dx, dy)
		case wire.ActionFocus:
			return t.eval(cctx, `(() => { const a = document.activeElement; if (a && a !== document.body) a.blur(); })()`, nil)
		}
		return nil
	}
	switch a.Kind {
	case wire.ActionTap, wire.ActionDoubleTap, wire.ActionSecondaryTap, wire.ActionLongPress:
		p, err := e.actionable(ctx, cctx, t, id, a.Kind, needPointer)
		if err != nil {
			return err
		}
		x, y := p.Point.X, p.Point.Y
		switch a.Kind {
		case wire.ActionTap:
			return d.click(x, y, input.MouseButtonLeft, 1, modifierBits(a.Modifiers))
		case wire.ActionDoubleTap:
			return d.click(x, y, input.MouseButtonLeft, 2, modifierBits(a.Modifiers))
		case wire.ActionSecondaryTap:
			return d.click(x, y, input.MouseButtonRight, 1, modifierBits(a.Modifiers))
		default:
			return d.longPress(x, y, duration(a.DurationMs))
		}
	case wire.ActionHover:
		p, err := e.actionable(ctx, cctx, t, id, a.Kind, needHover)
		if err != nil {
			return err
		}
		return d.move(p.Point.X, p.Point.Y)
	case wire.ActionFill, wire.ActionClear:
		if _, err := e.actionable(ctx, cctx, t, id, a.Kind, needEdit); err != nil {
			return err
		}
		value := ""
		if a.Kind == wire.ActionFill {
			value = a.Value
		}
		return e.fill(cctx, t, d, id, value)
	case wire.ActionPress:
		k, err := wire.ParseKey(a.Key)
		if err != nil {
			return engineerr.New(engineerr.UnsupportedCapability, "%v", err)
		}
		evs, err := keyEvents(k)
		if err != nil {
			return err
		}
		if _, err := t.probe(cctx, id); err != nil {
			return err
		}
		if err := t.call(cctx, nil, "focus", id); err != nil {
			return err
		}
		return d.keys(evs)
	case wire.ActionCheck, wire.ActionUncheck:
		return e.check(ctx, cctx, t, d, id, a.Kind)
	case wire.ActionFocus:
		if _, err := t.probe(cctx, id); err != nil {
			return err
		}
		return t.call(cctx, nil, "focus", id)
	case wire.ActionScrollIntoView:
		if _, err := t.probe(cctx, id); err != nil {
			return err
		}
		return t.call(cctx, nil, "scrollIntoView", id)
	case wire.ActionSelectOption:
		if _, err := e.actionable(ctx, cctx, t, id, a.Kind, needSelect); err != nil {
			return err
		}
		arg := map[string]any{}
		switch a.Option.By {
		case "", "label":
			arg["label"] = a.Option.Text
		case "value":
			arg["value"] = a.Option.Text
		case "index":
			arg["index"] = a.Option.Index
		}
		var res struct {
			OK    bool   `json:"ok"`
			Error string `json:"error"`
		}
		expr, err := inpage.Expr("selectOption", id, arg)
		if err != nil {
			return err
		}
		d.committed = true
		if err := t.eval(cctx, `(() => { try { `+expr+`; return {ok: true}; } catch (e) { return {ok: false, error: String(e && e.message || e)}; } })()`, &res); err != nil {
			return err
		}
		if !res.OK {
			d.committed = false
			return engineerr.New(engineerr.NotActionable, "selectOption: %s", res.Error)
		}
		return nil
	case wire.ActionSetInputFiles:
		return e.setFiles(cctx, t, d, id, a.Paths)
	case wire.ActionDragTo:
		if a.Target == nil {
			return engineerr.New(engineerr.NotActionable, "dragTo needs a target")
		}
		src, err := e.actionable(ctx, cctx, t, id, a.Kind, needHover)
		if err != nil {
			return err
		}
		var to xy
		if a.Target.ID == "root" {
			to = xy{math.Round(float64(e.opts.Width) / 2), math.Round(float64(e.opts.Height) / 2)}
		} else {
			dst, err := t.probe(cctx, a.Target.ID)
			if err != nil {
				return err
			}
			if !dst.InViewport {
				if err := t.call(cctx, nil, "scrollIntoView", a.Target.ID); err != nil {
					return err
				}
				if dst, err = t.probe(cctx, a.Target.ID); err != nil {
					return err
				}
				if src, err = t.probe(cctx, id); err != nil {
					return err
				}
			}
			if dst.Point == nil || !dst.Visible {
				return engineerr.New(engineerr.NotActionable, "dragTo: the drop target %s is not visible", a.Target.ID)
			}
			to = *dst.Point
		}
		if src.Point == nil {
			return engineerr.New(engineerr.NotActionable, "dragTo: the drag source %s has no point in the viewport", id)
		}
		d.committed = true
		return chromedp.Do(cctx, chromedp.DragAndDropXY(src.Point.X, src.Point.Y, to.X, to.Y, 3))
	case wire.ActionSwipe:
		p, err := e.actionable(ctx, cctx, t, id, a.Kind, needs{visible: true})
		if err != nil {
			return err
		}
		if p.Rect == nil || p.Point == nil {
			return engineerr.New(engineerr.NotActionable, "swipe: node %s has no box in the viewport", id)
		}
		dx, dy := wire.SwipeDelta(a.Direction, a.Momentum, p.Rect.Width, p.Rect.Height)
		return d.wheel(p.Point.X, p.Point.Y, dx, dy)
	}
	return engineerr.New(engineerr.UnsupportedCapability, "action %s is not supported", a.Kind)
}

// duration is a long press's duration.
func duration(ms *float64) time.Duration {
	if ms == nil || *ms < 0 {
		return defaultLongPress
	}
	return time.Duration(*ms * float64(time.Millisecond))
}

// fill replaces an editable element's value: date, time, color and range
// inputs are set directly (with input and change events); other fields get
// their text selected and replaced by one text insertion (an empty value is
// a Delete key).
//
// Implements: ACT-003, ACT-004.
func (e *Engine) fill(ctx context.Context, t *tab, d *dispatcher, id, value string) error {
	el, err := inpage.Expr("element", id)
	if err != nil {
		return err
	}
	var typ string
	if err := t.eval(ctx, `(() => { const el = `+el+`; return el && el.localName === "input" ? String(el.type || "").toLowerCase() : ""; })()`, &typ); err != nil {
		return err
	}
	switch typ {
	case "date", "time", "datetime-local", "month", "week", "color", "range":
		d.committed = true
		return t.call(ctx, nil, "setValue", id, value)
	}
	if err := t.call(ctx, nil, "selectText", id); err != nil {
		return err
	}
	if value == "" {
		evs, err := keyEvents(wire.Key{Name: "Delete"})
		if err != nil {
			return err
		}
		return d.keys(evs)
	}
	return d.insertText(value)
}

// check sets a checkbox's or radio's checked state through a click, and
// verifies the state changed.
//
// Implements: ACT-006.
func (e *Engine) check(ctx, cctx context.Context, t *tab, d *dispatcher, id, kind string) error {
	want := kind == wire.ActionCheck
	p, err := t.probe(cctx, id)
	if err != nil {
		return err
	}
	if p.Checkable.Kind == "none" || p.Checkable.Kind == "" {
		return engineerr.New(engineerr.UnsupportedCapability, "node %s exposes no checked state: %s needs a checkbox, radio or an element with aria-checked", id, kind)
	}
	if p.Checkable.Checked != nil && *p.Checkable.Checked == want {
		return nil
	}
	if !want && p.Checkable.Kind == "radio" {
		return engineerr.New(engineerr.NotActionable, "uncheck cannot clear a radio button; select another radio in its group")
	}
	p, err = e.actionable(ctx, cctx, t, id, kind, needPointer)
	if err != nil {
		return err
	}
	if err := d.click(p.Point.X, p.Point.Y, input.MouseButtonLeft, 1, 0); err != nil {
		return err
	}
	after, err := t.probe(cctx, id)
	if err != nil {
		if engineerr.CodeOf(err) == engineerr.NodeStale {
			return nil // the control went away with the click (navigation)
		}
		return err
	}
	if after.Checkable.Checked == nil || *after.Checkable.Checked != want {
		return engineerr.New(engineerr.ActionMayHaveCommitted, "%s clicked the control but its checked state did not change", kind)
	}
	return nil
}

// setFiles chooses files in a file input.
//
// Implements: ACT-011.
func (e *Engine) setFiles(ctx context.Context, t *tab, d *dispatcher, id string, paths []string) error {
	abs := make([]string, len(paths))
	for i, p := range paths {
		a, err := filepath.Abs(p)
		if err != nil {
			return engineerr.New(engineerr.NotActionable, "setInputFiles: %v", err)
		}
		st, err := os.Stat(a)
		if err != nil || !st.Mode().IsRegular() {
			return engineerr.New(engineerr.NotActionable, "setInputFiles: %s is not a readable file", filepath.Base(a))
		}
		abs[i] = a
	}
	el, err := inpage.Expr("element", id)
	if err != nil {
		return err
	}
	var typ string
	if err := t.eval(ctx, `(() => { const el = `+el+`; return el ? (el.localName === "input" ? String(el.type).toLowerCase() : el.localName) : null; })()`, &typ); err != nil {
		return err
	}
	if typ == "" {
		return stale(id)
	}
	if typ != "file" {
		return engineerr.New(engineerr.NotActionable, "setInputFiles: node %s is a %s, not a file input", id, typ)
	}
	res, err := chromedp.Call(ctx, runtime.Evaluate, runtime.EvaluateParams{Expression: el})
	if err != nil {
		return err
	}
	if res.Result == nil || res.Result.ObjectID == "" {
		return stale(id)
	}
	defer func() {
		_, _ = chromedp.Call(ctx, runtime.ReleaseObject, runtime.ReleaseObjectParams{ObjectID: res.Result.ObjectID})
	}()
	d.committed = true
	_, err = chromedp.Call(ctx, dom.SetFileInputFiles, dom.SetFileInputFilesParams{Files: abs, ObjectID: res.Result.ObjectID})
	if err != nil {
		return fmt.Errorf("DOM.setFileInputFiles: %w", err)
	}
	return nil
}

// PerformAt implements server.PointerPerformer: the point rounded to the
// nearest CSS pixel, no actionability checks.
//
// Implements: PTR-001, PTR-002, PTR-003, PTR-004.
func (e *Engine) PerformAt(ctx context.Context, op server.Operation, pt wire.ViewportPoint, a wire.PointerAction) error {
	t, cctx, done, err := e.begin(ctx, op)
	if err != nil {
		return err
	}
	defer done()
	d := &dispatcher{t: t, ctx: cctx}
	x, y := math.Round(pt.X), math.Round(pt.Y)
	switch a.Kind {
	case wire.ActionTap:
		err = d.click(x, y, input.MouseButtonLeft, 1, 0)
	case wire.ActionDoubleTap:
		err = d.click(x, y, input.MouseButtonLeft, 2, 0)
	case wire.ActionSecondaryTap:
		err = d.click(x, y, input.MouseButtonRight, 1, 0)
	case wire.ActionLongPress:
		err = d.longPress(x, y, duration(a.DurationMs))
	case wire.ActionHover:
		err = d.move(x, y)
	case wire.ActionDragTo, wire.ActionSwipeTo:
		if a.Target == nil {
			return engineerr.New(engineerr.NotActionable, "%s needs a target point", a.Kind)
		}
		err = d.drag(xy{x, y}, xy{math.Round(a.Target.X), math.Round(a.Target.Y)})
	case wire.ActionSwipe:
		dx, dy := wire.SwipeDelta(a.Direction, a.Momentum, float64(e.opts.Width), float64(e.opts.Height))
		err = d.wheel(x, y, dx, dy)
	default:
		return engineerr.New(engineerr.UnsupportedCapability, "pointer action %s is not supported", a.Kind)
	}
	if err != nil {
		return classify(ctx, cctx, a.Kind, d.committed, err)
	}
	return nil
}
