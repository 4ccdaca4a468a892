package repair

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func repeatedLines(lines ...string) string { return strings.Join(lines, "\n") + "\n" }

const repHeader = `{"type":"session","version":3,"id":"s1","timestamp":"2026-05-12T09:00:00.000Z","cwd":"/"}`

func repMsg(id, parent, role, text string) string {
	p := "null"
	if parent != "" {
		p = `"` + parent + `"`
	}
	return `{"type":"message","id":"` + id + `","parentId":` + p + `,"timestamp":"2026-05-12T09:00:01.000Z","message":{"role":"` + role + `","content":"` + text + `"}}`
}

// TestRepeatedIDRenamed: a later entry with an earlier entry's id and other
// content gets a new id, later references follow it, the original lines are
// quarantined, a second run changes nothing; exact repeats are left alone.
func TestRepeatedIDRenamed(t *testing.T) {
	cases := []struct {
		name, in, want string
		quarantined    []int64
	}{
		{
			name: "different content: renamed, children re-pointed",
			in: repeatedLines(repHeader, repMsg("m1", "", "user", "hello"), repMsg("m2", "m1", "assistant", "hi"),
				repMsg("m1", "m2", "user", "again"), repMsg("m4", "m1", "assistant", "ok"),
				`{"type":"compaction","id":"c1","parentId":"m4","timestamp":"2026-05-12T09:00:05.000Z","summary":"s","firstKeptEntryId":"m1","tokensBefore":1}`),
			want: repeatedLines(repHeader, repMsg("m1", "", "user", "hello"), repMsg("m2", "m1", "assistant", "hi"),
				repMsg("m1-oc4", "m2", "user", "again"), repMsg("m4", "m1-oc4", "assistant", "ok"),
				`{"type":"compaction","id":"c1","parentId":"m4","timestamp":"2026-05-12T09:00:05.000Z","summary":"s","firstKeptEntryId":"m1-oc4","tokensBefore":1}`),
			quarantined: []int64{4, 5, 6},
		},
		{
			name: "the new id is taken: a suffix",
			in: repeatedLines(repHeader, repMsg("m1-oc4", "", "user", "x"), repMsg("m1", "m1-oc4", "assistant", "y"),
				repMsg("m1", "m1", "user", "z")),
			want: repeatedLines(repHeader, repMsg("m1-oc4", "", "user", "x"), repMsg("m1", "m1-oc4", "assistant", "y"),
				repMsg("m1-oc4-2", "m1", "user", "z")),
			quarantined: []int64{4},
		},
		{
			name:        "ids equal once trimmed (9.6 stores id.trim())",
			in:          repeatedLines(repHeader, repMsg("m1", "", "user", "x"), repMsg("m1 ", "m1", "assistant", "y")),
			want:        repeatedLines(repHeader, repMsg("m1", "", "user", "x"), repMsg("m1 -oc3", "m1", "assistant", "y")),
			quarantined: []int64{3},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := applyAndCheck(t, c.in, c.want, c.quarantined)
			assert.Contains(t, p.Counts, RuleRepeatedID)
		})
	}
	// an exact repeat (9.6 drops it without harm) is left alone
	file := filepath.Join(t.TempDir(), "s1.jsonl")
	in := repeatedLines(repHeader, repMsg("m1", "", "user", "x"), repMsg("m1", "", "user", "x"), repMsg("m2", "m1", "assistant", "y"))
	require.NoError(t, os.WriteFile(file, []byte(in), 0o644))
	p, err := PlanFile(file, Options{})
	require.NoError(t, err)
	assert.NotContains(t, p.Counts, RuleRepeatedID)
	assert.NotContains(t, p.Counts, RuleRepeatedRow, "an indexed entry's exact repeat is 9.6's to drop")
}

// TestRepeatedRowDropped: a byte-identical repeat of a row 9.6's import
// does not drop (an unknown type with an id, an object without an id, a
// JSON array) is quarantined; a repeat of an indexed entry is not.
func TestRepeatedRowDropped(t *testing.T) {
	for _, row := range []string{
		`{"type":"frobnicate","id":"x1","parentId":"m1","timestamp":"2026-05-12T09:00:02.000Z"}`,
		`{"type":"note","text":"a"}`,
		`[1,2]`,
	} {
		in := repeatedLines(repHeader, repMsg("m1", "", "user", "hello"), row, row, repMsg("m2", "m1", "assistant", "hi"))
		want := repeatedLines(repHeader, repMsg("m1", "", "user", "hello"), row, repMsg("m2", "m1", "assistant", "hi"))
		p := applyAndCheck(t, in, want, []int64{4})
		assert.Equal(t, []int64{4}, p.LineNums[RuleRepeatedRow], row)
	}
}

// TestRepeatedIDExactRepeatAfterRename: a copy of an entry that names the
// renamed id, written after the rename, is re-pointed; it then differs from
// its original and gets its own id too, so the repaired file has no id left
// with two contents, and a second run changes nothing.
func TestRepeatedIDExactRepeatAfterRename(t *testing.T) {
	file := filepath.Join(t.TempDir(), "s1.jsonl")
	in := repeatedLines(repHeader, repMsg("m1", "", "user", "x"), repMsg("m2", "m1", "assistant", "y"),
		repMsg("m1", "m2", "user", "other"), repMsg("m2", "m1", "assistant", "y"))
	require.NoError(t, os.WriteFile(file, []byte(in), 0o644))
	_, err := ApplyFile(t.Context(), file, ApplyOptions{})
	require.NoError(t, err)
	got, _ := os.ReadFile(file)
	assert.Equal(t, repeatedLines(repHeader, repMsg("m1", "", "user", "x"), repMsg("m2", "m1", "assistant", "y"),
		repMsg("m1-oc4", "m2", "user", "other"), repMsg("m2-oc5", "m1-oc4", "assistant", "y")), string(got))
	rep2, err := ApplyFile(t.Context(), file, ApplyOptions{})
	require.NoError(t, err)
	assert.False(t, rep2.Changed, "second run")
}

// applyAndCheck writes in to a transcript, plans and applies its repair,
// and checks the result: the file is want, each quarantined line (and only
// those) is in the quarantine file as it was, the backup is in, and a
// second run changes nothing. It returns the plan.
func applyAndCheck(t *testing.T, in, want string, quarantined []int64) *Plan {
	t.Helper()
	file := filepath.Join(t.TempDir(), "s1.jsonl")
	require.NoError(t, os.WriteFile(file, []byte(in), 0o644))
	p, err := PlanFile(file, Options{})
	require.NoError(t, err)
	rep, err := ApplyFile(t.Context(), file, ApplyOptions{})
	require.NoError(t, err)
	got, _ := os.ReadFile(file)
	assert.Equal(t, want, string(got))
	q := readQuarantine(t, rep.Quarantine)
	inLines := strings.Split(in, "\n")
	for _, l := range quarantined {
		assert.Equal(t, inLines[l-1], string(q[l]), "line %d quarantined", l)
	}
	assert.Len(t, q, len(quarantined))
	bk, _ := os.ReadFile(rep.Backup)
	assert.Equal(t, in, string(bk), "backup is the original")
	rep2, err := ApplyFile(t.Context(), file, ApplyOptions{})
	require.NoError(t, err)
	assert.False(t, rep2.Changed, "second run")
	return p
}

// TestRepeatedIDPlannedInOnePass: an id repeated with other content (the
// odd repeat every large real transcript carries, ids being 32 random
// bits) is planned in the pass that reads it; only a repeated id on a line
// OpenClaw does not index asks for another pass, with every line's digest.
func TestRepeatedIDPlannedInOnePass(t *testing.T) {
	in := repeatedLines(repHeader, repMsg("m1", "", "user", "x"), repMsg("m2", "m1", "assistant", "y"),
		repMsg("m1", "m2", "user", "other"), repMsg("m3", "m1", "assistant", "z"))
	p, err := planReader(strings.NewReader(in), "s1.jsonl", Options{}, int64(len(in)))
	require.NoError(t, err, "one pass")
	assert.Equal(t, []int64{4, 5}, p.LineNums[RuleRepeatedID])

	row := `{"type":"frobnicate","id":"x1","parentId":"m1","timestamp":"2026-05-12T09:00:02.000Z"}`
	in = repeatedLines(repHeader, repMsg("m1", "", "user", "x"), row, row)
	_, err = planReader(strings.NewReader(in), "s1.jsonl", Options{}, int64(len(in)))
	require.ErrorIs(t, err, errRepeatedRows)
	p, err = planReader(strings.NewReader(in), "s1.jsonl", Options{rows: true}, int64(len(in)))
	require.NoError(t, err)
	assert.Equal(t, []int64{4}, p.LineNums[RuleRepeatedRow])
}
