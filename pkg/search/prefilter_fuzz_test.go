package search

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzPrefilter: the prefilter never drops a row whose decoded strings hold
// a match, whatever the escapes, case or pattern.
func FuzzPrefilter(f *testing.F) {
	f.Add(`{"a":"ZEBRA\u0046ISH"}`, "ZEBRAFISH", false)
	f.Add(`{"a":"x\/y"}`, "x/y", false)
	f.Add(`{"a":"\u00e9t\u00e9"}`, "été", true)
	f.Add(`{"a":"say \"hi\""}`, `say "hi"`, false)
	f.Add(`{"a":"Kelvin \u212a"}`, "kelvin k", true)
	f.Add(`{"a":["ſ","ok"]}`, "s", true)
	f.Fuzz(func(t *testing.T, line, pattern string, fold bool) {
		var v any
		if json.Unmarshal([]byte(line), &v) != nil || !utf8.ValidString(pattern) {
			return // a pattern must be text (oc grep says so, exit 2)
		}
		m, err := Compile(Query{Pattern: pattern, IgnoreCase: fold})
		if err != nil {
			t.Fatalf("a fixed string does not compile: %v", err)
		}
		var strs []string
		var walk func(any)
		walk = func(v any) {
			switch x := v.(type) {
			case string:
				strs = append(strs, x)
			case []any:
				for _, e := range x {
					walk(e)
				}
			case map[string]any:
				for _, e := range x {
					walk(e)
				}
			}
		}
		walk(v)
		var buf []byte
		if m.mayMatch([]byte(line), &buf) {
			return
		}
		for _, s := range strs {
			for _, l := range strings.Split(s, "\n") {
				if m.re.MatchString(l) {
					t.Fatalf("prefilter dropped %q, whose string %q matches %q (fold %v)", line, l, pattern, fold)
				}
			}
		}
	})
}
