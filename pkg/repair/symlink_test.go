package repair

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// cutOffTranscript is a session s1 whose last entry was cut off mid-line.
const cutOffTranscript = `{"type":"session","version":3,"id":"s1","timestamp":"2026-05-01T00:00:00.000Z","cwd":"/"}` + "\n" +
	`{"type":"message","id":"a","parentId":null,"timestamp":"2026-05-01T00:00:01.000Z","message":{"role":"user","content":"hi"}}` + "\n" +
	`{"type":"message","id":"b","parentId":"a","timestamp":"2026-05-01T00:00:02.000Z","message":{"role":"assis`

// A transcript that is a symlink is repaired where its bytes are: the link
// stays a link to the repaired file, the backup sits beside the real file.
func TestApplyThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	realDir := filepath.Join(dir, "volume")
	sessions := filepath.Join(dir, "agents", "main", "sessions")
	require.NoError(t, os.MkdirAll(realDir, 0o755))
	require.NoError(t, os.MkdirAll(sessions, 0o755))
	target := filepath.Join(realDir, "s1.jsonl")
	damaged := cutOffTranscript
	require.NoError(t, os.WriteFile(target, []byte(damaged), 0o640))
	link := filepath.Join(sessions, "s1.jsonl")
	require.NoError(t, os.Symlink(target, link))

	rep, err := ApplyFile(t.Context(), link, ApplyOptions{})
	require.NoError(t, err)
	require.True(t, rep.Changed)

	fi, err := os.Lstat(link)
	require.NoError(t, err)
	assert.NotZero(t, fi.Mode()&os.ModeSymlink, "the link is still a link")
	got, err := os.ReadFile(link)
	require.NoError(t, err)
	assert.NotContains(t, string(got), `"role":"assis`+"\n", "the cut-off line is gone from the real file")
	assert.Equal(t, filepath.Dir(target), filepath.Dir(rep.Backup), "the backup is beside the real file")
	orig, err := os.ReadFile(rep.Backup)
	require.NoError(t, err)
	assert.Equal(t, damaged, string(orig))
	st, err := os.Stat(target)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o640), st.Mode().Perm(), "mode kept")
}

// Paths that name one file (the file given twice, a symlink beside it) are
// repaired one after the other: the first repairs it, the others find it
// repaired, and none meets the lock another holds. Each path's start waits
// (up to a bound) for the others to start too, so that paths run at once
// would meet.
func TestRunRepairsOneFileOncePerPathInTurn(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "s1.jsonl")
	damaged := cutOffTranscript
	require.NoError(t, os.WriteFile(target, []byte(damaged), 0o640))
	link := filepath.Join(dir, "link.jsonl")
	require.NoError(t, os.Symlink(target, link))
	other := filepath.Join(dir, "s2.jsonl")
	require.NoError(t, os.WriteFile(other, []byte(damaged), 0o640)) // the same bytes, another file

	paths := []string{target, link, other, target}
	var mu sync.Mutex
	started := 0
	all := make(chan struct{})
	starting := func(string) {
		mu.Lock()
		if started++; started == len(paths) {
			close(all)
		}
		mu.Unlock()
		select {
		case <-all:
		case <-time.After(300 * time.Millisecond):
		}
	}
	rep := Run(t.Context(), paths, RunOptions{Jobs: len(paths), Starting: starting})

	for _, f := range rep.Files {
		assert.Empty(t, f.Error, f.Path)
	}
	assert.True(t, rep.Files[0].Changed, "the first path names the file: it is repaired")
	assert.False(t, rep.Files[1].Changed, "the link finds it repaired")
	assert.True(t, rep.Files[2].Changed, "another file with the same bytes is repaired too")
	assert.False(t, rep.Files[3].Changed, "the path given again finds it repaired")
	assert.Equal(t, 2, rep.Totals.Changed)
	assert.Equal(t, 4, rep.Totals.Files)
	backups, err := filepath.Glob(target + ".bak-oc-*[0-9]Z")
	require.NoError(t, err)
	assert.Len(t, backups, 1, "one backup of the file")
}
