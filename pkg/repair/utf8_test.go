package repair

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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

// TestRebuiltHeaderCwdNotUTF8: a header rebuilt from a damaged one keeps its
// cwd, and bytes there that are not UTF-8 are written as U+FFFD (as OpenClaw
// reads them), with the original in the quarantine file; before, the new
// header kept the raw bytes and a second repair rewrote it (fuzz-found). One
// header does not parse (its fields come from the salvage), one parses but
// has no id.
func TestRebuiltHeaderCwdNotUTF8(t *testing.T) {
	entry := `{"type":"message","id":"u1","parentId":null,"timestamp":"2026-05-12T06:10:21.000Z","message":{"role":"user","content":"hello","timestamp":1}}`
	for _, header := range []string{
		"{\"type\":\"session\",\"cwd\":\"/home/\xb5\"",
		"{\"type\":\"session\",\"cwd\":\"/home/\xb5\",\"timestamp\":\"2026-05-12T06:10:20.000Z\"}",
	} {
		file := filepath.Join(t.TempDir(), "0197a3c2-5d1e-7f00-9b2a-4c5d6e7f8a9b.jsonl")
		require.NoError(t, os.WriteFile(file, []byte(header+"\n"+entry+"\n"), 0o644))
		rep, err := ApplyFile(t.Context(), file, ApplyOptions{})
		require.NoError(t, err)
		require.True(t, rep.Changed, "header %q", header)
		out, err := os.ReadFile(file)
		require.NoError(t, err)
		require.True(t, utf8.Valid(out), "header %q: the repaired file is not UTF-8: %q", header, out)
		lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
		require.Len(t, lines, 2, "header %q: %q", header, out)
		assert.Contains(t, lines[0], `"cwd":"/home/`+"\ufffd"+`"`, "header %q", header)
		assert.Equal(t, entry, lines[1])
		q := readQuarantine(t, rep.Quarantine)
		assert.Equal(t, header, string(q[1]), "header %q: the original header is quarantined", header)
		again, err := PlanFile(file, Options{Rules: RuleSetAll})
		require.NoError(t, err)
		assert.False(t, again.Changed(), "header %q: a second repair finds work: %v", header, again.Counts)
	}
}
