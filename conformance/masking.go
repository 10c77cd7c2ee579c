package conformance

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	"image/png"
	"math"

	"github.com/e2e-conform/toolkit/protocol/wire"
)

// What "masked" means in an image (D75): the inner part of a secure
// field's rect — scaled by the image's size over the viewport's, inset on
// every side by a quarter of the rect's height (so borders and anti-aliased
// edges do not count) — has every pixel of one and the same colour; any
// colour, and a mask may cover more than the rect. OBS-010 judges it in
// observation pixels, ART-006 in screenshots.
//
// Which pixels are "the inner part": a pixel counts when its centre lies in
// the scaled, inset rect and the pixel lies wholly inside the scaled rect
// itself (so a pixel that reaches past the field's edge, where a mask
// drawn to the rect may be blended, is never judged), clipped to the image.
// A rect that leaves no such pixel (zero or tiny at the image's scale,
// narrower than half its height, or outside the image) cannot be judged,
// and the judgement says so. Colours are compared as the image reports
// them (premultiplied RGBA): two fully transparent pixels are one colour.

// maskVerdict is what D75 says of one rect in one image.
type maskVerdict int

const (
	// maskUnjudged: the rect leaves no pixel of the image to judge.
	maskUnjudged maskVerdict = iota
	// maskMasked: every pixel of the inner part is of one colour.
	maskMasked
	// maskUnmasked: the inner part holds pixels of more than one colour.
	maskUnmasked
)

// maskJudgement is the verdict on one rect with what it rests on, in words
// for a failure message or a note.
type maskJudgement struct {
	verdict maskVerdict
	// pixels is how many pixels of the inner part were compared (0 when
	// unjudged).
	pixels int
	// detail says what was judged and seen.
	detail string
}

// judgeMask judges D75 for r, a rect in the CSS pixels of a viewport of
// size vp, in img, an image of that viewport.
func judgeMask(img image.Image, vp wire.ViewportSize, r wire.Rect) maskJudgement {
	unjudged := func(format string, args ...any) maskJudgement {
		return maskJudgement{verdict: maskUnjudged, detail: fmt.Sprintf(format, args...)}
	}
	for _, v := range []float64{r.X, r.Y, r.Width, r.Height, vp.Width, vp.Height} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return unjudged("the rect %s or the viewport %v×%v is not finite", rectString(r), vp.Width, vp.Height)
		}
	}
	if !(vp.Width > 0 && vp.Height > 0) {
		return unjudged("the viewport %v×%v has no area to scale the rect by", vp.Width, vp.Height)
	}
	if !(r.Width > 0 && r.Height > 0) {
		return unjudged("the rect %s has no area", rectString(r))
	}
	b := img.Bounds()
	sx, sy := float64(b.Dx())/vp.Width, float64(b.Dy())/vp.Height
	inset := r.Height / 4
	// Whole pixels along one axis: centre in [in0, in1), pixel in
	// [out0, out1), all in image pixels from the image's left (top) edge.
	span := func(pos, size, scale float64) (lo, hi int) {
		in0, in1 := (pos+inset)*scale, (pos+size-inset)*scale
		out0, out1 := pos*scale, (pos+size)*scale
		lo = clampInt(math.Max(math.Ceil(in0-0.5), math.Ceil(out0)))
		hi = clampInt(math.Min(math.Ceil(in1-0.5), math.Floor(out1))) // exclusive
		return lo, hi
	}
	x0, x1 := span(r.X, r.Width, sx)
	y0, y1 := span(r.Y, r.Height, sy)
	scaled := fmt.Sprintf("the rect %s scaled by %.3g×%.3g (a %d×%d image of a %v×%v viewport) and inset by %v", rectString(r), sx, sy, b.Dx(), b.Dy(), vp.Width, vp.Height, inset)
	if x1 <= x0 || y1 <= y0 {
		return unjudged("%s leaves no whole pixel to judge (too small at this scale, or narrower than half its height)", scaled)
	}
	cx0, cx1 := max(x0, 0), min(x1, b.Dx())
	cy0, cy1 := max(y0, 0), min(y1, b.Dy())
	if cx1 <= cx0 || cy1 <= cy0 {
		return unjudged("%s lies outside the image (pixels x %d–%d, y %d–%d)", scaled, x0, x1-1, y0, y1-1)
	}
	part := fmt.Sprintf("pixels x %d–%d, y %d–%d", cx0, cx1-1, cy0, cy1-1)
	if cx0 != x0 || cx1 != x1 || cy0 != y0 || cy1 != y1 {
		part += " (the part inside the image)"
	}
	at := func(x, y int) [4]uint32 {
		r, g, bl, a := img.At(b.Min.X+x, b.Min.Y+y).RGBA()
		return [4]uint32{r, g, bl, a}
	}
	ref := at(cx0, cy0)
	n, differ := 0, 0
	var fx, fy int
	var first [4]uint32
	for y := cy0; y < cy1; y++ {
		for x := cx0; x < cx1; x++ {
			n++
			if c := at(x, y); c != ref {
				if differ == 0 {
					fx, fy, first = x, y, c
				}
				differ++
			}
		}
	}
	if differ > 0 {
		return maskJudgement{verdict: maskUnmasked, pixels: n, detail: fmt.Sprintf("%s: %d of the %d pixels of its inner part (%s) differ from the colour %s at (%d, %d), e.g. %s at (%d, %d)",
			scaled, differ, n, part, colourString(ref), cx0, cy0, colourString(first), fx, fy)}
	}
	return maskJudgement{verdict: maskMasked, pixels: n, detail: fmt.Sprintf("%s: the %d pixels of its inner part (%s) are all %s", scaled, n, part, colourString(ref))}
}

// clampInt converts v to int, bounded well inside int's range (the image
// clips what is left).
func clampInt(v float64) int {
	return int(math.Max(-1<<30, math.Min(1<<30, v)))
}

// rectString renders a rect for a message.
func rectString(r wire.Rect) string {
	return fmt.Sprintf("{x: %v, y: %v, width: %v, height: %v}", r.X, r.Y, r.Width, r.Height)
}

// colourString renders a premultiplied 16-bit colour as #rrggbbaa.
func colourString(c [4]uint32) string {
	return fmt.Sprintf("#%02x%02x%02x%02x", c[0]>>8, c[1]>>8, c[2]>>8, c[3]>>8)
}

// readPNG decodes a whole PNG.
func readPNG(b []byte) (image.Image, error) {
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("not a PNG: %w", err)
	}
	return img, nil
}

// readPNGData decodes s, padded standard base64 of a PNG (D33), to the
// image.
func readPNGData(s string) (image.Image, error) {
	if s == "" || !paddedBase64.MatchString(s) {
		return nil, fmt.Errorf("not padded standard base64 (%q)", clip(s))
	}
	b, err := base64.StdEncoding.Strict().DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("not padded standard base64: %w", err)
	}
	return readPNG(b)
}
