package replay

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
)

// TestDecodeMessagesAsJSONParse: values as JSON.parse gives them (Node.js
// 24: JSON.stringify(JSON.parse(text)) writes 12345678901234567000, 0 for
// -0, null for 1e400 and keeps \ud800), not as encoding/json does.
func TestDecodeMessagesAsJSONParse(t *testing.T) {
	lone := "\xed\xa0\x80" // U+D800 in WTF-8
	cases := []struct {
		in   string
		want Message
	}{
		{`{"a":1,"b":[1.5,1e400,-0,"x",100.0,1e-07],"c":{"d":null,"d":true},"e":"\u00e9\n\t\"","n":12345678901234567890}`,
			jsvalue.NewObject(
				"a", json.Number("1"),
				"b", []any{json.Number("1.5"), json.Number("1e400"), json.Number("0"), "x", json.Number("100"), json.Number("1e-7")},
				"c", jsvalue.NewObject("d", true),
				"e", "é\n\t\"",
				"n", json.Number("12345678901234567000"),
			)},
		{"{\"s\":\"bad \xff byte \xe2\x82!\"}", jsvalue.NewObject("s", "bad \uFFFD byte \uFFFD!")},
		{`{"s":"lone \ud800 surrogate","t":"pair \ud83d\ude00"}`, jsvalue.NewObject("s", "lone "+lone+" surrogate", "t", "pair 😀")},
		{`"not an object"`, jsvalue.NonObjectMessage("not an object")},
	}
	for _, c := range cases {
		got, err := jsvalue.DecodeMessages([]json.RawMessage{json.RawMessage(c.in)}, false)
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if !reflect.DeepEqual(got[0], c.want) {
			t.Errorf("%s:\n got  %#v\n want %#v", c.in, got[0], c.want)
		}
	}
}
