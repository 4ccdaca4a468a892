package imageops

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/draw"
	"image/gif"
	"image/png"
	"io"

	_ "golang.org/x/image/webp" // sharp reads WebP (lossy and lossless)
)

// decode decodes what OpenClaw's image library (sharp, libvips) reads,
// where Go's decoders refuse or read otherwise:
//   - WebP (golang.org/x/image/webp);
//   - a GIF is its first frame on the logical screen (a canvas larger than
//     the frame keeps its size, as libvips renders it);
//   - a PNG with wrong chunk CRCs or IDAT data cut short decodes leniently
//     (libspng/libpng with fail-on=none): the CRCs are ignored, rows the
//     data does not reach are left black.
//
// Only the decoded size and type reach the comparison with OpenClaw: the
// JPEG OpenClaw re-encodes to has other bytes anyway.
func decode(buf []byte) (image.Image, error) {
	if bytes.HasPrefix(buf, []byte("GIF8")) {
		return decodeGIFCanvas(buf)
	}
	img, format, err := image.Decode(bytes.NewReader(buf))
	if err == nil && format == "bmp" {
		// golang.org/x/image/bmp (bmp.go, for 2026.9.6's Rastermill)
		// registers BMP; sharp reads none
		return nil, errUnsupported
	}
	if err == nil {
		return img, nil
	}
	if bytes.HasPrefix(buf, pngSignature) {
		if fixed, ok := lenientPNG(buf); ok {
			if img, err := png.Decode(bytes.NewReader(fixed)); err == nil {
				return img, nil
			}
		}
	}
	return nil, err
}

func decodeGIFCanvas(buf []byte) (image.Image, error) {
	g, err := gif.DecodeAll(bytes.NewReader(buf))
	if err != nil || len(g.Image) == 0 {
		if err == nil {
			err = errUnsupported
		}
		return nil, err
	}
	frame := g.Image[0]
	w, h := g.Config.Width, g.Config.Height
	if w <= 0 || h <= 0 || frame.Bounds() == image.Rect(0, 0, w, h) {
		return frame, nil
	}
	canvas := image.NewNRGBA(image.Rect(0, 0, w, h))
	draw.Draw(canvas, frame.Bounds(), frame, frame.Bounds().Min, draw.Src)
	return canvas, nil
}

var pngSignature = []byte{137, 80, 78, 71, 13, 10, 26, 10}

// lenientPNG rewrites a PNG so that Go's strict decoder reads what a
// lenient one would: every chunk's CRC recomputed, and the image data, if
// it ends early, decompressed as far as it goes and padded with zero rows
// (filter None, black). Interlaced images are left alone.
func lenientPNG(buf []byte) ([]byte, bool) {
	type chunk struct {
		typ  string
		data []byte
	}
	var chunks []chunk
	var idat []byte
	off := len(pngSignature)
	for off+8 <= len(buf) {
		n := int(binary.BigEndian.Uint32(buf[off:]))
		typ := string(buf[off+4 : off+8])
		end := off + 8 + n
		if n < 0 || end > len(buf) {
			end = len(buf) // a chunk cut short keeps what is there
		}
		data := buf[off+8 : end]
		if typ == "IDAT" {
			idat = append(idat, data...)
		} else {
			chunks = append(chunks, chunk{typ, data})
		}
		off = end + 4
		if typ == "IEND" {
			break
		}
	}
	if len(chunks) == 0 || chunks[0].typ != "IHDR" || len(chunks[0].data) < 13 {
		return nil, false
	}
	ihdr := chunks[0].data
	w, h := int(binary.BigEndian.Uint32(ihdr[0:])), int(binary.BigEndian.Uint32(ihdr[4:]))
	depth, colorType, interlace := int(ihdr[8]), ihdr[9], ihdr[12]
	channels := map[byte]int{0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[colorType]
	if interlace != 0 || channels == 0 || w <= 0 || h <= 0 || int64(w)*int64(h) > maxInputPixels {
		return nil, false
	}
	rowBytes := (w*channels*depth+7)/8 + 1
	want := rowBytes * h
	raw := make([]byte, 0, want)
	if zr, err := zlib.NewReader(bytes.NewReader(idat)); err == nil {
		raw, _ = io.ReadAll(io.LimitReader(zr, int64(want)))
	}
	if len(raw) < want {
		// Rows the data does not reach: zeros. A row cut inside keeps
		// its first bytes.
		raw = append(raw, make([]byte, want-len(raw))...)
	}
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	_, _ = zw.Write(raw)
	_ = zw.Close()

	out := append([]byte(nil), pngSignature...)
	put := func(typ string, data []byte) {
		out = binary.BigEndian.AppendUint32(out, uint32(len(data)))
		start := len(out)
		out = append(out, typ...)
		out = append(out, data...)
		out = binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(out[start:]))
	}
	wroteData := false
	for _, c := range chunks {
		if c.typ == "IEND" {
			break
		}
		if !wroteData && c.typ != "IHDR" && c.typ != "PLTE" && c.typ != "tRNS" && c.typ != "gAMA" && c.typ != "cHRM" &&
			c.typ != "sRGB" && c.typ != "iCCP" && c.typ != "sBIT" && c.typ != "bKGD" && c.typ != "pHYs" {
			put("IDAT", z.Bytes())
			wroteData = true
		}
		put(c.typ, c.data)
	}
	if !wroteData {
		put("IDAT", z.Bytes())
	}
	put("IEND", nil)
	return out, true
}
