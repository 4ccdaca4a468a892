package replay

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/internal/oracletest"
	"github.com/openclaw-tools/oc/pkg/transcript"
)

// referenceDecode is an independent reading of the messages: JSON.parse
// as internal/jsjson implements it (tested against Node.js), its ordered
// objects turned into maps with their member order recorded, its doubles
// into JavaScript's spelling.
func referenceDecode(raw []json.RawMessage) ([]Message, *KeyOrder, error) {
	out := make([]Message, len(raw))
	keys := NewKeyOrder()
	for i, r := range raw {
		v, err := jsjson.Parse(r)
		if err != nil {
			return nil, nil, fmt.Errorf("message %d: %w", i, err)
		}
		switch x := fromJS(v, keys).(type) {
		case nil:
		case map[string]any:
			out[i] = x
		default:
			out[i] = NonObjectMessage(x)
		}
	}
	return out, keys, nil
}

func fromJS(v any, keys *KeyOrder) any {
	switch x := v.(type) {
	case *jsjson.Object:
		m := make(map[string]any, x.Len())
		order := make([]string, 0, x.Len())
		for _, mb := range x.Members {
			m[mb.Key] = fromJS(mb.Value, keys)
			order = append(order, mb.Key)
		}
		if len(order) > 1 {
			keys.record(m, order)
		}
		return m
	case []any:
		a := make([]any, len(x))
		for i, e := range x {
			a[i] = fromJS(e, keys)
		}
		return a
	case float64:
		return json.Number(jsjson.FormatNumber(x))
	}
	return v
}

// sameKeyed compares two decoded values and the key order each KeyOrder
// gives every object in them; it returns where they differ.
func sameKeyed(a, b any, ka, kb *KeyOrder, path string) string {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || (x == nil) != (y == nil) {
			return path + ": object vs " + fmt.Sprintf("%T", b)
		}
		if oa, ob := ka.Keys(x), kb.Keys(y); !slices.Equal(oa, ob) {
			return fmt.Sprintf("%s: keys %q vs %q", path, oa, ob)
		}
		for key, v := range x {
			if d := sameKeyed(v, y[key], ka, kb, path+"."+key); d != "" {
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
			if d := sameKeyed(x[i], y[i], ka, kb, fmt.Sprintf("%s[%d]", path, i)); d != "" {
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

func checkKeyedDecode(t *testing.T, name string, raw []json.RawMessage) {
	t.Helper()
	got, gk, err := DecodeMessagesKeyed(raw, false)
	want, wk, werr := referenceDecode(raw)
	if (err != nil) != (werr != nil) {
		t.Errorf("%s: error %v, reference %v", name, err, werr)
		return
	}
	if err != nil {
		return
	}
	plain, err := DecodeMessages(raw)
	if err != nil {
		t.Errorf("%s: DecodeMessages: %v", name, err)
		return
	}
	for i := range want {
		if d := sameKeyed(got[i], want[i], gk, wk, fmt.Sprintf("message %d", i)); d != "" {
			t.Errorf("%s: %s", name, d)
			return
		}
		if !reflect.DeepEqual(plain[i], want[i]) {
			t.Errorf("%s: DecodeMessages differs at message %d", name, i)
			return
		}
	}
}

func TestDecodeMessagesKeyedCases(t *testing.T) {
	cases := []string{
		`{"b":1,"a":{"y":[1,{"q":1,"p":2},[]],"x":{}},"c":"\u00e9\n\t\"\/\\","d":null,"d":true}`,
		`{"role":"assistant","content":[{"type":"toolCall","arguments":{"z":1,"a":{"k":2,"b":3},"1":0,"0":1}}]}`,
		` { "s" : "x" , "n" : -0.5e+10 , "m": 0 , "l": 1E-7, "k": 12345678901234567890 } `,
		`null`, `[]`, `"x"`, `42`, `[{"b":1,"a":2}]`, `{"a":01}`, `{"a":"x\ud800y","b":"\udfff\ud83d\ude00","c":100.0,"d":-0.0,"e":1e-07}`, `{"a":1,}`, `{"a":1} x`, `{"a":"\ud83d\ude00"}`, "{\"a\":\"\xff\"}",
		`{"a":"12345678901234567890123456789012345","b":"12345678901234567890123456789012345"}`,
		`{"dup":{"x":1,"y":2},"dup":{"y":1,"x":2},"e":"","t":"\u0000\u001f\u2028"}`,
	}
	for _, c := range cases {
		checkKeyedDecode(t, c, []json.RawMessage{json.RawMessage(c)})
	}
	checkKeyedDecode(t, "all", func() []json.RawMessage {
		var l []json.RawMessage
		for _, c := range cases[:3] {
			l = append(l, json.RawMessage(c))
		}
		return l
	}())
}

// TestDecodeMessagesKeyedCorpus: on every corpus transcript's context the
// one-pass decoder gives the values and key orders of the reference reading.
func TestDecodeMessagesKeyedCorpus(t *testing.T) {
	files := oracletest.Transcripts(t)
	if len(files) == 0 {
		t.Skip("SKIP: no corpus transcripts")
	}
	for _, f := range files {
		ctx, err := transcript.LoadContext(f, nil)
		if err != nil {
			continue
		}
		checkKeyedDecode(t, f, ctx.Messages)
	}
}

func FuzzDecodeMessagesKeyed(f *testing.F) {
	f.Add(`{"b":1,"a":{"y":[1,{"q":1,"p":2}],"x":{}},"c":"\u00e9"}`)
	f.Add(`{"a":1,"a":2,"b":[true,false,null,-1.5e3]}`)
	f.Fuzz(func(t *testing.T, s string) {
		checkKeyedDecode(t, s, []json.RawMessage{json.RawMessage(s)})
	})
}
