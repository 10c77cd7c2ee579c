package conformance

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/color"
	"image/png"
	"math"
	"strings"
	"testing"

	"github.com/e2e-conform/toolkit/protocol/wire"
)

// TestJudgeMask holds judgeMask to D75: the inner part of the rect, scaled
// by image size over viewport size and inset by a quarter of the rect's
// height, all one colour; rects that leave no pixel cannot be judged.
func TestJudgeMask(t *testing.T) {
	bg := color.RGBA{R: 0xee, G: 0xee, B: 0xf4, A: 0xff}
	ink := color.RGBA{R: 0x22, G: 0x22, B: 0x22, A: 0xff}
	mask := color.RGBA{A: 0xff}
	// canvas is a w×h image of bg with the rects filled with mask and the
	// points set to ink.
	canvas := func(w, h int, masks []image.Rectangle, points ...image.Point) image.Image {
		img := image.NewRGBA(image.Rect(0, 0, w, h))
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				img.Set(x, y, bg)
			}
		}
		for _, m := range masks {
			for y := m.Min.Y; y < m.Max.Y; y++ {
				for x := m.Min.X; x < m.Max.X; x++ {
					img.Set(x, y, mask)
				}
			}
		}
		for _, p := range points {
			img.Set(p.X, p.Y, ink)
		}
		return img
	}
	vp := wire.ViewportSize{Width: 200, Height: 100}
	// field: 40 wide, 20 tall at (20, 30); inset 5 → inner x 25–54, y 35–44.
	field := wire.Rect{X: 20, Y: 30, Width: 40, Height: 20}
	fieldBox := image.Rect(20, 30, 60, 50)
	cases := []struct {
		name   string
		img    image.Image
		vp     wire.ViewportSize
		rect   wire.Rect
		want   maskVerdict
		pixels int    // when > 0, the pixels compared
		detail string // when not "", a part of the detail
	}{
		{"uniform background, no mask drawn", canvas(200, 100, nil), vp, field, maskMasked, 30 * 10, "#eeeef4ff"},
		{"masked black", canvas(200, 100, []image.Rectangle{fieldBox}), vp, field, maskMasked, 300, "#000000ff"},
		{"a mask larger than the rect", canvas(200, 100, []image.Rectangle{image.Rect(0, 0, 120, 80)}, image.Pt(150, 90)), vp, field, maskMasked, 300, ""},
		{"one differing pixel inside the inset", canvas(200, 100, []image.Rectangle{fieldBox}, image.Pt(40, 40)), vp, field, maskUnmasked, 300, "1 of the 300 pixels"},
		{"a differing pixel at the inner part's first corner", canvas(200, 100, []image.Rectangle{fieldBox}, image.Pt(25, 35)), vp, field, maskUnmasked, 0, "(26, 35)"},
		{"a differing pixel at the inner part's last corner", canvas(200, 100, []image.Rectangle{fieldBox}, image.Pt(54, 44)), vp, field, maskUnmasked, 0, "(54, 44)"},
		{"differing pixels only in the inset border", canvas(200, 100, []image.Rectangle{fieldBox},
			image.Pt(20, 30), image.Pt(24, 40), image.Pt(55, 40), image.Pt(40, 34), image.Pt(40, 45), image.Pt(59, 49)), vp, field, maskMasked, 300, ""},
		{"unmasked text across the field", canvas(200, 100, nil, image.Pt(30, 40), image.Pt(32, 40), image.Pt(34, 40)), vp, field, maskUnmasked, 300, "3 of the 300"},
		{"scaled 2x, masked", canvas(400, 200, []image.Rectangle{image.Rect(40, 60, 120, 100)}, image.Pt(45, 65), image.Pt(115, 95)), vp, field, maskMasked, 60 * 20, "2×2"},
		{"scaled 2x, a differing pixel inside the inset", canvas(400, 200, []image.Rectangle{image.Rect(40, 60, 120, 100)}, image.Pt(100, 85)), vp, field, maskUnmasked, 1200, ""},
		{"scaled 2x, the mask drawn at 1x", canvas(400, 200, []image.Rectangle{image.Rect(10, 10, 90, 50)}), vp,
			wire.Rect{X: 10, Y: 10, Width: 80, Height: 40}, maskUnmasked, 120 * 40, ""},
		{"scaled 0.5x, masked", canvas(100, 50, []image.Rectangle{image.Rect(10, 15, 30, 25)}), vp, field, maskMasked, 15 * 5, ""},
		{"anisotropic scale", canvas(400, 100, []image.Rectangle{image.Rect(40, 30, 120, 50)}, image.Pt(45, 33)), vp, field, maskMasked, 60 * 10, ""},
		{"partly outside the image, masked where visible", canvas(200, 100, []image.Rectangle{image.Rect(180, 80, 200, 100)}), vp,
			wire.Rect{X: 180, Y: 80, Width: 60, Height: 40}, maskMasked, 10 * 10, "the part inside the image"},
		{"partly outside the image, text where visible", canvas(200, 100, []image.Rectangle{image.Rect(180, 80, 200, 100)}, image.Pt(195, 95)), vp,
			wire.Rect{X: 180, Y: 80, Width: 60, Height: 40}, maskUnmasked, 100, ""},
		{"a negative origin", canvas(200, 100, []image.Rectangle{image.Rect(0, 0, 30, 10)}), vp,
			wire.Rect{X: -20, Y: -10, Width: 50, Height: 20}, maskMasked, 25 * 5, ""},
		{"wholly outside the image", canvas(200, 100, nil), vp, wire.Rect{X: 300, Y: 10, Width: 40, Height: 20}, maskUnjudged, 0, "outside the image"},
		{"zero width", canvas(200, 100, nil), vp, wire.Rect{X: 20, Y: 30, Width: 0, Height: 20}, maskUnjudged, 0, "no area"},
		{"zero height", canvas(200, 100, nil), vp, wire.Rect{X: 20, Y: 30, Width: 40, Height: 0}, maskUnjudged, 0, "no area"},
		{"narrower than half its height", canvas(200, 100, nil), vp, wire.Rect{X: 20, Y: 30, Width: 9, Height: 20}, maskUnjudged, 0, "no whole pixel"},
		{"tiny at the image's scale", canvas(20, 10, nil), vp, wire.Rect{X: 0, Y: 0, Width: 8, Height: 4}, maskUnjudged, 0, "no whole pixel"},
		{"a tiny rect at full scale", canvas(200, 100, nil, image.Pt(10, 10)), vp, wire.Rect{X: 10, Y: 10, Width: 3, Height: 2}, maskUnmasked, 2, ""},
		{"a zero viewport", canvas(200, 100, nil), wire.ViewportSize{}, field, maskUnjudged, 0, "no area to scale"},
		{"a NaN rect", canvas(200, 100, nil), vp, wire.Rect{X: math.NaN(), Y: 30, Width: 40, Height: 20}, maskUnjudged, 0, "not finite"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := judgeMask(c.img, c.vp, c.rect)
			if got.verdict != c.want {
				t.Fatalf("verdict %d, want %d (%s)", got.verdict, c.want, got.detail)
			}
			if c.pixels > 0 && got.pixels != c.pixels {
				t.Errorf("%d pixels compared, want %d (%s)", got.pixels, c.pixels, got.detail)
			}
			if c.detail != "" && !strings.Contains(got.detail, c.detail) {
				t.Errorf("detail %q, want it to hold %q", got.detail, c.detail)
			}
		})
	}
}

// TestJudgeMaskOffsetBounds judges an image whose bounds start away from
// (0, 0): positions are read from the image's own origin.
func TestJudgeMaskOffsetBounds(t *testing.T) {
	img := image.NewRGBA(image.Rect(100, 100, 300, 200))
	img.Set(140, 140, color.Black) // (40, 40) from the origin: inside the field's inner part
	got := judgeMask(img, wire.ViewportSize{Width: 200, Height: 100}, wire.Rect{X: 20, Y: 30, Width: 40, Height: 20})
	if got.verdict != maskUnmasked {
		t.Fatalf("verdict %d, want unmasked (%s)", got.verdict, got.detail)
	}
}

// TestJudgeMaskTransparent: fully transparent pixels are one colour
// whatever their RGB (premultiplied comparison).
func TestJudgeMaskTransparent(t *testing.T) {
	img := image.NewNRGBA(image.Rect(0, 0, 200, 100))
	img.Set(40, 40, color.NRGBA{R: 0xff}) // alpha 0
	got := judgeMask(img, wire.ViewportSize{Width: 200, Height: 100}, wire.Rect{X: 20, Y: 30, Width: 40, Height: 20})
	if got.verdict != maskMasked {
		t.Fatalf("verdict %d, want masked (%s)", got.verdict, got.detail)
	}
}

// TestReadPNGData reads padded standard base64 only (D33).
func TestReadPNGData(t *testing.T) {
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewRGBA(image.Rect(0, 0, 30, 20))); err != nil {
		t.Fatal(err)
	}
	std := base64.StdEncoding.EncodeToString(buf.Bytes())
	img, err := readPNGData(std)
	if err != nil || img.Bounds().Dx() != 30 {
		t.Fatalf("padded standard base64: %v", err)
	}
	var mime strings.Builder
	for i := 0; i < len(std); i += 76 {
		mime.WriteString(std[i:min(i+76, len(std))] + "\r\n")
	}
	for name, s := range map[string]string{
		"MIME line breaks": mime.String(),
		"unpadded":         base64.RawStdEncoding.EncodeToString(buf.Bytes()),
		"URL-safe":         strings.NewReplacer("+", "-", "/", "_").Replace(std),
		"not a PNG":        base64.StdEncoding.EncodeToString([]byte("GIF89a")),
		"empty":            "",
	} {
		if name == "URL-safe" && !strings.ContainsAny(std, "+/") {
			continue
		}
		if _, err := readPNGData(s); err == nil {
			t.Errorf("%s: read, want an error", name)
		}
	}
}
