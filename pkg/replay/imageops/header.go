package imageops

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

type pixelSize struct{ width, height int }

// readHeader reads width and height from a PNG, GIF, WebP or JPEG
// header the way OpenClaw's readImageMetadataFromHeader does.
func readHeader(b []byte) (pixelSize, bool) {
	mk := func(w, h int) (pixelSize, bool) {
		if w <= 0 || h <= 0 {
			return pixelSize{}, false
		}
		return pixelSize{w, h}, true
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
				return pixelSize{}, false
			}
			bits := uint32(b[21]) | uint32(b[22])<<8 | uint32(b[23])<<16 | uint32(b[24])<<24
			return mk(int(bits&16383)+1, int(bits>>14&16383)+1)
		}
		return pixelSize{}, false
	}
	// JPEG
	if len(b) >= 4 && b[0] == 0xff && b[1] == 0xd8 {
		off := 2
		for off+8 < len(b) {
			for off < len(b) && b[off] == 0xff {
				off++
			}
			if off >= len(b) {
				return pixelSize{}, false
			}
			marker := b[off]
			off++
			if marker == 0xd8 || marker == 0xd9 || marker == 0x01 || marker >= 0xd0 && marker <= 0xd7 {
				continue
			}
			if off+1 >= len(b) {
				return pixelSize{}, false
			}
			segLen := int(binary.BigEndian.Uint16(b[off:]))
			if segLen < 2 || off+segLen > len(b) {
				return pixelSize{}, false
			}
			if marker >= 0xc0 && marker <= 0xcf && marker != 0xc4 && marker != 0xc8 && marker != 0xcc {
				if segLen < 7 || off+6 >= len(b) {
					return pixelSize{}, false
				}
				return mk(int(binary.BigEndian.Uint16(b[off+5:])), int(binary.BigEndian.Uint16(b[off+3:])))
			}
			off += segLen
		}
	}
	return pixelSize{}, false
}

func exceedsPixelLimit(d pixelSize) bool {
	return d.width > maxInputPixels/d.height
}

func pixelLimitError(d pixelSize) error {
	//lint:ignore ST1005 OpenClaw's own message, reproduced as it is
	return fmt.Errorf("Image dimensions exceed the 25,000,000 pixel input limit: %dx%d (%d pixels)", d.width, d.height, d.width*d.height)
}
