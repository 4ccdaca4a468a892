package imageops

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	_ "image/gif" // decoders for the formats OpenClaw's sharp reads
	"image/jpeg"
	_ "image/png"
	"math"
)

// Limits are the largest side (pixels) and size (bytes) an image may have
// before it is re-encoded.
type Limits struct {
	MaxSide  int
	MaxBytes int
}

// OpenClaw's default limits (agents.defaults.imageMaxDimensionPx,
// DEFAULT_IMAGE_MAX_BYTES).
const (
	DefaultMaxSide  = 1200
	DefaultMaxBytes = 5 * 1024 * 1024
)

// maxInputPixels is sharp's input pixel limit: larger images are refused.
const maxInputPixels = 25_000_000

// qualitySteps are the JPEG qualities tried at each side, best first.
var qualitySteps = []int{85, 75, 65, 55, 45, 35}

// Resized is the image to send: the input itself when it is within the
// limits, else a JPEG re-encoding (Reencoded, with a Note saying how).
type Resized struct {
	Base64    string
	MimeType  string
	Reencoded bool
	Note      string
}

// errUnsupported is sharp's message for data it cannot decode.
//
//lint:ignore ST1005 sharp's own message, reproduced as it is
var errUnsupported = errors.New("Input buffer contains unsupported image format")

// metadata is getImageMetadata: the header, else a decoder's config;
// nil when unknown or over the pixel limit.
func metadata(buf []byte) (pixelSize, bool) {
	if d, ok := readHeader(buf); ok {
		if exceedsPixelLimit(d) {
			return pixelSize{}, false
		}
		return d, true
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(buf))
	if err != nil || cfg.Width <= 0 || cfg.Height <= 0 || format == "bmp" { // sharp reads no BMP (bmp.go registers it)
		return pixelSize{}, false
	}
	d := pixelSize{cfg.Width, cfg.Height}
	if exceedsPixelLimit(d) {
		return pixelSize{}, false
	}
	return d, true
}

// sideGrid is buildImageResizeSideGrid.
func sideGrid(maxSide, start int) []int {
	var out []int
	for _, v := range []int{start, 1800, 1600, 1400, 1200, 1000, 800} {
		if v > maxSide {
			v = maxSide
		}
		if v <= 0 {
			continue
		}
		dup := false
		for _, o := range out {
			if o == v {
				dup = true
			}
		}
		if !dup {
			out = append(out, v)
		}
	}
	// descending
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] > out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// ResizeIfNeeded is OpenClaw's resizeImageBase64IfNeeded: canonical (see
// CanonicalBase64) is kept when its dimensions and size are within lim,
// else decoded, oriented and re-encoded as JPEG at decreasing sides and
// qualities until it fits. The errors carry OpenClaw's messages.
func ResizeIfNeeded(canonical, mime string, lim Limits) (Resized, error) {
	buf, err := base64.StdEncoding.DecodeString(canonical)
	if err != nil {
		return Resized{}, errUnsupported
	}
	dims, hasDims := metadata(buf)
	overBytes := len(buf) > lim.MaxBytes
	if hasDims && !overBytes && dims.width <= lim.MaxSide && dims.height <= lim.MaxSide {
		return Resized{Base64: canonical, MimeType: mime}, nil
	}
	maxDim := lim.MaxSide
	if hasDims {
		maxDim = max(dims.width, dims.height)
	}
	start := lim.MaxSide
	if maxDim > 0 {
		start = min(lim.MaxSide, maxDim)
	}
	// resizeToJpeg first refuses images whose header is over the pixel limit.
	if d, ok := readHeader(buf); ok && exceedsPixelLimit(d) {
		return Resized{}, pixelLimitError(d)
	}
	src, err := decodeOriented(buf)
	if err != nil {
		return Resized{}, err
	}
	var smallest []byte
	for _, side := range sideGrid(lim.MaxSide, start) {
		scaled := fitInside(src, side)
		for _, q := range qualitySteps {
			var out bytes.Buffer
			if err := jpeg.Encode(&out, scaled, &jpeg.Options{Quality: q}); err != nil {
				return Resized{}, fmt.Errorf("jpeg encode: %w", err)
			}
			if smallest == nil || out.Len() < len(smallest) {
				smallest = out.Bytes()
			}
			if out.Len() <= lim.MaxBytes {
				b := scaled.Bounds()
				return Resized{
					Base64:    base64.StdEncoding.EncodeToString(out.Bytes()),
					MimeType:  "image/jpeg",
					Reencoded: true,
					Note:      fmt.Sprintf("re-encoded as JPEG %dx%d q%d (%d -> %d bytes)", b.Dx(), b.Dy(), q, len(buf), out.Len()),
				}, nil
			}
		}
	}
	best := len(buf)
	if smallest != nil {
		best = len(smallest)
	}
	//lint:ignore ST1005 OpenClaw's own message, reproduced as it is
	return Resized{}, fmt.Errorf("Image could not be reduced below %sMB (got %sMB)",
		toFixed(float64(lim.MaxBytes)/(1024*1024), 0), toFixed(float64(best)/(1024*1024), 2))
}

// toFixed is Number.prototype.toFixed for the small values used here.
func toFixed(f float64, digits int) string {
	return fmt.Sprintf("%.*f", digits, f)
}

// decodeOriented decodes an image and applies its EXIF orientation (sharp's
// rotate()).
func decodeOriented(buf []byte) (image.Image, error) {
	img, err := decode(buf)
	if err != nil {
		return nil, errUnsupported
	}
	if o := jpegExifOrientation(buf); o > 1 {
		img = orient(img, o)
	}
	return img, nil
}

// fitInside scales img so that both sides fit in side×side, never enlarging
// (sharp's resize({fit: "inside", withoutEnlargement: true})), and flattens
// it to an opaque RGBA image for JPEG.
func fitInside(img image.Image, side int) image.Image {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	nw, nh := w, h
	if w > side || h > side {
		if w >= h {
			nw = side
			nh = max(1, int(math.Round(float64(h)*float64(side)/float64(w))))
		} else {
			nh = side
			nw = max(1, int(math.Round(float64(w)*float64(side)/float64(h))))
		}
	}
	dst := image.NewRGBA(image.Rect(0, 0, nw, nh))
	draw.Draw(dst, dst.Bounds(), image.NewUniform(color.Black), image.Point{}, draw.Src)
	if nw == w && nh == h {
		draw.Draw(dst, dst.Bounds(), img, b.Min, draw.Over)
		return dst
	}
	areaResample(dst, img)
	return dst
}

// areaResample fills dst with the box-filtered (area-averaged) src.
func areaResample(dst *image.RGBA, src image.Image) {
	sb := src.Bounds()
	sw, sh := sb.Dx(), sb.Dy()
	dw, dh := dst.Bounds().Dx(), dst.Bounds().Dy()
	fx := float64(sw) / float64(dw)
	fy := float64(sh) / float64(dh)
	for y := 0; y < dh; y++ {
		y0 := int(float64(y) * fy)
		y1 := max(y0+1, int(math.Ceil(float64(y+1)*fy)))
		y1 = min(y1, sh)
		for x := 0; x < dw; x++ {
			x0 := int(float64(x) * fx)
			x1 := max(x0+1, int(math.Ceil(float64(x+1)*fx)))
			x1 = min(x1, sw)
			var r, g, bl, n uint64
			for sy := y0; sy < y1; sy++ {
				for sx := x0; sx < x1; sx++ {
					cr, cg, cb, ca := src.At(sb.Min.X+sx, sb.Min.Y+sy).RGBA()
					// composite over black: premultiplied values already are.
					_ = ca
					r += uint64(cr)
					g += uint64(cg)
					bl += uint64(cb)
					n++
				}
			}
			i := dst.PixOffset(x, y)
			dst.Pix[i] = uint8(r / n >> 8)
			dst.Pix[i+1] = uint8(g / n >> 8)
			dst.Pix[i+2] = uint8(bl / n >> 8)
			dst.Pix[i+3] = 0xff
		}
	}
}
