package repair

import (
	"os"
	"path/filepath"
	"testing"
)

// TestLeadingJavaScriptSpaceIsNoDamage: OpenClaw's session manager trims
// the whole file (String.prototype.trim) before it splits it into lines, so
// JavaScript white space before the header (the fidelity issue's x2
// reproducer: NBSP, two BOMs, VT, U+2028, U+3000) loses nothing and needs
// no repair; other bytes there are still garbage.
func TestLeadingJavaScriptSpaceIsNoDamage(t *testing.T) {
	body := `{"type":"session","version":3,"id":"r1","timestamp":"2026-05-12T06:10:20.699Z","cwd":"/w"}` + "\n" +
		`{"type":"message","id":"u1","parentId":null,"timestamp":"2026-05-12T06:10:21.000Z","message":{"role":"user","content":"hello","timestamp":1}}` + "\n"
	for _, c := range []struct {
		prefix  string
		changed bool
	}{
		{"\u00a0", false}, {"\ufeff\ufeff", false}, {"\v", false}, {"\u2028", false}, {"\u3000 \t", false},
		{"x", true}, {"\u200b", true}, // U+200B is not JavaScript white space
	} {
		path := filepath.Join(t.TempDir(), "s.jsonl")
		if err := os.WriteFile(path, []byte(c.prefix+body), 0o644); err != nil {
			t.Fatal(err)
		}
		p, err := PlanFile(path, Options{Rules: RuleSetAll, NewID: func() string { return "fixed-id" }})
		if err != nil {
			t.Fatal(err)
		}
		if p.Changed() != c.changed {
			t.Errorf("prefix %q: changed = %v, want %v", c.prefix, p.Changed(), c.changed)
		}
	}
}
