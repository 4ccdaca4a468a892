package replay

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/openclaw-tools/oc/pkg/replay/internal/replaytest"
)

// wireDifference compares a wire body oc rendered with the oracle's, byte for
// byte: key order, number and string encoding, request options (max_tokens,
// stream, store) and cache markers all count. The one tolerated difference:
// the bytes of an image inside an image block, when both sides decode to the
// same image type and size (OpenClaw may re-encode images). Base64 outside
// image blocks (redacted thinking, encrypted reasoning, signatures) must be
// identical. It returns "" when equal, else where the bodies first differ.
func wireDifference(t testing.TB, got, want []byte) string {
	t.Helper()
	if bytes.Equal(got, want) {
		return ""
	}
	g, w := decodeJSON(t, got), decodeJSON(t, want)
	gi, wi := map[string]imageValue{}, map[string]imageValue{}
	collectImages(g, "$", false, gi)
	collectImages(w, "$", false, wi)
	paths := make([]string, 0, len(gi))
	for p := range gi {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	adjusted := got
	for _, p := range paths {
		gv, wv := gi[p], wi[p]
		if wv.text == nil || bytes.Equal(gv.text, wv.text) || gv.summary != wv.summary || strings.HasPrefix(gv.summary, "undecodable") {
			continue
		}
		adjusted = bytes.Replace(adjusted, gv.text, wv.text, 1)
	}
	if bytes.Equal(adjusted, want) {
		return ""
	}
	i := 0
	for i < len(adjusted) && i < len(want) && adjusted[i] == want[i] {
		i++
	}
	where := fmt.Sprintf("first different byte at offset %d: oc …%s…, oracle …%s…", i, around(adjusted, i), around(want, i))
	if reflect.DeepEqual(g, w) {
		return where + "\n(the same JSON value: key order or number/string encoding differs)"
	}
	return where + "\n" + replaytest.FirstDifference(g, w, "$")
}

func around(b []byte, i int) string {
	lo, hi := max(0, i-60), min(len(b), i+60)
	return strconv.Quote(string(b[lo:hi]))
}

// imageValue is the image bytes of one image block: their exact JSON text
// (as JSON.stringify writes it) and their decoded type and size.
type imageValue struct {
	text    []byte
	summary string
}

// imageBlockTypes are the "type" values of image blocks in the wire formats
// (Anthropic, OpenAI completions and responses, Mistral).
var imageBlockTypes = map[string]bool{"image": true, "image_url": true, "input_image": true}

// collectImages finds the image bytes of every image block of a decoded
// body (decodeJSON), keyed by JSON path: base64 or data: URL strings under
// data/url/image_url/imageUrl inside an image block or Google's inlineData,
// and Bedrock's {"image":{"source":{"bytes":{"0":…}}}} byte objects.
func collectImages(v any, path string, inImage bool, out map[string]imageValue) {
	switch x := v.(type) {
	case map[string]any:
		if typ, ok := x["type"].(string); ok && imageBlockTypes[typ] {
			inImage = true
		}
		for k, e := range x {
			p := path + "." + k
			switch s := e.(type) {
			case string:
				if inImage && (k == "data" || k == "url" || k == "image_url" || k == "imageUrl") {
					out[p] = imageValue{text: jsString(s), summary: normalizeImageString(s)}
				}
				continue
			case map[string]any:
				if k == "bytes" && inImage {
					if raw, text, ok := byteObject(s); ok {
						out[p] = imageValue{text: text, summary: imageSummary(raw)}
						continue
					}
				}
			}
			collectImages(e, p, inImage || k == "inlineData" || k == "image", out)
		}
	case []any:
		for i, e := range x {
			collectImages(e, fmt.Sprintf("%s[%d]", path, i), inImage, out)
		}
	}
}

func jsString(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// byteObject reads a Uint8Array as JSON.stringify writes it ({"0":137,…})
// and gives its bytes and its exact text.
func byteObject(m map[string]any) ([]byte, []byte, bool) {
	raw := make([]byte, len(m))
	for k, n := range m {
		i, err := strconv.Atoi(k)
		num, ok := n.(json.Number)
		if err != nil || !ok || i < 0 || i >= len(m) {
			return nil, nil, false
		}
		val, err := strconv.Atoi(string(num))
		if err != nil || val < 0 || val > 255 {
			return nil, nil, false
		}
		raw[i] = byte(val)
	}
	var text bytes.Buffer
	text.WriteByte('{')
	for i, c := range raw {
		if i > 0 {
			text.WriteByte(',')
		}
		fmt.Fprintf(&text, `"%d":%d`, i, c)
	}
	text.WriteByte('}')
	return raw, text.Bytes(), true
}

// The comparison sees what normalised comparisons hid: request options,
// cache markers, key order, and base64 outside image blocks; and it lets
// re-encoded image bytes through.
func TestWireDifference(t *testing.T) {
	png1, png1b := pngBase64(t, 3, 2), pngBase64Gray(t, 3, 2)
	png2 := pngBase64(t, 2, 4)
	same := []struct{ name, got, want string }{
		{"identical", `{"a":1}`, `{"a":1}`},
		{"re-encoded anthropic image", `{"messages":[{"content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + png1 + `"}}]}]}`,
			`{"messages":[{"content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + png1b + `"}}]}]}`},
		{"re-encoded data URL", `{"input":[{"type":"input_image","image_url":"data:image/png;base64,` + png1 + `"}]}`,
			`{"input":[{"type":"input_image","image_url":"data:image/png;base64,` + png1b + `"}]}`},
		{"re-encoded inlineData", `{"contents":[{"parts":[{"inlineData":{"mimeType":"image/png","data":"` + png1 + `"}}]}]}`,
			`{"contents":[{"parts":[{"inlineData":{"mimeType":"image/png","data":"` + png1b + `"}}]}]}`},
	}
	for _, c := range same {
		if d := wireDifference(t, []byte(c.got), []byte(c.want)); d != "" {
			t.Errorf("%s: %s", c.name, d)
		}
	}
	differ := []struct{ name, got, want string }{
		{"max_tokens", `{"model":"m","max_tokens":100}`, `{"model":"m","max_tokens":200}`},
		{"stream", `{"model":"m"}`, `{"model":"m","stream":true}`},
		{"cache_control", `{"content":[{"type":"text","text":"x"}]}`, `{"content":[{"type":"text","text":"x","cache_control":{"type":"ephemeral"}}]}`},
		{"cachePoint", `{"content":[{"text":"x"}]}`, `{"content":[{"text":"x"},{"cachePoint":{"type":"default"}}]}`},
		{"key order", `{"b":1,"a":2}`, `{"a":2,"b":1}`},
		{"number text", `{"a":1.0}`, `{"a":1}`},
		{"string escape", `{"a":"\u003c"}`, `{"a":"<"}`},
		{"redacted thinking", `{"content":[{"type":"redacted_thinking","data":"` + png1 + `"}]}`, `{"content":[{"type":"redacted_thinking","data":"` + png1b + `"}]}`},
		{"encrypted reasoning", `{"input":[{"type":"reasoning","encrypted_content":"YWJj"}]}`, `{"input":[{"type":"reasoning","encrypted_content":"YWJk"}]}`},
		{"image of another size", `{"content":[{"type":"image","source":{"data":"` + png1 + `"}}]}`, `{"content":[{"type":"image","source":{"data":"` + png2 + `"}}]}`},
		{"undecodable image bytes", `{"content":[{"type":"image","source":{"data":"AAAA"}}]}`, `{"content":[{"type":"image","source":{"data":"AAAB"}}]}`},
	}
	for _, c := range differ {
		if d := wireDifference(t, []byte(c.got), []byte(c.want)); d == "" {
			t.Errorf("%s: difference not seen", c.name)
		}
	}
}

// pngBase64Gray is a w x h PNG with other pixels than pngBase64's: the
// same type and size, other bytes (as a re-encoding gives).
func pngBase64Gray(t testing.TB, w, h int) string {
	t.Helper()
	img := image.NewGray(image.Rect(0, 0, w, h))
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes())
}
