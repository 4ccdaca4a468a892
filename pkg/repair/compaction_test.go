package repair

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openclaw-tools/oc/pkg/transcript"
)

func contextOf(t *testing.T, path string) []string {
	t.Helper()
	ctx, err := transcript.LoadContext(path, nil)
	require.NoError(t, err)
	var out []string
	for _, m := range ctx.Messages {
		var v struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
			Summary string          `json:"summary"`
		}
		require.NoError(t, json.Unmarshal(m, &v))
		out = append(out, v.Role+":"+string(v.Content)+v.Summary)
	}
	return out
}

// When the entry a compaction keeps from is lost, the compaction keeps from
// the entry re-linked in its place: the context (built the way OpenClaw 2026.5.6
// builds it, see transcript's differential tests) loses only the lost entry.
func TestRelinkCompactionFirstKept(t *testing.T) {
	msg := func(id, parent, role, text string) string {
		return `{"type":"message","id":"` + id + `","parentId":"` + parent + `","timestamp":"2026-05-01T00:00:01.000Z","message":{"role":"` + role + `","content":"` + text + `"}}`
	}
	header := `{"type":"session","version":3,"id":"s1","timestamp":"2026-05-01T00:00:00.000Z","cwd":"/"}`
	first := `{"type":"message","id":"a","parentId":null,"timestamp":"2026-05-01T00:00:01.000Z","message":{"role":"user","content":"one"}}`
	lost := msg("b", "a", "assistant", "two")
	rest := []string{
		msg("c", "b", "user", "three"),
		msg("c2", "c", "assistant", "four"),
		`{"type":"compaction","id":"k","parentId":"c2","timestamp":"2026-05-01T00:00:05.000Z","summary":"earlier talk","firstKeptEntryId":"b","tokensBefore":100}`,
		msg("d", "k", "user", "five"),
	}
	dir := t.TempDir()
	damaged := filepath.Join(dir, "s1.jsonl")
	cut := lost[:len(lost)/2]
	require.NoError(t, os.WriteFile(damaged, []byte(strings.Join(append([]string{header, first, cut}, rest...), "\n")+"\n"), 0o644))

	p, out, _ := renderPlan(t, damaged, RuleSetAll)
	assert.Equal(t, 2, p.Counts[RuleRelinkParent], "the child and the compaction are re-linked")
	repaired := filepath.Join(dir, "repaired.jsonl")
	require.NoError(t, os.WriteFile(repaired, out, 0o644))

	// What a perfect repair keeps: b gone, c re-linked to a, the compaction keeping from c.
	perfect := filepath.Join(dir, "perfect.jsonl")
	rest[0] = msg("c", "a", "user", "three")
	rest[2] = strings.Replace(rest[2], `"firstKeptEntryId":"b"`, `"firstKeptEntryId":"c"`, 1)
	require.NoError(t, os.WriteFile(perfect, []byte(strings.Join(append([]string{header, first}, rest...), "\n")+"\n"), 0o644))

	want := contextOf(t, perfect)
	require.Len(t, want, 4, "summary, the two kept messages, the message after the compaction")
	assert.Equal(t, want, contextOf(t, repaired))

	// Without the compaction re-link OpenClaw would find no first kept entry.
	plain := filepath.Join(dir, "openclaw.jsonl")
	_, out, _ = renderPlan(t, damaged, RuleSetOpenClaw)
	require.NoError(t, os.WriteFile(plain, out, 0o644))
	assert.Len(t, contextOf(t, plain), 2, "2026.5.6's own repair: the summary and the last message only")
}
