package entrywalk

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/pkg/jsonl"
)

// visits records what Walk visits, checking each value's offset and node.
type visits struct {
	t       testing.TB
	b       []byte
	tp      *jsjson.Tape
	members []string
	message []string
}

func (v *visits) check(value []byte, start, node int) {
	if string(v.b[start:start+len(value)]) != string(value) {
		v.t.Fatalf("value %q is not at offset %d of %q", value, start, v.b)
	}
	if node >= 0 && string(v.tp.Nodes[node].Value(v.b)) != string(value) {
		v.t.Fatalf("value %q is not the tape's node %d", value, node)
	}
}

func (v *visits) Member(key, value []byte, start, node int) {
	v.check(value, start, node)
	v.members = append(v.members, fmt.Sprintf("%s=%s", asText(key), value))
}

func (v *visits) MessageMember(key, value []byte, start, node int) {
	v.check(value, start, node)
	v.message = append(v.message, fmt.Sprintf("%s=%s", asText(key), value))
}

// asText reads each byte of key that is not UTF-8 as U+FFFD, as the
// reference's decoder does. Walk leaves such a key's bytes as they are: a key
// is only ever matched against ASCII names, which neither spelling equals.
func asText(key []byte) string { return string([]rune(string(key))) }

// reference is what an entry decoder read member by member from the text
// before Walk: every member of the object (keys unescaped), then the
// members of the last "message" member's value when it is an object.
func reference(b []byte) (object bool, members, message []string) {
	var msg []byte
	object = jsonl.Members(b, func(k, v []byte) bool {
		members = append(members, fmt.Sprintf("%s=%s", k, v))
		if string(k) == "message" {
			msg = v
		}
		return true
	})
	if jsonl.ValueKind(msg) == '{' {
		jsonl.Members(msg, func(k, v []byte) bool {
			message = append(message, fmt.Sprintf("%s=%s", k, v))
			return true
		})
	}
	return object, members, message
}

// walkAll walks b with the tape tp made (nil: the text) and compares what
// it visits with the member-by-member reference.
func walkAll(t testing.TB, b []byte, tp *jsjson.Tape) *visits {
	v := &visits{t: t, b: b, tp: tp}
	object := Walk(b, tp, v)
	wantObject, members, message := reference(b)
	if object != wantObject || !reflect.DeepEqual(v.members, members) || !reflect.DeepEqual(v.message, message) {
		t.Fatalf("Walk of %q (tape %v): object %v, members %q, message %q; want %v, %q, %q",
			b, tp != nil, object, v.members, v.message, wantObject, members, message)
	}
	return v
}

func TestWalk(t *testing.T) {
	for _, tc := range []struct {
		name, line string
		message    []string
	}{
		{"plain", `{"type":"message","id":"a","message":{"role":"user","content":[{"type":"text","text":"hi"}]}}`,
			[]string{`role="user"`, `content=[{"type":"text","text":"hi"}]`}},
		{"the last message counts", `{"message":{"role":"user"},"type":"message","message":{"role":"assistant"}}`,
			[]string{`role="assistant"`}},
		{"a last message that is no object has no members", `{"message":{"role":"user"},"message":null}`, nil},
		{"escaped keys read as JavaScript reads them", `{"ty\u0070e":"message","mess\u0061ge":{"r\u006fle":"user"}}`,
			[]string{`role="user"`}},
		{"white space", " {\t\"message\" : { \"role\" : \"user\" } } ", []string{`role="user"`}},
		{"not an object", `[{"message":{"role":"user"}}]`, nil},
		{"a scalar", `"message"`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := []byte(tc.line)
			for _, tp := range []*jsjson.Tape{
				nil,                           // the text
				{MaxDepth: 4},                 // everything on the tape
				{MaxDepth: 4, MaxNodes: 2},    // the entry pruned: read from the text
				{MaxDepth: 4, MaxNodes: 4},    // the message pruned, or not
				{MaxDepth: 4, RecordLimit: 1}, // nothing recorded
			} {
				if tp != nil && !tp.Parse(b) {
					t.Fatalf("the tape rejects %q", b)
				}
				v := walkAll(t, b, tp)
				if !reflect.DeepEqual(v.message, tc.message) {
					t.Errorf("message members %q, want %q", v.message, tc.message)
				}
			}
		})
	}
}

// FuzzWalk: off a tape of any node budget or record limit, and from the
// text, Walk visits exactly the members a member-by-member decode of the
// text finds, each at its offset and tape node.
func FuzzWalk(f *testing.F) {
	f.Add([]byte(`{"type":"message","id":"a","message":{"role":"user","content":[{"type":"text","text":"hi"}]}}`), uint8(40))
	f.Add([]byte(`{"message":{"role":"user"},"message":{"content":[1,2]},"message":3}`), uint8(3))
	f.Add([]byte(`{"ty\u0070e":"message","mess\u0061ge":{"r\u006fle":"user","content":"x"}}`), uint8(250))
	f.Add([]byte(`[{"type":"message"}]`), uint8(1))
	f.Fuzz(func(t *testing.T, line []byte, budget uint8) {
		tp := &jsjson.Tape{MaxDepth: int(budget % 5), MaxNodes: int(budget%32) + 1}
		if budget >= 240 {
			tp.RecordLimit = 1
		}
		if !tp.Parse(line) {
			return
		}
		walkAll(t, line, tp)
		walkAll(t, line, nil)
	})
}
