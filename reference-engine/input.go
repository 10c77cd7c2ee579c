package webengine

import (
	"context"
	"math"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
)

// Modifier bits of Input.dispatchMouseEvent and dispatchKeyEvent.
const (
	modAlt   int64 = 1
	modCtrl  int64 = 2
	modMeta  int64 = 4
	modShift int64 = 8
)

// modifierBits maps the protocol's modifiers; ControlOrMeta is Control on
// this platform (Linux).
func modifierBits(mods []string) int64 {
	var m int64
	for _, k := range mods {
		switch k {
		case "Alt":
			m |= modAlt
		case "Control", "ControlOrMeta":
			m |= modCtrl
		case "Meta":
			m |= modMeta
		case "Shift":
			m |= modShift
		}
	}
	return m
}

// defaultLongPress is a long press's duration without durationMs.
const defaultLongPress = 500 * time.Millisecond

// dispatcher sends input to one tab and records whether any event left.
type dispatcher struct {
	t         *tab
	ctx       context.Context // bounded chromedp context
	committed bool
}

// mouse sends one mouse event.
func (d *dispatcher) mouse(typ input.DispatchMouseEventType, x, y float64, btn input.MouseButton, clicks int64, mods int64) error {
	var buttons int64
	if typ == input.DispatchMouseEventTypeMousePressed {
		switch btn {
		case input.MouseButtonLeft:
			buttons = 1
		case input.MouseButtonRight:
			buttons = 2
		}
	}
	d.committed = true
	_, err := chromedp.Call(d.ctx, input.DispatchMouseEvent, input.DispatchMouseEventParams{
		Type: typ, X: x, Y: y, Button: btn, Buttons: buttons, ClickCount: clicks, Modifiers: mods})
	if err == nil {
		d.t.mu.Lock()
		d.t.mouseX, d.t.mouseY = x, y
		d.t.mu.Unlock()
	}
	return err
}

// move moves the pointer.
func (d *dispatcher) move(x, y float64) error {
	return d.mouse(input.DispatchMouseEventTypeMouseMoved, x, y, input.MouseButtonNone, 0, 0)
}

// click presses and releases btn at (x, y) clicks times (a double click
// sends clickCount 1 then 2).
func (d *dispatcher) click(x, y float64, btn input.MouseButton, clicks int, mods int64) error {
	if err := d.mouse(input.DispatchMouseEventTypeMouseMoved, x, y, input.MouseButtonNone, 0, mods); err != nil {
		return err
	}
	for i := 1; i <= clicks; i++ {
		if err := d.mouse(input.DispatchMouseEventTypeMousePressed, x, y, btn, int64(i), mods); err != nil {
			return err
		}
		if err := d.mouse(input.DispatchMouseEventTypeMouseReleased, x, y, btn, int64(i), mods); err != nil {
			return err
		}
	}
	return nil
}

// longPress holds the left button for dur.
func (d *dispatcher) longPress(x, y float64, dur time.Duration) error {
	if err := d.move(x, y); err != nil {
		return err
	}
	if err := d.mouse(input.DispatchMouseEventTypeMousePressed, x, y, input.MouseButtonLeft, 1, 0); err != nil {
		return err
	}
	t := time.NewTimer(dur)
	defer t.Stop()
	select {
	case <-d.ctx.Done():
		return context.Cause(d.ctx)
	case <-t.C:
	}
	return d.mouse(input.DispatchMouseEventTypeMouseReleased, x, y, input.MouseButtonLeft, 1, 0)
}

// drag presses at from, moves through the rounded midpoint to to and
// releases there.
func (d *dispatcher) drag(from, to xy) error {
	mid := xy{math.Round((from.X + to.X) / 2), math.Round((from.Y + to.Y) / 2)}
	if err := d.move(from.X, from.Y); err != nil {
		return err
	}
	if err := d.mouse(input.DispatchMouseEventTypeMousePressed, from.X, from.Y, input.MouseButtonLeft, 1, 0); err != nil {
		return err
	}
	if err := d.move(mid.X, mid.Y); err != nil {
		return err
	}
	if err := d.move(to.X, to.Y); err != nil {
		return err
	}
	return d.mouse(input.DispatchMouseEventTypeMouseReleased, to.X, to.Y, input.MouseButtonLeft, 1, 0)
}

// wheel scrolls by (dx, dy) at (x, y).
func (d *dispatcher) wheel(x, y, dx, dy float64) error {
	if err := d.move(x, y); err != nil {
		return err
	}
	d.committed = true
	// Sent raw: the typed params omit a zero delta, and Chromium requires
	// both deltaX and deltaY.
	c := chromedp.FromContext(d.ctx)
	if c == nil || c.Target == nil {
		return errBrowserGone
	}
	return c.Target.Call(d.ctx, "Input.dispatchMouseEvent", map[string]any{
		"type": "mouseWheel", "x": x, "y": y, "deltaX": dx, "deltaY": dy}, nil)
}

// keys sends key events.
func (d *dispatcher) keys(evs []*input.DispatchKeyEventParams) error {
	for _, ev := range evs {
		d.committed = true
		if _, err := chromedp.Call(d.ctx, input.DispatchKeyEvent, *ev); err != nil {
			return err
		}
	}
	return nil
}

// insertText inserts text as an IME commit (one input event).
func (d *dispatcher) insertText(text string) error {
	d.committed = true
	_, err := chromedp.Call(d.ctx, input.InsertText, input.InsertTextParams{Text: text})
	return err
}
