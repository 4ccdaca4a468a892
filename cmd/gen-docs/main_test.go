package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// The checked-in man pages and completions must be what the command tree
// generates now. Regenerate with: go generate ./cmd
func TestGeneratedDocsAreFresh(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, write(dir))
	repo := filepath.Join("..", "..")
	for _, sub := range []string{"man/man1", "completions"} {
		fresh, err := os.ReadDir(filepath.Join(dir, sub))
		require.NoError(t, err)
		require.NotEmpty(t, fresh, "nothing generated in %s", sub)
		committed, err := os.ReadDir(filepath.Join(repo, sub))
		require.NoError(t, err, "missing %s: run go generate ./cmd", sub)
		names := map[string]bool{}
		for _, e := range committed {
			names[e.Name()] = true
		}
		for _, e := range fresh {
			want, err := os.ReadFile(filepath.Join(dir, sub, e.Name()))
			require.NoError(t, err)
			got, err := os.ReadFile(filepath.Join(repo, sub, e.Name()))
			if err != nil || string(got) != string(want) {
				t.Errorf("%s/%s is stale: run go generate ./cmd and commit the result", sub, e.Name())
			}
			delete(names, e.Name())
		}
		for n := range names {
			t.Errorf("%s/%s is no longer generated: remove it (go generate ./cmd)", sub, n)
		}
	}
}
