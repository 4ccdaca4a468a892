package wire

import (
	"testing"

	"github.com/openclaw-tools/oc/internal/jsjson"
)

func TestShortHashMatchesPiAI(t *testing.T) {
	// Values printed by pi-ai's shortHash under Node.
	cases := map[string]string{
		"abc": "y0biex7f9bbh", "": "k4n83c7h0j2b", "fc_def+/=": "4vjryt1dqad46",
		"héllo😀": "1olj6nu1frhbfw", "call_abc": "py36n51ekigv6",
	}
	for in, want := range cases {
		if got := ShortHash(in); got != want {
			t.Errorf("shortHash(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestJSSliceAndReplaceCountUTF16Units(t *testing.T) {
	if got := replaceIDChars("a😀b.c", "_", true); got != "a__b_c" {
		t.Errorf("replaceIDChars = %q", got)
	}
	// JavaScript keeps the high half of a pair cut by slice (WTF-8 here).
	if got := jsjson.Slice("ab😀cd", 3); got != "ab\xed\xa0\xbd" {
		t.Errorf("jsSlice = %q", got)
	}
	if got := jsjson.Len("a😀"); got != 3 {
		t.Errorf("jsLen = %d", got)
	}
}
