package imageops

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/png"
	"testing"

	"golang.org/x/image/bmp"
)

// BMP support is 2026.9.6's alone: importing golang.org/x/image/bmp
// registers the format with package image, but the shared (sharp) rules
// still refuse a BMP, as 2026.5.6's sharp does, while Rastermill reads its
// header and the Anthropic transport converts it to PNG.
func TestBMPIsRastermillsAlone(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 3, 2))
	var b bytes.Buffer
	if err := bmp.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	data := base64.StdEncoding.EncodeToString(b.Bytes())
	lim := Limits{MaxSide: DefaultMaxSide, MaxBytes: DefaultMaxBytes}
	if _, err := ResizeIfNeeded(data, "image/png", lim); err == nil || err.Error() != errUnsupported.Error() {
		t.Errorf("sharp's rules on a BMP: %v, want %q", err, errUnsupported)
	}
	if !BMPWithinLimits(data, lim) {
		t.Error("Rastermill's header rule: a 3x2 BMP is within the limits")
	}
	if why := RastermillRefusal(data, lim); why != "" {
		t.Errorf("Rastermill refuses a 3x2 BMP: %s", why)
	}
	if got := SniffMime(b.Bytes()); got != "image/bmp" {
		t.Errorf("SniffMime = %q", got)
	}
	out, err := BMPToPNG(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(out))
	if err != nil || cfg.Width != 3 || cfg.Height != 2 {
		t.Errorf("BMPToPNG: %v %dx%d", err, cfg.Width, cfg.Height)
	}
}

func TestCanonicalBase64For96(t *testing.T) {
	for in, want := range map[string]string{"iVBORw0KGgo": "iVBORw0KGgo=", "QQ": "QQ==", "QR": "", "Q": "", "QQ==": "QQ==", "Q Q": "QQ=="} {
		got, ok := CanonicalBase64For96(in)
		if got != want || ok != (want != "") {
			t.Errorf("CanonicalBase64For96(%q) = %q %v, want %q", in, got, ok, want)
		}
	}
}
