package media

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math"
)

// Rect is a rectangle in CSS pixels, relative to the top-left corner of
// the viewport.
type Rect struct {
	X, Y, Width, Height float64
}

// pngSignature is the fixed 8-byte header of every PNG file.
const pngSignature = "\x89PNG\r\n\x1a\n"

// PNGSize returns the width and height of a PNG image, read from its IHDR
// chunk without decoding the pixels.
func PNGSize(data []byte) (w, h int, err error) {
	// signature (8) + chunk length (4) + "IHDR" (4) + width (4) + height (4)
	if len(data) < 24 {
		return 0, 0, fmt.Errorf("png: %d bytes is too short for a PNG header", len(data))
	}
	if string(data[:8]) != pngSignature {
		return 0, 0, errors.New("png: not a PNG file (bad signature)")
	}
	if string(data[12:16]) != "IHDR" {
		return 0, 0, errors.New("png: first chunk is not IHDR")
	}
	if n := binary.BigEndian.Uint32(data[8:12]); n != 13 {
		return 0, 0, fmt.Errorf("png: IHDR length is %d, want 13", n)
	}
	uw := binary.BigEndian.Uint32(data[16:20])
	uh := binary.BigEndian.Uint32(data[20:24])
	if uw == 0 || uh == 0 || uw > math.MaxInt32 || uh > math.MaxInt32 {
		return 0, 0, fmt.Errorf("png: invalid dimensions %dx%d", uw, uh)
	}
	return int(uw), int(uh), nil
}

// MaskPNG paints each rectangle opaque black (#000000) and returns the
// result as a PNG. The rectangles are in CSS pixels; scale converts them to
// image pixels (the device scale factor; a value <= 0 means 1). Each
// rectangle is widened to whole pixels (floor of its start, ceiling of its
// end) and clipped to the image, so a rectangle partly or wholly outside
// the image is allowed. With no rectangle, or none that touches the image,
// MaskPNG returns data unchanged.
func MaskPNG(data []byte, rects []Rect, scale float64) ([]byte, error) {
	if len(rects) == 0 {
		return data, nil
	}
	if scale <= 0 || math.IsNaN(scale) || math.IsInf(scale, 0) {
		scale = 1
	}
	src, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("png: decode: %w", err)
	}
	bounds := src.Bounds()
	var boxes []image.Rectangle
	for _, r := range rects {
		if b, ok := pixelRect(r, scale, bounds); ok {
			boxes = append(boxes, b)
		}
	}
	if len(boxes) == 0 {
		return data, nil
	}
	dst := drawable(src)
	black := image.NewUniform(color.RGBA{A: 0xff})
	for _, b := range boxes {
		draw.Draw(dst, b, black, image.Point{}, draw.Src)
	}
	var out bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&out, dst); err != nil {
		return nil, fmt.Errorf("png: encode: %w", err)
	}
	return out.Bytes(), nil
}

// pixelRect converts r to whole image pixels clipped to bounds; ok is
// false when nothing is left.
func pixelRect(r Rect, scale float64, bounds image.Rectangle) (image.Rectangle, bool) {
	for _, v := range []float64{r.X, r.Y, r.Width, r.Height} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return image.Rectangle{}, false
		}
	}
	if r.Width <= 0 || r.Height <= 0 {
		return image.Rectangle{}, false
	}
	clamp := func(v float64) int {
		// Keep the value in int range before the conversion; bounds clip it.
		return int(math.Max(-1<<30, math.Min(1<<30, v)))
	}
	x0 := clamp(math.Floor(r.X * scale))
	y0 := clamp(math.Floor(r.Y * scale))
	x1 := clamp(math.Ceil((r.X + r.Width) * scale))
	y1 := clamp(math.Ceil((r.Y + r.Height) * scale))
	b := image.Rect(x0, y0, x1, y1).Add(bounds.Min).Intersect(bounds)
	return b, !b.Empty()
}

// drawable returns src itself when it can be painted in place with opaque
// black, and an NRGBA copy otherwise (paletted, gray with alpha, ...).
func drawable(src image.Image) draw.Image {
	switch img := src.(type) {
	case *image.RGBA:
		return img
	case *image.NRGBA:
		return img
	case *image.RGBA64:
		return img
	case *image.NRGBA64:
		return img
	case *image.Gray:
		return img
	case *image.Gray16:
		return img
	}
	b := src.Bounds()
	dst := image.NewNRGBA(b)
	draw.Draw(dst, b, src, b.Min, draw.Src)
	return dst
}
