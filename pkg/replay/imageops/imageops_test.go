package imageops

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/color"
	"image/jpeg"
	"testing"
)

func TestExifOrientationAndPixelLimit(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 1600, 800))
	var b bytes.Buffer
	_ = jpeg.Encode(&b, img, nil)
	plainJPEG := b.Bytes()
	if o := jpegExifOrientation(plainJPEG); o != 0 {
		t.Errorf("orientation of a JPEG without EXIF = %d", o)
	}
	rot := orient(img, 6)
	if rot.Bounds().Dx() != 800 || rot.Bounds().Dy() != 1600 {
		t.Errorf("orientation 6 gives %v", rot.Bounds())
	}
	huge := []byte{137, 80, 78, 71, 13, 10, 26, 10, 0, 0, 0, 13, 'I', 'H', 'D', 'R', 0, 0, 0x17, 0x70, 0, 0, 0x13, 0x88, 8, 6, 0, 0}
	_, err := ResizeIfNeeded(base64.StdEncoding.EncodeToString(huge), "image/png", Limits{1200, DefaultMaxBytes})
	if err == nil || err.Error() != "Image dimensions exceed the 25,000,000 pixel input limit: 6000x5000 (30000000 pixels)" {
		t.Errorf("pixel limit: %v", err)
	}
	if g := sideGrid(1200, 1200); len(g) != 3 || g[0] != 1200 || g[2] != 800 {
		t.Errorf("sideGrid = %v", g)
	}
	_ = color.Black
}

func TestIsBase64Signature(t *testing.T) {
	// Answers of OpenClaw's isBase64Signature under Node 24.
	for s, want := range map[string]bool{"EjQKMgEMOdbHX-_": false, "abc": true, "msg_abc": true, "EjQKMgEMOdbH": true,
		"ab=cd": false, "a": false, "ab": false, "EjQKMgEMOdbHX-8": true, "AAAA===": true, "=AAA": false} {
		if got := IsBase64Signature(s); got != want {
			t.Errorf("IsBase64Signature(%q) = %v, want %v", s, got, want)
		}
	}
}
