package nav96

import (
	"bytes"
	"slices"
	"testing"

	"github.com/openclaw-tools/oc/pkg/jsonl"
)

// mayHoldToolCalls finds the three names wherever they are, as searching for
// each does.
func FuzzMayHoldToolCalls(f *testing.F) {
	for _, s := range []string{
		`[{"type":"toolCall","id":"t1"}]`, `[{"type":"functionCall"}]`, `[{"type":"toolUse"}]`,
		`"toolCall"`, `"toolUse"`, `"functionCall"`, `toolCall"`, `"toolCal`, `"tool"Call"`,
		`[{"type":"text","text":"Call\" x functionCall\" toolUse"}]`, `CCall"Use"UUse"`,
		`"tool"toolUse" "functionCal"functionCall`, `xx"toolUse"`, `"function"toolCall"`, ``, `C`, `U"`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		want := bytes.Contains(b, []byte(`"toolCall"`)) || bytes.Contains(b, []byte(`"functionCall"`)) || bytes.Contains(b, []byte(`"toolUse"`))
		if got := mayHoldToolCalls(b); got != want {
			t.Fatalf("mayHoldToolCalls(%q) = %v, want %v", b, got, want)
		}
	})
}

// readableContentTwoWalks is readableContent as it was: each element found
// by EachElement, then its members walked by Members.
func readableContentTwoWalks(v []byte) bool {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return false
	}
	if v[0] == '"' {
		return true
	}
	if v[0] != '[' {
		return false
	}
	ok := true
	_, complete := jsonl.EachElement(v, 0, func(start, end int) bool {
		it := v[start:end]
		if it[0] != '{' {
			ok = false
			return false
		}
		var typ []byte
		jsonl.Members(it, func(k, v []byte) bool {
			if string(k) == "type" {
				typ = v
			}
			return true
		})
		if len(typ) == 0 || typ[0] != '"' {
			ok = false
		}
		return ok
	})
	return ok && complete
}

// readableContent's one walk answers as the two walks did, for any JSON
// value (the rules only read content out of rows that are JSON).
func FuzzReadableContent(f *testing.F) {
	for _, s := range []string{
		`"x"`, `[]`, ` [ ] `, `[{"type":"text","text":"a"}]`, `[{"type":"text"},{"type":1}]`, `[{"type":"a"},"b"]`,
		`[{"text":"a"}]`, `[{"type":"a","type":2}]`, `[{"type":2,"type":"a"}]`, `[{"ty\u0070e":"a"}]`, `[{"t\"ype":"a"}]`,
		`{"type":"a"}`, `5`, `null`, `[{"type":"a"} , {"type":"b"}]`, `[[{"type":"a"}]]`, `[{"type":"a","c":[{"x":"}"}]}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, v []byte) {
		if !jsonl.Valid(v) {
			return
		}
		if got, want := readableContent(v), readableContentTwoWalks(v); got != want {
			t.Fatalf("readableContent(%q) = %v, want %v", v, got, want)
		}
	})
}

// toolCalls reads each block as 2026.9.6's readToolCall does: an object
// whose "type" (exact key) is a tool call's and whose "id" is a non-empty
// string. A block that is not one is skipped on its own (the struct decode
// it replaced dropped every id of the message when one block had a
// non-string id or was not an object, and matched "ID" and "Type").
func TestToolCallsReadEachBlock(t *testing.T) {
	for _, c := range []struct {
		content string
		want    []string
	}{
		{`[{"type":"toolCall","id":"a"},{"type":"toolUse","id":"b"},{"type":"functionCall","id":"c"}]`, []string{"a", "b", "c"}},
		{`["text",{"type":"toolCall","id":"a"}]`, []string{"a"}},
		{`[{"type":"toolCall","id":5},{"type":"toolCall","id":"b"}]`, []string{"b"}},
		{`[{"Type":"toolCall","ID":"x"},{"type":"toolCall","id":""},{"type":"text","id":"t"}]`, nil},
		{`[{"type":"toolCall","id":"first","id":"last"}]`, []string{"last"}},
		{`[{"type":"tool\u0043all","id":"\u0061\ud83d"}]`, []string{"a\uFFFD"}},
		{`{"type":"toolCall","id":"a"}`, nil},
		{`"toolCall"`, nil},
	} {
		r := &Record{content: []byte(c.content)}
		if got := r.toolCalls(); !slices.Equal(got, c.want) {
			t.Errorf("toolCalls(%s) = %q, want %q", c.content, got, c.want)
		}
	}
}
