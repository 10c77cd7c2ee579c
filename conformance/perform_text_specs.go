package conformance

import (
	"context"
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/gomega"

	"github.com/e2e-conform/toolkit/conformance/fixture"
	"github.com/e2e-conform/toolkit/protocol/engineerr"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// performTextSpecs registers ACT-003, ACT-004 and ACT-005: fill and clear, a
// sensitive fill, and press into a node (spec §4.10, §5.8).
func performTextSpecs(s *suite) {
	// "Whatever it held before": the second fill goes into an input that
	// holds the first value. clear then empties an input holding the last
	// fill's value; when fill is not listed, the input holds nothing to
	// clear and clear is not verified. An empty input may report value ""
	// or (leniently) no value.
	s.spec("fill leaves the input's observed value equal to the given value, whatever it held before; clear leaves it empty",
		[]string{"ACT-003"}, func(ctx context.Context, e *runEnv) {
			a := e.openScreenClient(ctx)
			a.stage(ctx, fixture.Form())
			if a.can(wire.ActionFill) {
				for _, v := range []string{"Ada Lovelace", "Grâce Hopper 😀"} {
					a.observe(ctx)
					held, _ := a.value(fixture.FormName())
					err := a.perform(ctx, fixture.FormName(), wire.LocatorAction{Kind: wire.ActionFill, Value: v})
					Expect(err).NotTo(HaveOccurred(), "fill %q into the form's Name input: want null, got an error", v)
					a.await(ctx, func() bool { got, _ := a.value(fixture.FormName()); return got == v })
					got, ok := a.value(fixture.FormName())
					Expect(ok).To(BeTrue(), "after fill %q the Name input reports no value", v)
					Expect(got).To(Equal(v), "fill %q into the Name input that held %q: want the value %q, got %q", v, held, v, got)
				}
			}
			if a.can(wire.ActionClear) {
				a.observe(ctx)
				held, _ := a.value(fixture.FormName())
				err := a.perform(ctx, fixture.FormName(), wire.LocatorAction{Kind: wire.ActionClear})
				Expect(err).NotTo(HaveOccurred(), "clear of the form's Name input: want null, got an error")
				a.await(ctx, func() bool { got, _ := a.value(fixture.FormName()); return got == "" })
				got, _ := a.value(fixture.FormName())
				Expect(got).To(BeEmpty(), "clear of the Name input that held %q: want it empty, got the value %q", held, got)
				if held == "" {
					skipNotVerified("clear: the Name input was already empty (fill is not listed to give it content), so an empty input after clear shows nothing")
				}
			}
		})

	// The fill value is a random canary registered as a secret, so that
	// it is redacted from reports and the run-wide ERR-007 check looks for
	// it too. After the fill the spec provokes a later error (a perform on
	// a ref that binds nothing) and observes; it then reads the errors it
	// got, the engine/log and attempt/* messages of its connection, and —
	// when it spawned the server, after closing the connection so that
	// stderr is drained — every stderr line. A server reached over a socket
	// has no stderr the suite can read: that part is then noted as not
	// checked.
	s.spec("fill with sensitive: true into the password field either succeeds with the value absent from every later error, engine/log line, attempt/* notification and stderr line, or fails with UNSUPPORTED_CAPABILITY",
		[]string{"ACT-004"}, func(ctx context.Context, e *runEnv) {
			a := e.openScreenClient(ctx)
			a.stage(ctx, fixture.Form())
			v := "e2e-conform-sensitive-" + actToken()
			e.Secret(v)
			err := a.perform(ctx, fixture.FormPassword(), wire.LocatorAction{Kind: wire.ActionFill, Value: v, Sensitive: true})
			if err != nil {
				actExpectEngineError(err, "fill with sensitive: true into the password field", engineerr.UnsupportedCapability)
				return
			}
			var errs []string
			gone := wire.NodeRef{ID: "e2e-conform-no-such-node-" + actToken(), Revision: a.revision()}
			if err := a.c.Perform(ctx, a.op, gone, wire.LocatorAction{Kind: wire.ActionFill, Value: "later"}); err != nil {
				errs = append(errs, actErrorText(err))
			}
			a.observe(ctx)
			for _, t := range errs {
				Expect(strings.Contains(t, v)).To(BeFalse(), "a later error carries the sensitive fill value: %s", clip(e.Redact(t)))
			}
			for _, m := range a.msgs.All() {
				Expect(strings.Contains(m, v)).To(BeFalse(), "a later server message carries the sensitive fill value: %s", clip(e.Redact(m)))
			}
			if e.Transport != "spawn" {
				noteEntry("the server is reached over a socket: its stderr is not visible to the suite and was not searched for the sensitive value")
				return
			}
			_ = a.c.Close(5 * time.Second) // drains the server's stderr
			for _, l := range e.StderrLines() {
				Expect(strings.Contains(l, v)).To(BeFalse(), "a stderr line of the server carries the sensitive fill value: %s", clip(e.Redact(l)))
			}
		})

	// The suite presses actPressKeys on the keys screen's input (each press
	// on its current ref) and reads the log after each: one new keydown of
	// that key (fixture.KeyEvent.Matches), or, when the engine refuses the
	// key with UNSUPPORTED_CAPABILITY, nothing new.
	s.spec("press delivers named keys, characters, modifier combinations and Shift++ to the node as the keys fixture shows, or fails with UNSUPPORTED_CAPABILITY, and never delivers another key",
		[]string{"ACT-005"}, func(ctx context.Context, e *runEnv) {
			a := e.openScreenClient(ctx)
			a.stage(ctx, fixture.Keys())
			delivered := 0
			for _, key := range actPressKeys {
				ref := a.ref(ctx, fixture.KeysInput())
				before := len(a.keyLog())
				err := a.c.Perform(ctx, a.op, ref, wire.LocatorAction{Kind: wire.ActionPress, Key: key})
				if a.expectKeyDelivered(ctx, key, err, before, fmt.Sprintf("engine/perform press %q on the keys input", key)) {
					delivered++
				}
			}
			a.expectNoLateKeys(ctx, "engine/perform press")
			expectSomeKeyDelivered(delivered, "press")
		})
}
