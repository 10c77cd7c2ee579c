package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/e2e-conform/toolkit/conformance/fixture"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// observePixelsSpecs registers OBS-008, OBS-009 and OBS-011: no pixels unless
// asked, decodable pixels, and treeUnavailable only with pixelFallback (spec
// §4.8).
func observePixelsSpecs(s *suite) {
	s.spec("without options.pixels: true the snapshot carries no pixels",
		[]string{"OBS-008"}, func(ctx context.Context, e *runEnv) {
			a := e.openRawAttempt(ctx)
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
		[]string{"OBS-009"}, func(ctx context.Context, e *runEnv) {
			a := e.openRawAttempt(ctx)
			snap := a.observe(ctx, `{"pixels":true}`)
			raw, has := snap["pixels"]
			if !has {
				Skip(nothingToCheck + "engine/observe with options.pixels: true returned no pixels; there was nothing to decode")
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
		[]string{"OBS-011"}, func(ctx context.Context, e *runEnv) {
			a := e.openRawAttempt(ctx)
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
			// "The full tree" is every node, not only the root's members
			// (§4.8: "When the tree can be read, the engine MUST return it,
			// whatever pixelFallback says"). In the full profile the tree
			// fixture gives a deep tree to compare (else the surface at
			// hand): every node id of the plain observations taken right
			// before and right after the fallback one must be in it; a node
			// only one of them holds is the surface changing, not judged.
			deep := a.stageRaw(ctx, fixture.Tree())
			if deep == nil {
				deep = a.observe(ctx, "")
			}
			before := rawNodeIDs(deep["root"])
			for _, opts := range []string{`{"pixelFallback":true}`, `{"pixels":true,"pixelFallback":true}`} {
				fallback := rawNodeIDs(a.observe(ctx, opts)["root"])
				after := rawNodeIDs(a.observe(ctx, "")["root"])
				var missing []string
				for _, id := range before {
					if slices.Contains(after, id) && !slices.Contains(fallback, id) {
						missing = append(missing, fmt.Sprintf("%q", id))
					}
				}
				Expect(missing).To(BeEmpty(), "engine/observe with options %s while the tree is readable: want the full tree (every node of the plain observations before and after it, %d nodes), got %d node(s) missing: %s",
					opts, len(after), len(missing), strings.Join(firstFew(missing, 10), ", "))
				before = after
			}
		})

	// ---- fixture specs (profile full) ----
}
