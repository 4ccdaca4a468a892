package replay

import (
	"encoding/json"
	"math"
	"slices"
	"testing"
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
		if got := jsNumberText(f); got != want {
			t.Errorf("jsNumberText(%v) = %q, want %q", f, got, want)
		}
	}
}

func TestAppendJSStringEscapesLikeJSONStringify(t *testing.T) {
	got := string(appendJSString(nil, "a\u2028b<>&\u0007\u007f\"\\\n\t\xff"))
	want := `"a` + "\u2028" + `b<>&\u0007` + "\u007f" + `\"\\\n\t` + "\uFFFD" + `"`
	if got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestShortHashMatchesPiAI(t *testing.T) {
	// Values printed by pi-ai's shortHash under Node.
	cases := map[string]string{
		"abc": "y0biex7f9bbh", "": "k4n83c7h0j2b", "fc_def+/=": "4vjryt1dqad46",
		"héllo😀": "1olj6nu1frhbfw", "call_abc": "py36n51ekigv6",
	}
	for in, want := range cases {
		if got := shortHash(in); got != want {
			t.Errorf("shortHash(%q) = %q, want %q", in, got, want)
		}
	}
}

func decodeOne(t testing.TB, raw string) (any, *KeyOrder) {
	t.Helper()
	msgs, err := DecodeMessages([]json.RawMessage{json.RawMessage(raw)})
	if err != nil {
		t.Fatal(err)
	}
	k := NewKeyOrder()
	if err := k.Record([]byte(raw), msgs[0]); err != nil {
		t.Fatal(err)
	}
	return msgs[0], k
}

func TestKeyOrderKeepsSourceOrderWithIndexKeysFirst(t *testing.T) {
	v, k := decodeOne(t, `{"z":1,"a":{"y":[{"q":1,"b":2}],"x":2},"10":3,"2":4,"a":{"y":[{"q":1,"b":2}],"x":2}}`)
	got, err := AppendJS(nil, v, k)
	if err != nil {
		t.Fatal(err)
	}
	// Duplicate "a": first position, last value (JSON.parse); "2" and "10" first, ascending.
	want := `{"2":4,"10":3,"z":1,"a":{"y":[{"q":1,"b":2}],"x":2}}`
	if string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
	// Without a record: sorted, index keys still first.
	got, _ = AppendJS(nil, v, nil)
	if want := `{"2":4,"10":3,"a":{"x":2,"y":[{"b":2,"q":1}]},"z":1}`; string(got) != want {
		t.Errorf("unrecorded: got %s, want %s", got, want)
	}
}

func TestKeyOrderNewKeysFollowRecordedOnes(t *testing.T) {
	v, k := decodeOne(t, `{"b":1,"a":2}`)
	m := v.(map[string]any)
	m["c"] = 3
	delete(m, "b")
	if got := k.Keys(m); !slices.Equal(got, []string{"a", "c"}) {
		t.Errorf("keys %v", got)
	}
}

func TestKeyOrderEscapedKeys(t *testing.T) {
	v, k := decodeOne(t, `{"\u00e9t\u00e9":1,"a\"b":2,"A":3}`)
	got, _ := AppendJS(nil, v, k)
	if want := `{"été":1,"a\"b":2,"A":3}`; string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestJSTrimUsesJavaScriptWhitespace(t *testing.T) {
	if got := jsTrim("\uFEFF\u00a0 x \u2028"); got != "x" {
		t.Errorf("jsTrim = %q", got)
	}
	if jsBlank("\u0085") { // NEL is not JavaScript whitespace
		t.Error("U+0085 counted as blank")
	}
	if !jsBlank(" \t\n\u3000") {
		t.Error("whitespace not blank")
	}
}

func TestJSSliceAndReplaceCountUTF16Units(t *testing.T) {
	if got := replaceIDChars("a😀b.c", "_", true); got != "a__b_c" {
		t.Errorf("replaceIDChars = %q", got)
	}
	// JavaScript keeps the high half of a pair cut by slice (WTF-8 here).
	if got := jsSlice("ab😀cd", 3); got != "ab\xed\xa0\xbd" {
		t.Errorf("jsSlice = %q", got)
	}
	if got := jsLen("a😀"); got != 3 {
		t.Errorf("jsLen = %d", got)
	}
}

func FuzzKeyOrderRecord(f *testing.F) {
	f.Add(`{"b":1,"a":[{"d":1,"c":"}"}],"\"k":{}}`)
	f.Add(`[1,{"x":[],"y":null}]`)
	f.Add(`{"a":1,"a":{"z":1,"y":2}}`)
	f.Fuzz(func(t *testing.T, raw string) {
		var v any
		if json.Unmarshal([]byte(raw), &v) != nil {
			return
		}
		k := NewKeyOrder()
		if err := k.Record([]byte(raw), v); err != nil {
			t.Fatalf("Record(%q): %v", raw, err)
		}
		b, err := AppendJS(nil, v, k)
		if err != nil {
			t.Fatal(err)
		}
		var back any
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("AppendJS wrote invalid JSON %s: %v", b, err)
		}
	})
}

func TestKeyOrderInherit(t *testing.T) {
	v, k := decodeOne(t, `{"b":1,"a":2}`)
	src := v.(map[string]any)
	dst := map[string]any{"a": 2, "b": 1, "c": 3}
	k.Inherit(dst, src)
	if got := k.Keys(dst); !slices.Equal(got, []string{"b", "a", "c"}) {
		t.Errorf("keys %v", got)
	}
}
