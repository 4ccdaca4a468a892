package repair

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"

	"github.com/openclaw-tools/oc/internal/jsjson"
)

func TestNodeUTF8(t *testing.T) {
	cases := []struct{ in, want string }{
		{"abc", "abc"}, {"a\xffb", "a\uFFFDb"}, {"\xe2\x82x", "\uFFFDx"}, {"\xed\xa0\x80", "\uFFFD\uFFFD\uFFFD"},
		{"\xf0\x9f\x98", "\uFFFD"}, {"é\xc3", "é\uFFFD"}, {"\xf0\x9f\x98\x80", "\U0001F600"},
	}
	for _, c := range cases {
		got, _ := jsjson.ReplaceInvalidUTF8([]byte(c.in))
		if string(got) != c.want {
			t.Errorf("%q: got %q, want %q", c.in, got, c.want)
		}
	}
}

// A line with bytes that are not UTF-8 is rewritten with U+FFFD (what
// OpenClaw reads), quarantined, and a second plan finds nothing.
func TestInvalidUTF8Rule(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "s.jsonl")
	in := `{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}` + "\n" +
		`{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"h` + "\xff\xfe" + `i","timestamp":1}}` + "\n"
	if err := os.WriteFile(p, []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	plan, out, q := renderPlan(t, p, RuleSetAll)
	if plan.Counts[RuleInvalidUTF8] != 1 || !utf8.Valid(out) || !bytes.Contains(out, []byte("h\uFFFD\uFFFDi")) || len(q) != 1 {
		t.Fatalf("counts %v, out %q, quarantine %d", plan.Counts, out, len(q))
	}
	if plan2, _, _ := renderPlan(t, p, RuleSetOpenClaw); plan2.Counts[RuleInvalidUTF8] != 0 {
		t.Fatal("not a 2026.5.6 rule")
	}
	if err := os.WriteFile(p, out, 0o644); err != nil {
		t.Fatal(err)
	}
	if plan3, _, _ := renderPlan(t, p, RuleSetAll); plan3.NeedsAttention() {
		t.Fatalf("second run: %v", plan3.Counts)
	}
}
