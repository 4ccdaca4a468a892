package shellquote

import (
	"os/exec"
	"testing"
)

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		"agent:main:main": "agent:main:main",
		"/tmp/state":      "/tmp/state",
		"":                "''",
		"my state":        "'my state'",
		"it's":            `'it'\''s'`,
		"$(rm -rf ~)":     "'$(rm -rf ~)'",
		"a;b":             "'a;b'",
		"line\nbreak":     "'line\nbreak'",
	} {
		if got := Quote(in); got != want {
			t.Errorf("Quote(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestQuoteRoundTripsThroughAShell: sh reads every quoted word back as the
// word itself.
func TestQuoteRoundTripsThroughAShell(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	for _, in := range []string{"plain", "two words", "it's", `back\slash`, "$HOME", "`id`", "*", "~", "a'b\"c", "tab\there", ""} {
		out, err := exec.Command(sh, "-c", "printf %s "+Quote(in)).Output()
		if err != nil {
			t.Fatalf("sh on %q: %v", Quote(in), err)
		}
		if string(out) != in {
			t.Errorf("sh read %q back as %q", in, out)
		}
	}
}
