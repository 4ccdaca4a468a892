package imageops

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"image"
	"image/jpeg"
	"image/png"

	"golang.org/x/image/bmp"
)

// bmpHeader is Rastermill's readBmpMetadata (2026.9.6's image library): "BM",
// at least 26 bytes, the size from a BITMAPCOREHEADER (12 bytes: 16-bit
// sides) or a larger DIB header (signed 32-bit width, |height|).
func bmpHeader(b []byte) (pixelSize, bool) {
	if len(b) < 26 || string(b[:2]) != "BM" {
		return pixelSize{}, false
	}
	dib := binary.LittleEndian.Uint32(b[14:])
	var w, h int
	switch {
	case dib == 12:
		w, h = int(binary.LittleEndian.Uint16(b[18:])), int(binary.LittleEndian.Uint16(b[20:]))
	case dib < 40:
		return pixelSize{}, false
	default:
		w, h = int(int32(binary.LittleEndian.Uint32(b[18:]))), int(int32(binary.LittleEndian.Uint32(b[22:])))
		if h < 0 {
			h = -h
		}
	}
	if w <= 0 || h <= 0 {
		return pixelSize{}, false
	}
	return pixelSize{w, h}, true
}

// BMPWithinLimits reports whether canonical base64 data is a BMP whose
// header 2026.9.6's resizeImageBase64IfNeeded reads as within the limits
// (imageWithinLimits): it then keeps the bytes as they are.
func BMPWithinLimits(canonical string, lim Limits) bool {
	buf, err := base64.StdEncoding.DecodeString(canonical)
	if err != nil {
		return false
	}
	d, ok := bmpHeader(buf)
	return ok && len(buf) <= lim.MaxBytes && d.width <= lim.MaxSide && d.height <= lim.MaxSide && !exceedsPixelLimit(d)
}

// SniffMime is the image part of the file-type sniff 2026.9.6's transport
// runs on inline images (mime-*.mjs detectMime → fileTypeFromBuffer): PNG
// (APNG folds into it), JPEG, GIF, WebP and BMP by their magic bytes; ""
// when none matches.
func SniffMime(b []byte) string {
	switch {
	case bytes.HasPrefix(b, pngSignature):
		return "image/png"
	case len(b) >= 3 && b[0] == 0xff && b[1] == 0xd8 && b[2] == 0xff:
		return "image/jpeg"
	case bytes.HasPrefix(b, []byte("GIF")):
		return "image/gif"
	case len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP":
		return "image/webp"
	case bytes.HasPrefix(b, []byte("BM")):
		return "image/bmp"
	}
	return ""
}

// BMPToPNG is 2026.9.6's convertImageToPng for a BMP (Rastermill's BMP
// fallback): the same pixels as a PNG. Only the decoded type and size of the
// result are compared with OpenClaw's.
func BMPToPNG(buf []byte) ([]byte, error) {
	img, err := bmp.Decode(bytes.NewReader(buf))
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := png.Encode(&out, img); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// ToJPEG is 2026.9.6's convertImageToJpeg: the image decoded and written
// as a JPEG (quality 80, Rastermill's default is not compared: only the
// decoded type and size are).
func ToJPEG(buf []byte) ([]byte, error) {
	img, err := decode(buf)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := jpeg.Encode(&out, img, &jpeg.Options{Quality: 80}); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// RastermillRefusal is the message of the RastermillError 2026.9.6's image
// library (Rastermill, decoding with Photon) throws for an image that
// sharp's rules would handle otherwise, "" when there is none:
//   - a header over the 25,000,000 pixel input limit (sharp's text, another
//     error class);
//   - no header it reads (PNG, GIF, WebP, BMP, JPEG): "Unable to determine
//     image dimensions; refusing to process";
//   - a header it reads, outside the limits (so the image must be decoded
//     and re-encoded), over pixel data a strict decoder refuses (Photon has
//     no lenient PNG reading): "Unable to decode image with Photon".
//
// canonical is canonical base64 (CanonicalBase64For96).
func RastermillRefusal(canonical string, lim Limits) string {
	buf, err := base64.StdEncoding.DecodeString(canonical)
	if err != nil {
		return ""
	}
	d, ok := readHeader(buf)
	isBMP := false
	if !ok {
		d, ok = bmpHeader(buf)
		isBMP = ok
	}
	switch {
	case !ok:
		return "Unable to determine image dimensions; refusing to process"
	case exceedsPixelLimit(d):
		return pixelLimitError(d).Error()
	case len(buf) <= lim.MaxBytes && d.width <= lim.MaxSide && d.height <= lim.MaxSide:
		return "" // kept as it is: never decoded
	}
	if isBMP {
		if _, err := bmp.Decode(bytes.NewReader(buf)); err != nil {
			return "Unable to decode image with Photon"
		}
		return ""
	}
	if bytes.HasPrefix(buf, []byte("GIF8")) {
		return "" // sharp's GIF canvas rule (decode) stands
	}
	if _, _, err := image.Decode(bytes.NewReader(buf)); err != nil {
		return "Unable to decode image with Photon"
	}
	return ""
}
