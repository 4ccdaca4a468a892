package sqlitestore_test

import (
	"bufio"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-tools/oc/internal/oracletest"
	"github.com/openclaw-tools/oc/pkg/store/sqlitestore"
)

// restoredRow is one line of restored-rows.jsonl: a transcript_events row
// that OpenClaw 2026.9.6's restoreSessionColdTranscript wrote back.
type restoredRow struct {
	Agent     string `json:"agent"`
	SessionID string `json:"sessionId"`
	Seq       int64  `json:"seq"`
	CreatedAt int64  `json:"createdAt"`
	Event     string `json:"event"`
}

func readRestoredRows(t *testing.T, fixtureDir string) map[string][]restoredRow {
	t.Helper()
	f, err := os.Open(filepath.Join(fixtureDir, "restored-rows.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string][]restoredRow{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var r restoredRow
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		out[r.Agent+"/"+r.SessionID] = append(out[r.Agent+"/"+r.SessionID], r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func agentDB(state, agent string) string {
	return filepath.Join(state, "agents", agent, "agent", "openclaw-agent.sqlite")
}

// hashTree hashes every file under dir (path -> sha256), to prove a read
// changed nothing and created nothing.
func hashTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		out[p] = hex.EncodeToString(sum[:])
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameTree(t *testing.T, before, after map[string]string) {
	t.Helper()
	if len(before) != len(after) {
		t.Errorf("files before %d, after %d: a read created or removed a file", len(before), len(after))
	}
	for p, h := range before {
		if after[p] != h {
			t.Errorf("%s changed (or vanished) after a read", p)
		}
	}
}

// compareWithRestore reads every cold session of agent main in state and
// compares its rows with the rows 9.6's restore wrote back; it returns the
// number of rows compared.
func compareWithRestore(t *testing.T, state, storage string, want map[string][]restoredRow) int {
	t.Helper()
	db, err := sqlitestore.Open(t.Context(), agentDB(state, "main"), sqlitestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cold, err := db.ColdArchives(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(cold) != 2 {
		t.Fatalf("%s: %d cold archives, want 2", storage, len(cold))
	}
	compared := 0
	for _, c := range cold {
		if c.Storage != storage {
			t.Errorf("%s: archive of %s has storage %q", storage, c.SessionID, c.Storage)
		}
		var hot int
		if err := db.ReadTx(t.Context(), func(tx *sql.Tx) error {
			return tx.QueryRow("SELECT count(*) FROM transcript_events WHERE session_id = ?", c.SessionID).Scan(&hot)
		}); err != nil {
			t.Fatal(err)
		}
		if hot != 0 {
			t.Fatalf("%s: session %s still has %d hot rows: not a cold fixture", storage, c.SessionID, hot)
		}
		var got []sqlitestore.Event
		st, err := db.Events(t.Context(), c.SessionID, nil, func(ev sqlitestore.Event) error {
			got = append(got, ev)
			return nil
		})
		if err != nil {
			t.Fatalf("%s: session %s: %v", storage, c.SessionID, err)
		}
		if st.Cold == nil || !st.Cold.Verified || st.Cold.Events != c.EventCount || st.Cold.HotRows != 0 {
			t.Errorf("%s: session %s: cold source %+v", storage, c.SessionID, st.Cold)
		}
		exp := want["main/"+c.SessionID]
		if len(got) != len(exp) || len(exp) != c.EventCount {
			t.Fatalf("%s: session %s: oc read %d rows from the archive, 9.6 restored %d, the row says %d", storage, c.SessionID, len(got), len(exp), c.EventCount)
		}
		for i := range exp {
			if got[i].Seq != exp[i].Seq || got[i].CreatedAt != exp[i].CreatedAt || string(got[i].JSON) != exp[i].Event {
				t.Errorf("%s: session %s row %d: oc (seq %d, created %d) %.80q, 9.6 restored (seq %d, created %d) %.80q",
					storage, c.SessionID, i, got[i].Seq, got[i].CreatedAt, got[i].JSON, exp[i].Seq, exp[i].CreatedAt, exp[i].Event)
			}
			compared++
		}
	}
	return compared
}

// The rows oc reads from a cold archive (storage 'file' and 'sqlite') are
// the rows 2026.9.6's restore puts back into transcript_events, in order,
// byte for byte; the navigation cache read from the archive is the one the
// restore puts back.
func TestColdArchiveEqualsRestore96(t *testing.T) {
	dir := oracletest.ColdFixtureDir(t)
	want := readRestoredRows(t, dir)
	total := 0
	for _, rows := range want {
		total += len(rows)
	}
	n := 0
	for _, storage := range []string{"file", "sqlite"} {
		state := oracletest.ColdState96(t, dir, storage)
		n += compareWithRestore(t, state, storage, want)
	}
	oracletest.Compared(t, "cold archive rows vs 2026.9.6 restore", n, 2*total)
	if total != 21 {
		t.Errorf("restored-rows.jsonl holds %d rows, the fixture's two sessions have 16+5", total)
	}

	// The navigation cache: from the archive (cold) and from the restored database.
	cold, err := sqlitestore.Open(t.Context(), agentDB(oracletest.ColdState96(t, dir, "file"), "main"), sqlitestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer cold.Close()
	restored, err := sqlitestore.Open(t.Context(), agentDB(oracletest.ColdState96(t, dir, "restored"), "main"), sqlitestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer restored.Close()
	checked := 0
	for id := range want {
		id = strings.TrimPrefix(id, "main/")
		a, err := cold.Events(t.Context(), id, nil, func(sqlitestore.Event) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		b, err := restored.Events(t.Context(), id, nil, func(sqlitestore.Event) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		if b.Cold != nil {
			t.Errorf("restored session %s still reads as cold", id)
		}
		if !a.Present || a.LeafEventID != b.LeafEventID || a.IndexedSeq != b.IndexedSeq || a.NeedsRebuild != b.NeedsRebuild ||
			a.ActiveMessageCount != b.ActiveMessageCount || !equalSeqs(a.ActiveSeqs, b.ActiveSeqs) || len(a.ActiveSeqs) == 0 {
			t.Errorf("session %s: cache from the archive %+v, after 9.6's restore %+v", id, *a, *b)
		}
		checked++
	}
	oracletest.Compared(t, "cold archive navigation cache vs 2026.9.6 restore", checked, len(want))
}

func equalSeqs(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Reading cold sessions (and listing them) writes nothing: the database
// files and the archive files are byte-identical afterwards, and no file
// is created.
func TestColdReadIsReadOnly(t *testing.T) {
	dir := oracletest.ColdFixtureDir(t)
	for _, storage := range []string{"file", "sqlite"} {
		state := oracletest.ColdState96(t, dir, storage)
		before := hashTree(t, state)
		db, err := sqlitestore.Open(t.Context(), agentDB(state, "main"), sqlitestore.Options{})
		if err != nil {
			t.Fatal(err)
		}
		sessions, err := db.Sessions(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		events := 0
		for _, s := range sessions {
			if _, err := db.Events(t.Context(), s.SessionID, nil, func(sqlitestore.Event) error { events++; return nil }); err != nil {
				t.Fatal(err)
			}
		}
		db.Close()
		if events != 21 {
			t.Errorf("%s: read %d events of agent main, want 21 (16+5 from the archives)", storage, events)
		}
		sameTree(t, before, hashTree(t, state))
	}
}

// Sessions reports a cold session's counts from its archive row.
func TestColdSessionsCounts(t *testing.T) {
	state := oracletest.ColdState96(t, oracletest.ColdFixtureDir(t), "file")
	db, err := sqlitestore.Open(t.Context(), agentDB(state, "main"), sqlitestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	sessions, err := db.Sessions(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]sqlitestore.Session{}
	for _, s := range sessions {
		got[s.Key] = s
	}
	for key, want := range map[string]int{"agent:main:main": 16, "agent:main:slack:channel:c0aelhcgw4f": 5} {
		s := got[key]
		if !s.Cold || s.Events != want || s.Bytes <= 0 {
			t.Errorf("%s: cold %v, events %d (want %d), bytes %d", key, s.Cold, s.Events, want, s.Bytes)
		}
	}
}

// damage copies the 'file' fixture and lets fn damage it; the cold read of
// agent:main:main must then fail with a one-line *ColdArchiveError whose
// message names where the archive is and contains every wantText.
func damaged(t *testing.T, storage string, fn func(state, archive string, w *sql.DB), wantWhere string, wantText ...string) {
	t.Helper()
	state := oracletest.ColdState96(t, oracletest.ColdFixtureDir(t), storage)
	const id = "0197d2a4-6b1e-7c3d-9e4f-5a6b7c8d9e01"
	dbPath := agentDB(state, "main")
	var name string
	{
		w, err := sql.Open("sqlite", dbPath)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.QueryRow("SELECT archive_name FROM session_transcript_cold_archives WHERE session_id = ?", id).Scan(&name); err != nil {
			t.Fatal(err)
		}
		archive := filepath.Join(state, "agents", "main", "sessions", "cold", name)
		fn(state, archive, w)
		if _, err := w.Exec("PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
			t.Fatal(err)
		}
		w.Close()
		os.Remove(dbPath + "-wal")
		os.Remove(dbPath + "-shm")
	}
	before := hashTree(t, state)
	db, err := sqlitestore.Open(t.Context(), dbPath, sqlitestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows := 0
	st, err := db.Events(t.Context(), id, nil, func(sqlitestore.Event) error { rows++; return nil })
	var ce *sqlitestore.ColdArchiveError
	if !errors.As(err, &ce) {
		t.Fatalf("damaged archive: error %v (%T), want a *ColdArchiveError", err, err)
	}
	msg := err.Error()
	if strings.ContainsAny(msg, "\n\r") {
		t.Errorf("error is not one line: %q", msg)
	}
	where := strings.ReplaceAll(wantWhere, "$STATE", state)
	where = strings.ReplaceAll(where, "$NAME", name)
	if !strings.HasPrefix(msg, where+": ") {
		t.Errorf("error %q does not start with %q", msg, where)
	}
	for _, w := range wantText {
		if !strings.Contains(msg, w) {
			t.Errorf("error %q lacks %q", msg, w)
		}
	}
	if rows != 0 || st == nil || st.Cold == nil || st.Cold.Verified || st.Cold.Events != 0 {
		t.Errorf("a damaged archive handed out %d rows; cold source %+v", rows, st)
	}
	sameTree(t, before, hashTree(t, state))
	t.Logf("%s", msg)
}

const fileWhere = "$STATE/agents/main/sessions/cold/$NAME"
const blobWhere = "$STATE/agents/main/agent/openclaw-agent.sqlite#session_transcript_cold_archives[0197d2a4-6b1e-7c3d-9e4f-5a6b7c8d9e01].archive_blob"

func TestColdArchiveDamaged(t *testing.T) {
	exec := func(t *testing.T, w *sql.DB, q string, args ...any) {
		t.Helper()
		if _, err := w.Exec(q, args...); err != nil {
			t.Fatal(err)
		}
	}
	rewrite := func(t *testing.T, archive string, edit func([]byte) []byte) {
		t.Helper()
		data, err := os.ReadFile(archive)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(archive, edit(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// setBlob stores data as the archive with a matching size and sha256, so
	// that the damage is found past verification.
	setBlob := func(t *testing.T, w *sql.DB, data []byte) {
		sum := sha256.Sum256(data)
		exec(t, w, "UPDATE session_transcript_cold_archives SET archive_blob = ?, archive_bytes = ?, archive_sha256 = ? WHERE session_id = '0197d2a4-6b1e-7c3d-9e4f-5a6b7c8d9e01'", data, len(data), hex.EncodeToString(sum[:]))
	}
	blobOf := func(t *testing.T, w *sql.DB) []byte {
		var b []byte
		if err := w.QueryRow("SELECT archive_blob FROM session_transcript_cold_archives WHERE session_id = '0197d2a4-6b1e-7c3d-9e4f-5a6b7c8d9e01'").Scan(&b); err != nil {
			t.Fatal(err)
		}
		return b
	}
	t.Run("missing file", func(t *testing.T) {
		damaged(t, "file", func(_, archive string, _ *sql.DB) { os.Remove(archive) }, fileWhere, "is missing or unreadable", "restore it from a backup")
	})
	t.Run("bad checksum", func(t *testing.T) {
		damaged(t, "file", func(_, archive string, _ *sql.DB) {
			rewrite(t, archive, func(b []byte) []byte { b[len(b)/2] ^= 0x01; return b })
		}, fileWhere, "failed verification: sha256 ", "the row says 6975962a")
	})
	t.Run("truncated file", func(t *testing.T) {
		damaged(t, "file", func(_, archive string, _ *sql.DB) {
			rewrite(t, archive, func(b []byte) []byte { return b[:len(b)-100] })
		}, fileWhere, "failed verification: 1901 bytes, the row says archive_bytes 2001")
	})
	t.Run("bad checksum in blob", func(t *testing.T) {
		damaged(t, "sqlite", func(_, _ string, w *sql.DB) {
			b := blobOf(t, w)
			b[10] ^= 0x80
			exec(t, w, "UPDATE session_transcript_cold_archives SET archive_blob = ? WHERE session_id = '0197d2a4-6b1e-7c3d-9e4f-5a6b7c8d9e01'", b)
		}, blobWhere, "failed verification: sha256 ")
	})
	t.Run("truncated zstd with matching checksum", func(t *testing.T) {
		damaged(t, "sqlite", func(_, _ string, w *sql.DB) {
			b := blobOf(t, w)
			setBlob(t, w, b[:len(b)/2])
		}, blobWhere, "does not decompress (zstd: ")
	})
	t.Run("event count disagrees", func(t *testing.T) {
		damaged(t, "file", func(_, _ string, w *sql.DB) {
			exec(t, w, "UPDATE session_transcript_cold_archives SET event_count = 17 WHERE session_id = '0197d2a4-6b1e-7c3d-9e4f-5a6b7c8d9e01'")
		}, fileWhere, "does not match its row: it holds 16 events, the row says event_count 17")
	})
	t.Run("last seq disagrees", func(t *testing.T) {
		damaged(t, "file", func(_, _ string, w *sql.DB) {
			exec(t, w, "UPDATE session_transcript_cold_archives SET last_seq = 99 WHERE session_id = '0197d2a4-6b1e-7c3d-9e4f-5a6b7c8d9e01'")
		}, fileWhere, "its last event has seq 15, the row says last_seq 99")
	})
	t.Run("generation disagrees", func(t *testing.T) {
		damaged(t, "file", func(_, _ string, w *sql.DB) {
			exec(t, w, "UPDATE session_transcript_cold_archives SET generation = 'other' WHERE session_id = '0197d2a4-6b1e-7c3d-9e4f-5a6b7c8d9e01'")
		}, fileWhere, `the header names generation "50444f14394947f9ae9deffe4f4fac53", the row "other"`)
	})
	t.Run("invalid archive name", func(t *testing.T) {
		damaged(t, "file", func(_, _ string, w *sql.DB) {
			exec(t, w, "UPDATE session_transcript_cold_archives SET archive_name = 'x.jsonl' WHERE session_id = '0197d2a4-6b1e-7c3d-9e4f-5a6b7c8d9e01'")
		}, "$STATE/agents/main/sessions/cold/x.jsonl", `invalid archive name "x.jsonl"`)
	})
}

// Hot rows beside a cold row (9.6 never leaves any) are read too, merged by
// seq after the archived events, and counted, with the seqs both hold.
func TestColdAndHotRowsMerged(t *testing.T) {
	state := oracletest.ColdState96(t, oracletest.ColdFixtureDir(t), "file")
	const id = "0197d2b9-0c4a-7d11-8e22-33f4a5b6c7d8" // 5 archived events, seq 0-4
	w, err := sql.Open("sqlite", agentDB(state, "main"))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO transcript_events(session_id, seq, event_json, created_at) VALUES ('` + id + `', 2, '{"type":"custom","id":"clash"}', 7)`,
		`INSERT INTO transcript_events(session_id, seq, event_json, created_at) VALUES ('` + id + `', 9, '{"type":"custom","id":"after"}', 8)`,
		"PRAGMA wal_checkpoint(TRUNCATE)",
	} {
		if _, err := w.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	db, err := sqlitestore.Open(t.Context(), agentDB(state, "main"), sqlitestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var seqs []int64
	var hot []string
	st, err := db.Events(t.Context(), id, nil, func(ev sqlitestore.Event) error {
		seqs = append(seqs, ev.Seq)
		if strings.Contains(string(ev.JSON), `"custom"`) {
			hot = append(hot, string(ev.JSON))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []int64{0, 1, 2, 2, 3, 4, 9}; !equalSeqs(seqs, want) {
		t.Errorf("seqs %v, want %v (archived first on a clash)", seqs, want)
	}
	if len(hot) != 2 || st.Cold == nil || st.Cold.HotRows != 2 || st.Cold.SeqClashes != 1 || st.Cold.Events != 5 {
		t.Errorf("hot rows %v; cold source %+v", hot, st.Cold)
	}
}
