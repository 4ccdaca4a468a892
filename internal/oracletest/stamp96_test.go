package oracletest

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/png"
	"testing"
	"time"
)

func TestDifference96Stamps(t *testing.T) {
	if want := "[" + time.UnixMilli(SyntheticTime).UTC().Format("Mon 2006-01-02 15:04") + " UTC] "; SyntheticStamp96 != want {
		t.Fatalf("SyntheticStamp96 = %q", SyntheticStamp96)
	}
	oc := []byte(`{"messages":[{"role":"user","content":"[Wed 1969-12-31 23:52 UTC] (session bootstrap)","timestamp":-424242}]}`)
	oracle := []byte(`{"messages":[{"role":"user","content":"[Tue 2026-12-01 02:54 UTC] (session bootstrap)","timestamp":1796093640000}]}`)
	if d := Difference(oc, oracle); d == "" {
		t.Fatal("Difference ignores the stamp: the test would prove nothing")
	}
	if d := Difference96(oc, oracle); d != "" {
		t.Errorf("a synthetic turn's stamp: %s", d)
	}
	for _, c := range []struct{ name, oc, oracle string }{
		{"other text", `["[Wed 1969-12-31 23:52 UTC] hi"]`, `["[Tue 2026-12-01 02:54 UTC] ho"]`},
		{"a real stamp", `["[Fri 2026-01-30 08:07 UTC] hi"]`, `["[Tue 2026-12-01 02:54 UTC] hi"]`},
		{"no stamp in the oracle's", `["[Wed 1969-12-31 23:52 UTC] hi"]`, `["hi"]`},
		{"key order", `[{"b":1,"a":2}]`, `[{"a":2,"b":1}]`},
	} {
		if d := Difference96([]byte(c.oc), []byte(c.oracle)); d == "" {
			t.Errorf("%s: no difference found", c.name)
		}
	}
}

// Mistral's image parts are {"type":"image_url","imageUrl":"data:…"}: a
// re-encoded image there is compared by decoded type and size too.
func TestDifferenceImageURLMistral(t *testing.T) {
	enc := func(w, h int, level png.CompressionLevel) string {
		img := image.NewRGBA(image.Rect(0, 0, w, h))
		for i := range img.Pix {
			img.Pix[i] = byte(i * 7)
		}
		var b bytes.Buffer
		if err := (&png.Encoder{CompressionLevel: level}).Encode(&b, img); err != nil {
			t.Fatal(err)
		}
		return "data:image/png;base64," + base64.StdEncoding.EncodeToString(b.Bytes())
	}
	doc := func(url string) []byte { return []byte(`{"content":[{"type":"image_url","imageUrl":"` + url + `"}]}`) }
	a, b := enc(40, 30, png.NoCompression), enc(40, 30, png.BestCompression)
	if a == b {
		t.Fatal("the two encodings are equal: the test would prove nothing")
	}
	if d := Difference(doc(a), doc(b)); d != "" {
		t.Errorf("the same 40x30 PNG encoded twice: %s", d)
	}
	if d := Difference(doc(a), doc(enc(30, 40, png.NoCompression))); d == "" {
		t.Error("a 40x30 and a 30x40 image compared equal")
	}
}
