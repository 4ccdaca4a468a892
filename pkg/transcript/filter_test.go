package transcript

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseSince(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Time{
		"90m":                  now.Add(-90 * time.Minute),
		"36h":                  now.Add(-36 * time.Hour),
		"7d":                   now.Add(-7 * 24 * time.Hour),
		"2w":                   now.Add(-14 * 24 * time.Hour),
		"2026-11-01T08:00:00Z": time.Date(2026, 11, 1, 8, 0, 0, 0, time.UTC),
	} {
		got, err := ParseSince(in, now)
		require.NoError(t, err, in)
		assert.True(t, want.Equal(got), "%s: got %v want %v", in, got, want)
	}
	day, err := ParseSince("2026-11-01", now)
	require.NoError(t, err)
	assert.Equal(t, 2026, day.Year())
	assert.Equal(t, time.November, day.Month())
	assert.Equal(t, 1, day.Day())
	for _, bad := range []string{"yesterday", "-5h", "7x", "2026-13-01"} {
		_, err := ParseSince(bad, now)
		assert.Error(t, err, bad)
	}
}

func TestFilterKeeps(t *testing.T) {
	dir := t.TempDir()
	old, recent := filepath.Join(dir, "old.jsonl"), filepath.Join(dir, "new.jsonl")
	require.NoError(t, os.WriteFile(old, nil, 0o644))
	require.NoError(t, os.WriteFile(recent, nil, 0o644))
	long := time.Now().Add(-72 * time.Hour)
	require.NoError(t, os.Chtimes(old, long, long))
	files := []File{{Path: old, Agent: "main"}, {Path: recent, Agent: "ops"}, {Path: "-"}}

	got, err := Filter{Since: time.Now().Add(-24 * time.Hour)}.Apply(files)
	require.NoError(t, err)
	assert.Equal(t, []File{files[1], files[2]}, got)
	got, err = Filter{Agent: "main"}.Apply(files)
	require.NoError(t, err)
	assert.Equal(t, []File{files[0], files[2]}, got)
	got, err = Filter{}.Apply(files)
	require.NoError(t, err)
	assert.Len(t, got, 3)
}
