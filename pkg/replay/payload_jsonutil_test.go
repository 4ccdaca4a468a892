package replay

import (
	"math"
	"testing"

	"github.com/openclaw-tools/oc/internal/jsjson"
)

func TestJSNumberTextMatchesJavaScript(t *testing.T) {
	tenth, fifth := 0.1, 0.2
	// Expected values printed by Node's JSON.stringify.
	cases := map[float64]string{
		1.5: "1.5", 1e21: "1e+21", 1e-7: "1e-7", 123456789012345680000: "123456789012345680000",
		0.000001: "0.000001", math.Copysign(0, -1): "0", 100: "100", 5e-324: "5e-324",
		1.7976931348623157e308: "1.7976931348623157e+308", tenth + fifth: "0.30000000000000004", 123e-20: "1.23e-18",
		-2.5: "-2.5", math.NaN(): "null", math.Inf(1): "null",
	}
	for f, want := range cases {
		if got := jsjson.FormatNumber(f); got != want {
			t.Errorf("jsjson.FormatNumber(%v) = %q, want %q", f, got, want)
		}
	}
}

func TestAppendJSStringEscapesLikeJSONStringify(t *testing.T) {
	got := string(jsjson.AppendString(nil, "a\u2028b<>&\u0007\u007f\"\\\n\t\xff"))
	want := `"a` + "\u2028" + `b<>&\u0007` + "\u007f" + `\"\\\n\t` + "\uFFFD" + `"`
	if got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestJSTrimUsesJavaScriptWhitespace(t *testing.T) {
	if got := jsjson.Trim("\uFEFF\u00a0 x \u2028"); got != "x" {
		t.Errorf("jsTrim = %q", got)
	}
	if jsjson.Blank("\u0085") { // NEL is not JavaScript whitespace
		t.Error("U+0085 counted as blank")
	}
	if !jsjson.Blank(" \t\n\u3000") {
		t.Error("whitespace not blank")
	}
}
