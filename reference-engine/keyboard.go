package webengine

import (
	"context"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp/kb"

	"github.com/e2e-conform/toolkit/protocol/engineerr"
	"github.com/e2e-conform/toolkit/protocol/server"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// namedKeys maps the key grammar's names (spec §5.9) to chromedp's key
// table.
var namedKeys = map[string]string{
	"Enter": kb.Enter, "Escape": kb.Escape, "Tab": kb.Tab, "Backspace": kb.Backspace, "Delete": kb.Delete,
	"Insert": kb.Insert, "Space": " ", "ArrowUp": kb.ArrowUp, "ArrowDown": kb.ArrowDown, "ArrowLeft": kb.ArrowLeft,
	"ArrowRight": kb.ArrowRight, "Home": kb.Home, "End": kb.End, "PageUp": kb.PageUp, "PageDown": kb.PageDown,
	"F1": kb.F1, "F2": kb.F2, "F3": kb.F3, "F4": kb.F4, "F5": kb.F5, "F6": kb.F6, "F7": kb.F7, "F8": kb.F8,
	"F9": kb.F9, "F10": kb.F10, "F11": kb.F11, "F12": kb.F12,
}

// modifierKeys maps modifier names to chromedp's key table, in the order
// they are pressed.
var modifierKeys = []struct {
	name string
	key  string
	bit  int64
}{
	{"Shift", kb.Shift, modShift}, {"Control", kb.Control, modCtrl}, {"Alt", kb.Alt, modAlt}, {"Meta", kb.Meta, modMeta},
}

// keyEvents returns the events of one key press: the modifiers down (each
// with the modifiers held so far), the key with all of them (no char event
// while Control, Alt or Meta is held), then the modifiers up in reverse.
//
// Implements: KEY-004, KEY-005, ACT-005.
func keyEvents(k wire.Key) ([]*input.DispatchKeyEventParams, error) {
	var r rune
	switch {
	case k.Name != "":
		s, ok := namedKeys[k.Name]
		if !ok {
			return nil, engineerr.New(engineerr.UnsupportedCapability, "the key %s cannot be sent by this engine", k.String())
		}
		r = []rune(s)[0]
	default:
		r = k.Char
	}
	want := map[string]bool{}
	for _, m := range k.Modifiers {
		if m == "ControlOrMeta" {
			m = "Control"
		}
		want[m] = true
	}
	var out []*input.DispatchKeyEventParams
	var mods int64
	var held []string
	for _, mk := range modifierKeys {
		if !want[mk.name] {
			continue
		}
		mods |= mk.bit
		for _, ev := range kb.Encode([]rune(mk.key)[0]) {
			if ev.Type == input.DispatchKeyEventTypeKeyDown {
				ev.Modifiers = mods
				out = append(out, ev)
			}
		}
		held = append(held, mk.key)
	}
	evs := kb.Encode(r)
	if _, known := kb.Keys[r]; !known && k.Name == "" {
		return nil, engineerr.New(engineerr.UnsupportedCapability, "the key %s is not on this engine's keyboard layout", k.String())
	}
	for _, ev := range evs {
		if ev.Type == input.DispatchKeyEventTypeChar && mods&(modCtrl|modAlt|modMeta) != 0 {
			continue
		}
		ev.Modifiers |= mods
		if ev.Type == input.DispatchKeyEventTypeKeyDown && mods&(modCtrl|modAlt|modMeta) != 0 {
			ev.Type = input.DispatchKeyEventTypeRawKeyDown
		}
		out = append(out, ev)
	}
	for i := len(held) - 1; i >= 0; i-- {
		mk := modifierKeys[0]
		for _, m := range modifierKeys {
			if m.key == held[i] {
				mk = m
			}
		}
		mods &^= mk.bit
		for _, ev := range kb.Encode([]rune(mk.key)[0]) {
			if ev.Type == input.DispatchKeyEventTypeKeyUp {
				ev.Modifiers = mods
				out = append(out, ev)
			}
		}
	}
	return out, nil
}

// typeText sends text character by character: key events for characters
// on the layout, an IME commit for the others (emoji, non-Latin scripts).
func (d *dispatcher) typeText(text string) error {
	for _, r := range text {
		if r == '\n' {
			r = '\r'
		}
		if _, ok := kb.Keys[r]; ok {
			if err := d.keys(kb.Encode(r)); err != nil {
				return err
			}
			continue
		}
		if err := d.insertText(string(r)); err != nil {
			return err
		}
	}
	return nil
}

// Type implements server.Keyboard: keystrokes into whatever has focus,
// which must take them.
//
// Implements: KEY-001, KEY-002, KEY-003.
func (e *Engine) Type(ctx context.Context, op server.Operation, text string, opts wire.TypeOptions) error {
	t, cctx, done, err := e.begin(ctx, op)
	if err != nil {
		return err
	}
	defer done()
	var ok bool
	if err := t.call(cctx, &ok, "focusedEditable"); err != nil {
		return classify(ctx, cctx, "keyboard/type", false, err)
	}
	if !ok {
		return engineerr.New(engineerr.NotActionable, "nothing that takes keystrokes has focus: the typed text would reach no field. Tap the field first, or type into a listed input by id.")
	}
	d := &dispatcher{t: t, ctx: cctx}
	if opts.Replace {
		evs, err := keyEvents(wire.Key{Modifiers: []string{"Control"}, Char: 'a'})
		if err != nil {
			return err
		}
		del, err := keyEvents(wire.Key{Name: "Delete"})
		if err != nil {
			return err
		}
		if err := d.keys(append(evs, del...)); err != nil {
			return classify(ctx, cctx, "keyboard/type", d.committed, err)
		}
	}
	if err := d.typeText(text); err != nil {
		return classify(ctx, cctx, "keyboard/type", d.committed, err)
	}
	return nil
}

// Press implements server.Keyboard: one key with its modifiers, to
// whatever has focus.
//
// Implements: KEY-004.
func (e *Engine) Press(ctx context.Context, op server.Operation, k wire.Key) error {
	evs, err := keyEvents(k)
	if err != nil {
		return err
	}
	t, cctx, done, err := e.begin(ctx, op)
	if err != nil {
		return err
	}
	defer done()
	d := &dispatcher{t: t, ctx: cctx}
	if err := d.keys(evs); err != nil {
		return classify(ctx, cctx, "keyboard/press", d.committed, err)
	}
	return nil
}
