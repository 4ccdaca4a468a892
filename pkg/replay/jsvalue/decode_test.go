package jsvalue

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/internal/oracletest"
	"github.com/openclaw-tools/oc/pkg/transcript"
)

// referenceDecode is an independent reading of the messages: JSON.parse
// as internal/jsjson implements it (tested against Node.js), its ordered
// objects turned into Objects with their keys as Object.keys enumerates
// them, its doubles into JavaScript's spelling.
func referenceDecode(raw []json.RawMessage) ([]Message, error) {
	out := make([]Message, len(raw))
	for i, r := range raw {
		v, err := jsjson.Parse(r)
		if err != nil {
			return nil, fmt.Errorf("message %d: %w", i, err)
		}
		switch x := fromJS(v).(type) {
		case nil:
		case *Object:
			out[i] = x
		default:
			out[i] = NonObjectMessage(x)
		}
	}
	return out, nil
}

func fromJS(v any) any {
	switch x := v.(type) {
	case *jsjson.Object:
		o := &Object{Members: make([]Member, 0, x.Len())}
		for _, k := range x.Keys() {
			mv, _ := x.Get(k)
			o.Members = append(o.Members, Member{Key: k, Value: fromJS(mv)})
		}
		return o
	case []any:
		a := make([]any, len(x))
		for i, e := range x {
			a[i] = fromJS(e)
		}
		return a
	case float64:
		return json.Number(jsjson.FormatNumber(x))
	}
	return v
}

// sameOrdered compares two decoded values, objects member by member in
// their order; it returns where they differ.
func sameOrdered(a, b any, path string) string {
	switch x := a.(type) {
	case *Object:
		y, ok := b.(*Object)
		if !ok || (x == nil) != (y == nil) {
			return path + ": object vs " + fmt.Sprintf("%T", b)
		}
		if x == nil {
			return ""
		}
		if ka, kb := memberKeys(x), memberKeys(y); !slices.Equal(ka, kb) {
			return fmt.Sprintf("%s: keys %q vs %q", path, ka, kb)
		}
		for i, mb := range x.Members {
			if d := sameOrdered(mb.Value, y.Members[i].Value, path+"."+mb.Key); d != "" {
				return d
			}
		}
		return ""
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) || (x == nil) != (y == nil) {
			return fmt.Sprintf("%s: array vs %T (len %d/%d)", path, b, len(x), len(y))
		}
		for i := range x {
			if d := sameOrdered(x[i], y[i], fmt.Sprintf("%s[%d]", path, i)); d != "" {
				return d
			}
		}
		return ""
	}
	if !reflect.DeepEqual(a, b) {
		return fmt.Sprintf("%s: %#v vs %#v", path, a, b)
	}
	return ""
}

func checkDecode(t *testing.T, name string, raw []json.RawMessage) {
	t.Helper()
	kept := append([]json.RawMessage(nil), raw...)
	got, err := DecodeMessages(raw, true)
	want, werr := referenceDecode(kept)
	if (err != nil) != (werr != nil) {
		t.Errorf("%s: error %v, reference %v", name, err, werr)
		return
	}
	if err != nil {
		return
	}
	for i := range want {
		if raw[i] != nil {
			t.Errorf("%s: message %d: text not released", name, i)
			return
		}
		if d := sameOrdered(got[i], want[i], fmt.Sprintf("message %d", i)); d != "" {
			t.Errorf("%s: %s", name, d)
			return
		}
	}
}

func TestDecodeMessagesCases(t *testing.T) {
	cases := []string{
		`{"b":1,"a":{"y":[1,{"q":1,"p":2},[]],"x":{}},"c":"\u00e9\n\t\"\/\\","d":null,"d":true}`,
		`{"role":"assistant","content":[{"type":"toolCall","arguments":{"z":1,"a":{"k":2,"b":3},"1":0,"0":1}}]}`,
		` { "s" : "x" , "n" : -0.5e+10 , "m": 0 , "l": 1E-7, "k": 12345678901234567890 } `,
		`null`, `[]`, `"x"`, `42`, `[{"b":1,"a":2}]`, `{"a":01}`, `{"a":"x\ud800y","b":"\udfff\ud83d\ude00","c":100.0,"d":-0.0,"e":1e-07}`, `{"a":1,}`, `{"a":1} x`, `{"a":"\ud83d\ude00"}`, "{\"a\":\"\xff\"}",
		`{"a":"12345678901234567890123456789012345","b":"12345678901234567890123456789012345"}`,
		`{"dup":{"x":1,"y":2},"dup":{"y":1,"x":2},"e":"","t":"\u0000\u001f\u2028"}`,
	}
	for _, c := range cases {
		checkDecode(t, c, []json.RawMessage{json.RawMessage(c)})
	}
	checkDecode(t, "all", func() []json.RawMessage {
		var l []json.RawMessage
		for _, c := range cases[:3] {
			l = append(l, json.RawMessage(c))
		}
		return l
	}())
}

// TestDecodeMessagesCorpus: on every corpus transcript's context the
// decoder gives the values and member orders of the reference reading.
func TestDecodeMessagesCorpus(t *testing.T) {
	files := oracletest.Transcripts(t)
	if len(files) == 0 {
		t.Fatal("no corpus transcripts")
	}
	for _, f := range files {
		ctx, err := transcript.LoadContext(f, nil)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		checkDecode(t, f, ctx.Messages)
	}
}

// FuzzDecodeMessages checks the decoder against references that share
// none of its code: encoding/json (UseNumber) for the values, and
// encoding/json's tokenizer for every object's member order. Inputs where
// encoding/json differs from JSON.parse are not compared: duplicate members
// (it keeps the last in no particular place), invalid UTF-8 and lone
// surrogate escapes (it writes U+FFFD).
func FuzzDecodeMessages(f *testing.F) {
	f.Add(`{"b":1,"a":{"y":[1,{"q":1,"p":2}],"x":{}},"c":"\u00e9"}`)
	f.Add(`{"a":1,"a":2,"b":[true,false,null,-1.5e3]}`)
	f.Add(`{"role":"assistant","content":[{"type":"toolCall","arguments":{"z":1,"a":{"k":2,"b":3},"1":0,"0":1}}],"n":12345678901234567890}`)
	f.Add(` {"s" : "\ud83d\ude00\n" , "e":{}, "l":[[],{}]} `)
	f.Fuzz(func(t *testing.T, s string) {
		if !json.Valid([]byte(s)) || !utf8.ValidString(s) || hasLoneSurrogateEscape(s) {
			return
		}
		order, dup := tokenKeyOrder(t, s)
		if dup {
			return
		}
		dec := json.NewDecoder(strings.NewReader(s))
		dec.UseNumber()
		var want any
		if err := dec.Decode(&want); err != nil {
			t.Fatalf("encoding/json: %v", err)
		}
		wantObj, isObject := want.(map[string]any)
		got, err := DecodeMessages([]json.RawMessage{json.RawMessage(s)}, false)
		if !isObject {
			return // not a message: either answer is acceptable here
		}
		if err != nil {
			t.Fatalf("DecodeMessages(%q): %v; encoding/json decodes it", s, err)
		}
		// Numbers are JavaScript doubles: compare their values, as
		// encoding/json's float64 parse rounds them (both IEEE 754
		// round-to-nearest), not their spelling.
		if !reflect.DeepEqual(asDoubles(got[0]), asDoubles(wantObj)) {
			t.Fatalf("DecodeMessages(%q) = %#v, encoding/json %#v", s, got[0], wantObj)
		}
		next := 0
		if d := compareKeyOrder(got[0], order, &next); d != "" {
			t.Fatalf("member order of %q: %s", s, d)
		}
		if next != len(order) {
			t.Fatalf("member order of %q: %d objects visited, %d in the text", s, next, len(order))
		}
	})
}

// tokenKeyOrder lists the member names of every object of s, objects in
// pre-order (an object before the objects inside it, in text order), read
// with encoding/json's tokenizer; dup reports a repeated member name.
func tokenKeyOrder(t *testing.T, s string) (order [][]string, dup bool) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	type frame struct {
		object bool
		index  int // into order, for objects
		seen   map[string]bool
	}
	var stack []frame
	expectKey := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return order, dup
		}
		if err != nil {
			t.Fatalf("tokenize %q: %v", s, err)
		}
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{':
				order = append(order, []string{})
				stack = append(stack, frame{object: true, index: len(order) - 1, seen: map[string]bool{}})
			case '[':
				stack = append(stack, frame{})
			default:
				stack = stack[:len(stack)-1]
			}
		} else if expectKey {
			top := &stack[len(stack)-1]
			k := tok.(string)
			if top.seen[k] {
				dup = true
			}
			top.seen[k] = true
			order[top.index] = append(order[top.index], k)
			expectKey = false
			continue
		}
		expectKey = len(stack) > 0 && stack[len(stack)-1].object
	}
}

// compareKeyOrder walks v's objects in the text's pre-order (children in
// the text's member order, from order itself) and compares each object's
// member order with JavaScript's order of the text's members.
func compareKeyOrder(v any, order [][]string, next *int) string {
	switch x := v.(type) {
	case *Object:
		if *next >= len(order) {
			return "more objects than in the text"
		}
		text := order[*next]
		*next++
		if got, want := memberKeys(x), jsPropertyOrder(text); !slices.Equal(got, want) {
			return fmt.Sprintf("members %q, JavaScript's order of the text's %q", got, text)
		}
		for _, k := range text { // the text's order: the order tokenKeyOrder numbered the objects in
			if d := compareKeyOrder(x.Get(k), order, next); d != "" {
				return d
			}
		}
	case []any:
		for _, e := range x {
			if d := compareKeyOrder(e, order, next); d != "" {
				return d
			}
		}
	}
	return ""
}

// jsPropertyOrder is the order JavaScript gives an object's own properties
// created in text order: array indices ("0" … "4294967294", canonical)
// ascending first, then the other names in creation order.
func jsPropertyOrder(names []string) []string {
	var idx, rest []string
	for _, n := range names {
		if v, err := strconv.ParseUint(n, 10, 64); err == nil && v < 1<<32-1 && strconv.FormatUint(v, 10) == n {
			idx = append(idx, n)
		} else {
			rest = append(rest, n)
		}
	}
	slices.SortStableFunc(idx, func(a, b string) int {
		x, _ := strconv.ParseUint(a, 10, 64)
		y, _ := strconv.ParseUint(b, 10, 64)
		return cmp.Compare(x, y)
	})
	return append(idx, rest...)
}

// hasLoneSurrogateEscape reports a \uD800-\uDFFF escape not part of a pair.
func hasLoneSurrogateEscape(s string) bool {
	for i := 0; i+6 <= len(s); i++ {
		if s[i] != '\\' {
			continue
		}
		if s[i+1] != 'u' {
			i++
			continue
		}
		r, err := strconv.ParseUint(s[i+2:i+6], 16, 32)
		if err != nil {
			continue
		}
		switch {
		case r >= 0xD800 && r <= 0xDBFF:
			if i+12 > len(s) || s[i+6] != '\\' || s[i+7] != 'u' {
				return true
			}
			lo, err := strconv.ParseUint(s[i+8:i+12], 16, 32)
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

// asDoubles replaces every json.Number in v by its float64 value.
func asDoubles(v any) any {
	switch x := v.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil {
			return x
		}
		return f
	case float64:
		return x
	case *Object:
		out := make(map[string]any, x.Len())
		for _, mb := range x.Members {
			out[mb.Key] = asDoubles(mb.Value)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = asDoubles(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = asDoubles(e)
		}
		return out
	}
	return v
}
