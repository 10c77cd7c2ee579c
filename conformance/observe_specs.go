package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	. "github.com/onsi/gomega"

	"github.com/e2e-conform/toolkit/protocol/wire"
)

// Observation: spec §4.8, §5.4, §5.5; catalog OBS.
//
// The specs read snapshots off a raw connection: the client library
// decodes them leniently (unknown state keys are dropped) and fails a whole
// connection on a malformed one, while these specs must see every member as
// sent. Observations are taken on the engine's start surface and, when the
// engine lists session/open, on the fixture server's root page (a plain
// document: no fixture screen is needed, and a web engine then observes more
// than a blank page).
func observeSpecs(s *suite) {
	s.spec("every snapshot is an EngineSnapshot: a root with a non-empty ref.id, a positive viewport, and every node valid per §5.5",
		[]string{"OBS-001"}, func(ctx context.Context, e *Env) {
			a := e.rawAttempt(ctx)
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
		})

	s.spec("root.ref.id is the same across consecutive observations and across session/restart and session/reset",
		[]string{"OBS-002"}, func(ctx context.Context, e *Env) {
			a := e.rawAttempt(ctx)
			want := rawRootID(a.observe(ctx, ""))
			Expect(want).NotTo(BeEmpty(), "root.ref.id of the first observation")
			same := func(what string) {
				got := rawRootID(a.observe(ctx, ""))
				Expect(got).To(Equal(want), "root.ref.id %s: want %q (the first observation's), got %q", what, want, got)
			}
			same("of the next observation")
			same("of a third observation")
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
		[]string{"OBS-003"}, func(ctx context.Context, e *Env) {
			a := e.rawAttempt(ctx)
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
		})

	s.spec("without options.pixels: true the snapshot carries no pixels",
		[]string{"OBS-008"}, func(ctx context.Context, e *Env) {
			a := e.rawAttempt(ctx)
			for _, opts := range []string{"", `{}`, `{"pixels":false}`} {
				snap := a.observe(ctx, opts)
				_, has := snap["pixels"]
				Expect(has).To(BeFalse(), "engine/observe with options %s: want no pixels, got pixels", orDefault(opts, "absent"))
			}
		})

	// Pixels stay optional with options.pixels: true ("when producible",
	// §4.8): an engine that returns none has nothing to decode, and the
	// spec passes with a note (not "not verified": that would make a full
	// run incomplete for an engine that never produces pixels, which
	// conforms).
	s.spec("pixels returned with options.pixels: true decode from padded standard base64 to a PNG of the stated width and height, with mediaType image/png and scale > 0",
		[]string{"OBS-009"}, func(ctx context.Context, e *Env) {
			a := e.rawAttempt(ctx)
			snap := a.observe(ctx, `{"pixels":true}`)
			raw, has := snap["pixels"]
			if !has {
				noteEntry("engine/observe with options.pixels: true returned no pixels; there was nothing to decode")
				return
			}
			var px struct {
				Data      *string          `json:"data"`
				MediaType *string          `json:"mediaType"`
				Width     json.RawMessage  `json:"width"`
				Height    json.RawMessage  `json:"height"`
				Scale     *json.RawMessage `json:"scale"`
			}
			Expect(json.Unmarshal(raw, &px)).To(Succeed(), "pixels: want an object, got %s", clip(string(raw)))
			Expect(px.MediaType).NotTo(BeNil(), "pixels.mediaType: want image/png, got none")
			Expect(*px.MediaType).To(Equal("image/png"), "pixels.mediaType: want image/png, got %q", *px.MediaType)
			Expect(px.Scale).NotTo(BeNil(), "pixels.scale: want a number > 0, got none")
			var scale float64
			Expect(json.Unmarshal(*px.Scale, &scale)).To(Succeed(), "pixels.scale: want a number > 0, got %s", *px.Scale)
			Expect(scale).To(BeNumerically(">", 0), "pixels.scale: want a number > 0, got %v", scale)
			w, wok := wire.ParseInteger(px.Width)
			h, hok := wire.ParseInteger(px.Height)
			Expect(wok && hok).To(BeTrue(), "pixels.width and height: want integers, got %s and %s", px.Width, px.Height)
			Expect(px.Data).NotTo(BeNil(), "pixels.data: want base64 of a PNG, got none")
			iw, ih, err := decodePNG(*px.Data)
			Expect(err).NotTo(HaveOccurred(), "pixels.data: want padded standard base64 of a PNG")
			Expect([]int64{int64(iw), int64(ih)}).To(Equal([]int64{w, h}), "pixels: the PNG is %d×%d, the snapshot states %d×%d", iw, ih, w, h)
		})

	// Without a fixture the suite cannot make the tree unreadable, so the
	// fallback's own shape (pixels and a root holding only ref) is checked
	// only if treeUnavailable ever appears — and on the readable tree used
	// here it must not appear at all, with or without pixelFallback.
	// "The full tree" is read as: the fallback answer's root carries what
	// the plain observation's root carried beyond ref (children, role, …),
	// the surface staying put between the two.
	s.spec("treeUnavailable appears only with options.pixelFallback: true, and with a readable tree pixelFallback: true still returns the full tree",
		[]string{"OBS-011"}, func(ctx context.Context, e *Env) {
			a := e.rawAttempt(ctx)
			plain := a.observe(ctx, "")
			Expect(plain).NotTo(HaveKey("treeUnavailable"), "engine/observe without options: want no treeUnavailable, got %s", plain["treeUnavailable"])
			for _, opts := range []string{`{"pixels":true}`, `{"pixelFallback":false}`, `{"pixels":true,"pixelFallback":false}`} {
				snap := a.observe(ctx, opts)
				Expect(snap).NotTo(HaveKey("treeUnavailable"), "engine/observe with options %s (no pixelFallback): want no treeUnavailable, got %s", opts, snap["treeUnavailable"])
			}
			want := memberNames(plain["root"])
			for _, opts := range []string{`{"pixelFallback":true}`, `{"pixels":true,"pixelFallback":true}`} {
				snap := a.observe(ctx, opts)
				Expect(snap).NotTo(HaveKey("treeUnavailable"),
					"engine/observe with options %s while the tree is readable (a plain observation just returned it): want the full tree, got treeUnavailable", opts)
				got := memberNames(snap["root"])
				for _, m := range want {
					Expect(got).To(ContainElement(m), "engine/observe with options %s: want the full tree (the root with %v, as the plain observation's), got a root with %v", opts, want, got)
				}
			}
		})
}
