package replay

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	_ "image/gif" // decoders for the formats OpenClaw's sharp reads
	"image/jpeg"
	_ "image/png"
	"math"
	"regexp"
	"strings"

	"github.com/openclaw-tools/oc/internal/jsjson"
)

// Image limits and re-encoding (src/agents/tool-images.ts,
// src/media/image-ops.ts, src/media/base64.ts). OpenClaw re-encodes with
// sharp (mozjpeg); we re-encode with Go's JPEG encoder at the same side and
// quality steps, so the bytes differ but type and dimensions agree.

type imageLimits struct {
	maxSide  int
	maxBytes int
}

const maxImageInputPixels = 25_000_000

var (
	imageQualitySteps = []int{85, 75, 65, 55, 45, 35}
	base64SigChars    = regexp.MustCompile(`^[A-Za-z0-9+/=_-]+$`)
)

func isBase64DataChar(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/'
}

// canonicalizeBase64 drops characters <= ' ' (by UTF-16 code unit) and
// validates the rest: base64 alphabet, at most two trailing '=', length a
// multiple of 4.
func canonicalizeBase64(s string) (string, bool) {
	var b strings.Builder
	b.Grow(len(s))
	padding := 0
	sawPadding := false
	for _, r := range s {
		if r <= 32 {
			continue
		}
		if r == '=' {
			padding++
			if padding > 2 {
				return "", false
			}
			sawPadding = true
			b.WriteByte('=')
			continue
		}
		if sawPadding || r > 127 || !isBase64DataChar(byte(r)) {
			return "", false
		}
		b.WriteByte(byte(r))
	}
	out := b.String()
	if out == "" || len(out)%4 != 0 {
		return "", false
	}
	return out, true
}

// inferMimeFromBase64 sniffs JPEG, PNG and GIF from the base64 prefix.
func inferMimeFromBase64(b64 string) string {
	t := trim(b64)
	switch {
	case t == "":
		return ""
	case strings.HasPrefix(t, "/9j/"):
		return "image/jpeg"
	case strings.HasPrefix(t, "iVBOR"):
		return "image/png"
	case strings.HasPrefix(t, "R0lGOD"):
		return "image/gif"
	}
	return ""
}

// isBase64Signature is bootstrap.ts's isBase64Signature: a signature Gemini
// can take (base64 or base64url that round-trips).
func isBase64Signature(value string) bool {
	t := trim(value)
	if t == "" {
		return false
	}
	compact := strings.Map(func(r rune) rune {
		if jsjson.IsSpace(r) {
			return -1
		}
		return r
	}, t)
	if !base64SigChars.MatchString(compact) {
		return false
	}
	isURL := strings.ContainsAny(compact, "-_")
	buf := nodeBase64Decode(compact, isURL)
	if len(buf) == 0 {
		return false
	}
	var enc string
	if isURL {
		enc = base64.RawURLEncoding.EncodeToString(buf)
	} else {
		enc = base64.StdEncoding.EncodeToString(buf)
	}
	return strings.TrimRight(enc, "=") == strings.TrimRight(compact, "=")
}

// nodeBase64Decode decodes like Node's Buffer.from(s, "base64"/"base64url"):
// both alphabets accepted, decoding stops at the first '=' and at anything
// outside the alphabet is skipped, a trailing partial group yields what it can.
func nodeBase64Decode(s string, _ bool) []byte {
	vals := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		var v byte
		switch {
		case c >= 'A' && c <= 'Z':
			v = c - 'A'
		case c >= 'a' && c <= 'z':
			v = c - 'a' + 26
		case c >= '0' && c <= '9':
			v = c - '0' + 52
		case c == '+' || c == '-':
			v = 62
		case c == '/' || c == '_':
			v = 63
		case c == '=':
			i = len(s)
			continue
		default:
			continue
		}
		vals = append(vals, v)
	}
	out := make([]byte, 0, len(vals)*3/4)
	for i := 0; i+1 < len(vals); i += 4 {
		n := len(vals) - i
		if n > 4 {
			n = 4
		}
		var acc uint32
		for k := 0; k < 4; k++ {
			acc <<= 6
			if k < n {
				acc |= uint32(vals[i+k])
			}
		}
		out = append(out, byte(acc>>16))
		if n > 2 {
			out = append(out, byte(acc>>8))
		}
		if n > 3 {
			out = append(out, byte(acc))
		}
	}
	return out
}

type imageDims struct{ width, height int }

// readImageHeader reads width and height from a PNG, GIF, WebP or JPEG
// header the way OpenClaw's readImageMetadataFromHeader does.
func readImageHeader(b []byte) (imageDims, bool) {
	mk := func(w, h int) (imageDims, bool) {
		if w <= 0 || h <= 0 {
			return imageDims{}, false
		}
		return imageDims{w, h}, true
	}
	// PNG
	if len(b) >= 24 && bytes.Equal(b[:8], []byte{137, 80, 78, 71, 13, 10, 26, 10}) && string(b[12:16]) == "IHDR" {
		return mk(int(binary.BigEndian.Uint32(b[16:])), int(binary.BigEndian.Uint32(b[20:])))
	}
	// GIF
	if len(b) >= 10 && (string(b[:6]) == "GIF87a" || string(b[:6]) == "GIF89a") {
		return mk(int(binary.LittleEndian.Uint16(b[6:])), int(binary.LittleEndian.Uint16(b[8:])))
	}
	// WebP
	if len(b) >= 30 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP" {
		switch string(b[12:16]) {
		case "VP8X":
			w := 1 + (int(b[24]) | int(b[25])<<8 | int(b[26])<<16)
			h := 1 + (int(b[27]) | int(b[28])<<8 | int(b[29])<<16)
			return mk(w, h)
		case "VP8 ":
			return mk(int(binary.LittleEndian.Uint16(b[26:]))&16383, int(binary.LittleEndian.Uint16(b[28:]))&16383)
		case "VP8L":
			if b[20] != 47 {
				return imageDims{}, false
			}
			bits := uint32(b[21]) | uint32(b[22])<<8 | uint32(b[23])<<16 | uint32(b[24])<<24
			return mk(int(bits&16383)+1, int(bits>>14&16383)+1)
		}
		return imageDims{}, false
	}
	// JPEG
	if len(b) >= 4 && b[0] == 0xff && b[1] == 0xd8 {
		off := 2
		for off+8 < len(b) {
			for off < len(b) && b[off] == 0xff {
				off++
			}
			if off >= len(b) {
				return imageDims{}, false
			}
			marker := b[off]
			off++
			if marker == 0xd8 || marker == 0xd9 || marker == 0x01 || marker >= 0xd0 && marker <= 0xd7 {
				continue
			}
			if off+1 >= len(b) {
				return imageDims{}, false
			}
			segLen := int(binary.BigEndian.Uint16(b[off:]))
			if segLen < 2 || off+segLen > len(b) {
				return imageDims{}, false
			}
			if marker >= 0xc0 && marker <= 0xcf && marker != 0xc4 && marker != 0xc8 && marker != 0xcc {
				if segLen < 7 || off+6 >= len(b) {
					return imageDims{}, false
				}
				return mk(int(binary.BigEndian.Uint16(b[off+5:])), int(binary.BigEndian.Uint16(b[off+3:])))
			}
			off += segLen
		}
	}
	return imageDims{}, false
}

func exceedsPixelLimit(d imageDims) bool {
	return d.width > maxImageInputPixels/d.height
}

func pixelLimitError(d imageDims) error {
	//lint:ignore ST1005 OpenClaw's own message, reproduced as it is
	return fmt.Errorf("Image dimensions exceed the 25,000,000 pixel input limit: %dx%d (%d pixels)", d.width, d.height, d.width*d.height)
}

type resizedImage struct {
	base64   string
	mimeType string
	resized  bool
	note     string
}

// errUnsupportedImage is sharp's message for data it cannot decode.
//
//lint:ignore ST1005 sharp's own message, reproduced as it is
var errUnsupportedImage = errors.New("Input buffer contains unsupported image format")

// imageMetadata is getImageMetadata: the header, else a decoder's config;
// nil when unknown or over the pixel limit.
func imageMetadata(buf []byte) (imageDims, bool) {
	if d, ok := readImageHeader(buf); ok {
		if exceedsPixelLimit(d) {
			return imageDims{}, false
		}
		return d, true
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(buf))
	if err != nil || cfg.Width <= 0 || cfg.Height <= 0 {
		return imageDims{}, false
	}
	d := imageDims{cfg.Width, cfg.Height}
	if exceedsPixelLimit(d) {
		return imageDims{}, false
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

// resizeImageIfNeeded is resizeImageBase64IfNeeded.
func resizeImageIfNeeded(canonical, mime string, lim imageLimits) (resizedImage, error) {
	buf, err := base64.StdEncoding.DecodeString(canonical)
	if err != nil {
		return resizedImage{}, errUnsupportedImage
	}
	dims, hasDims := imageMetadata(buf)
	overBytes := len(buf) > lim.maxBytes
	if hasDims && !overBytes && dims.width <= lim.maxSide && dims.height <= lim.maxSide {
		return resizedImage{base64: canonical, mimeType: mime}, nil
	}
	maxDim := lim.maxSide
	if hasDims {
		maxDim = max(dims.width, dims.height)
	}
	start := lim.maxSide
	if maxDim > 0 {
		start = min(lim.maxSide, maxDim)
	}
	// resizeToJpeg first refuses images whose header is over the pixel limit.
	if d, ok := readImageHeader(buf); ok && exceedsPixelLimit(d) {
		return resizedImage{}, pixelLimitError(d)
	}
	src, err := decodeOriented(buf)
	if err != nil {
		return resizedImage{}, err
	}
	var smallest []byte
	for _, side := range sideGrid(lim.maxSide, start) {
		scaled := fitInside(src, side)
		for _, q := range imageQualitySteps {
			var out bytes.Buffer
			if err := jpeg.Encode(&out, scaled, &jpeg.Options{Quality: q}); err != nil {
				return resizedImage{}, fmt.Errorf("jpeg encode: %w", err)
			}
			if smallest == nil || out.Len() < len(smallest) {
				smallest = out.Bytes()
			}
			if out.Len() <= lim.maxBytes {
				b := scaled.Bounds()
				return resizedImage{
					base64:   base64.StdEncoding.EncodeToString(out.Bytes()),
					mimeType: "image/jpeg",
					resized:  true,
					note:     fmt.Sprintf("re-encoded as JPEG %dx%d q%d (%d -> %d bytes)", b.Dx(), b.Dy(), q, len(buf), out.Len()),
				}, nil
			}
		}
	}
	best := len(buf)
	if smallest != nil {
		best = len(smallest)
	}
	//lint:ignore ST1005 OpenClaw's own message, reproduced as it is
	return resizedImage{}, fmt.Errorf("Image could not be reduced below %sMB (got %sMB)",
		jsToFixed(float64(lim.maxBytes)/(1024*1024), 0), jsToFixed(float64(best)/(1024*1024), 2))
}

// jsToFixed is Number.prototype.toFixed for the small values used here.
func jsToFixed(f float64, digits int) string {
	return fmt.Sprintf("%.*f", digits, f)
}

// decodeOriented decodes an image and applies its EXIF orientation (sharp's
// rotate()).
func decodeOriented(buf []byte) (image.Image, error) {
	img, err := decodeImage(buf)
	if err != nil {
		return nil, errUnsupportedImage
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

// jpegExifOrientation reads the EXIF orientation (1-8) of a JPEG, 0 if none.
func jpegExifOrientation(b []byte) int {
	if len(b) < 4 || b[0] != 0xff || b[1] != 0xd8 {
		return 0
	}
	off := 2
	for off+4 <= len(b) {
		if b[off] != 0xff {
			return 0
		}
		marker := b[off+1]
		if marker == 0xda || marker == 0xd9 {
			return 0
		}
		segLen := int(binary.BigEndian.Uint16(b[off+2:]))
		if segLen < 2 || off+2+segLen > len(b) {
			return 0
		}
		seg := b[off+4 : off+2+segLen]
		if marker == 0xe1 && len(seg) >= 14 && string(seg[:6]) == "Exif\x00\x00" {
			return tiffOrientation(seg[6:])
		}
		off += 2 + segLen
	}
	return 0
}

func tiffOrientation(t []byte) int {
	if len(t) < 8 {
		return 0
	}
	var bo binary.ByteOrder
	switch string(t[:2]) {
	case "II":
		bo = binary.LittleEndian
	case "MM":
		bo = binary.BigEndian
	default:
		return 0
	}
	ifd := int(bo.Uint32(t[4:]))
	if ifd+2 > len(t) {
		return 0
	}
	n := int(bo.Uint16(t[ifd:]))
	for i := 0; i < n; i++ {
		e := ifd + 2 + i*12
		if e+12 > len(t) {
			return 0
		}
		if bo.Uint16(t[e:]) == 0x0112 {
			v := int(bo.Uint16(t[e+8:]))
			if v >= 1 && v <= 8 {
				return v
			}
			return 0
		}
	}
	return 0
}

// orient applies an EXIF orientation; 5-8 swap width and height.
func orient(src image.Image, o int) image.Image {
	b := src.Bounds()
	w, h := b.Dx(), b.Dy()
	dw, dh := w, h
	if o >= 5 {
		dw, dh = h, w
	}
	dst := image.NewRGBA(image.Rect(0, 0, dw, dh))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			var dx, dy int
			switch o {
			case 2:
				dx, dy = w-1-x, y
			case 3:
				dx, dy = w-1-x, h-1-y
			case 4:
				dx, dy = x, h-1-y
			case 5:
				dx, dy = y, x
			case 6:
				dx, dy = h-1-y, x
			case 7:
				dx, dy = h-1-y, w-1-x
			case 8:
				dx, dy = y, w-1-x
			default:
				dx, dy = x, y
			}
			dst.Set(dx, dy, src.At(b.Min.X+x, b.Min.Y+y))
		}
	}
	return dst
}
