package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openclaw-tools/oc/internal/cli"
	"github.com/openclaw-tools/oc/pkg/repair"
)

// `oc repair` over the state dir records its run; `oc repair --undo`
// without FILE puts back every file it changed.
func TestRepairUndoWithoutFileUndoesTheRun(t *testing.T) {
	state := copyState(t)
	before := snapshot(t, state)
	code, out, errOut := runOC(t, false, nil, "repair", "--state-dir", state)
	require.Equal(t, cli.ExitOK, code, errOut)
	assert.Contains(t, out, "recorded: oc repair --undo puts back every file this run changed")
	runs, _ := filepath.Glob(filepath.Join(repair.RunsDir(state), "*.json"))
	require.Len(t, runs, 1)

	code, out, errOut = runOC(t, false, nil, "repair", "--undo", "--json", "--state-dir", state)
	require.Equal(t, cli.ExitOK, code, errOut)
	var doc struct {
		Run    string `json:"run"`
		Undone []struct {
			Path         string `json:"path"`
			RestoredFrom string `json:"restoredFrom"`
			Error        string `json:"error"`
		} `json:"undone"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	require.NotEmpty(t, doc.Undone)
	after := snapshot(t, state)
	for p, was := range before {
		assert.Equal(t, was.sum, after[p].sum, "%s is back to what it was before the run", p)
	}
}

// A repair of files outside the state dir records no run there.
func TestRepairOutsideTheStateDirRecordsNoRun(t *testing.T) {
	state := copyState(t)
	elsewhere := t.TempDir()
	damaged := filepath.Join(state, "agents", "main", "sessions", "0197a3c2-5d1e-7f00-9b2a-4c5d6e7f8a9b.jsonl")
	raw, err := os.ReadFile(damaged)
	require.NoError(t, err)
	file := filepath.Join(elsewhere, filepath.Base(damaged))
	require.NoError(t, os.WriteFile(file, raw, 0o600))
	code, out, errOut := runOC(t, false, nil, "repair", "--state-dir", state, file)
	require.Equal(t, cli.ExitOK, code, errOut)
	assert.NotContains(t, out, "recorded:")
	_, err = os.Stat(repair.RunsDir(state))
	assert.ErrorIs(t, err, os.ErrNotExist)
}

// --prune-backups lists, then removes, only what repairs made before the
// cut-off (by the stamps in the names); --dry-run removes nothing.
func TestRepairPruneBackups(t *testing.T) {
	state := copyState(t)
	code, _, errOut := runOC(t, false, nil, "repair", "--state-dir", state)
	require.Equal(t, cli.ExitOK, code, errOut)
	sessions := filepath.Join(state, "agents", "main", "sessions")
	old := []string{
		filepath.Join(sessions, "0197a3c2-5d1e-7f00-9b2a-4c5d6e7f8a9b.jsonl.bak-oc-20250101T000000Z"),
		filepath.Join(sessions, "0197a3c2-5d1e-7f00-9b2a-4c5d6e7f8a9b.jsonl.rejected-20250101T000000Z.jsonl"),
	}
	require.NoError(t, os.WriteFile(old[0], []byte(`{"type":"session","version":3,"id":"x"}`+"\n"), 0o600))
	require.NoError(t, os.WriteFile(old[1], []byte(`{"line":2,"rules":["malformed-line"],"text":"{"}`+"\n"), 0o600))
	mine := filepath.Join(sessions, "notes.jsonl.bak-oc-old")
	require.NoError(t, os.WriteFile(mine, []byte("not oc's"), 0o600))
	before := snapshot(t, state)

	code, out, errOut := runOC(t, false, nil, "repair", "--prune-backups", "--older-than", "30d", "--dry-run", "--state-dir", state)
	require.Equal(t, cli.ExitOK, code, errOut)
	assert.Contains(t, out, "would remove:")
	assert.Contains(t, out, "2 files")
	assert.Equal(t, before, snapshot(t, state), "--dry-run removes nothing")

	code, out, errOut = runOC(t, false, nil, "repair", "--prune-backups", "--older-than", "30d", "--state-dir", state)
	require.Equal(t, cli.ExitOK, code, errOut)
	assert.Contains(t, out, "removing:")
	for _, p := range old {
		assert.NoFileExists(t, p)
	}
	after := snapshot(t, state)
	for p := range before {
		if p != old[0] && p != old[1] && !assert.Contains(t, after, p) {
			t.Logf("%s removed", p)
		}
	}
	assert.FileExists(t, mine)
}
