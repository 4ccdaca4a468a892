package cmd

import (
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-tools/oc/internal/oracletest"
)

const (
	archSlack     = "0197d2b9-0c4a-7d11-8e22-33f4a5b6c7d8@cc61585fa12b46a89f17cb66bb5b5eb2" // main, published
	archOpsMain   = "0197d400-aaaa-7bbb-8ccc-ddddeeeeffff@aac908ae82854b5ca414443d9199b152" // ops, collided
	archRecovered = "0197d5ff-0000-7111-8222-333344445555@0db23a8a9f4243509655934c7194b4f9" // ops, identity, never attempted
)

// The generations OpenClaw 2026.9.6 archived (testdata/sqlite-archives):
// `oc inspect` counts them in one line, `--archived` lists and checks them
// (golden), one of them is inspected by SESSIONID@GENERATION (golden), and
// `oc export` writes each as 9.6 decodes it, by SESSIONID@GENERATION and by
// its archive name, saying on stderr what it read. No file of the state dir
// changes, none is created.
func TestArchivesCLI(t *testing.T) {
	dir := oracletest.ArchiveFixtureDir(t)
	state := oracletest.ColdState96(t, dir, "state")
	before := hashFiles(t, state)

	code, out, stderr := runOC(t, false, nil, "inspect", "--state-dir", state)
	if code != 0 {
		t.Fatalf("inspect: exit %d: %s", code, stderr)
	}
	if want := "Archived: 3 generations of deleted or reset sessions in session_transcript_archives (2 unpublished): oc inspect --state-dir " + state + " --archived lists and checks them.\n"; !strings.Contains(out, want) || strings.Contains(out, "Archived generations") {
		t.Errorf("inspect without --archived: want the one-line count %q, got:\n%s", want, out)
	}
	// doctor tells the same story: each database's count, and where they
	// are checked
	code, out, stderr = runOC(t, false, nil, "doctor", "--state-dir", state)
	if code != 0 && code != 1 {
		t.Fatalf("doctor: exit %d: %s", code, stderr)
	}
	words := strings.Join(strings.Fields(out), " ") // as wrapped at any width
	for _, want := range []string{"agent main: schema 23, 2 sessions, 1 archived generation, quick_check ok",
		"agent ops: schema 23, 0 sessions, 2 archived generations (2 unpublished), quick_check ok",
		"3 archived generations not checked here: oc inspect --state-dir " + state + " --archived lists and checks them"} {
		if !strings.Contains(words, want) {
			t.Errorf("doctor: want %q in:\n%s", want, out)
		}
	}
	code, out, stderr = runOC(t, false, nil, "inspect", "--state-dir", state, "--archived")
	if code != 0 {
		t.Fatalf("inspect --archived: exit %d: %s", code, stderr)
	}
	golden(t, "inspect-sqlite-archives.txt", []byte(normalizeState(out, state)))

	code, out, stderr = runOC(t, false, nil, "inspect", archOpsMain[:44], "--state-dir", state)
	if code != 0 {
		t.Fatalf("inspect %s: exit %d: %s", archOpsMain[:44], code, stderr)
	}
	golden(t, "inspect-sqlite-archive-one.txt", []byte(normalizeState(out, state)))

	code, out, stderr = runOC(t, false, nil, "inspect", "--state-dir", state, "--archived", "--json")
	if code != 0 {
		t.Fatalf("inspect --archived --json: exit %d: %s", code, stderr)
	}
	var rep struct {
		Databases []struct {
			Agent       string `json:"agent"`
			Archived    int    `json:"archivedGenerations"`
			Unpublished int    `json:"unpublishedArchives"`
		} `json:"databases"`
		Archives []struct {
			Agent string `json:"agent"`
			Row   struct {
				SessionID        string  `json:"sessionId"`
				Generation       string  `json:"generation"`
				SessionKey       string  `json:"sessionKey"`
				Reason           string  `json:"reason"`
				Encoding         string  `json:"encoding"`
				BlobBytes        int64   `json:"blobBytes"`
				CreatedAt        int64   `json:"createdAt"`
				PublishedAt      *int64  `json:"publishedAt"`
				PublishAttempts  int     `json:"publishAttempts"`
				LastPublishError *string `json:"lastPublishError"`
			} `json:"row"`
			Verified    bool `json:"verified"`
			Entries     int  `json:"entries"`
			DerivedFile struct {
				Path  string `json:"path"`
				State string `json:"state"`
			} `json:"derivedFile"`
		} `json:"archives"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	states := map[string]string{}
	for _, a := range rep.Archives {
		states[a.Row.SessionID+"@"+a.Row.Generation] = a.DerivedFile.State
		if !a.Verified || a.Entries == 0 || a.Row.BlobBytes == 0 || a.Row.CreatedAt == 0 || a.Row.Reason != "deleted" {
			t.Errorf("--json archive %+v", a)
		}
	}
	if len(rep.Archives) != 3 || states[archSlack] != "same" || states[archOpsMain] != "differs" || states[archRecovered] != "missing" {
		t.Errorf("--json: %d archives, derived files %v", len(rep.Archives), states)
	}

	// export: 9.6's decoding, by spec (stdout) and by archive name (-o).
	decoded := map[string]string{}
	for _, d := range oracletest.ArchivesDecoded96(t, dir) {
		decoded[d.SessionID+"@"+d.Generation] = d.Content
	}
	for spec, content := range decoded {
		code, out, stderr := runOC(t, false, nil, "export", spec, "--state-dir", state)
		if code != 0 || out != content {
			t.Errorf("export %s: exit %d, %d bytes (9.6 decodes %d): %s", spec, code, len(out), len(content), stderr)
		}
		if want := fmt.Sprintf("oc: %d lines from the archived generation %s of agent:", strings.Count(content, "\n"), spec); !strings.HasPrefix(stderr, want) || !strings.Contains(stderr, "sha256 verified") {
			t.Errorf("export %s: stderr %q, want %q…", spec, stderr, want)
		}
	}
	name := "0197d5ff-0000-7111-8222-333344445555.jsonl.deleted.2026-12-01T21-25-42.567Z.0db23a8a9f4243509655934c7194b4f9"
	outFile := filepath.Join(t.TempDir(), "recovered.jsonl")
	code, _, stderr = runOC(t, false, nil, "export", name, "--state-dir", state, "-o", outFile)
	if code != 0 {
		t.Fatalf("export by archive name: exit %d: %s", code, stderr)
	}
	if got, err := os.ReadFile(outFile); err != nil || string(got) != decoded[archRecovered] {
		t.Errorf("export -o by archive name: %d bytes, %v; 9.6 decodes %d", len(got), err, len(decoded[archRecovered]))
	}
	// an archive name that names no row is a path, as before
	code, _, stderr = runOC(t, false, nil, "export", "0197d5ff-0000-7111-8222-333344445555.jsonl.deleted.2020-01-01T00-00-00.000Z", "--state-dir", state)
	if code != 3 || !strings.Contains(stderr, "no such file") {
		t.Errorf("export of an unknown archive name: exit %d, %q", code, stderr)
	}
	sameHashes(t, "archives state dir", before, hashFiles(t, state))
}

// editArchiveDB changes agent ops' database of a fresh copy of the
// fixture's state/ and returns the state dir.
func editArchiveDB(t *testing.T, queries ...string) string {
	t.Helper()
	state := oracletest.ColdState96(t, oracletest.ArchiveFixtureDir(t), "state")
	path := filepath.Join(state, "agents", "ops", "agent", "openclaw-agent.sqlite")
	w, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range append(queries, "PRAGMA wal_checkpoint(TRUNCATE)") {
		if _, err := w.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	w.Close()
	os.Remove(path + "-wal")
	os.Remove(path + "-shm")
	return state
}

// A damaged blob (sha256 mismatch; a truncated zstd stream whose sha256 was
// made to match): `oc export` exits 3 with one line naming the database and
// the row, writes nothing to stdout and leaves no file; `oc inspect
// --archived` reports it as an error finding and exits 0. No database file
// changes.
func TestArchiveDamagedCLI(t *testing.T) {
	for _, c := range []struct {
		name, query, want string
	}{
		{"sha256 mismatch", "UPDATE session_transcript_archives SET archive_blob = CAST(substr(archive_blob, 1, 200) || x'ff' || substr(archive_blob, 202) AS BLOB) WHERE session_id = '0197d400-aaaa-7bbb-8ccc-ddddeeeeffff'", "failed verification: sha256 "},
		{"truncated zstd", "UPDATE session_transcript_archives SET archive_blob = substr(archive_blob, 1, 300) WHERE session_id = '0197d400-aaaa-7bbb-8ccc-ddddeeeeffff'", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			state := editArchiveDB(t, c.query)
			if c.want == "" {
				fixSHA256(t, state, "0197d400-aaaa-7bbb-8ccc-ddddeeeeffff")
				c.want = "does not decompress after "
			}
			before := hashFiles(t, state)
			where := filepath.Join(state, "agents", "ops", "agent", "openclaw-agent.sqlite") + "#session_transcript_archives[" + archOpsMain + "].archive_blob: "
			code, out, stderr := runOC(t, false, nil, "export", archOpsMain, "--state-dir", state)
			if code != 3 || out != "" {
				t.Errorf("export of a damaged blob to stdout: exit %d, %d bytes written", code, len(out))
			}
			oneLineError(t, stderr)
			if !strings.HasPrefix(stderr, "oc: "+where) || !strings.Contains(stderr, c.want) {
				t.Errorf("stderr %q: want %q… with %q", stderr, "oc: "+where, c.want)
			}
			outFile := filepath.Join(t.TempDir(), "x.jsonl")
			code, _, stderr = runOC(t, false, nil, "export", archOpsMain, "--state-dir", state, "-o", outFile)
			if _, err := os.Stat(outFile); code != 3 || err == nil {
				t.Errorf("export -o of a damaged blob: exit %d, file left: %v (%s)", code, err == nil, stderr)
			}
			if entries, _ := os.ReadDir(filepath.Dir(outFile)); len(entries) != 0 {
				t.Errorf("export -o left %d files behind", len(entries))
			}
			code, out, stderr = runOC(t, false, nil, "inspect", "--state-dir", state, "--archived")
			if code != 0 || !strings.Contains(out, "    error   sqlite-archive-damaged "+where) {
				t.Errorf("inspect --archived: exit %d (%s), output lacks the damaged finding:\n%s", code, stderr, out)
			}
			sameHashes(t, "damaged archives state dir", before, hashFiles(t, state))
		})
	}
}

// fixSHA256 sets a row's archive_sha256 to its blob's sha256 (so that what
// is wrong is found past the hash).
func fixSHA256(t *testing.T, state, id string) {
	t.Helper()
	path := filepath.Join(state, "agents", "ops", "agent", "openclaw-agent.sqlite")
	w, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var b []byte
	if err := w.QueryRow("SELECT archive_blob FROM session_transcript_archives WHERE session_id = ?", id).Scan(&b); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	if _, err := w.Exec("UPDATE session_transcript_archives SET archive_sha256 = ? WHERE session_id = ?", hex.EncodeToString(sum[:]), id); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Exec("PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		t.Fatal(err)
	}
	w.Close()
	os.Remove(path + "-wal")
	os.Remove(path + "-shm")
}

// Control characters in a row's key and archive name are printed escaped
// by the human output (never raw) and kept exact in --json; the row whose
// name holds them still exports by that name.
func TestArchiveControlCharactersCLI(t *testing.T) {
	state := editArchiveDB(t,
		"UPDATE session_transcript_archives SET session_key = 'agent:ops:'||char(27)||'[31mred'||char(7), archive_name = 'evil'||char(27)||'[2J.jsonl.deleted.x', published_at = 5 WHERE session_id = '0197d5ff-0000-7111-8222-333344445555'")
	before := hashFiles(t, state)
	code, out, stderr := runOC(t, false, nil, "inspect", "--state-dir", state, "--archived")
	if code != 0 {
		t.Fatalf("inspect --archived: exit %d: %s", code, stderr)
	}
	if strings.ContainsAny(out, "\x1b\x07") || !strings.Contains(out, `evil\x1b[2J.jsonl.deleted.x`) || !strings.Contains(out, `agent:ops:\x1b[31mred\x07`) {
		t.Errorf("control characters not escaped in:\n%s", out)
	}
	code, out, _ = runOC(t, false, nil, "inspect", "--state-dir", state, "--archived", "--json")
	if code != 0 || !strings.Contains(out, `"sessionKey": "agent:ops:\u001b[31mred\u0007"`) {
		t.Errorf("--json does not keep the key exact: exit %d", code)
	}
	code, out, stderr = runOC(t, false, nil, "export", "evil\x1b[2J.jsonl.deleted.x", "--state-dir", state)
	if code != 0 || !strings.HasPrefix(out, `{"type":"session"`) || strings.ContainsAny(stderr, "\x1b\x07") {
		t.Errorf("export by an archive name with control characters: exit %d, stderr %q", code, stderr)
	}
	sameHashes(t, "archives state dir", before, hashFiles(t, state))
}
