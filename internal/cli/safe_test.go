package cli

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSafeEscapesWhatATerminalActsOn(t *testing.T) {
	for in, want := range map[string]string{
		"plain id 0197d400":           "plain id 0197d400",
		"héllo ✓ 日本":                  "héllo ✓ 日本",
		"\x1b]0;pwned\x07":            `\x1b]0;pwned\x07`,
		"red \x1b[5;31mX\x1b[0m":      `red \x1b[5;31mX\x1b[0m`,
		"a\nb\tc\rd":                  `a\x0ab\x09c\x0dd`,
		"del\x7f":                     `del\x7f`,
		"c1 \u009b31m csi":            `c1 \u009b31m csi`,
		"bidi \u202eevil\u202c":       `bidi \u202eevil\u202c`,
		"isolate \u2066x\u2069":       `isolate \u2066x\u2069`,
		"bad utf8 \xff\xfe":           `bad utf8 \xff\xfe`,
		"zero width joiner \u200d ok": "zero width joiner \u200d ok",
	} {
		assert.Equal(t, want, Safe(in), "%q", in)
	}
}

// A safe string never holds a byte a terminal interprets, whatever the input.
func FuzzSafe(f *testing.F) {
	f.Add("\x1b]0;t\x07\u202e\u0085")
	f.Fuzz(func(t *testing.T, s string) {
		out := Safe(s)
		if firstUnsafe(out) >= 0 {
			t.Fatalf("Safe(%q) = %q still holds a control character", s, out)
		}
		if firstUnsafe(s) < 0 && out != s {
			t.Fatalf("Safe changed a harmless string %q to %q", s, out)
		}
	})
}

func TestSafeJSONKeepsTheValues(t *testing.T) {
	doc := []byte("{\"model\":\"x\u202ey\u0085z\x7f\",\"n\":1}")
	out := SafeJSON(doc)
	assert.NotContains(t, string(out), "\u202e")
	assert.NotContains(t, string(out), "\x7f")
	var a, b map[string]any
	require.NoError(t, json.Unmarshal(doc, &a))
	require.NoError(t, json.Unmarshal(out, &b))
	assert.Equal(t, a, b, "same JSON values, only spelled with escapes")
	plain := []byte(`{"a":"b"}`)
	assert.Equal(t, plain, SafeJSON(plain))
}
