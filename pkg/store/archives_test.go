package store_test

import (
	"bytes"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-tools/oc/internal/oracletest"
	"github.com/openclaw-tools/oc/pkg/store"
	"github.com/openclaw-tools/oc/pkg/store/sqlitestore"
)

func archivesBySpec(rep *store.SQLiteReport) map[string]*store.ArchiveReport {
	out := map[string]*store.ArchiveReport{}
	for _, a := range rep.Archives {
		out[a.Row.Spec()] = a
	}
	return out
}

func archiveRules(a *store.ArchiveReport) map[string]int {
	out := map[string]int{}
	for _, f := range a.Findings {
		if strings.HasPrefix(f.Rule, "sqlite-archive-") {
			out[f.Rule]++
		}
	}
	return out
}

// Every archived generation 2026.9.6 wrote resolves by its archive_name,
// by <sessionId>@<generation> and by a generation prefix, and exports as
// the text 9.6 decodes from its row, byte for byte; the lines are the
// deleted session's rows, in the order `oc export` gave them while the
// session was live. Nothing is written.
func TestArchiveExportEqualsDecode96(t *testing.T) {
	dir := oracletest.ArchiveFixtureDir(t)
	state := oracletest.ColdState96(t, dir, "state")
	live := oracletest.Fixture96State(t, "example-state") // the sessions before 9.6 deleted them
	before := treeHashes(t, state)
	st, err := store.Open(state, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	liveSt, err := store.Open(live, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	all, err := st.ArchivedSessions(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]string{}
	for _, a := range all {
		names[a.ID+"@"+a.Archive.Generation] = a.Archive.Name
	}
	compared := 0
	for _, d := range oracletest.ArchivesDecoded96(t, dir) {
		spec := d.SessionID + "@" + d.Generation
		var got []store.Session
		for _, arg := range []string{spec, names[spec], d.SessionID + "@" + d.Generation[:6], d.SessionID[:13] + "@" + d.Generation[:4]} {
			ses, err := st.Resolve(t.Context(), arg)
			if err != nil {
				t.Fatalf("resolve %q: %v", arg, err)
			}
			got = append(got, ses)
		}
		for _, ses := range got {
			if ses.Archive == nil || ses.ID != d.SessionID || ses.Archive.Generation != d.Generation || ses.Agent != d.Agent || ses.Label() != spec {
				t.Errorf("%s resolved to %+v", spec, ses)
			}
		}
		var out bytes.Buffer
		n, cold, err := st.ExportWithSource(t.Context(), got[0], nil, &out)
		if err != nil {
			t.Fatalf("export %s: %v", spec, err)
		}
		if cold != nil || out.String() != d.Content || n != strings.Count(d.Content, "\n") {
			t.Errorf("export %s: %d lines, %d bytes; 9.6 decodes %d bytes", spec, n, out.Len(), len(d.Content))
		}
		liveSes, err := liveSt.Resolve(t.Context(), d.SessionID)
		if err != nil {
			t.Fatal(err)
		}
		var was bytes.Buffer
		if _, err := liveSt.Export(t.Context(), liveSes, nil, &was); err != nil {
			t.Fatal(err)
		}
		if was.String() != d.Content {
			t.Errorf("%s: the archived text is not the session's export before its deletion (%d bytes, then %d)", spec, len(d.Content), was.Len())
		}
		compared++
	}
	oracletest.Compared(t, "archived generations exported vs 2026.9.6's decoding", compared, 3)
	assertUnchanged(t, before, treeHashes(t, state))
}

// `oc inspect --archived` of the fixture: each generation is analysed as
// the session was while it lived (the same entries, active branch, and
// 2026.9.6's context size), with the findings of its row and file: the
// published one has none, the collided one is unpublished after 1 attempt
// (9.6's error quoted) and its file differs (size), the identity one was
// never attempted. Without Archived only the counts are there.
func TestInspectArchived(t *testing.T) {
	dir := oracletest.ArchiveFixtureDir(t)
	state := oracletest.ColdState96(t, dir, "state")
	before := treeHashes(t, state)
	contexts := oracletest.FixtureContexts96(t, "example-state")
	liveSt, err := store.Open(oracletest.Fixture96State(t, "example-state"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	liveRep, err := liveSt.InspectSQLite(t.Context(), store.InspectOptions{Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	was := map[string]*store.SessionReport{}
	for _, s := range liveRep.Sessions {
		was[s.SessionID] = s
	}
	st, err := store.Open(state, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	plain, err := st.InspectSQLite(t.Context(), store.InspectOptions{Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	if plain.Archives != nil {
		t.Errorf("archives inspected without Archived: %d", len(plain.Archives))
	}
	counts := map[string][2]int{}
	for _, d := range plain.Databases {
		counts[d.Agent] = [2]int{d.ArchivedGenerations, d.UnpublishedArchives}
	}
	if counts["main"] != [2]int{1, 0} || counts["ops"] != [2]int{2, 2} {
		t.Errorf("archived/unpublished counts %v, want main 1/0, ops 2/2", counts)
	}
	rep, err := st.InspectSQLite(t.Context(), store.InspectOptions{Jobs: 2, Archived: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Errors) != 0 || len(rep.Archives) != 3 {
		t.Fatalf("errors %v, %d archives", rep.Errors, len(rep.Archives))
	}
	want := map[string]map[string]int{
		"agent:main:slack:channel:c0aelhcgw4f":                     {},
		"agent:ops:main":                                           {"sqlite-archive-unpublished": 1, "sqlite-archive-file-differs": 1},
		"agent:ops:recovered:0197d5ff-0000-7111-8222-333344445555": {"sqlite-archive-unpublished": 1},
	}
	compared := 0
	for _, a := range rep.Archives {
		w := was[a.Row.SessionID]
		if w == nil {
			t.Fatalf("%s was not a session of the live fixture", a.Row.SessionID)
		}
		if !a.Verified || a.Kind != "archived" || a.Archive != "deleted" || a.Agent != w.Agent || a.Events != w.Events || a.Entries != w.Entries ||
			a.Active.Messages != w.Active.Messages || a.Active.Leaf != w.Active.Leaf || a.Size != w.Size || a.DecodedBytes != w.Size+int64(w.Events) {
			t.Errorf("%s: archived: verified %v kind %s/%s events %d entries %d messages %d leaf %s size %d; live: %d %d %d %s %d",
				a.Row.SessionKey, a.Verified, a.Kind, a.Archive, a.Events, a.Entries, a.Active.Messages, a.Active.Leaf, a.Size, w.Events, w.Entries, w.Active.Messages, w.Active.Leaf, w.Size)
		}
		if ctx, ok := contexts[a.Agent+"/"+a.Row.SessionKey]; !ok || a.Active.Messages != len(ctx.Messages) {
			t.Errorf("%s: activeBranch.messages %d, 2026.9.6's context of the live session %d (%v)", a.Row.SessionKey, a.Active.Messages, len(ctx.Messages), ok)
		}
		got := archiveRules(a)
		if len(got) != len(want[a.Row.SessionKey]) {
			t.Errorf("%s: archive findings %v, want %v", a.Row.SessionKey, got, want[a.Row.SessionKey])
		}
		for r, n := range want[a.Row.SessionKey] {
			if got[r] != n {
				t.Errorf("%s: archive findings %v, want %v", a.Row.SessionKey, got, want[a.Row.SessionKey])
			}
		}
		for _, f := range a.Findings {
			switch f.Rule {
			case "sqlite-archive-unpublished":
				if a.Row.SessionKey == "agent:ops:main" && !strings.Contains(f.Message, "1 attempt, the last 2026-12-01 ") ||
					a.Row.SessionKey == "agent:ops:main" && !strings.Contains(f.Message, "failed: SQLite transcript archive collision for "+a.Row.Name) {
					t.Errorf("%s: %s", a.Row.SessionKey, f.Message)
				}
				if a.Row.SessionKey != "agent:ops:main" && !strings.Contains(f.Message, "never attempted; OpenClaw 2026.9.6 writes "+filepath.Join(state, "agents", "ops", "sessions", a.Row.Name)) {
					t.Errorf("%s: %s", a.Row.SessionKey, f.Message)
				}
			case "sqlite-archive-file-differs":
				if f.Severity != "error" || !strings.Contains(f.Message, "differs from the row: 28 bytes, the row's blob 536; OpenClaw 2026.9.6's publication fails on it") {
					t.Errorf("%s: %s %s", a.Row.SessionKey, f.Severity, f.Message)
				}
			}
		}
		compared++
	}
	oracletest.Compared(t, "archived generations inspected vs the live sessions and 2026.9.6's context", compared, 3)
	for _, d := range rep.Databases {
		if d.Agent == "ops" && (d.ArchivedGenerations != 2 || d.UnpublishedArchives != 2) {
			t.Errorf("ops: %+v", d)
		}
	}
	errs := rep.Totals.Findings["error"] - plain.Totals.Findings["error"]
	if errs != 1 {
		t.Errorf("--archived adds %d error findings to the totals, want 1 (the collided file)", errs)
	}
	// One generation named: the same report.
	ses, err := st.Resolve(t.Context(), "0197d400-aaaa-7bbb-8ccc-ddddeeeeffff@aac9")
	if err != nil {
		t.Fatal(err)
	}
	one, err := st.InspectArchive(t.Context(), ses)
	if err != nil {
		t.Fatal(err)
	}
	if r := archiveRules(one); r["sqlite-archive-file-differs"] != 1 || one.Entries != was["0197d400-aaaa-7bbb-8ccc-ddddeeeeffff"].Entries {
		t.Errorf("InspectArchive: %v, %d entries", r, one.Entries)
	}
	assertUnchanged(t, before, treeHashes(t, state))
}

// editOps changes agent ops' database of a copy of the fixture's state/
// (read-write, then checkpointed) and opens the state dir.
func editOps(t *testing.T, fn func(w *sql.DB)) (string, *store.State) {
	t.Helper()
	state := oracletest.ColdState96(t, oracletest.ArchiveFixtureDir(t), "state")
	path := filepath.Join(state, "agents", "ops", "agent", "openclaw-agent.sqlite")
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
	st, err := store.Open(state, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return state, st
}

func execOrFail(t *testing.T, w *sql.DB, q string, args ...any) {
	t.Helper()
	if _, err := w.Exec(q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

const opsMainID = "0197d400-aaaa-7bbb-8ccc-ddddeeeeffff"

// A damaged blob: export hands out no line at all, even when the damage
// shows only as the text is decoded (a truncated zstd stream with a
// matching sha256: the whole blob is decoded once before the first line),
// and fails with the one-line *ArchiveError; inspect reports it as an error
// finding of that generation and reads the others. Nothing is written.
func TestArchiveDamagedExportAndInspect(t *testing.T) {
	for _, c := range []struct {
		name   string
		damage func(t *testing.T, w *sql.DB)
		want   string
	}{
		{"sha256 mismatch", func(t *testing.T, w *sql.DB) {
			execOrFail(t, w, "UPDATE session_transcript_archives SET archive_blob = CAST(substr(archive_blob, 1, 100) || x'00' || substr(archive_blob, 102) AS BLOB) WHERE session_id = ?", opsMainID)
		}, "failed verification: sha256 "},
		{"truncated zstd, sha256 matching", func(t *testing.T, w *sql.DB) {
			var b []byte
			if err := w.QueryRow("SELECT archive_blob FROM session_transcript_archives WHERE session_id = ?", opsMainID).Scan(&b); err != nil {
				t.Fatal(err)
			}
			b = b[:len(b)-30]
			sum := sha256.Sum256(b)
			execOrFail(t, w, "UPDATE session_transcript_archives SET archive_blob = ?, archive_sha256 = ? WHERE session_id = ?", b, hex.EncodeToString(sum[:]), opsMainID)
		}, "does not decompress after "},
	} {
		t.Run(c.name, func(t *testing.T) {
			state, st := editOps(t, func(w *sql.DB) { c.damage(t, w) })
			before := treeHashes(t, state)
			ses, err := st.Resolve(t.Context(), opsMainID+"@aac908ae82854b5ca414443d9199b152")
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			n, _, err := st.ExportWithSource(t.Context(), ses, nil, &out)
			var ae *sqlitestore.ArchiveError
			if !errors.As(err, &ae) || n != 0 || out.Len() != 0 {
				t.Fatalf("export of a damaged generation: %d lines, %d bytes, error %v", n, out.Len(), err)
			}
			where := filepath.Join(state, "agents", "ops", "agent", "openclaw-agent.sqlite") + "#session_transcript_archives[" + opsMainID + "@aac908ae82854b5ca414443d9199b152].archive_blob: "
			if msg := err.Error(); !strings.HasPrefix(msg, where) || !strings.Contains(msg, c.want) || strings.ContainsAny(msg, "\n\r") {
				t.Errorf("error %q: want one line starting %q with %q", msg, where, c.want)
			}
			rep, err := st.InspectSQLite(t.Context(), store.InspectOptions{Jobs: 2, Archived: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Errors) != 0 || len(rep.Archives) != 3 {
				t.Fatalf("errors %v, %d archives: a damaged blob is a finding", rep.Errors, len(rep.Archives))
			}
			a := archivesBySpec(rep)[ses.Label()]
			if a.Verified || a.Entries != 0 || archiveRules(a)["sqlite-archive-damaged"] != 1 {
				t.Errorf("damaged generation: verified %v, %d entries, findings %v", a.Verified, a.Entries, a.Findings)
			}
			for _, f := range a.Findings {
				if f.Rule == "sqlite-archive-damaged" && (f.Severity != "error" || !strings.HasPrefix(f.Message, where)) {
					t.Errorf("finding %s %q", f.Severity, f.Message)
				}
			}
			for _, other := range rep.Archives {
				if other != a && !other.Verified {
					t.Errorf("%s not verified beside the damaged one", other.Row.Spec())
				}
			}
			assertUnchanged(t, before, treeHashes(t, state))
		})
	}
}

// Rows whose key now names a live session, whose key and name hold control
// characters, and whose name 9.6 refuses: each is reported (the key's
// session, the name as it is, the refusal), never followed outside the
// sessions folder.
func TestArchiveOddRows(t *testing.T) {
	state, st := editOps(t, func(w *sql.DB) {
		execOrFail(t, w, "INSERT INTO session_nodes(session_key, current_session_id, entry_json, updated_at) SELECT 'agent:ops:main', 'live-one', '{}', 1 WHERE NOT EXISTS (SELECT 1 FROM session_nodes WHERE session_key = 'agent:ops:main')")
		execOrFail(t, w, "UPDATE session_transcript_archives SET session_key = ?, archive_name = ?, published_at = 5 WHERE session_id = ?",
			"agent:ops:\x1b[31mred\x07", "evil\x1b[2J.jsonl.deleted.x", "0197d5ff-0000-7111-8222-333344445555")
		execOrFail(t, w, "UPDATE session_transcript_archives SET archive_name = '..', published_at = 5 WHERE session_id = ?", opsMainID)
	})
	rep, err := st.InspectSQLite(t.Context(), store.InspectOptions{Jobs: 1, Archived: true})
	if err != nil {
		t.Fatal(err)
	}
	specs := archivesBySpec(rep)
	odd := specs["0197d5ff-0000-7111-8222-333344445555@0db23a8a9f4243509655934c7194b4f9"]
	if odd == nil || odd.Row.SessionKey != "agent:ops:\x1b[31mred\x07" || odd.DerivedFile.State != "missing" ||
		odd.DerivedFile.Path != filepath.Join(state, "agents", "ops", "sessions", "evil\x1b[2J.jsonl.deleted.x") || archiveRules(odd)["sqlite-archive-file-missing"] != 1 {
		t.Errorf("control characters: %+v", odd)
	}
	dots := specs[opsMainID+"@aac908ae82854b5ca414443d9199b152"]
	if dots == nil || dots.Row.KeySessionID != "live-one" || dots.DerivedFile.State != "invalid-name" || archiveRules(dots)["sqlite-archive-name"] != 1 {
		t.Errorf("archive_name '..': %+v", dots)
	}
	// the name with control characters resolves as it is
	ses, err := st.Resolve(t.Context(), "evil\x1b[2J.jsonl.deleted.x")
	if err != nil || ses.Archive == nil || ses.ID != "0197d5ff-0000-7111-8222-333344445555" {
		t.Errorf("resolve by an odd archive_name: %+v, %v", ses, err)
	}
}

// A SESSIONID@GENERATION prefix that two generations share is ambiguous
// (both named); one that none has is not found.
func TestArchiveResolveAmbiguous(t *testing.T) {
	_, st := editOps(t, func(w *sql.DB) {
		execOrFail(t, w, "UPDATE session_transcript_archives SET generation = 'aac9ffff' WHERE session_id = '0197d5ff-0000-7111-8222-333344445555'")
	})
	_, err := st.Resolve(t.Context(), "0197d@aac9")
	var amb *store.AmbiguousError
	if !errors.As(err, &amb) || len(amb.Candidates) != 2 || !strings.Contains(err.Error(), opsMainID+"@aac908ae82854b5ca414443d9199b152 (agent:ops:main)") {
		t.Errorf("ambiguous spec: %v", err)
	}
	if _, err := st.Resolve(t.Context(), "0197d@ffff"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a spec no generation has: %v", err)
	}
}

// An archive whose text ends without a newline exports with one added (the
// line counted), and one whose first line is not its session's header is a
// finding (9.6's archive reader refuses it).
func TestArchiveTextShapes(t *testing.T) {
	text := []byte(`{"type":"session","version":3,"id":"someone-else"}` + "\n" + `{"type":"message"}`)
	sum := sha256.Sum256(text)
	_, st := editOps(t, func(w *sql.DB) {
		execOrFail(t, w, "UPDATE session_transcript_archives SET archive_blob = ?, archive_sha256 = ? WHERE session_id = '0197d5ff-0000-7111-8222-333344445555'", text, hex.EncodeToString(sum[:]))
	})
	ses, err := st.Resolve(t.Context(), "0197d5ff-0000-7111-8222-333344445555@0db2")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	n, _, err := st.ExportWithSource(t.Context(), ses, nil, &out)
	if err != nil || n != 2 || out.String() != string(text)+"\n" {
		t.Errorf("export: %d lines %q, %v", n, out.String(), err)
	}
	var rows []string
	if _, err := st.Rows(t.Context(), ses, nil, func(_ int64, line []byte) error { rows = append(rows, string(line)); return nil }); err != nil || len(rows) != 2 || rows[1] != `{"type":"message"}` {
		t.Errorf("rows %q, %v", rows, err)
	}
	rep, err := st.InspectArchive(t.Context(), ses)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range rep.Findings {
		if f.Rule == "sqlite-archive-header" {
			found = strings.Contains(f.Message, `its header names session "someone-else", the row "0197d5ff-0000-7111-8222-333344445555"`)
		}
	}
	if !found || !rep.Verified || rep.Events != 2 || rep.Entries != 2 {
		t.Errorf("header finding %v, verified %v, events %d, entries %d: %v", found, rep.Verified, rep.Events, rep.Entries, rep.Findings)
	}
}
