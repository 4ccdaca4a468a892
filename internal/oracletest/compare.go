package oracletest

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	_ "image/gif" // image types the comparison decodes
	_ "image/jpeg"
	_ "image/png"
	"strconv"
	"strings"

	_ "golang.org/x/image/webp"

	"github.com/openclaw-tools/oc/internal/jsjson"
)

// SyntheticTime is the Date.now() oc's side of a comparison gives
// synthetic messages (replay.Options.Now): it matches any time OpenClaw put
// there.
const SyntheticTime = -424242

// Difference compares oc's JSON text with OpenClaw's as JSON.parse reads
// both (member order, lone surrogates and number values included) and
// returns the first difference, "" when equal. Only a "timestamp" that oc
// set to SyntheticTime, and base64 images under "data", "url", "image_url" or "imageUrl" (Mistral) of the same
// decoded type and size, may differ; so may Bedrock's image.source.bytes (a
// Uint8Array, which JSON.stringify writes as {"0": n, "1": n, ...}) of the
// same decoded type and size.
func Difference(got, want []byte) string {
	g, err := jsjson.Parse(got)
	if err != nil {
		return fmt.Sprintf("oc wrote invalid JSON: %v", err)
	}
	w, err := jsjson.Parse(want)
	if err != nil {
		return fmt.Sprintf("the oracle's answer is not JSON: %v", err)
	}
	return diff(g, w, "$", "")
}

func diff(g, w any, path, key string) string {
	switch x := w.(type) {
	case *jsjson.Object:
		y, ok := g.(*jsjson.Object)
		if !ok {
			return fmt.Sprintf("%s: %s vs object", path, describe(g))
		}
		if key == "bytes" && strings.HasSuffix(path, ".image.source.bytes") && sameByteObjectImage(y, x) {
			return ""
		}
		gk, wk := y.Keys(), x.Keys()
		if strings.Join(gk, "\x00") != strings.Join(wk, "\x00") {
			return fmt.Sprintf("%s: keys %q vs %q", path, gk, wk)
		}
		for _, k := range wk {
			gv, _ := y.Get(k)
			wv, _ := x.Get(k)
			if d := diff(gv, wv, path+"."+k, k); d != "" {
				return d
			}
		}
		return ""
	case []any:
		y, ok := g.([]any)
		if !ok || len(x) != len(y) {
			return fmt.Sprintf("%s: %s vs %d items", path, describe(g), len(x))
		}
		for i := range x {
			if d := diff(y[i], x[i], fmt.Sprintf("%s[%d]", path, i), ""); d != "" {
				return d
			}
		}
		return ""
	case float64:
		if y, ok := g.(float64); ok && key == "timestamp" && y == SyntheticTime {
			return ""
		}
	case string:
		if y, ok := g.(string); ok && y != x && (key == "data" || key == "url" || key == "image_url" || key == "imageUrl") && sameDataURLPrefix(y, x) && SameImage(y, x) {
			return ""
		}
	}
	gb, _ := jsjson.Marshal(g)
	wb, _ := jsjson.Marshal(w)
	if !bytes.Equal(gb, wb) {
		return fmt.Sprintf("%s: %.200s vs %.200s", path, gb, wb)
	}
	return ""
}

func describe(v any) string {
	switch x := v.(type) {
	case []any:
		return fmt.Sprintf("%d items", len(x))
	case *jsjson.Object:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// sameDataURLPrefix: both data: URLs with the same media type, or neither.
func sameDataURLPrefix(a, b string) bool {
	pa, _, okA := strings.Cut(a, ",")
	pb, _, okB := strings.Cut(b, ",")
	if strings.HasPrefix(a, "data:") || strings.HasPrefix(b, "data:") {
		return okA && okB && pa == pb
	}
	return true
}

// SameImage: two base64 payloads (or data: URLs) of images of the same
// decoded type and size.
func SameImage(a, b string) bool {
	ca, fa, ok1 := imageConfig(a)
	cb, fb, ok2 := imageConfig(b)
	return ok1 && ok2 && fa == fb && ca.Width == cb.Width && ca.Height == cb.Height
}

func imageConfig(s string) (image.Config, string, bool) {
	if strings.HasPrefix(s, "data:") {
		_, s, _ = strings.Cut(s, ",")
	}
	raw, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return image.Config{}, "", false
	}
	c, f, err := image.DecodeConfig(bytes.NewReader(raw))
	return c, f, err == nil
}

// sameByteObjectImage: two Uint8Arrays as JSON.stringify writes them
// ({"0": n, ...}) holding images of the same decoded type and size.
func sameByteObjectImage(a, b *jsjson.Object) bool {
	ab, ok1 := byteObject(a)
	bb, ok2 := byteObject(b)
	if !ok1 || !ok2 {
		return false
	}
	ca, fa, err1 := image.DecodeConfig(bytes.NewReader(ab))
	cb, fb, err2 := image.DecodeConfig(bytes.NewReader(bb))
	return err1 == nil && err2 == nil && fa == fb && ca.Width == cb.Width && ca.Height == cb.Height
}

// byteObject reads {"0": n, "1": n, ...} (keys 0..len-1 in order, values
// 0-255) as bytes.
func byteObject(o *jsjson.Object) ([]byte, bool) {
	keys := o.Keys()
	out := make([]byte, len(keys))
	for i, k := range keys {
		if k != strconv.Itoa(i) {
			return nil, false
		}
		v, _ := o.Get(k)
		n, ok := v.(float64)
		if !ok || n < 0 || n > 255 || n != float64(int(n)) {
			return nil, false
		}
		out[i] = byte(n)
	}
	return out, len(out) > 0
}
