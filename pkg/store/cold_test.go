package store_test

import (
	"bytes"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-tools/oc/internal/oracletest"
	"github.com/openclaw-tools/oc/pkg/store"
	"github.com/openclaw-tools/oc/pkg/store/sqlitestore"
)

func treeHashes(t *testing.T, dir string) map[string]string {
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

func assertUnchanged(t *testing.T, before, after map[string]string) {
	t.Helper()
	if len(before) != len(after) {
		t.Errorf("%d files before, %d after: a command created or removed a file", len(before), len(after))
	}
	for p, h := range before {
		if after[p] != h {
			t.Errorf("%s changed", p)
		}
	}
}

func sessionsByKey(t *testing.T, rep *store.SQLiteReport) map[string]*store.SessionReport {
	t.Helper()
	out := map[string]*store.SessionReport{}
	for _, s := range rep.Sessions {
		out[s.Agent+"/"+s.Key] = s
	}
	return out
}

// `oc inspect` of a state dir whose sessions 2026.9.6 moved to cold storage
// (storage 'file' and 'sqlite') reports each session as inspecting it after
// 9.6's restore does: the same entries, active branch and cache agreement,
// with an info finding naming the archive; the active branch's message count
// equals 9.6's context of the same session (the fixture's stored answers).
// `oc export` of a cold session gives the restored session's lines byte for
// byte. Nothing is written.
func TestColdInspectAndExportEqualRestore96(t *testing.T) {
	dir := oracletest.ColdFixtureDir(t)
	contexts := oracletest.FixtureContexts96(t, "example-state")
	restoredState := oracletest.ColdState96(t, dir, "restored")
	restoredSt, err := store.Open(restoredState, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	restoredRep, err := restoredSt.InspectSQLite(t.Context(), store.InspectOptions{Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := sessionsByKey(t, restoredRep)
	compared, exported := 0, 0
	for _, storage := range []string{"file", "sqlite"} {
		state := oracletest.ColdState96(t, dir, storage)
		before := treeHashes(t, state)
		st, err := store.Open(state, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		rep, err := st.InspectSQLite(t.Context(), store.InspectOptions{Jobs: 2, QuickCheck: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Errors) != 0 {
			t.Fatalf("%s: errors %v", storage, rep.Errors)
		}
		cold := 0
		for _, got := range rep.Sessions {
			if got.Agent != "main" || got.Cold == nil {
				continue
			}
			cold++
			w := want[got.Agent+"/"+got.Key]
			if w == nil {
				t.Fatalf("%s: %s not in the restored state", storage, got.Key)
			}
			if !got.Cold.Verified || got.Cold.Archive.Storage != storage || got.Events != got.Cold.Archive.EventCount {
				t.Errorf("%s: %s: cold %+v, events %d", storage, got.Key, got.Cold, got.Events)
			}
			if got.Events != w.Events || got.Entries != w.Entries || got.Active.Messages != w.Active.Messages || got.Active.Leaf != w.Active.Leaf || got.Size != w.Size {
				t.Errorf("%s: %s: cold read: events %d entries %d messages %d leaf %s size %d; after 9.6's restore: %d %d %d %s %d",
					storage, got.Key, got.Events, got.Entries, got.Active.Messages, got.Active.Leaf, got.Size, w.Events, w.Entries, w.Active.Messages, w.Active.Leaf, w.Size)
			}
			if got.Cache == nil || !got.Cache.Present || got.Cache.LeafAgrees != w.Cache.LeafAgrees || got.Cache.ActivePathAgrees != w.Cache.ActivePathAgrees {
				t.Errorf("%s: %s: cache check %+v, after restore %+v", storage, got.Key, got.Cache, w.Cache)
			}
			ctx, ok := contexts[got.Agent+"/"+got.Key]
			if !ok {
				t.Fatalf("no 2026.9.6 context answer for %s", got.Key)
			}
			if got.Active.Messages != len(ctx.Messages) {
				t.Errorf("%s: %s: activeBranch.messages %d, 2026.9.6's context %d", storage, got.Key, got.Active.Messages, len(ctx.Messages))
			}
			rules := map[string]int{}
			for _, f := range got.Findings {
				rules[f.Rule]++
			}
			if rules["sqlite-cold-transcript"] != 1 || rules["sqlite-cold-archive-damaged"] != 0 || rules["sqlite-index-missing"] != 0 {
				t.Errorf("%s: %s: findings %v", storage, got.Key, rules)
			}
			compared++

			// export: the restored session's lines, byte for byte.
			ses, err := st.Resolve(t.Context(), got.Key)
			if err != nil {
				t.Fatal(err)
			}
			rses, err := restoredSt.Resolve(t.Context(), got.Key)
			if err != nil {
				t.Fatal(err)
			}
			var a, b bytes.Buffer
			n, src, err := st.ExportWithSource(t.Context(), ses, nil, &a)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := restoredSt.Export(t.Context(), rses, nil, &b); err != nil {
				t.Fatal(err)
			}
			if n != got.Cold.Archive.EventCount || src == nil || !src.Verified || a.Len() == 0 || !bytes.Equal(a.Bytes(), b.Bytes()) {
				t.Errorf("%s: export of %s: %d lines (source %+v), %d bytes; after restore %d bytes; equal %v", storage, got.Key, n, src, a.Len(), b.Len(), bytes.Equal(a.Bytes(), b.Bytes()))
			}
			exported++
		}
		if cold != 2 {
			t.Errorf("%s: %d cold sessions inspected, want 2", storage, cold)
		}
		// The hot agent beside them (kept in file/ only) is read as before.
		if s := sessionsByKey(t, rep)["ops/agent:ops:main"]; storage == "file" && (s == nil || s.Cold != nil || s.Active.Messages != 4) {
			t.Errorf("%s: hot session agent:ops:main: %+v", storage, s)
		}
		assertUnchanged(t, before, treeHashes(t, state))
	}
	oracletest.Compared(t, "cold sessions inspected vs 2026.9.6 restore and context", compared, 4)
	oracletest.Compared(t, "cold sessions exported vs 2026.9.6 restore", exported, 4)
}

// A damaged cold archive is a one-line error finding of its session in
// `oc inspect` (not a failure of the run), and `oc export` of it fails with
// that line; the other sessions are inspected as usual.
func TestColdDamagedInspectAndExport(t *testing.T) {
	state := oracletest.ColdState96(t, oracletest.ColdFixtureDir(t), "file")
	archives, _ := filepath.Glob(filepath.Join(state, "agents", "main", "sessions", "cold", "*.jsonl.zst"))
	if len(archives) != 2 {
		t.Fatalf("%d archives", len(archives))
	}
	var victim string
	for _, a := range archives {
		if strings.HasPrefix(filepath.Base(a), "6975962a") { // agent:main:main's
			victim = a
		}
	}
	data, err := os.ReadFile(victim)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(victim, data[:len(data)-1], 0o644); err != nil {
		t.Fatal(err)
	}
	before := treeHashes(t, state)
	st, err := store.Open(state, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := st.InspectSQLite(t.Context(), store.InspectOptions{Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Errors) != 0 {
		t.Fatalf("errors %v: a damaged archive must be a finding, not a failed session", rep.Errors)
	}
	byKey := sessionsByKey(t, rep)
	main := byKey["main/agent:main:main"]
	if main == nil || main.Cold == nil || main.Cold.Verified || main.Events != 0 {
		t.Fatalf("agent:main:main: %+v", main)
	}
	found := 0
	for _, f := range main.Findings {
		if f.Rule == "sqlite-cold-archive-damaged" {
			found++
			if f.Severity != "error" || strings.Contains(f.Message, "\n") || !strings.Contains(f.Message, victim) || !strings.Contains(f.Message, "2000 bytes, the row says archive_bytes 2001") || !strings.Contains(f.Message, "16 archived events not read") {
				t.Errorf("finding %+v", f)
			}
		}
		if f.Rule == "no-transcript" {
			t.Errorf("a cold session is reported as having no transcript: %+v", f)
		}
	}
	if found != 1 {
		t.Errorf("%d sqlite-cold-archive-damaged findings, want 1: %+v", found, main.Findings)
	}
	if s := byKey["main/agent:main:slack:channel:c0aelhcgw4f"]; s == nil || s.Cold == nil || !s.Cold.Verified || s.Events != 5 {
		t.Errorf("the intact cold session beside it: %+v", s)
	}
	ses, err := st.Resolve(t.Context(), "agent:main:main")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	n, _, err := st.ExportWithSource(t.Context(), ses, nil, &out)
	var ce *sqlitestore.ColdArchiveError
	if !errors.As(err, &ce) || n != 0 || out.Len() != 0 || strings.Contains(err.Error(), "\n") {
		t.Errorf("export of a damaged cold session: %d lines, %d bytes, err %v", n, out.Len(), err)
	}
	assertUnchanged(t, before, treeHashes(t, state))
}

// A cold archive no session_nodes row names (an earlier generation archived
// whole) is still listed and read, as an orphan transcript; the named ones
// are not orphans.
func TestColdUnnamedSessionListed(t *testing.T) {
	state := oracletest.ColdState96(t, oracletest.ColdFixtureDir(t), "sqlite")
	path := filepath.Join(state, "agents", "main", "agent", "openclaw-agent.sqlite")
	w, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	// The test's own copy: the slack session's node goes, its window and
	// cold archive stay.
	if _, err := w.Exec("DELETE FROM session_nodes WHERE session_key = 'agent:main:slack:channel:c0aelhcgw4f'"); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Exec("PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		t.Fatal(err)
	}
	w.Close()
	st, err := store.Open(state, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := st.InspectSQLite(t.Context(), store.InspectOptions{Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	var orphan, named *store.SessionReport
	for _, s := range rep.Sessions {
		switch s.SessionID {
		case "0197d2b9-0c4a-7d11-8e22-33f4a5b6c7d8":
			orphan = s
		case "0197d2a4-6b1e-7c3d-9e4f-5a6b7c8d9e01":
			named = s
		}
	}
	if orphan == nil || orphan.Key != "" || orphan.Cold == nil || !orphan.Cold.Verified || orphan.Events != 5 || orphan.Active.Messages != 3 {
		t.Fatalf("unnamed cold session: %+v", orphan)
	}
	rules := map[string]int{}
	for _, f := range orphan.Findings {
		rules[f.Rule]++
	}
	if rules["sqlite-orphan-transcript"] != 1 || rules["sqlite-cold-transcript"] != 1 {
		t.Errorf("unnamed cold session findings %v", rules)
	}
	if named == nil || named.Key != "agent:main:main" || named.Events != 16 {
		t.Errorf("named cold session: %+v", named)
	}
	for _, f := range named.Findings {
		if f.Rule == "sqlite-orphan-transcript" {
			t.Errorf("a named cold session is reported as an orphan")
		}
	}
	if len(rep.Sessions) != 3 {
		t.Errorf("%d sessions, want 3 (two named, one unnamed cold)", len(rep.Sessions))
	}
}

// A transcript_events row beside a cold archive is an error finding that
// counts the rows and the seq clashes.
func TestColdAndHotFinding(t *testing.T) {
	state := oracletest.ColdState96(t, oracletest.ColdFixtureDir(t), "file")
	w, err := sql.Open("sqlite", filepath.Join(state, "agents", "main", "agent", "openclaw-agent.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Exec(`INSERT INTO transcript_events(session_id, seq, event_json, created_at) VALUES ('0197d2b9-0c4a-7d11-8e22-33f4a5b6c7d8', 4, '{"type":"custom","id":"clash"}', 7)`); err != nil {
		t.Fatal(err)
	}
	w.Exec("PRAGMA wal_checkpoint(TRUNCATE)")
	w.Close()
	st, err := store.Open(state, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ses, err := st.Resolve(t.Context(), "agent:main:slack:channel:c0aelhcgw4f")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := st.InspectSession(t.Context(), ses)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range rep.Findings {
		if f.Rule == "sqlite-cold-and-hot" {
			n++
			if f.Severity != "error" || !strings.HasPrefix(f.Message, "1 transcript_events rows exist beside the cold archive (1 with a seq") {
				t.Errorf("finding %+v", f)
			}
		}
	}
	if n != 1 || rep.Events != 6 {
		t.Errorf("%d sqlite-cold-and-hot findings, %d events; want 1 and 6", n, rep.Events)
	}
}
