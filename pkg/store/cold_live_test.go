package store_test

import (
	"bytes"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/openclaw-tools/oc/internal/oracletest"
	"github.com/openclaw-tools/oc/pkg/store"
	"github.com/openclaw-tools/oc/pkg/store/sqlitestore"
)

func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func readJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// Live: 2026.9.6 makes the committed fixture again (same archives, same
// restored rows), oc reads the fresh archives as 9.6 restores them, and on
// damaged copies 9.6's restore and oc's read refuse alike.
func TestColdFixtureLive96(t *testing.T) {
	out := oracletest.MakeColdFixture96(t)
	committed := oracletest.ColdFixtureDir(t)

	// 1. The committed fixture is what 9.6 makes.
	got, want := readJSON(t, filepath.Join(out, "manifest.json")), readJSON(t, filepath.Join(committed, "manifest.json"))
	for _, k := range []string{"file", "sqlite", "after"} {
		if !reflect.DeepEqual(got[k], want[k]) {
			t.Errorf("manifest %s: 9.6 now makes %v, testdata has %v (run scripts/make-cold-fixture.mjs again)", k, got[k], want[k])
		}
	}
	a, _ := os.ReadFile(filepath.Join(out, "restored-rows.jsonl"))
	b, _ := os.ReadFile(filepath.Join(committed, "restored-rows.jsonl"))
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Errorf("restored-rows.jsonl: 9.6 now restores %d bytes, testdata has %d", len(a), len(b))
	}
	archives, _ := filepath.Glob(filepath.Join(out, "file", "agents", "main", "sessions", "cold", "*.jsonl.zst"))
	for _, p := range archives {
		x, _ := os.ReadFile(p)
		y, err := os.ReadFile(filepath.Join(committed, "file", "agents", "main", "sessions", "cold", filepath.Base(p)))
		if err != nil || !bytes.Equal(x, y) {
			t.Errorf("archive %s: 9.6 made other bytes than testdata's (%v)", filepath.Base(p), err)
		}
	}
	oracletest.Compared(t, "cold archives 9.6 made vs testdata", len(archives), 2)

	// 2. oc's export of each fresh cold session is 9.6's restored rows.
	rows := map[string][]string{}
	for _, line := range bytes.Split(bytes.TrimSpace(a), []byte("\n")) {
		var r struct {
			SessionID string `json:"sessionId"`
			Event     string `json:"event"`
		}
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatal(err)
		}
		rows[r.SessionID] = append(rows[r.SessionID], r.Event)
	}
	exported := 0
	for _, storage := range []string{"file", "sqlite"} {
		st, err := store.Open(filepath.Join(out, storage), store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for id, events := range rows {
			ses, err := st.Resolve(t.Context(), id)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			n, src, err := st.ExportWithSource(t.Context(), ses, nil, &buf)
			if err != nil || src == nil || src.Archive.Storage != storage {
				t.Fatalf("%s: export %s: %v (source %+v)", storage, id, err, src)
			}
			// Export puts the header first; 9.6's rows are in seq order and
			// start with the header here.
			if n != len(events) || buf.String() != strings.Join(events, "\n")+"\n" {
				t.Errorf("%s: export of %s differs from 9.6's restored rows", storage, id)
			}
			exported++
		}
	}
	oracletest.Compared(t, "fresh cold sessions exported vs 9.6 restore", exported, 2*len(rows))

	// 3. Damaged archives: 9.6 refuses to restore, oc refuses to read.
	type damage struct {
		name, storage  string
		apply          func(state, archive string)
		want96, wantOC string
	}
	const victimID = "0197d2a4-6b1e-7c3d-9e4f-5a6b7c8d9e01"
	sqlExec := func(state, q string, args ...any) {
		w, err := sql.Open("sqlite", filepath.Join(state, "agents", "main", "agent", "openclaw-agent.sqlite"))
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		if _, err := w.Exec(q, args...); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Exec("PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
			t.Fatal(err)
		}
	}
	damages := []damage{
		{"intact", "file", func(string, string) {}, "", ""},
		{"missing file", "file", func(_, archive string) { os.Remove(archive) }, "is missing or unreadable", "is missing or unreadable"},
		{"bad checksum", "file", func(_, archive string) {
			data, _ := os.ReadFile(archive)
			data[len(data)/2] ^= 1
			os.WriteFile(archive, data, 0o644)
		}, "failed verification", "failed verification: sha256"},
		{"truncated file", "file", func(_, archive string) {
			data, _ := os.ReadFile(archive)
			os.WriteFile(archive, data[:len(data)-7], 0o644)
		}, "failed verification", "failed verification:"},
		{"event count", "file", func(state, _ string) {
			sqlExec(state, "UPDATE session_transcript_cold_archives SET event_count = event_count + 1 WHERE session_id = ?", victimID)
		}, "metadata does not match its contents", "does not match its row"},
		{"truncated zstd, checksum matching", "sqlite", func(state, _ string) {
			db, err := sql.Open("sqlite", filepath.Join(state, "agents", "main", "agent", "openclaw-agent.sqlite"))
			if err != nil {
				t.Fatal(err)
			}
			var blob []byte
			err = db.QueryRow("SELECT archive_blob FROM session_transcript_cold_archives WHERE session_id = ?", victimID).Scan(&blob)
			db.Close()
			if err != nil {
				t.Fatal(err)
			}
			blob = blob[:len(blob)/2]
			sum := sha256.Sum256(blob)
			sqlExec(state, "UPDATE session_transcript_cold_archives SET archive_blob = ?, archive_bytes = ?, archive_sha256 = ? WHERE session_id = ?", blob, len(blob), hex.EncodeToString(sum[:]), victimID)
		}, "unexpected end of file", "does not decompress"},
	}
	var states []string
	for _, d := range damages {
		state := filepath.Join(t.TempDir(), "state")
		copyTree(t, filepath.Join(out, d.storage), state)
		for _, sc := range []string{"-wal", "-shm"} {
			os.Remove(filepath.Join(state, "agents", "main", "agent", "openclaw-agent.sqlite") + sc)
		}
		d.apply(state, filepath.Join(state, "agents", "main", "sessions", "cold", "6975962ad26e450719fbd19e35dff35ef4c749514ebfb648fd13594b9d79853d.jsonl.zst"))
		states = append(states, state)
		// oc first (9.6 then writes the copy).
		st, err := store.Open(state, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		ses, err := st.Resolve(t.Context(), "agent:main:main")
		if err != nil {
			t.Fatal(err)
		}
		_, err = st.Export(t.Context(), ses, &bytes.Buffer{}, &bytes.Buffer{})
		var ce *sqlitestore.ColdArchiveError
		switch {
		case d.wantOC == "" && err != nil:
			t.Errorf("%s: oc refuses: %v", d.name, err)
		case d.wantOC != "" && (!errors.As(err, &ce) || !strings.Contains(err.Error(), d.wantOC)):
			t.Errorf("%s: oc: %v, want a cold archive error with %q", d.name, err, d.wantOC)
		}
	}
	answers := oracletest.ColdRestore96(t, states...)
	compared := 0
	for i, d := range damages {
		ans := answers[i]
		if d.wantOC == "" {
			if !ans.OK || len(ans.Restored) != 2 {
				t.Errorf("%s: 9.6's restore: %+v", d.name, ans)
			}
		} else if ans.OK || !strings.Contains(ans.Error, d.want96) {
			t.Errorf("%s: 9.6's restore: %+v, want a refusal with %q", d.name, ans, d.want96)
		}
		t.Logf("%s: 9.6: ok %v %s", d.name, ans.OK, ans.Error)
		compared++
	}
	oracletest.Compared(t, "damaged cold archives: 9.6 restore vs oc read", compared, len(damages))
}
