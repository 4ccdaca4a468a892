package oracletest

import (
	"bytes"
	"fmt"
	"image"
	"image/jpeg"
	"strings"
	"testing"
)

// Bedrock's wire body carries image bytes as a Uint8Array, which
// JSON.stringify writes as {"0": n, ...}: two encodings of one re-encoded
// image (same type and size) are equal there, and only there.
func TestDifferenceBedrockImageBytes(t *testing.T) {
	enc := func(w, h, q int) string {
		img := image.NewRGBA(image.Rect(0, 0, w, h))
		for i := range img.Pix {
			img.Pix[i] = byte(i * 7)
		}
		var buf bytes.Buffer
		if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: q}); err != nil {
			t.Fatal(err)
		}
		parts := make([]string, buf.Len())
		for i, c := range buf.Bytes() {
			parts[i] = fmt.Sprintf(`"%d":%d`, i, c)
		}
		return "{" + strings.Join(parts, ",") + "}"
	}
	body := func(bytesJSON, key string) []byte {
		return []byte(`{"messages":[{"content":[{"image":{"format":"jpeg","source":{"` + key + `":` + bytesJSON + `}}}]}]}`)
	}
	a, b, other := enc(40, 3, 90), enc(40, 3, 30), enc(41, 3, 90)
	if a == b {
		t.Fatal("the two encodings are identical: the test compares nothing")
	}
	if d := Difference(body(a, "bytes"), body(b, "bytes")); d != "" {
		t.Errorf("same image, other encoding: %s", d)
	}
	if d := Difference(body(a, "bytes"), body(other, "bytes")); d == "" {
		t.Error("images of other sizes compared equal")
	}
	if d := Difference(body(a, "data"), body(b, "data")); d == "" {
		t.Error("byte objects outside image.source.bytes compared equal")
	}
}
