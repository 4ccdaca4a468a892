package jsondoc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/openclaw-tools/oc/internal/oracletest"
)

func TestParseJSON5Extensions(t *testing.T) {
	src := `// a hand-edited store
{
  version: 1, /* block
  comment */
  'jobs': [
    {id: 'a\'b', n: +5, h: 0xFF, d: .5, e: 5., inf: -Infinity,},
  ],
}`
	v, res, err := Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if !res.JSON5 {
		t.Error("JSON5 not reported")
	}
	job := v.Get("jobs").Items[0]
	if s, _ := job.StringOf("id"); s != "a'b" {
		t.Errorf("id = %q", s)
	}
	for key, want := range map[string]float64{"n": 5, "h": 255, "d": 0.5, "e": 5, "inf": math.Inf(-1)} {
		if got := job.Get(key).Num; got != want {
			t.Errorf("%s = %v, want %v", key, got, want)
		}
	}
	if got := string(MarshalCompact(v)); got != `{"version":1,"jobs":[{"id":"a'b","n":5,"h":255,"d":0.5,"e":5,"inf":null}]}` {
		t.Errorf("compact = %s", got)
	}
}

func TestParseStrictJSONIsNotJSON5(t *testing.T) {
	_, res, err := Parse([]byte(`{"a": [1, 2.5e3, "x\u00e9\ud83d\ude00"], "b": {}}`))
	if err != nil || res.JSON5 {
		t.Fatalf("err=%v json5=%v", err, res.JSON5)
	}
}

func TestParseErrors(t *testing.T) {
	for _, src := range []string{``, `{`, `{"a"}`, `{"a":1,,}`, `[1 2]`, `{"a":01}`, `"abc`, `{"a":1} x`, `/* open`, "\"a\x01\"", `{"a":tru}`, strings.Repeat("[", MaxDepth+2)} {
		if _, _, err := Parse([]byte(src)); err == nil {
			t.Errorf("Parse(%q) succeeded", src)
		} else if _, ok := err.(*SyntaxError); !ok {
			t.Errorf("Parse(%q): %T %v", src, err, err)
		}
	}
}

func TestDuplicateKeysLastWinsFirstPosition(t *testing.T) {
	v, res, err := Parse([]byte(`{"a":1,"b":2,"a":3}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(MarshalCompact(v)); got != `{"a":3,"b":2}` {
		t.Errorf("got %s", got)
	}
	if len(res.DuplicateKeys) != 1 || res.DuplicateKeys[0] != "a" {
		t.Errorf("dups = %v", res.DuplicateKeys)
	}
}

// Numbers are written as JSON.stringify writes them (jsjson's spelling).
func TestNumbersMarshalLikeJavaScript(t *testing.T) {
	cases := map[float64]string{
		0: "0", 1: "1", -1: "-1", 1.5: "1.5", 1e21: "1e+21", 1e20: "100000000000000000000",
		1e-7: "1e-7", 1.5e-7: "1.5e-7", 123456789012345680000: "123456789012345680000",
		1777399200000: "1777399200000", 0.30000000000000004: "0.30000000000000004", 1e-6: "0.000001", math.MaxFloat64: "1.7976931348623157e+308",
		math.NaN(): "null", math.Inf(1): "null",
	}
	for f, want := range cases {
		if got := string(MarshalCompact(NewNumber(f))); got != want {
			t.Errorf("Marshal(%v) = %s, want %s", f, got, want)
		}
	}
}

func TestStringEscapingLikeJSONStringify(t *testing.T) {
	v, _, err := Parse([]byte(`"<a&b> \u0001 \u001f \" \\ / \t é \ud800 \udc00x"`))
	if err != nil {
		t.Fatal(err)
	}
	want := `"<a&b> \u0001 \u001f \" \\ / \t é \ud800 \udc00x"`
	if got := string(Marshal(v)); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestInvalidUTF8ReadsAsReplacement(t *testing.T) {
	v, _, err := Parse([]byte("\"a\xffb\""))
	if err != nil {
		t.Fatal(err)
	}
	if v.Str != "a\uFFFDb" {
		t.Errorf("got %q", v.Str)
	}
}

func TestSetAfterAndDeleteKeepOrder(t *testing.T) {
	v, _, _ := Parse([]byte(`{"mode":"announce","bestEffort":true}`))
	v.SetAfter("channel", NewString("discord"), false, "mode")
	v.SetAfter("to", NewString("x"), false, "mode", "channel")
	v.SetAfter("kind", NewString("k"), true)
	if got := string(MarshalCompact(v)); got != `{"kind":"k","mode":"announce","channel":"discord","to":"x","bestEffort":true}` {
		t.Errorf("got %s", got)
	}
	v.Delete("kind")
	v.SetAfter("mode", NewString("none"), true)
	if got := string(MarshalCompact(v)); got != `{"mode":"none","channel":"discord","to":"x","bestEffort":true}` {
		t.Errorf("got %s", got)
	}
}

// Every JSON document of the corpus that OpenClaw wrote with
// JSON.stringify(v, null, 2) must come back byte for byte.
func TestCorpusDocumentsRoundTripByteForByte(t *testing.T) {
	dir := oracletest.CorpusDir(t)
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) == 0 {
		t.Fatalf("no JSON documents in %s", dir)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		v, _, err := Parse(data)
		if err != nil {
			t.Errorf("%s: %v", filepath.Base(f), err)
			continue
		}
		out := Marshal(v)
		if !bytes.Equal(bytes.TrimRight(data, "\n"), out) {
			t.Errorf("%s: round trip differs", filepath.Base(f))
		}
		var a, b any
		if err := json.Unmarshal(data, &a); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(out, &b); err != nil {
			t.Fatal(err)
		}
	}
}

// Strict JSON accepted by encoding/json must parse to the same value (the
// same kinds, numbers, strings, items, and members in document order with
// the last duplicate winning, as in JavaScript), and Marshal's output must be
// valid JSON that parses back to an Equal value. The only inputs whose value
// is not compared are those where encoding/json itself differs from
// JavaScript: invalid UTF-8 and lone surrogate escapes (it writes U+FFFD).
func FuzzParse(f *testing.F) {
	for _, s := range []string{`{"a":[1,2,{"b":null}],"c":"d\u00e9"}`, `[]`, `{}`, `"x"`, `1e400`, `{a:1,}`, `// c` + "\n" + `[0x1f, .5, 'q']`, `{"a":1,"a":2}`, `"\ud800"`, `"\ud83d\ude00\u0041\n"`, `[-0, 1E2, 0.1e-3]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, _, err := Parse(data)
		var std any
		stdErr := json.Unmarshal(data, &std)
		if stdErr == nil && err != nil && !strings.Contains(err.Error(), "nesting") {
			t.Fatalf("encoding/json accepts %q, Parse rejects it: %v", data, err)
		}
		if stdErr == nil && err == nil && utf8.Valid(data) && !loneSurrogateEscape(data) {
			if d := sameAsStd(v, std, "$"); d != "" {
				t.Fatalf("Parse(%q) differs from encoding/json: %s", data, d)
			}
		}
		if err != nil {
			return
		}
		out := Marshal(v)
		if !json.Valid(out) {
			t.Fatalf("Marshal wrote invalid JSON %q for %q", out, data)
		}
		v2, _, err := Parse(out)
		if err != nil {
			t.Fatalf("re-parse: %v", err)
		}
		if !Equal(stripNonFinite(v), v2) {
			t.Fatalf("round trip changed %q -> %q", data, out)
		}
	})
}

// loneSurrogateEscape reports a \uD800-\uDFFF escape not part of a pair.
func loneSurrogateEscape(data []byte) bool {
	for i := 0; i+6 <= len(data); i++ {
		if data[i] != '\\' {
			continue
		}
		if data[i+1] != 'u' {
			i++ // an escaped character: skip it (it may be a backslash)
			continue
		}
		r, err := strconv.ParseUint(string(data[i+2:i+6]), 16, 32)
		if err != nil {
			continue
		}
		switch {
		case r >= 0xD800 && r <= 0xDBFF:
			if i+12 > len(data) || data[i+6] != '\\' || data[i+7] != 'u' {
				return true
			}
			lo, err := strconv.ParseUint(string(data[i+8:i+12]), 16, 32)
			if err != nil || lo < 0xDC00 || lo > 0xDFFF {
				return true
			}
			i += 11
		case r >= 0xDC00 && r <= 0xDFFF:
			return true
		default:
			i += 5
		}
	}
	return false
}

// sameAsStd compares a parsed Value with encoding/json's value of the same
// text; duplicate members: the last one counts, in the first one's place.
func sameAsStd(v *Value, std any, path string) string {
	switch x := std.(type) {
	case nil:
		if v.Kind != Null {
			return path + ": " + v.Kind.String() + ", want null"
		}
	case bool:
		if v.Kind != Bool || v.Bool != x {
			return fmt.Sprintf("%s: %s %v, want %v", path, v.Kind, v.Bool, x)
		}
	case float64:
		if v.Kind != Number || v.Num != x || math.Signbit(v.Num) != math.Signbit(x) {
			return fmt.Sprintf("%s: %s %v, want %v", path, v.Kind, v.Num, x)
		}
	case string:
		if v.Kind != String || v.Str != x {
			return fmt.Sprintf("%s: %s %q, want %q", path, v.Kind, v.Str, x)
		}
	case []any:
		if v.Kind != Array || len(v.Items) != len(x) {
			return fmt.Sprintf("%s: %s of %d items, want an array of %d", path, v.Kind, len(v.Items), len(x))
		}
		for i := range x {
			if d := sameAsStd(v.Items[i], x[i], fmt.Sprintf("%s[%d]", path, i)); d != "" {
				return d
			}
		}
	case map[string]any:
		if v.Kind != Object {
			return fmt.Sprintf("%s: %s, want an object", path, v.Kind)
		}
		last := map[string]*Value{}
		for _, m := range v.Members {
			last[m.Key] = m.Value
		}
		if len(last) != len(x) {
			return fmt.Sprintf("%s: %d distinct members, want %d", path, len(last), len(x))
		}
		for k, sv := range x {
			pv, ok := last[k]
			if !ok {
				return fmt.Sprintf("%s: member %q missing", path, k)
			}
			if d := sameAsStd(pv, sv, path+"."+k); d != "" {
				return d
			}
		}
	default:
		return fmt.Sprintf("%s: unexpected %T", path, std)
	}
	return ""
}

// stripNonFinite turns NaN and ±Infinity into null, as JSON.stringify does.
func stripNonFinite(v *Value) *Value {
	c := v.Clone()
	var walk func(*Value)
	walk = func(x *Value) {
		if x.Kind == Number && (math.IsNaN(x.Num) || math.IsInf(x.Num, 0)) {
			*x = Value{Kind: Null}
		}
		for _, it := range x.Items {
			walk(it)
		}
		for _, m := range x.Members {
			walk(m.Value)
		}
	}
	walk(c)
	return c
}
