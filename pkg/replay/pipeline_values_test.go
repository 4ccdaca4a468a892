package replay

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestDecodeMessagesMatchesStd(t *testing.T) {
	cases := []string{
		`{"a":1,"b":[1.5,1e400,-0,"x"],"c":{"d":null,"d":true},"e":"\u00e9\n\t\"","n":12345678901234567890}`,
		"{\"s\":\"bad \xff byte\"}", `{"s":"lone \ud800 surrogate","t":"pair \ud83d\ude00"}`,
	}
	for _, c := range cases {
		got, err := DecodeMessages([]json.RawMessage{json.RawMessage(c)})
		var want Message
		dec := json.NewDecoder(strings.NewReader(c))
		dec.UseNumber()
		err2 := dec.Decode(&want)
		if (err != nil) != (err2 != nil) {
			t.Errorf("%s: err %v vs %v", c, err, err2)
			continue
		}
		if err == nil && !reflect.DeepEqual(got[0], want) {
			t.Errorf("%s:\n got  %#v\n want %#v", c, got[0], want)
		}
	}
}
