package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/e2e-conform/toolkit/conformance/fixture"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// State capture and restore: spec §4.15, §5.10; catalog STATE.
func stateSpecs(s *suite) {
	// expiresAt is read as any RFC 3339 date-time (the statement's words;
	// §0.4 writes timestamps in UTC with Z, which the schema run-wide check
	// does not require either). "After the capture" is checked against the
	// moment the suite wrote the capture request, and only when the suite
	// shares the server's clock (as ART-004 does for its times).
	s.spec("state/capture returns {format, version, data} with a non-empty format, a number version, and expiresAt, when present, an RFC 3339 time after the capture",
		[]string{"STATE-001"}, func(ctx context.Context, e *runEnv) {
			a := e.openRawAttempt(ctx)
			a.openFixtureRoot(ctx)
			sent := time.Now()
			st := resultObject(a.call(ctx, wire.MethodCapture, ""), "state/capture")
			var format string
			Expect(json.Unmarshal(st["format"], &format)).To(Succeed(), "format: want a non-empty string, got %s", orDefault(string(st["format"]), "absent"))
			Expect(format).NotTo(BeEmpty(), "format: want a non-empty string, got \"\"")
			var version float64
			Expect(st).To(HaveKey("version"), "version: want a number, got none")
			Expect(json.Unmarshal(st["version"], &version)).To(Succeed(), "version: want a number, got %s", st["version"])
			Expect(string(st["version"])).NotTo(Equal("null"), "version: want a number, got null")
			Expect(st).To(HaveKey("data"), "data: want a JSON value, got none")
			if raw, ok := st["expiresAt"]; ok {
				var v string
				Expect(json.Unmarshal(raw, &v)).To(Succeed(), "expiresAt: want an RFC 3339 string, got %s", raw)
				t, err := parseRFC3339(v)
				Expect(err).NotTo(HaveOccurred(), "expiresAt: want an RFC 3339 date-time, got %q", v)
				if shared, _ := e.sharesHost(); shared {
					Expect(t.After(sent)).To(BeTrue(), "expiresAt: want a time after the capture (request written at %s), got %s", sent.UTC().Format(time.RFC3339Nano), v)
				}
			}
		})

	// Leaving the surface's state unchanged (the other half of D48) is not
	// observable without the storage fixture; the statement asks for the
	// error.
	s.spec("state/restore of a state with an unknown format fails with -32000 e2e configuration SESSION_INVALID",
		[]string{"STATE-005"}, func(ctx context.Context, e *runEnv) {
			a := e.openRawAttempt(ctx)
			what := "state/restore of {format: \"e2e-conform-unknown\", version: 1, data: {}}"
			eo := expectCode(a.call(ctx, wire.MethodRestore, `"state":{"format":"e2e-conform-unknown","version":1,"data":{}}`), wire.CodeEngineError, what)
			d := dataOf(eo)
			Expect(d.Type+" "+d.Category+" "+d.Code).To(Equal("e2e configuration SESSION_INVALID"),
				"%s: want e2e configuration SESSION_INVALID, got type %q category %q code %q (%q)", what, d.Type, d.Category, d.Code, eo.Message)
		})

	// ---- fixture specs (profile full) ----

	// Each state is captured on a connection of its own and restored on a
	// NEW connection in its attempt, right after startAttempt (the
	// harness's order, §4.0), before the storage screen is opened again.
	// Values are fresh per spec, so an engine that keeps storage across
	// connections cannot show them by accident from another spec. Within
	// the spec it could (§2.8: whether connections share state is the
	// server's choice): after the capture, session/reset (when listed)
	// clears the capture's storage, and a control connection that restores
	// nothing opens the storage screen first. When it already shows V, the
	// value outlives its connection (and the reset), a restore that did
	// nothing would show it too: not verified.
	s.spec("a state captured after the storage fixture stored a value, restored in a later attempt on a new connection, makes the fixture show that value",
		[]string{"STATE-002"}, func(ctx context.Context, e *runEnv) {
			e.fxNeed("to restore the captured state", wire.MethodRestore)
			v := fxCanary("v2-")
			st, cc, cop := e.fxCaptureStored(ctx, []string{v})
			reset := ""
			if e.Manifest.Lists(wire.MethodReset) {
				// The reset only helps an engine that keeps storage across
				// connections; what it answers is SESS-004/SESS-005's
				// concern, not STATE-002's: an error is noted, and the
				// control connection below decides as without a reset.
				if err := cc.Reset(ctx, cop); err != nil {
					noteEntry("session/reset after capturing the state holding %q got %s; the spec went on without it", v, fxDescribeError(err))
				} else {
					reset = ", and the session/reset sent after the capture"
				}
			}
			e.fxEnd(ctx, cc)
			bc, bop, _ := e.inAttempt(ctx)
			if before := fxStored(e.fxStage(ctx, bc, bop, fixture.Storage(), "")); slices.Contains(before, v) {
				Skip(notVerified + fmt.Sprintf("a new connection that restored nothing already shows %q (it outlived the connection that stored it%s), so the storage fixture cannot show what state/restore did", v, reset))
			}
			e.fxEnd(ctx, bc)
			c, op, _ := e.inAttempt(ctx)
			err := c.Restore(ctx, op, *st)
			Expect(err).NotTo(HaveOccurred(), "state/restore, on a new connection, of the state captured while the storage fixture stored %q: want null, got %s", v, fxDescribeError(err))
			got := fxStored(e.fxStage(ctx, c, op, fixture.Storage(), ""))
			Expect(got).To(ContainElement(v), "the storage fixture after the restore on a new connection: want the stored values to hold %q, got %v", v, got)
		})

	// V and W are captured on connections of their own; the state holding
	// W must hold W only (session/reset, when listed, clears what an engine
	// keeping storage across connections still had; otherwise the spec is
	// not verified). Both are restored one after the other right after
	// startAttempt, V first: a restore that merges leaves V next to W.
	s.spec("restoring a state holding only W after one holding V leaves V gone: restore replaces, never merges",
		[]string{"STATE-003"}, func(ctx context.Context, e *runEnv) {
			e.fxNeed("to restore the captured states", wire.MethodRestore)
			v, w := fxCanary("v3-"), fxCanary("w3-")
			sv, _, _ := e.fxCaptureStored(ctx, []string{v})
			sw, _, _ := e.fxCaptureStored(ctx, []string{w})
			c, op, _ := e.inAttempt(ctx)
			err := c.Restore(ctx, op, *sv)
			Expect(err).NotTo(HaveOccurred(), "state/restore of the state holding %q: want null, got %s", v, fxDescribeError(err))
			err = c.Restore(ctx, op, *sw)
			Expect(err).NotTo(HaveOccurred(), "state/restore of the state holding only %q, right after the one holding %q: want null, got %s", w, v, fxDescribeError(err))
			got := fxStored(e.fxStage(ctx, c, op, fixture.Storage(), ""))
			Expect(got).To(Equal([]string{w}), "the storage fixture after restoring the state holding %q and then the one holding only %q: want the stored values [%s] (restore replaces), got %v", v, w, w, got)
		})

	// The canary (fixture.StorageCanary) is stored by the storage screen
	// whenever it loads. The spec captures and restores a state holding it
	// (also into a new connection), and provokes errors that could echo
	// state contents: restoring the captured data under an unknown format
	// and under the captured format with another version. Then no error it
	// received, no engine/log line or attempt/* notification of its
	// connections, and no stderr line of the run (spawn only) may contain
	// the canary. It is not registered with e.Secret: that registry holds
	// ERR-007's canaries.
	s.spec("the storage fixture's canary, kept in state without being displayed, appears in no error, engine/log line, attempt/* notification or stderr line",
		[]string{"STATE-004"}, func(ctx context.Context, e *runEnv) {
			var errs []string
			var msgs []*notifications
			keep := func(err error) {
				if eo := fxWireError(err); eo != nil {
					errs = append(errs, fmt.Sprintf("error %d %q data %s", eo.Code, eo.Message, string(eo.Data)))
				} else if err != nil {
					errs = append(errs, err.Error())
				}
			}
			c, op, m1 := e.inAttempt(ctx)
			msgs = append(msgs, m1)
			e.fxStage(ctx, c, op, fixture.Storage(), fixture.StoragePath(fxCanary("v4-")))
			st, err := c.Capture(ctx, op)
			Expect(err).NotTo(HaveOccurred(), "state/capture on the storage fixture: want a state, got %s", fxDescribeError(err))
			if e.Manifest.Lists(wire.MethodRestore) {
				keep(c.Restore(ctx, op, *st))
				keep(c.Restore(ctx, op, wire.EngineState{Format: "e2e-conform-unknown", Version: st.Version, Data: st.Data}))
				keep(c.Restore(ctx, op, wire.EngineState{Format: st.Format, Version: st.Version + 1000, Data: st.Data}))
				e.fxStage(ctx, c, op, fixture.Storage(), "")
				c2, op2, m2 := e.inAttempt(ctx)
				msgs = append(msgs, m2)
				keep(c2.Restore(ctx, op2, *st))
				e.fxStage(ctx, c2, op2, fixture.Storage(), "")
				_, err = c2.Capture(ctx, op2)
				keep(err)
				e.fxEnd(ctx, c2)
			}
			e.fxEnd(ctx, c) // stderr of a spawned server is read to its end
			canary := []string{fixture.StorageCanary}
			var leaks []string
			leaks = append(leaks, fxLeaks("error", errs, canary)...)
			for i, m := range msgs {
				leaks = append(leaks, fxLeaks(fmt.Sprintf("connection %d: message", i+1), m.All(), canary)...)
			}
			leaks = append(leaks, fxLeaks("stderr line", e.StderrLines(), canary)...)
			Expect(leaks).To(BeEmpty(), "the storage fixture's canary %q: want it nowhere the server writes, got %s", fixture.StorageCanary, strings.Join(firstFew(leaks, 8), "; "))
			if e.Transport != "spawn" {
				noteEntry("the suite reaches the server over a socket: its stderr is not visible, only errors and messages were searched")
			}
		})
}
