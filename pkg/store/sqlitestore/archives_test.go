package sqlitestore_test

import (
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-tools/oc/internal/oracletest"
	"github.com/openclaw-tools/oc/pkg/store/sqlitestore"
)

// manifestRows are the session_transcript_archives rows of the fixture's
// state/ and published/ as 9.6's script listed them.
type manifestRow struct {
	SessionID        string  `json:"session_id"`
	Generation       string  `json:"generation"`
	SessionKey       string  `json:"session_key"`
	Reason           string  `json:"reason"`
	Encoding         string  `json:"encoding"`
	BlobBytes        int64   `json:"blob_bytes"`
	SHA256           string  `json:"archive_sha256"`
	Name             string  `json:"archive_name"`
	CreatedAt        int64   `json:"created_at"`
	PublishedAt      *int64  `json:"published_at"`
	PublishAttempts  int64   `json:"publish_attempts"`
	LastAttemptAt    *int64  `json:"last_publish_attempt_at"`
	LastPublishError *string `json:"last_publish_error"`
}

func readArchiveManifest(t *testing.T, dir string) (state, published map[string][]manifestRow) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		State     map[string][]manifestRow `json:"state"`
		Published map[string][]manifestRow `json:"published"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m.State, m.Published
}

func openDB(t *testing.T, path string) *sqlitestore.DB {
	t.Helper()
	db, err := sqlitestore.Open(t.Context(), path, sqlitestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func readAllDecoded(t *testing.T, b *sqlitestore.ArchiveBlob) []byte {
	t.Helper()
	r, err := b.Decoded(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	data, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("%s: %v", b.Where, err)
	}
	return data
}

// oc lists the rows 2026.9.6 wrote (every column as 9.6 listed it), the
// blobs verify, each decodes to the text 9.6's decodeSessionArchiveBytes
// gives, and the names oc derives for the rows are those 9.6 gave them.
// Reading writes nothing.
func TestArchivesEqualDecode96(t *testing.T) {
	dir := oracletest.ArchiveFixtureDir(t)
	wantRows, _ := readArchiveManifest(t, dir)
	decoded := map[string]string{}
	for _, d := range oracletest.ArchivesDecoded96(t, dir) {
		decoded[d.Agent+"/"+d.SessionID+"@"+d.Generation] = d.Content
	}
	state := oracletest.ColdState96(t, dir, "state")
	before := hashTree(t, state)
	compared, encodings := 0, map[string]int{}
	for _, agent := range []string{"main", "ops"} {
		db := openDB(t, agentDB(state, agent))
		got, err := db.TranscriptArchives(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		want := wantRows[agent]
		if len(got) != len(want) {
			t.Fatalf("agent %s: oc lists %d archived generations, 9.6 wrote %d", agent, len(got), len(want))
		}
		for i, a := range got {
			w := want[i]
			if a.SessionID != w.SessionID || a.Generation != w.Generation || a.SessionKey != w.SessionKey || a.Reason != w.Reason ||
				a.Encoding != w.Encoding || a.BlobBytes != w.BlobBytes || a.SHA256 != w.SHA256 || a.Name != w.Name || a.CreatedAt != w.CreatedAt ||
				!sameInt(a.PublishedAt, w.PublishedAt) || a.PublishAttempts != w.PublishAttempts || !sameInt(a.LastPublishAttemptAt, w.LastAttemptAt) ||
				!sameStr(a.LastPublishError, w.LastPublishError) {
				t.Errorf("agent %s row %d: oc %+v, 9.6 %+v", agent, i, a, w)
			}
			if a.KeySessionID != "" {
				t.Errorf("%s: the deleted session's key still names session %s", a.Spec(), a.KeySessionID)
			}
			if name, ok := sqlitestore.DerivedName(a); !ok || name != w.Name {
				t.Errorf("%s: oc derives the name %q, 9.6 named it %q", a.Spec(), name, w.Name)
			}
			b, err := db.ReadArchive(t.Context(), a.SessionID, a.Generation)
			if err != nil {
				t.Fatalf("%s: %v", a.Spec(), err)
			}
			content, ok := decoded[agent+"/"+a.Spec()]
			if !ok {
				t.Fatalf("%s: not in decoded.jsonl", a.Spec())
			}
			if got := readAllDecoded(t, b); !b.Verified || string(got) != content {
				t.Errorf("%s: verified %v; oc decodes %d bytes, 9.6 %d", a.Spec(), b.Verified, len(got), len(content))
			}
			if n, err := b.DecodedSize(t.Context(), 1<<30); err != nil || n != int64(len(content)) {
				t.Errorf("%s: DecodedSize %d, %v; want %d", a.Spec(), n, err, len(content))
			}
			encodings[a.Encoding]++
			compared++
		}
	}
	oracletest.Compared(t, "archived generations vs 2026.9.6's rows and decoding", compared, 3)
	if encodings["zstd"] != 2 || encodings["identity"] != 1 {
		t.Errorf("fixture encodings %v, want 2 zstd and 1 identity", encodings)
	}
	sameTree(t, before, hashTree(t, state))
}

func sameInt(a, b *int64) bool  { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
func sameStr(a, b *string) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

// The derived files: in state/, agent main's published file is the row's
// bytes, agent ops' collided one holds other bytes, its never-attempted one
// is missing. In published/ (after 9.6's publication pass) every file is
// where oc said 9.6 would write it, with the row's bytes.
func TestArchiveDerivedFiles(t *testing.T) {
	dir := oracletest.ArchiveFixtureDir(t)
	state := oracletest.ColdState96(t, dir, "state")
	published := oracletest.ColdState96(t, dir, "published")
	before := hashTree(t, state)
	want := map[string]string{
		"agent:main:slack:channel:c0aelhcgw4f":                     "same",
		"agent:ops:main":                                           "differs",
		"agent:ops:recovered:0197d5ff-0000-7111-8222-333344445555": "missing",
	}
	checked := 0
	for _, agent := range []string{"main", "ops"} {
		db := openDB(t, agentDB(state, agent))
		pub := openDB(t, agentDB(published, agent))
		archives, err := db.TranscriptArchives(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range archives {
			f := db.CheckDerivedFile(a)
			if f.State != want[a.SessionKey] {
				t.Errorf("%s: derived file %s is %q (%s), want %q", a.SessionKey, f.Path, f.State, f.Detail, want[a.SessionKey])
			}
			if f.State == "differs" && f.Detail != "28 bytes, the row's blob 536" {
				t.Errorf("%s: differs by %q", a.SessionKey, f.Detail)
			}
			// published/: 9.6 wrote the file where oc looked for it.
			rel, err := filepath.Rel(state, f.Path)
			if err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(filepath.Join(published, rel))
			if err != nil {
				t.Errorf("%s: 9.6 did not publish %s: %v", a.SessionKey, rel, err)
				continue
			}
			sum := sha256.Sum256(data)
			if hex.EncodeToString(sum[:]) != a.SHA256 || int64(len(data)) != a.BlobBytes {
				t.Errorf("%s: 9.6's published %s is not the row's blob", a.SessionKey, rel)
			}
			pa, err := pub.TranscriptArchives(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range pa {
				if p.Spec() == a.Spec() {
					if p.PublishedAt == nil || pub.CheckDerivedFile(p).State != "same" {
						t.Errorf("%s in published/: published_at %v, derived file %+v", a.SessionKey, p.PublishedAt, pub.CheckDerivedFile(p))
					}
				}
			}
			checked++
		}
	}
	oracletest.Compared(t, "derived archive files vs 2026.9.6's publication", checked, 3)
	sameTree(t, before, hashTree(t, state))
}

// editArchives copies the fixture's state/ and lets fn change agent ops'
// database (read-write, checkpointed afterwards); it returns the state dir
// and the database opened read-only.
func editArchives(t *testing.T, fn func(w *sql.DB)) (string, *sqlitestore.DB) {
	t.Helper()
	state := oracletest.ColdState96(t, oracletest.ArchiveFixtureDir(t), "state")
	path := agentDB(state, "ops")
	w, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	fn(w)
	if _, err := w.Exec("PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		t.Fatal(err)
	}
	w.Close()
	os.Remove(path + "-wal")
	os.Remove(path + "-shm")
	return state, openDB(t, path)
}

func mustExec(t *testing.T, w *sql.DB, q string, args ...any) {
	t.Helper()
	if _, err := w.Exec(q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

const opsMain = "0197d400-aaaa-7bbb-8ccc-ddddeeeeffff"      // zstd, pending, collided
const opsRecovered = "0197d5ff-0000-7111-8222-333344445555" // identity, pending

// blobOf reads a row's blob from a writable connection.
func blobOf(t *testing.T, w *sql.DB, id string) []byte {
	t.Helper()
	var b []byte
	if err := w.QueryRow("SELECT archive_blob FROM session_transcript_archives WHERE session_id = ?", id).Scan(&b); err != nil {
		t.Fatal(err)
	}
	return b
}

// setBlob stores data as a row's blob with a matching sha256, so that what
// is wrong is found past the hash.
func setBlob(t *testing.T, w *sql.DB, id string, data []byte) {
	t.Helper()
	sum := sha256.Sum256(data)
	mustExec(t, w, "UPDATE session_transcript_archives SET archive_blob = ?, archive_sha256 = ? WHERE session_id = ?", data, hex.EncodeToString(sum[:]), id)
}

// A damaged row: ReadArchive (or the decoding) fails with one line naming
// the database and the row, and the reason; the database is unchanged.
func TestArchiveDamaged(t *testing.T) {
	cases := []struct {
		name   string
		id     string
		damage func(t *testing.T, w *sql.DB)
		want   []string
		decode bool // the failure shows only as the text is decoded
	}{
		{"sha256 mismatch", opsMain, func(t *testing.T, w *sql.DB) {
			b := blobOf(t, w, opsMain)
			b[len(b)/2] ^= 0x01
			mustExec(t, w, "UPDATE session_transcript_archives SET archive_blob = ? WHERE session_id = ?", b, opsMain)
		}, []string{"failed verification: sha256 ", "the row says bf21fd9b46fe4f814d04accc5d13bec48f1805ab2be2503a106a1e277ba4f312", "Canonical SQLite transcript archive is corrupt"}, false},
		{"truncated zstd", opsMain, func(t *testing.T, w *sql.DB) {
			b := blobOf(t, w, opsMain)
			setBlob(t, w, opsMain, b[:len(b)-40])
		}, []string{"does not decompress after ", "(zstd: "}, true},
		{"zstd row holding plain text", opsMain, func(t *testing.T, w *sql.DB) {
			setBlob(t, w, opsMain, []byte(`{"type":"session"}`+"\n"))
		}, []string{"encoding 'zstd', but the blob is not a zstd frame (it starts 7b 22 74 79 70 65 22 3a)"}, false},
		{"identity row holding zstd", opsMain, func(t *testing.T, w *sql.DB) {
			mustExec(t, w, "UPDATE session_transcript_archives SET encoding = 'identity' WHERE session_id = ?", opsMain)
		}, []string{"encoding 'identity', but the blob is a zstd frame"}, false},
		{"unknown encoding", opsRecovered, func(t *testing.T, w *sql.DB) {
			mustExec(t, w, "PRAGMA ignore_check_constraints = ON")
			mustExec(t, w, "UPDATE session_transcript_archives SET encoding = 'gzip' WHERE session_id = ?", opsRecovered)
		}, []string{`unknown encoding "gzip"`}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			state, db := editArchives(t, func(w *sql.DB) { c.damage(t, w) })
			before := hashTree(t, state)
			archives, err := db.TranscriptArchives(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			var gen string
			for _, a := range archives {
				if a.SessionID == c.id {
					gen = a.Generation
				}
			}
			b, err := db.ReadArchive(t.Context(), c.id, gen)
			if c.decode {
				if err != nil {
					t.Fatalf("ReadArchive: %v (the damage is past the hash)", err)
				}
				_, err = b.DecodedSize(t.Context(), 1<<30)
			}
			var ae *sqlitestore.ArchiveError
			if !errors.As(err, &ae) {
				t.Fatalf("error %v (%T), want an *ArchiveError", err, err)
			}
			msg := err.Error()
			where := agentDB(state, "ops") + "#session_transcript_archives[" + c.id + "@" + gen + "].archive_blob: "
			if !strings.HasPrefix(msg, where) || strings.ContainsAny(msg, "\n\r") {
				t.Errorf("error %q is not one line starting %q", msg, where)
			}
			for _, w := range c.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q lacks %q", msg, w)
				}
			}
			if b == nil || b.Verified == !c.decode || b.SessionID != c.id {
				t.Errorf("the damaged row is not returned for the report: %+v", b)
			}
			sameTree(t, before, hashTree(t, state))
			t.Log(msg)
		})
	}
}

// A row that is not there (any more) is ErrArchiveNotFound.
func TestArchiveNotFound(t *testing.T) {
	state := oracletest.ColdState96(t, oracletest.ArchiveFixtureDir(t), "state")
	db := openDB(t, agentDB(state, "ops"))
	if _, err := db.ReadArchive(t.Context(), opsMain, "0000"); !errors.Is(err, sqlitestore.ErrArchiveNotFound) {
		t.Errorf("missing row: %v", err)
	}
}

// The derived-file check never reads what is not a regular file, follows a
// symlink to the right file as 9.6 does, and refuses names 9.6 refuses.
func TestArchiveDerivedFileHostile(t *testing.T) {
	state, db := editArchives(t, func(w *sql.DB) {
		mustExec(t, w, "UPDATE session_transcript_archives SET archive_name = '..', published_at = 1 WHERE session_id = ?", opsRecovered)
	})
	archives, err := db.TranscriptArchives(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	sessions := filepath.Join(state, "agents", "ops", "sessions")
	for _, a := range archives {
		f := db.CheckDerivedFile(a)
		switch a.SessionID {
		case opsRecovered:
			if f.State != "invalid-name" {
				t.Errorf("archive_name '..': %+v", f)
			}
		case opsMain:
			// the collided file replaced by a symlink to a copy of the blob
			good := filepath.Join(t.TempDir(), "blob")
			b, err := db.ReadArchive(t.Context(), a.SessionID, a.Generation)
			if err != nil {
				t.Fatal(err)
			}
			raw := rawBlob(t, b)
			if err := os.WriteFile(good, raw, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Remove(f.Path); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(good, f.Path); err != nil {
				t.Fatal(err)
			}
			if g := db.CheckDerivedFile(a); g.State != "same" {
				t.Errorf("symlink to the blob's bytes: %+v", g)
			}
			if err := os.Remove(f.Path); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(f.Path, 0o700); err != nil {
				t.Fatal(err)
			}
			if g := db.CheckDerivedFile(a); g.State != "not-regular" || !strings.Contains(g.Detail, "directory") {
				t.Errorf("a folder at the name: %+v", g)
			}
		}
	}
	if _, err := os.Stat(sessions); err != nil {
		t.Fatal(err)
	}
}

// rawBlob is the blob as stored (the identity decoding of a copy).
func rawBlob(t *testing.T, b *sqlitestore.ArchiveBlob) []byte {
	t.Helper()
	c := *b
	c.Encoding = "identity"
	return readAllDecoded(t, &c)
}

// DerivedName follows resolveRegisteredSqliteTranscriptArchiveName: the
// ISO stamp of created_at (Date.prototype.toISOString, extended years
// outside 0000-9999), ':' as '-', the generation, ".zst" for zstd, and an
// id over 96 bytes replaced by "session-<sha256>".
func TestDerivedName(t *testing.T) {
	long := strings.Repeat("x", 97)
	sum := sha256.Sum256([]byte(long))
	for _, c := range []struct {
		a    sqlitestore.TranscriptArchive
		want string
	}{
		{sqlitestore.TranscriptArchive{SessionID: "s", Generation: "g", Reason: "reset", Encoding: "identity", CreatedAt: 0}, "s.jsonl.reset.1970-01-01T00-00-00.000Z.g"},
		{sqlitestore.TranscriptArchive{SessionID: "s", Generation: "g", Reason: "deleted", Encoding: "zstd", CreatedAt: 253402300799999}, "s.jsonl.deleted.9999-12-31T23-59-59.999Z.g.zst"},
		{sqlitestore.TranscriptArchive{SessionID: "s", Generation: "g", Reason: "deleted", Encoding: "zstd", CreatedAt: 253402300800000}, "s.jsonl.deleted.+010000-01-01T00-00-00.000Z.g.zst"},
		{sqlitestore.TranscriptArchive{SessionID: "s", Generation: "g", Reason: "deleted", Encoding: "zstd", CreatedAt: -62198755200000}, "s.jsonl.deleted.-000001-01-01T00-00-00.000Z.g.zst"},
		{sqlitestore.TranscriptArchive{SessionID: "s", Generation: "g", Reason: "deleted", Encoding: "zstd", CreatedAt: -62135596800001}, "s.jsonl.deleted.0000-12-31T23-59-59.999Z.g.zst"},
		{sqlitestore.TranscriptArchive{SessionID: strings.Repeat("x", 96), Reason: "deleted", Encoding: "identity", CreatedAt: 1}, strings.Repeat("x", 96) + ".jsonl.deleted.1970-01-01T00-00-00.001Z"},
		{sqlitestore.TranscriptArchive{SessionID: long, Generation: "g", Reason: "deleted", Encoding: "identity", CreatedAt: 1}, "session-" + hex.EncodeToString(sum[:]) + ".jsonl.deleted.1970-01-01T00-00-00.001Z.g"},
	} {
		if got, ok := sqlitestore.DerivedName(c.a); !ok || got != c.want {
			t.Errorf("DerivedName(%d, %q): %q, %v; want %q", c.a.CreatedAt, c.a.SessionID, got, ok, c.want)
		}
	}
	if _, ok := sqlitestore.DerivedName(sqlitestore.TranscriptArchive{CreatedAt: 8640000000000001}); ok {
		t.Error("a created_at outside the Date range has a derived name")
	}
}
