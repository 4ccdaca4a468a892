package cmd

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-tools/oc/internal/oracletest"
)

// branchesAfter is the Branches block drawn under the table row that
// starts with row: its heading and its indented lines.
func branchesAfter(t *testing.T, out, row string) string {
	t.Helper()
	i := strings.Index(out, "\n"+row)
	if i < 0 {
		t.Fatalf("no row %q in:\n%s", row, out)
	}
	rest := out[i+1:]
	start := strings.Index(rest, "\nBranches\n")
	if start < 0 {
		t.Fatalf("no branches under %q in:\n%s", row, out)
	}
	lines := strings.Split(rest[start+1:], "\n")
	n := 1
	for n < len(lines) && strings.HasPrefix(lines[n], "  ") {
		n++
	}
	block := strings.Join(lines[:n], "\n")
	if next := strings.Index(rest, "\nmain "); next >= 0 && next < start {
		t.Fatalf("the row after %q comes before its branches:\n%s", row, out)
	}
	return block
}

// `oc inspect --tree` of a whole SQLite state dir draws each session's
// branches under its row, as it does for a JSONL state dir: the session
// 9.6 imported from the example state's transcript has the same branches
// in both eras.
func TestInspectStateDirTreeSQLite(t *testing.T) {
	dir := oracletest.ArchiveFixtureDir(t)
	state := oracletest.ColdState96(t, dir, "state")
	code, out, stderr := runOC(t, false, nil, "inspect", "--state-dir", state, "--tree")
	if code != 0 {
		t.Fatalf("inspect --tree: exit %d: %s", code, stderr)
	}
	golden(t, "inspect-sqlite-tree.txt", []byte(normalizeState(out, state)))

	code, jsonlOut, stderr := runOC(t, false, nil, "inspect", "--state-dir", filepath.Join("..", "testdata", "example-state"), "--tree")
	if code != 0 {
		t.Fatalf("inspect --tree (JSONL): exit %d: %s", code, stderr)
	}
	sqlite := branchesAfter(t, out, "main     agent:main:main ")
	jsonl := branchesAfter(t, jsonlOut, "main     0197d2a4-6b1e-7c3d-9e4f-5a6b7c8d9e01.jsonl ")
	if sqlite != jsonl || !strings.Contains(sqlite, "◀ active leaf") {
		t.Errorf("the same session's branches differ by era:\n--- SQLite ---\n%s\n--- JSONL ---\n%s", sqlite, jsonl)
	}
}
