package jsonl

import (
	"encoding/json"
	"testing"

	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/stretchr/testify/assert"
)

func members(b string) map[string]string {
	out := map[string]string{}
	if !Members([]byte(b), func(k, v []byte) bool { out[string(k)] = string(v); return true }) {
		return nil
	}
	return out
}

func TestMembers(t *testing.T) {
	got := members(` { "type" : "message", "n":-1.5e3,"o":{"a":[1,"}",{"b":"\"]"}]},"s":"x\\\"y","t":true , "z":null}`)
	assert.Equal(t, map[string]string{
		"type": `"message"`, "n": `-1.5e3`, "o": `{"a":[1,"}",{"b":"\"]"}]}`, "s": `"x\\\"y"`, "t": "true", "z": "null",
	}, got)
	assert.Equal(t, map[string]string{"a": "2"}, members(`{"a":1,"a":2}`), "the last of a repeated key wins for an assigning caller")
	assert.Equal(t, map[string]string{"type": `"x"`}, members(`{"\u0074ype":"x"}`), "escaped keys are compared unescaped")
	assert.Equal(t, map[string]string{}, members(`{}`))
	assert.Nil(t, members(`[1,2]`))
	assert.Nil(t, members(`"str"`))
	// Early stop.
	n := 0
	Members([]byte(`{"a":1,"b":2,"c":3}`), func(k, v []byte) bool { n++; return string(k) != "b" })
	assert.Equal(t, 2, n)
}

func TestStringValue(t *testing.T) {
	s, ok := StringValue([]byte(`"plain"`))
	assert.True(t, ok)
	assert.Equal(t, "plain", s)
	s, ok = StringValue([]byte(`"a\nb\u00e9"`))
	assert.True(t, ok)
	assert.Equal(t, "a\nbé", s)
	s, ok = StringValue([]byte("\"caf\xe9\""))
	assert.True(t, ok)
	assert.Equal(t, "caf\ufffd", s, "invalid UTF-8 reads as U+FFFD, as Node decodes it")
	_, ok = StringValue([]byte(`42`))
	assert.False(t, ok)
	assert.True(t, IsBlank([]byte(" \t\u00a0\u2028")), "JavaScript's trim removes Unicode spaces")
	assert.False(t, IsBlank([]byte(" x ")))
}

// FuzzMembers: on any valid JSON object, Members sees exactly the members
// encoding/json sees (the last value of each key), with identical values.
func FuzzMembers(f *testing.F) {
	f.Add([]byte(`{"a":1,"b":{"c":[1,2,"]"]},"d":"\"}"}`))
	f.Add([]byte(`{"a":1,"a":2}`))
	f.Add([]byte(` {"\u0061":"\\"} `))
	f.Fuzz(func(t *testing.T, b []byte) {
		if !Valid(b) {
			return
		}
		var want map[string]json.RawMessage
		err := json.Unmarshal(b, &want)
		if err == nil && want == nil { // null, which encoding/json reads as a nil map
			if Members(b, func(k, v []byte) bool { return true }) {
				t.Fatalf("Members accepted null as an object: %q", b)
			}
			return
		}
		if err != nil {
			Members(b, func(k, v []byte) bool { return true }) // must not panic
			return
		}
		got := map[string]json.RawMessage{}
		if !Members(b, func(k, v []byte) bool { got[string(k)] = append(json.RawMessage(nil), v...); return true }) {
			t.Fatalf("Members refused an object: %q", b)
		}
		if len(got) != len(want) {
			t.Fatalf("members %d, encoding/json %d: %q", len(got), len(want), b)
		}
		for k, v := range want {
			if string(got[k]) != string(v) {
				t.Fatalf("key %q: %q vs %q", k, got[k], v)
			}
		}
	})
}

func TestElements(t *testing.T) {
	var got []string
	assert.True(t, Elements([]byte(` [1, "a,]", {"b":[2]} ,null]`), func(v []byte) bool { got = append(got, string(v)); return true }))
	assert.Equal(t, []string{"1", `"a,]"`, `{"b":[2]}`, "null"}, got)
	assert.True(t, Elements([]byte(`[]`), func([]byte) bool { t.Fatal("no elements"); return true }))
	assert.False(t, Elements([]byte(`{"a":1}`), func([]byte) bool { return true }))
}

// FuzzStringIs: StringIs, KeyText and KeyIs answer what decoding the literal and
// comparing its text answers, for the names the rules compare with, on
// every JSON string literal (escapes, bytes that are not UTF-8, lengths
// around a name's).
func FuzzStringIs(f *testing.F) {
	for _, s := range []string{`"user"`, `"us\u0065r"`, `"use"`, `"users"`, `"\u0075ser"`, `"user\ufffd"`, "\"us\xffr\"", `"assistant"`, `"a\ssistant"`, `"tool\u0052esult"`, `""`} {
		f.Add([]byte(s))
	}
	names := []string{"user", "assistant", "toolResult", "message", "text", "a", ""}
	f.Fuzz(func(t *testing.T, v []byte) {
		text, ok := jsjson.StringValue(v)
		if !ok || !jsjson.Valid(v) {
			return
		}
		for _, name := range names {
			if got, want := StringIs(v, name), text == name; got != want {
				t.Fatalf("StringIs(%q, %q) = %v, want %v (text %q)", v, name, got, want, text)
			}
			if got, want := string(KeyText(v[1:len(v)-1])) == name, text == name; got != want {
				t.Fatalf("KeyText(%q) == %q is %v, want %v (text %q)", v[1:len(v)-1], name, got, want, text)
			}
			if got, want := KeyIs(v[1:len(v)-1], name), text == name; got != want {
				t.Fatalf("KeyIs(%q, %q) = %v, want %v (text %q)", v[1:len(v)-1], name, got, want, text)
			}
		}
	})
}
