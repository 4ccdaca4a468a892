package repair

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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

// TestLeadingJavaScriptSpaceBeforeInsertedHeader: the file-start trim that
// excuses a BOM or a form feed before a headerless first entry no longer
// reaches that entry once a header is inserted before it, so the repair
// writes the entry without it and quarantines the original line; a second
// repair then finds nothing (fuzz-found: it salvaged the line).
func TestLeadingJavaScriptSpaceBeforeInsertedHeader(t *testing.T) {
	entry := `{"type":"message","id":"u1","parentId":null,"timestamp":"2026-05-12T06:10:21.000Z","message":{"role":"user","content":"hello","timestamp":1}}`
	for _, prefix := range []string{"\ufeff", "\f", "\u00a0\v"} {
		file := filepath.Join(t.TempDir(), "s.jsonl")
		orig := prefix + entry + "\n"
		require.NoError(t, os.WriteFile(file, []byte(orig), 0o644))
		rep, err := ApplyFile(t.Context(), file, ApplyOptions{})
		require.NoError(t, err)
		require.True(t, rep.Changed, "prefix %q", prefix)
		out, err := os.ReadFile(file)
		require.NoError(t, err)
		lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
		require.Len(t, lines, 2, "prefix %q: %q", prefix, out)
		assert.True(t, strings.HasPrefix(lines[0], `{"type":"session"`), "prefix %q: %q", prefix, lines[0])
		assert.Equal(t, entry, lines[1], "prefix %q: the entry, without the white space", prefix)
		q := readQuarantine(t, rep.Quarantine)
		assert.Equal(t, prefix+entry, string(q[1]), "prefix %q: the original line is quarantined", prefix)
		again, err := PlanFile(file, Options{Rules: RuleSetAll})
		require.NoError(t, err)
		assert.False(t, again.Changed(), "prefix %q: a second repair finds work", prefix)
	}
}
