package repair

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A transcript that is a symlink is repaired where its bytes are: the link
// stays a link to the repaired file, the backup sits beside the real file.
func TestApplyThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	realDir := filepath.Join(dir, "volume")
	sessions := filepath.Join(dir, "agents", "main", "sessions")
	require.NoError(t, os.MkdirAll(realDir, 0o755))
	require.NoError(t, os.MkdirAll(sessions, 0o755))
	target := filepath.Join(realDir, "s1.jsonl")
	damaged := `{"type":"session","version":3,"id":"s1","timestamp":"2026-05-01T00:00:00.000Z","cwd":"/"}` + "\n" +
		`{"type":"message","id":"a","parentId":null,"timestamp":"2026-05-01T00:00:01.000Z","message":{"role":"user","content":"hi"}}` + "\n" +
		`{"type":"message","id":"b","parentId":"a","timestamp":"2026-05-01T00:00:02.000Z","message":{"role":"assis`
	require.NoError(t, os.WriteFile(target, []byte(damaged), 0o640))
	link := filepath.Join(sessions, "s1.jsonl")
	require.NoError(t, os.Symlink(target, link))

	rep, err := ApplyFile(link, ApplyOptions{})
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
