package jsjson

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// TestParseStringifyMatchesNode: JSON.stringify(JSON.parse(input)) and
// Object.keys as Node.js gave them (testdata/gen.mjs).
func TestParseStringifyMatchesNode(t *testing.T) {
	f, err := os.Open("testdata/node-answers.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		var c struct {
			Input     string  `json:"input"`
			OK        bool    `json:"ok"`
			Stringify string  `json:"stringify"`
			Keys      *string `json:"keys"`
		}
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		n++
		v, err := Parse([]byte(c.Input))
		if !c.OK {
			if err == nil {
				t.Errorf("Parse(%q) succeeded; JSON.parse throws", c.Input)
			}
			continue
		}
		if err != nil {
			t.Errorf("Parse(%q): %v", c.Input, err)
			continue
		}
		got, err := Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != c.Stringify {
			t.Errorf("stringify(parse(%q)) = %s, Node.js %s", c.Input, got, c.Stringify)
		}
		if c.Keys != nil {
			keys := []any{}
			for _, k := range v.(*Object).Keys() {
				keys = append(keys, k)
			}
			kb, _ := Marshal(keys)
			if string(kb) != *c.Keys {
				t.Errorf("Object.keys(parse(%q)) = %s, Node.js %s", c.Input, kb, *c.Keys)
			}
		}
	}
	if n < 60 {
		t.Fatalf("only %d cases compared", n)
	}
}

// TestFormatNumberMatchesNode: String(x) for 3,000 doubles from Node.js.
func TestFormatNumberMatchesNode(t *testing.T) {
	b, err := os.ReadFile("testdata/node-numbers.txt")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) < 2000 {
		t.Fatalf("only %d numbers", len(lines))
	}
	for _, l := range lines {
		hex, want, _ := strings.Cut(l, " ")
		bits, err := strconv.ParseUint(hex, 16, 64)
		if err != nil {
			t.Fatal(err)
		}
		f := math.Float64frombits(bits)
		if got := FormatNumber(f); got != want {
			t.Errorf("FormatNumber(%v) = %s, Node.js %s", f, got, want)
		}
		// Parsing JavaScript's spelling gives the same double back.
		if g, _ := ParseNumber(want); g != f {
			t.Errorf("ParseNumber(%s) = %v, want %v", want, g, f)
		}
	}
}

func TestCanonicalNumber(t *testing.T) {
	for in, want := range map[string]string{
		"100.0": "100", "-0.0": "0", "-0": "0", "1e-07": "1e-7", "12345678901234567890": "12345678901234567000",
		"9007199254740993": "9007199254740992", "0": "0", "-15": "-15", "2.50": "2.5", "1E+21": "1e+21", "1e309": "null",
		"123456789012345": "123456789012345", "007": "7",
	} {
		got, err := CanonicalNumber(in)
		if err != nil || got != want {
			t.Errorf("CanonicalNumber(%s) = %s, %v; want %s", in, got, err, want)
		}
	}
}

func TestStringHelpers(t *testing.T) {
	lone := func(u rune) string { return string(AppendUnit(nil, u)) }
	hi, lo := lone(0xD83D), lone(0xDE00)
	cases := []struct {
		s          string
		len        int
		sanitized  string
		stringify  string
		slice3     string
		units      []uint16
		surrogates bool
	}{
		{"abc", 3, "abc", `"abc"`, "abc", []uint16{'a', 'b', 'c'}, false},
		{"x" + hi + "y", 3, "xy", `"x\ud83dy"`, "x" + hi + "y", []uint16{'x', 0xD83D, 'y'}, true},
		{"a😀b", 4, "a😀b", `"a😀b"`, "a😀", []uint16{'a', 0xD83D, 0xDE00, 'b'}, false},
		{"a" + hi + lo, 3, "a😀", `"a😀"`, "a" + hi + lo, []uint16{'a', 0xD83D, 0xDE00}, true},
		{lo + hi, 2, "", `"\ude00\ud83d"`, lo + hi, []uint16{0xDE00, 0xD83D}, true},
		{"\u2028\x7f\x01", 3, "\u2028\x7f\x01", "\"\u2028\x7f\\u0001\"", "\u2028\x7f\x01", []uint16{0x2028, 0x7f, 1}, false},
	}
	if got := Slice("a😀b", 2); got != "a"+hi {
		t.Errorf("Slice(a😀b, 2) = %q: JavaScript keeps the high surrogate", got)
	}
	for _, c := range cases {
		if got := Len(c.s); got != c.len {
			t.Errorf("Len(%q) = %d, want %d", c.s, got, c.len)
		}
		if got := SanitizeSurrogates(c.s); got != c.sanitized {
			t.Errorf("SanitizeSurrogates(%q) = %q, want %q", c.s, got, c.sanitized)
		}
		if got := string(AppendString(nil, c.s)); got != c.stringify {
			t.Errorf("AppendString(%q) = %s, want %s", c.s, got, c.stringify)
		}
		if got := Slice(c.s, 3); got != c.slice3 {
			t.Errorf("Slice(%q, 3) = %q, want %q", c.s, got, c.slice3)
		}
		if got := Units(c.s); !slicesEqual(got, c.units) {
			t.Errorf("Units(%q) = %x, want %x", c.s, got, c.units)
		}
		if got := HasSurrogate(c.s); got != c.surrogates {
			t.Errorf("HasSurrogate(%q) = %v", c.s, got)
		}
		if Len(FromUnits(c.units)) != len(c.units) {
			t.Errorf("FromUnits(%x) has the wrong length", c.units)
		}
	}
}

func slicesEqual(a, b []uint16) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestToWellFormed: the WHATWG decoder's U+FFFD per maximal subpart (as
// TextDecoder / Buffer.toString('utf8') in Node.js).
func TestToWellFormed(t *testing.T) {
	for in, want := range map[string]string{
		"ok":                   "ok",
		"\xff":                 "\uFFFD",
		"a\xe2\x82b":           "a\uFFFDb",
		"\xed\xa0\x80":         "\uFFFD\uFFFD\uFFFD",
		"\xf0\x9f\x98":         "\uFFFD",
		"\xf0\x9f\x98\x80\x80": "😀\uFFFD",
		"\xc0\xaf":             "\uFFFD\uFFFD",
		"\xf4\x90\x80\x80":     "\uFFFD\uFFFD\uFFFD\uFFFD",
	} {
		if got := string(ToWellFormed([]byte(in))); got != want {
			t.Errorf("ToWellFormed(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTrim(t *testing.T) {
	in := "\u00a0\ufeff\ufeff\v\u2028\u3000{\"a\":1}\u2029 \t"
	if got := Trim(in); got != `{"a":1}` {
		t.Errorf("Trim = %q", got)
	}
	if got := string(TrimBytes([]byte(in))); got != `{"a":1}` {
		t.Errorf("TrimBytes = %q", got)
	}
	if !Blank("\u00a0\u200a") || Blank("\u200b") {
		t.Error("Blank: U+200A is JavaScript whitespace, U+200B is not")
	}
}

// FuzzParse checks properties of Parse and Marshal: Parse accepts exactly
// what encoding/json accepts (on valid UTF-8), and stringify(parse(x)) is a
// fixed point: parsing it again and writing it gives the same text.
func FuzzParse(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5e-7,"x\ud800y"],"b":{"c":null},"a":true}`, `"\ud83d\ude00"`, `[100.0,-0.0]`, `{"1":0,"0":1}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := Parse(data)
		if utf8.Valid(data) && (err == nil) != json.Valid(data) {
			t.Fatalf("Parse error %v, but json.Valid = %v on %q", err, json.Valid(data), data)
		}
		if err != nil {
			return
		}
		out, err := Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if !json.Valid(out) {
			t.Fatalf("Marshal wrote invalid JSON %q", out)
		}
		v2, err := Parse(out)
		if err != nil {
			t.Fatalf("Parse(Marshal(v)) = %v on %q", err, out)
		}
		out2, _ := Marshal(v2)
		if string(out2) != string(out) {
			t.Fatalf("not a fixed point: %q then %q", out, out2)
		}
	})
}

// StringValue gives what encoding/json gives for a string literal of valid
// UTF-8 (which also reads each lone surrogate as U+FFFD), reads invalid
// UTF-8 as Node does, and refuses what is not one string literal.
func TestStringValue(t *testing.T) {
	for _, lit := range []string{
		`""`, `"plain"`, `"tab\tq\"uote\\ \/ \b\f\n\r"`, `"\u00e9\u65e5 é 日"`,
		`"\ud83d\ude00"`, `"cut \ud83d here"`, `"\ude00\ud83d"`, `"\ud83d\ud83d\ude00"`,
		`"\ud83dA"`, `"\uDBFF\uDFFF"`, `"\u0000"`,
	} {
		var want string
		require.NoError(t, json.Unmarshal([]byte(lit), &want), lit)
		got, ok := StringValue([]byte(lit))
		require.True(t, ok, lit)
		require.Equal(t, want, got, lit)
	}
	got, ok := StringValue([]byte("\"a\xe2\x82b\xff\\n\""))
	require.True(t, ok)
	require.Equal(t, "a\uFFFDb\uFFFD\n", got, "a maximal invalid subpart is one U+FFFD, as Node reads it")
	for _, bad := range []string{``, `"`, `x`, `"a`, `1`, `"a\q"`, `"a\u12"`, "\"a\x01\"", `"a"b"`, `"a" `} {
		_, ok := StringValue([]byte(bad))
		require.False(t, ok, "%q", bad)
	}
}

// StringValue accepts exactly the string literals encoding/json does and
// gives the same text, on valid UTF-8 (encoding/json, too, reads each lone
// surrogate escape as U+FFFD); on any input its text is valid UTF-8.
func FuzzStringValue(f *testing.F) {
	for _, s := range []string{`"a"`, `"\ud83d\ude00"`, `"\ud83d"`, `"\u00"`, `"a\"`, "\"\x01\"", `"\/\b\f\n\r\t"`, "\"\xff\"", `""`, `"a"b"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, ok := StringValue(b)
		if ok && !utf8.ValidString(got) {
			t.Fatalf("StringValue(%q) = %q: not valid UTF-8", b, got)
		}
		if !utf8.Valid(b) {
			return
		}
		var want string
		err := json.Unmarshal(b, &want)
		wantOK := err == nil && len(b) > 1 && b[0] == '"' && b[len(b)-1] == '"' // one literal, no white space
		if ok != wantOK || ok && got != want {
			t.Fatalf("StringValue(%q) = %q, %v; encoding/json: %q, %v", b, got, ok, want, err)
		}
	})
}

// EscapedOrHigh answers what a look at every byte answers, at every length
// and position of a backslash or a high byte (the word loop and the tail).
func TestEscapedOrHigh(t *testing.T) {
	for n := 0; n <= 40; n++ {
		for pos := -1; pos < n; pos++ {
			for _, c := range []byte{'\\', 0x80, 0xff, 0x5b, 0x5d, 0xdc, 0x7f, 0} {
				b := bytes.Repeat([]byte{'a'}, n)
				if pos >= 0 {
					b[pos] = c
				}
				esc, high := EscapedOrHigh(b)
				require.Equal(t, bytes.IndexByte(b, '\\') >= 0, esc, "n=%d pos=%d byte %#x", n, pos, c)
				wantHigh := false
				for _, x := range b {
					wantHigh = wantHigh || x >= 0x80
				}
				require.Equal(t, wantHigh, high, "n=%d pos=%d byte %#x", n, pos, c)
			}
		}
	}
}
