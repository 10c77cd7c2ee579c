package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	. "github.com/onsi/gomega"

	"github.com/e2e-conform/toolkit/conformance/fixture"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// observeSnapshotSpecs registers OBS-001, OBS-002 and OBS-003: the shape of
// every snapshot, the stable root id, and unique node ids (spec §5.4, §4.8,
// §5.5).
func observeSnapshotSpecs(s *suite) {
	s.spec("every snapshot is an EngineSnapshot: a root with a non-empty ref.id, a positive viewport, and every node valid per §5.5",
		[]string{"OBS-001"}, func(ctx context.Context, e *runEnv) {
			a := e.openRawAttempt(ctx)
			check := func(what string, snap map[string]json.RawMessage) {
				p := snapshotProblems(snap)
				Expect(p).To(BeEmpty(), "%s: want a valid EngineSnapshot, got %d problem(s): %s", what, len(p), strings.Join(firstFew(p, 10), "; "))
			}
			check("the start surface", a.observe(ctx, ""))
			check("the start surface with pixels", a.observe(ctx, `{"pixels":true}`))
			if e.Manifest.Lists(wire.MethodOpen) {
				a.openFixtureRoot(ctx)
				check("the fixture server's root page", a.observe(ctx, ""))
			}
			// "Every node valid per §5.5" binds nodes a start surface
			// seldom shows (a password field's inputPurpose, headings'
			// levels, a select's options): in the full profile the tree
			// and form fixtures are checked too, each when it could be
			// staged (the requirement needs no fixture).
			for _, sc := range []fixture.Screen{fixture.Tree(), fixture.Form()} {
				if snap := a.stageRaw(ctx, sc); snap != nil {
					check("the "+sc.Name+" fixture", snap)
				}
			}
		})

	s.spec("root.ref.id is the same across consecutive observations and across session/restart and session/reset",
		[]string{"OBS-002"}, func(ctx context.Context, e *runEnv) {
			a := e.openRawAttempt(ctx)
			want := rawRootID(a.observe(ctx, ""))
			Expect(want).NotTo(BeEmpty(), "root.ref.id of the first observation")
			same := func(what string) {
				got := rawRootID(a.observe(ctx, ""))
				Expect(got).To(Equal(want), "root.ref.id %s: want %q (the first observation's), got %q", what, want, got)
			}
			same("of the next observation")
			same("of a third observation")
			// Consecutive observations are any observations (§4.8: the
			// root's ref.id "MUST be stable across observations of the
			// surface"): one with pixels and one asking for the pixel
			// fallback on a readable tree are among them.
			for _, opts := range []string{`{"pixels":true}`, `{"pixels":true,"pixelFallback":true}`} {
				got := rawRootID(a.observe(ctx, opts))
				Expect(got).To(Equal(want), "root.ref.id of an observation with options %s: want %q (the first observation's), got %q", opts, want, got)
			}
			if e.Manifest.Lists(wire.MethodOpen) {
				a.openFixtureRoot(ctx)
				same("after session/open of the fixture server's root page")
			}
			for _, m := range []string{wire.MethodRestart, wire.MethodReset} {
				if !e.Manifest.Lists(m) {
					continue
				}
				expectNull(a.call(ctx, m, ""), m)
				same("after " + m)
				if e.Manifest.Lists(wire.MethodOpen) {
					a.openFixtureRoot(ctx)
					same("after " + m + " and a new session/open")
				}
			}
		})

	s.spec("no two nodes of one snapshot share a ref.id",
		[]string{"OBS-003"}, func(ctx context.Context, e *runEnv) {
			a := e.openRawAttempt(ctx)
			check := func(what string, snap map[string]json.RawMessage) {
				seen := map[string]int{}
				var dups []string
				for _, id := range rawNodeIDs(snap["root"]) {
					seen[id]++
					if seen[id] == 2 {
						dups = append(dups, fmt.Sprintf("%q", id))
					}
				}
				Expect(dups).To(BeEmpty(), "%s: want unique node ids, got %d shared: %s", what, len(dups), strings.Join(firstFew(dups, 10), ", "))
			}
			check("the start surface", a.observe(ctx, ""))
			check("the start surface with pixels", a.observe(ctx, `{"pixels":true}`))
			if e.Manifest.Lists(wire.MethodOpen) {
				a.openFixtureRoot(ctx)
				check("the fixture server's root page", a.observe(ctx, ""))
			}
			// "Node ids MUST be unique within one snapshot" (§4.8) binds
			// every snapshot, also of nodes a start surface seldom shows
			// (duplicate buttons, a select's options): in the full profile
			// the tree and form fixtures are checked too, each when it could
			// be staged (the requirement needs no fixture, so one that could
			// not be staged leaves the checks above).
			for _, sc := range []fixture.Screen{fixture.Tree(), fixture.Form()} {
				if snap := a.stageRaw(ctx, sc); snap != nil {
					check("the "+sc.Name+" fixture", snap)
				}
			}
		})
}
