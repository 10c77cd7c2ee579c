package conformance

import (
	"context"
	"fmt"

	. "github.com/onsi/gomega"

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
		[]string{"KEY-005"}, func(ctx context.Context, e *Env) {
			a := e.rawAttempt(ctx)
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
		[]string{"KEY-006"}, func(ctx context.Context, e *Env) {
			a := e.rawAttempt(ctx)
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
			expectNull(a.call(ctx, wire.MethodDismiss, ""), "keyboard/dismiss with no on-screen keyboard shown")
		})
}
