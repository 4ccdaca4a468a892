package nav96

import (
	"bytes"
	"testing"
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
