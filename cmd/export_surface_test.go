package cmd

import (
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-tools/oc/internal/cli"
	"github.com/openclaw-tools/oc/internal/oracletest"
)

// The archived-generations fixture: agent main holds agent:main:main (16
// events) and agent:main:telegram:direct:99887766 (no transcript rows).
const (
	emptyKey = "agent:main:telegram:direct:99887766"
	mainKey  = "agent:main:main"
)

func sqliteState(t *testing.T) (state, mainDB string) {
	t.Helper()
	state = oracletest.ColdState96(t, oracletest.ArchiveFixtureDir(t), "state")
	return state, filepath.Join(state, "agents", "main", "agent", "openclaw-agent.sqlite")
}

// exportRefused runs oc export with args, to stdout and with -o: each is
// exit 3, one error line holding want, nothing on stdout and no file.
func exportRefused(t *testing.T, what string, want []string, args ...string) {
	t.Helper()
	code, out, stderr := runOC(t, false, nil, append([]string{"export"}, args...)...)
	if code != cli.ExitIncomplete || out != "" {
		t.Errorf("%s: exit %d, %d bytes on stdout (want exit 3, nothing)", what, code, len(out))
	}
	oneLineError(t, stderr)
	for _, w := range want {
		if !strings.Contains(stderr, w) {
			t.Errorf("%s: stderr %q lacks %q", what, stderr, w)
		}
	}
	dir := t.TempDir()
	code, _, stderr = runOC(t, false, nil, append([]string{"export", "-o", filepath.Join(dir, "out.jsonl")}, args...)...)
	if entries, _ := os.ReadDir(dir); code != cli.ExitIncomplete || len(entries) != 0 {
		t.Errorf("%s -o: exit %d, %d files left (%s)", what, code, len(entries), stderr)
	}
	if strings.Contains(stderr, "oc-tmp") {
		t.Errorf("%s -o: the error names the temporary file: %s", what, stderr)
	}
}

// oc export exports sessions only: a file that is not an OpenClaw
// transcript, a binary, a SQLite file of another program, an agent database
// (the error lists its sessions) and an empty session are refused with exit
// 3 and nothing written; a JSONL transcript whose first line is damaged
// still exports, byte for byte.
func TestExportOnlyExportsSessions(t *testing.T) {
	state, mainDB := sqliteState(t)
	before := hashFiles(t, state)
	dir := t.TempDir()
	passwd := filepath.Join(dir, "passwd")
	os.WriteFile(passwd, []byte("root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1::/usr/sbin:/usr/sbin/nologin\n"), 0o644)
	binary := filepath.Join(dir, "a.out")
	os.WriteFile(binary, []byte("\x7fELF\x02\x01\x01\x00\x00\x00\n{\"x\":1}\n\x00\x00\xff\xfe"), 0o644)
	other := filepath.Join(dir, "other.sqlite")
	db, err := sql.Open("sqlite", other)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE t(x); INSERT INTO t VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	empty := filepath.Join(dir, "empty.jsonl")
	os.WriteFile(empty, nil, 0o644)

	exportRefused(t, "a text file", []string{passwd + ": not an OpenClaw transcript", "nothing written"}, passwd, "--state-dir", state)
	exportRefused(t, "a binary", []string{binary + ": not an OpenClaw transcript"}, binary, "--state-dir", state)
	exportRefused(t, "another SQLite file", []string{other + ": a SQLite database that is not an OpenClaw agent database"}, other, "--state-dir", state)
	exportRefused(t, "the agent database", []string{mainDB + ": an OpenClaw agent database, not a transcript", "oc export KEY", mainKey + ", " + emptyKey}, mainDB, "--state-dir", state)
	exportRefused(t, "an empty file", []string{empty + ": an empty file: the session has no transcript rows"}, empty, "--state-dir", state)
	exportRefused(t, "an empty SQLite session", []string{emptyKey + ": the session has no transcript rows", "nothing written"}, emptyKey, "--state-dir", state)

	// A transcript cut off at its start is still one, exported as it is.
	damaged := filepath.Join(dir, "damaged.jsonl")
	content := "{\"type\":\"sess\n{\"type\":\"message\",\"id\":\"u1\",\"parentId\":null,\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n"
	os.WriteFile(damaged, []byte(content), 0o644)
	code, out, stderr := runOC(t, false, nil, "export", damaged, "--state-dir", state)
	if code != 0 || out != content {
		t.Errorf("a transcript with a damaged first line: exit %d (%s), %q", code, stderr, out)
	}
	code, out, _ = runOC(t, false, nil, "export", mainKey, "--state-dir", state)
	if code != 0 || strings.Count(out, "\n") != 16 {
		t.Errorf("export %s: exit %d, %d lines", mainKey, code, strings.Count(out, "\n"))
	}
	sameHashes(t, "state dir", before, hashFiles(t, state))
}

// --json promises one JSON document on stdout; a transcript is JSONL, so
// export KEY --json is refused as a usage error (exit 2, nothing on stdout).
func TestExportJSONIsRefused(t *testing.T) {
	state, _ := sqliteState(t)
	code, out, stderr := runOC(t, false, nil, "export", mainKey, "--state-dir", state, "--json")
	if code != cli.ExitUsage || out != "" {
		t.Errorf("export --json: exit %d, stdout %q", code, out)
	}
	var e struct {
		Error    string `json:"error"`
		ExitCode int    `json:"exitCode"`
	}
	if err := json.Unmarshal([]byte(stderr), &e); err != nil || e.ExitCode != cli.ExitUsage || !strings.Contains(e.Error, "JSONL") {
		t.Errorf("stderr is not one JSON error: %q (%v)", stderr, err)
	}
}

// --all with a session whose id cannot be a file name ("../x") refuses that
// one, exports the others (an empty session is skipped, not a failure) and
// exits 3; nothing is written outside the folder.
func TestExportAllRefusesAHostileSessionID(t *testing.T) {
	state, mainDB := sqliteState(t)
	w, err := sql.Open("sqlite", mainDB)
	if err != nil {
		t.Fatal(err)
	}
	var cols []string
	rows, err := w.Query("SELECT name FROM pragma_table_info('transcript_events')")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var c string
		rows.Scan(&c)
		cols = append(cols, c)
	}
	rows.Close()
	sel := strings.ReplaceAll(strings.Join(cols, ", "), "session_id", "'../x'")
	for _, q := range []string{
		"INSERT INTO transcript_events(" + strings.Join(cols, ", ") + ") SELECT " + sel + " FROM transcript_events WHERE session_id = (SELECT current_session_id FROM session_nodes WHERE session_key = '" + mainKey + "')",
		"PRAGMA wal_checkpoint(TRUNCATE)",
	} {
		if _, err := w.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	w.Close()
	os.Remove(mainDB + "-wal")
	os.Remove(mainDB + "-shm")

	parent := t.TempDir()
	out := filepath.Join(parent, "out")
	code, stdout, stderr := runOC(t, false, nil, "export", "--all", "--agent", "main", "-o", out, "--state-dir", state)
	if code != cli.ExitIncomplete {
		t.Errorf("exit %d, want 3 (a session refused)", code)
	}
	if !strings.Contains(stderr, `refused session ../x: session id "../x" cannot be a file name`) || !strings.Contains(stderr, "skipped "+emptyKey) ||
		!strings.Contains(stderr, "1 of 2 sessions not exported") || !strings.Contains(stdout, "exported 1 session (16 lines) of agent main to ") {
		t.Errorf("stdout %q, stderr:\n%s", stdout, stderr)
	}
	entries, _ := os.ReadDir(out)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if len(names) != 2 || names[1] != "sessions.json" || !strings.HasSuffix(names[0], ".jsonl") {
		t.Errorf("files in the folder: %v", names)
	}
	if _, err := os.Stat(filepath.Join(parent, "x.jsonl")); err == nil {
		t.Errorf("../x.jsonl was written outside the folder")
	}

	code, stdout, _ = runOC(t, false, nil, "export", "--all", "--agent", "main", "-o", filepath.Join(parent, "json"), "--state-dir", state, "--json")
	var doc struct {
		Files   []struct{ Key string } `json:"files"`
		Skipped []struct{ Key string } `json:"skipped"`
		Refused []struct {
			ID     string `json:"sessionId"`
			Reason string `json:"reason"`
		} `json:"refused"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil || code != cli.ExitIncomplete ||
		len(doc.Files) != 1 || len(doc.Skipped) != 1 || len(doc.Refused) != 1 || doc.Refused[0].ID != "../x" {
		t.Errorf("--json: exit %d, %v: %s", code, err, stdout)
	}
}
