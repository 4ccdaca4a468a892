package jsvalue

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func decodeOne(t testing.TB, raw string) any {
	t.Helper()
	msgs, err := DecodeMessages([]json.RawMessage{json.RawMessage(raw)}, false)
	if err != nil {
		t.Fatal(err)
	}
	return msgs[0]
}

func TestAppendJSKeepsSourceOrderWithIndexKeysFirst(t *testing.T) {
	v := decodeOne(t, `{"z":1,"a":{"y":[{"q":1,"b":2}],"x":2},"10":3,"2":4,"a":{"y":[{"q":1,"b":2}],"x":2}}`)
	got, err := AppendJS(nil, v)
	if err != nil {
		t.Fatal(err)
	}
	// Duplicate "a": first position, last value (JSON.parse); "2" and "10" first, ascending.
	want := `{"2":4,"10":3,"z":1,"a":{"y":[{"q":1,"b":2}],"x":2}}`
	if string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestObjectNewKeysFollowDecodedOnes(t *testing.T) {
	m := decodeOne(t, `{"b":1,"a":2}`).(*Object).With("c", 3)
	m.Delete("b")
	m.Set("b", 4)
	if got := memberKeys(m); !slices.Equal(got, []string{"a", "c", "b"}) {
		t.Errorf("keys %v", got)
	}
}

func TestAppendJSEscapedKeys(t *testing.T) {
	got, _ := AppendJS(nil, decodeOne(t, `{"\u00e9t\u00e9":1,"a\"b":2,"A":3}`))
	if want := `{"été":1,"a\"b":2,"A":3}`; string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// FuzzAppendJSOrder: AppendJS(Parse(text)) is what JSON.stringify writes
// for JSON.parse of the text: checked with encoding/json's tokenizer (not
// oc's decoder), every object's members in JavaScript's order of the
// text's members (array indices first), the same strings, numbers and
// nesting, and no white space. Inputs where encoding/json differs from
// JSON.parse (duplicate members, invalid UTF-8, lone surrogates) only have
// to give valid JSON.
func FuzzAppendJSOrder(f *testing.F) {
	f.Add(`{"b":1,"a":[{"d":1,"c":"}"}],"\"k":{}}`)
	f.Add(`[1,{"x":[],"y":null}]`)
	f.Add(`{"a":1,"a":{"z":1,"y":2}}`)
	f.Add(`{"z":1,"10":2,"2":3,"02":4,"-1":5, "x" : [ -0, 1e21, 1.5e-7, 0.1 ] }`)
	f.Fuzz(func(t *testing.T, raw string) {
		if !json.Valid([]byte(raw)) {
			return
		}
		v, err := Parse(raw)
		if err != nil {
			t.Fatalf("Parse(%q): %v; encoding/json reads it", raw, err)
		}
		b, err := AppendJS(nil, v)
		if err != nil {
			t.Fatal(err)
		}
		var back any
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("AppendJS wrote invalid JSON %s: %v", b, err)
		}
		if _, dup := tokenKeyOrder(t, raw); dup || !utf8.ValidString(raw) || hasLoneSurrogateEscape(raw) {
			return
		}
		want, got := orderedTree(t, raw), orderedTree(t, string(b))
		if d := sameJSOrdered(got, want, "$"); d != "" {
			t.Fatalf("AppendJS(%q) = %s: %s", raw, b, d)
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, b); err != nil || !bytes.Equal(compact.Bytes(), b) {
			t.Fatalf("AppendJS(%q) = %s: not compact like JSON.stringify", raw, b)
		}
	})
}

// ordered is a JSON value read with encoding/json's tokenizer, objects with
// their members in text order.
type ordered struct {
	keys  []string
	vals  []*ordered
	items []*ordered
	kind  byte // '{', '[', or 's' string, 'n' number, 'b' bool, '0' null
	str   string
	num   float64
	b     bool
}

func orderedTree(t testing.TB, s string) *ordered {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var read func() *ordered
	read = func() *ordered {
		tok, err := dec.Token()
		if err != nil {
			t.Fatalf("tokenize %q: %v", s, err)
		}
		switch x := tok.(type) {
		case json.Delim:
			o := &ordered{kind: byte(x)}
			for dec.More() {
				if x == '{' {
					kt, err := dec.Token()
					if err != nil {
						t.Fatal(err)
					}
					o.keys = append(o.keys, kt.(string))
					o.vals = append(o.vals, read())
				} else {
					o.items = append(o.items, read())
				}
			}
			if _, err := dec.Token(); err != nil { // the closing delimiter
				t.Fatal(err)
			}
			return o
		case string:
			return &ordered{kind: 's', str: x}
		case json.Number:
			f, err := strconv.ParseFloat(string(x), 64)
			if err != nil && !errors.Is(err, strconv.ErrRange) {
				t.Fatalf("number %s: %v", x, err)
			}
			if math.IsInf(f, 0) {
				// JSON.parse reads 1E1000 as Infinity, which JSON.stringify writes as null
				return &ordered{kind: '0'}
			}
			return &ordered{kind: 'n', num: f}
		case bool:
			return &ordered{kind: 'b', b: x}
		default:
			return &ordered{kind: '0'}
		}
	}
	return read()
}

// sameJSOrdered compares JSON.stringify's expected output (got) with the
// parsed text (want): object members in JavaScript's property order.
func sameJSOrdered(got, want *ordered, path string) string {
	if got.kind != want.kind {
		return fmt.Sprintf("%s: kind %c, want %c", path, got.kind, want.kind)
	}
	switch want.kind {
	case '{':
		order := jsPropertyOrder(want.keys)
		if !slices.Equal(got.keys, order) {
			return fmt.Sprintf("%s: members %q, want %q", path, got.keys, order)
		}
		for _, k := range order {
			gi, wi := slices.Index(got.keys, k), slices.Index(want.keys, k)
			if d := sameJSOrdered(got.vals[gi], want.vals[wi], path+"."+k); d != "" {
				return d
			}
		}
	case '[':
		if len(got.items) != len(want.items) {
			return fmt.Sprintf("%s: %d items, want %d", path, len(got.items), len(want.items))
		}
		for i := range want.items {
			if d := sameJSOrdered(got.items[i], want.items[i], fmt.Sprintf("%s[%d]", path, i)); d != "" {
				return d
			}
		}
	case 's':
		if got.str != want.str {
			return fmt.Sprintf("%s: %q, want %q", path, got.str, want.str)
		}
	case 'n':
		if got.num != want.num {
			return fmt.Sprintf("%s: %v, want %v", path, got.num, want.num)
		}
	case 'b':
		if got.b != want.b {
			return fmt.Sprintf("%s: %v, want %v", path, got.b, want.b)
		}
	}
	return ""
}
