package conformance

import (
	"context"
	"fmt"

	. "github.com/onsi/gomega"

	"github.com/e2e-conform/toolkit/conformance/fixture"
	"github.com/e2e-conform/toolkit/protocol/engineerr"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// Keyboard: spec §4.12–§4.14, §5.9; catalog KEY.
func keyboardSpecs(s *suite) {
	// Both paths are checked, each when listed: keyboard/press, and
	// engine/perform press on the root's ref (the key must be refused
	// before anything about the node matters: a string outside the grammar
	// is never delivered, §4.10). "" may be refused by params validation
	// with -32602 like the others. Whether the key reached the app is not
	// observable without the keys fixture; the answer is what is checked.
	s.spec("a key outside the grammar (\"\", Ctrl+a, Control+Control+a, ab, F13) gets -32602 or -32000 engine UNSUPPORTED_CAPABILITY, from keyboard/press and from a press action",
		[]string{"KEY-005"}, func(ctx context.Context, e *runEnv) {
			a := e.openRawAttempt(ctx)
			keys := []string{"", "Ctrl+a", "Control+Control+a", "ab", "F13"}
			if e.Manifest.Lists(wire.MethodPress) {
				for _, k := range keys {
					ok, got := isInvalidKeyAnswer(a.call(ctx, wire.MethodPress, fmt.Sprintf(`"key":%q`, k)))
					Expect(ok).To(BeTrue(), "keyboard/press %q: want -32602 or -32000 engine UNSUPPORTED_CAPABILITY, got %s", k, got)
				}
			}
			if e.Manifest.Lists(wire.MethodPerform) && e.Manifest.HasAction("press") {
				root := rawRootID(a.observe(ctx, ""))
				Expect(root).NotTo(BeEmpty(), "root.ref.id of an observation, the target of the press action")
				for _, k := range keys {
					ok, got := isInvalidKeyAnswer(a.call(ctx, wire.MethodPerform, fmt.Sprintf(`"ref":{"id":%q,"revision":""},"action":{"kind":"press","key":%q}`, root, k)))
					Expect(ok).To(BeTrue(), "engine/perform press %q on the root: want -32602 or -32000 engine UNSUPPORTED_CAPABILITY, got %s", k, got)
				}
			}
		})

	// An on-screen keyboard can be brought up without a fixture only by
	// focusing a text input the engine already shows: when the manifest
	// lists the focus action and an observation holds a textbox,
	// searchbox or combobox, the spec focuses it between the calls.
	// Otherwise it checks dismiss with whatever the surface shows, twice
	// (the second call certainly with no keyboard shown).
	s.spec("keyboard/dismiss gets null whether or not an on-screen keyboard is shown",
		[]string{"KEY-006"}, func(ctx context.Context, e *runEnv) {
			a := e.openRawAttempt(ctx)
			expectNull(a.call(ctx, wire.MethodDismiss, ""), "keyboard/dismiss on the start surface")
			if e.Manifest.Lists(wire.MethodPerform) && e.Manifest.HasAction("focus") {
				if id := textInputID(a.observe(ctx, "")["root"]); id != "" {
					// A focus that fails is the ACT area's concern; the
					// middle dismiss is then left out.
					if a.call(ctx, wire.MethodPerform, fmt.Sprintf(`"ref":{"id":%q,"revision":""},"action":{"kind":"focus"}`, id)).Error() == nil {
						expectNull(a.call(ctx, wire.MethodDismiss, ""), "keyboard/dismiss with the text input "+id+" focused")
					}
				}
			}
			// A start surface without a text input leaves the focused case
			// out; in the full profile the keys fixture's input is focused
			// as well, so that "whether or not an on-screen keyboard is
			// shown" (catalog KEY-006) covers the shown case wherever the
			// engine can show one (§4.14).
			if e.Manifest.Lists(wire.MethodPerform) && e.Manifest.HasAction("focus") {
				if snap := a.stageRaw(ctx, fixture.Keys()); snap != nil {
					if id := textInputID(snap["root"]); id != "" &&
						a.call(ctx, wire.MethodPerform, fmt.Sprintf(`"ref":{"id":%q,"revision":""},"action":{"kind":"focus"}`, id)).Error() == nil {
						expectNull(a.call(ctx, wire.MethodDismiss, ""), "keyboard/dismiss with the keys fixture's text input "+id+" focused")
					}
				}
			}
			expectNull(a.call(ctx, wire.MethodDismiss, ""), "keyboard/dismiss with no on-screen keyboard shown")
		})

	// The fixture specs below use the keys screen (screenclient.go):
	// the input is focused with the focus action, or else a click (tap,
	// press Enter, pointer tap), and each text goes into a freshly staged,
	// empty input. Only the ASCII text's keydowns are checked (D73): the
	// log must hold a keydown for each of its characters in order, other
	// lines between them allowed; an upper-case letter may be logged with
	// Shift.
	s.spec("keyboard/type into the focused empty input leaves its value equal to the text, accented and non-BMP characters included, and for ASCII letters and digits the keys fixture shows a keydown for each character in order",
		[]string{"KEY-001"}, func(ctx context.Context, e *runEnv) {
			a := e.openScreenClient(ctx)
			for _, c := range []struct {
				text     string
				keydowns bool
			}{
				{"abcXYZ0189", true},
				{"Crème brûlée à la carte", false},
				{"non-BMP 😀 𝄞 ok", false},
			} {
				a.stage(ctx, fixture.Keys())
				a.focus(ctx, fixture.KeysInput())
				a.observe(ctx)
				before := len(a.keyLog())
				err := a.c.Type(ctx, a.op, c.text, false)
				Expect(err).NotTo(HaveOccurred(), "keyboard/type %q into the focused keys input: want null, got an error", c.text)
				a.await(ctx, func() bool { v, _ := a.value(fixture.KeysInput()); return v == c.text })
				got, ok := a.value(fixture.KeysInput())
				Expect(ok).To(BeTrue(), "after keyboard/type %q the keys input reports no value", c.text)
				Expect(got).To(Equal(c.text), "keyboard/type %q into the empty input: want the value %q, got %q", c.text, c.text, got)
				if c.keydowns {
					events := actTail(a.keyLog(), before)
					Expect(actTypedKeydowns(c.text, events)).To(BeEmpty(), "keyboard/type %q: want a keydown for each character in order, the keys screen logged %q", c.text, events)
				}
			}
		})

	s.spec("keyboard/type with replace: true replaces the field's content, and with replace: false keeps it and adds the text",
		[]string{"KEY-002"}, func(ctx context.Context, e *runEnv) {
			a := e.openScreenClient(ctx)
			a.stage(ctx, fixture.Keys())
			a.focus(ctx, fixture.KeysInput())
			for _, c := range []struct {
				text    string
				replace bool
				want    string
			}{
				{"hello", false, "hello"},
				{" world", false, "hello world"},
				{"fresh", true, "fresh"},
			} {
				a.observe(ctx)
				held, _ := a.value(fixture.KeysInput())
				err := a.c.Type(ctx, a.op, c.text, c.replace)
				Expect(err).NotTo(HaveOccurred(), "keyboard/type %q with replace: %v: want null, got an error", c.text, c.replace)
				a.await(ctx, func() bool { v, _ := a.value(fixture.KeysInput()); return v == c.want })
				got, _ := a.value(fixture.KeysInput())
				Expect(got).To(Equal(c.want), "keyboard/type %q with replace: %v into the input holding %q: want the value %q, got %q", c.text, c.replace, held, c.want, got)
			}
		})

	// Nothing is focused when the keys screen opens (fixture contract);
	// then the button that accepts no text is focused, when the manifest
	// offers a way, and the type is sent again.
	s.spec("keyboard/type with nothing focused that accepts text fails with NOT_ACTIONABLE, not retryable",
		[]string{"KEY-003"}, func(ctx context.Context, e *runEnv) {
			a := e.openScreenClient(ctx)
			a.stage(ctx, fixture.Keys())
			check := func(what string) {
				err := a.c.Type(ctx, a.op, "abc", false)
				ee := actExpectEngineError(err, what, engineerr.NotActionable)
				Expect(ee.Retryable).To(BeFalse(), "%s: want NOT_ACTIONABLE not retryable, got retryable: true", what)
			}
			check("keyboard/type on the keys screen as it opens, nothing focused")
			focused := a.can(wire.ActionFocus)
			if focused {
				a.focus(ctx, fixture.KeysButton())
			} else {
				focused = a.click(ctx, fixture.KeysButton())
			}
			if !focused {
				noteEntry("the manifest offers no way to focus the keys screen's button: only the case with nothing focused was checked")
				return
			}
			check("keyboard/type with the keys screen's button, which accepts no text, focused")
		})

	// actPressKeys go to the focused keys input; the input is focused again
	// before a key whenever the newest observation shows it unfocused (a
	// key may move the focus). Tab comes last.
	s.spec("keyboard/press delivers each named key, a character, modifier combinations and Shift++ to the focused input as the keys fixture shows, ControlOrMeta as Control where the keys screen and the engine's host are known not to be macOS, or fails with UNSUPPORTED_CAPABILITY, and never delivers another key",
		[]string{"KEY-004"}, func(ctx context.Context, e *runEnv) {
			a := e.openScreenClient(ctx)
			a.stage(ctx, fixture.Keys())
			com, why := a.controlOrMeta()
			a.focus(ctx, fixture.KeysInput())
			delivered := 0
			for _, key := range actPressKeys {
				a.observe(ctx)
				if !a.node(fixture.KeysInput()).State("focused") {
					a.focus(ctx, fixture.KeysInput())
					a.observe(ctx)
				}
				before := len(a.keyLog())
				err := a.c.Press(ctx, a.op, key)
				if a.expectKeyDelivered(ctx, key, err, before, fmt.Sprintf("keyboard/press %q with the keys input focused", key)) {
					delivered++
					a.expectControlOrMeta(key, com, why, before)
				}
			}
			a.expectNoLateKeys(ctx, "keyboard/press")
			expectSomeKeyDelivered(delivered, "keyboard/press")
		})
}
