package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-tools/oc/internal/cli"
	"github.com/openclaw-tools/oc/internal/oracletest"
)

// oc inspect of an agent database's path reads the database (its sessions,
// as a state dir's inspect lists them), in its state dir or copied
// elsewhere; another SQLite file is one line, exit 3. Nothing is written.
func TestInspectDatabasePath(t *testing.T) {
	state, mainDB := sqliteState(t)
	copyDir := t.TempDir()
	copied := filepath.Join(copyDir, "backup.sqlite")
	data, err := os.ReadFile(mainDB)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(copied, data, 0o600); err != nil {
		t.Fatal(err)
	}
	before := hashFiles(t, state)
	for _, db := range []string{mainDB, copied} {
		code, out, stderr := runOC(t, false, nil, "inspect", db)
		if code != 0 || !strings.Contains(out, mainKey) || !strings.Contains(out, emptyKey) || strings.Contains(stderr, "not an OpenClaw transcript") {
			t.Errorf("inspect %s: exit %d (%s):\n%s", db, code, stderr, out)
		}
		code, out, _ = runOC(t, false, nil, "inspect", db, "--json")
		var doc struct {
			Databases []struct{ Path string } `json:"databases"`
			Sessions  []struct{ Key string }  `json:"sessions"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil || code != 0 || len(doc.Databases) != 1 || doc.Databases[0].Path != db || len(doc.Sessions) != 2 {
			t.Errorf("inspect %s --json: exit %d, %v: %s", db, code, err, out)
		}
	}
	code, _, stderr := runOC(t, false, nil, "inspect", filepath.Join(copyDir, "..", filepath.Base(copyDir), "backup.sqlite"), "--tree")
	if code != 0 {
		t.Errorf("inspect --tree of a database: exit %d (%s)", code, stderr)
	}
	other := filepath.Join(copyDir, "other.sqlite")
	os.WriteFile(other, append([]byte("SQLite format 3\x00"), make([]byte, 200)...), 0o600)
	code, out, stderr := runOC(t, false, nil, "inspect", other)
	if code != cli.ExitIncomplete || out != "" || !strings.Contains(stderr, "not an OpenClaw agent database") {
		t.Errorf("inspect of another SQLite file: exit %d, %q, %q", code, out, stderr)
	}
	oneLineError(t, stderr)
	sameHashes(t, "state dir", before, hashFiles(t, state))
}

// An empty SQLite session is not described with JSONL's words (a damaged
// header OpenClaw would start over): it has no transcript rows.
func TestInspectEmptySQLiteSession(t *testing.T) {
	state, _ := sqliteState(t)
	code, out, stderr := runOC(t, false, nil, "inspect", emptyKey, "--state-dir", state)
	if code != 0 || strings.Contains(out, "missing or damaged") || strings.Contains(out, "start this session over") ||
		!strings.Contains(out, "Header       none: the session has no transcript rows") || strings.Contains(out, "Entries      0: ") {
		t.Errorf("exit %d (%s):\n%s", code, stderr, out)
	}
}

// The SQLite session table prints keys and ids whole when piped, so that
// its "Next: oc inspect KEY" can be followed with any row's key; on a
// terminal too narrow to fit it even cut, nothing is cut either.
func TestSQLiteSessionTableKeepsKeysWhole(t *testing.T) {
	state := oracletest.ColdState96(t, oracletest.ArchiveFixtureDir(t), "state")
	const longID = "0197d300-dead-7bee-8f00-112233445566"
	for _, tty := range []bool{false, true} {
		code, out, stderr := runOC(t, tty, nil, "inspect", "--state-dir", state, "--no-color")
		if code != 0 || !strings.Contains(out, longID) || !strings.Contains(out, "Next: oc inspect KEY") {
			t.Errorf("tty %v: exit %d (%s), no whole id %s in:\n%s", tty, code, stderr, longID, out)
		}
		for _, line := range strings.Split(out, "\n") {
			if f := strings.Fields(line); len(f) > 2 && f[0] == "main" && strings.HasPrefix(f[1], "agent:") {
				if c, _, e := runOC(t, false, nil, "inspect", f[1], "--state-dir", state); c != 0 {
					t.Errorf("the key of row %q cannot be followed: exit %d (%s)", line, c, e)
				}
				if strings.Contains(line, "…") {
					t.Errorf("tty %v: a cut cell in %q", tty, line)
				}
			}
		}
	}
}

// oc inspect KEY --tree draws a SQLite session's branches (and --json has
// them under "tree"), as it does for a JSONL transcript.
func TestInspectSQLiteSessionTree(t *testing.T) {
	state, _ := sqliteState(t)
	code, out, stderr := runOC(t, false, nil, "inspect", mainKey, "--state-dir", state, "--tree")
	if code != 0 || !strings.Contains(out, "\nBranches\n  └─ lines ") || !strings.Contains(out, "◀ active leaf") {
		t.Errorf("exit %d (%s), no tree in:\n%s", code, stderr, out)
	}
	code, out, _ = runOC(t, false, nil, "inspect", mainKey, "--state-dir", state, "--tree", "--json")
	var doc struct {
		Key  string            `json:"key"`
		Tree []json.RawMessage `json:"tree"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != 0 || doc.Key != mainKey || len(doc.Tree) == 0 {
		t.Errorf("--tree --json: exit %d, %v, key %q, %d segments", code, err, doc.Key, len(doc.Tree))
	}
	code, out, _ = runOC(t, false, nil, "inspect", emptyKey, "--state-dir", state, "--tree")
	if code != 0 || !strings.Contains(out, "\nBranches\n  none\n") {
		t.Errorf("--tree of an empty session: exit %d:\n%s", code, out)
	}
}
