package jsonl

import (
	"bytes"
	"testing"
)

// The accept/reject matrix of Node's JSON.parse (research/ecosystem.md §3.3).
func TestValidMatchesJSONParse(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want bool
	}{
		{"object", `{"type":"session","id":"x"}`, true},
		{"invalid utf8 in string", "{\"a\":\"\xff\xfe\"}", true},
		{"lone surrogate", `{"a":"\ud83d"}`, true},
		{"duplicate keys", `{"a":1,"a":2}`, true},
		{"huge exponent", `1e400`, true},
		{"top-level scalar", `42`, true},
		{"surrounding whitespace", " \t{\"a\":1} \r", true},
		{"raw tab in string", "{\"a\":\"x\ty\"}", false},
		{"raw control in string", "{\"a\":\"x\x01y\"}", false},
		{"bad escape", `{"a":"\q"}`, false},
		{"bad unicode escape", `{"a":"\u12G4"}`, false},
		{"glued objects", `{"a":1}{"b":2}`, false},
		{"bom", "\xef\xbb\xbf{\"a\":1}", false},
		{"undefined", `undefined`, false},
		{"truncated", `{"type":"message"`, false},
		{"nul prefix", "\x00\x00{\"a\":1}", false},
		{"empty", ``, false},
		{"nan", `NaN`, false},
		{"single quotes", `{'a':1}`, false},
		{"trailing comma", `{"a":1,}`, false},
	}
	for _, c := range cases {
		if got := Valid([]byte(c.in)); got != c.want {
			t.Errorf("%s: Valid(%q) = %v, want %v", c.name, c.in, got, c.want)
		}
	}
}

// TestTrimSpaceIsBytesTrimSpace: the inlined TrimSpace trims exactly what
// bytes.TrimSpace trims, on every end byte (ASCII, control, Unicode white
// space such as NBSP and NEL, invalid UTF-8).
func TestTrimSpaceIsBytesTrimSpace(t *testing.T) {
	if TrimSpace(nil) != nil || TrimSpace([]byte{}) != nil {
		t.Fatal("TrimSpace of nothing is not nil, as bytes.TrimSpace's is")
	}
	ends := []string{"", " ", "\t", "\n", "\x00", "\x7f", "!", "x", "{", "\"", "\u00a0", "\u0085", "\u2028", "\u3000", "\xff", "\xc2", "é"}
	for _, a := range ends {
		for _, z := range ends {
			for _, mid := range []string{"", "v", " v ", "\u00a0v\u00a0"} {
				b := []byte(a + mid + z)
				if got, want := TrimSpace(b), bytes.TrimSpace(b); !bytes.Equal(got, want) || (got == nil) != (want == nil) {
					t.Fatalf("TrimSpace(%q) = %q, bytes.TrimSpace %q", b, got, want)
				}
			}
		}
	}
}
