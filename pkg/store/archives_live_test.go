package store_test

import (
	"bytes"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-tools/oc/internal/oracletest"
	"github.com/openclaw-tools/oc/pkg/store"
	"github.com/openclaw-tools/oc/pkg/store/sqlitestore"
)

// Live: 2026.9.6 deletes the sessions again (scripts/make-archive-fixture.mjs);
// oc exports each fresh row as 9.6 decodes it and finds the derived files
// where 9.6 published them; then on a copy whose pending blob is damaged,
// 9.6's publication refuses exactly the row oc says fails verification,
// and publishes the other where oc said it would.
func TestArchiveFixtureLive96(t *testing.T) {
	out := oracletest.MakeArchiveFixture96(t)
	state := filepath.Join(out, "state")
	st, err := store.Open(state, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	exported := 0
	for _, d := range oracletest.ArchivesDecoded96(t, out) {
		ses, err := st.Resolve(t.Context(), d.SessionID+"@"+d.Generation)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if _, err := st.Export(t.Context(), ses, nil, &buf); err != nil || buf.String() != d.Content {
			t.Errorf("export %s: %v; %d bytes, 9.6 decodes %d", ses.Label(), err, buf.Len(), len(d.Content))
		}
		exported++
	}
	oracletest.Compared(t, "fresh archived generations exported vs 2026.9.6's decoding", exported, 3)

	rep, err := st.InspectSQLite(t.Context(), store.InspectOptions{Archived: true})
	if err != nil {
		t.Fatal(err)
	}
	published := filepath.Join(out, "published")
	checked := 0
	for _, a := range rep.Archives {
		rel, _ := filepath.Rel(state, a.DerivedFile.Path)
		if _, err := os.Stat(filepath.Join(published, rel)); err != nil {
			t.Errorf("%s: 9.6 published no %s: %v", a.Row.Spec(), rel, err)
		}
		checked++
	}
	oracletest.Compared(t, "derived files predicted vs 2026.9.6's publication", checked, 3)

	// A copy: the collided file moved away, the identity row's blob damaged.
	damaged := filepath.Join(t.TempDir(), "damaged")
	copyTree(t, state, damaged)
	var victim, other sqlitestore.TranscriptArchive
	for _, a := range rep.Archives {
		switch {
		case a.Row.PublishedAt == nil && a.Row.Encoding == "identity":
			victim = a.Row
		case a.Row.PublishedAt == nil:
			other = a.Row
			if err := os.Remove(filepath.Join(damaged, "agents", "ops", "sessions", a.Row.Name)); err != nil {
				t.Fatal(err)
			}
		}
	}
	db := filepath.Join(damaged, "agents", "ops", "agent", "openclaw-agent.sqlite")
	w, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Exec("UPDATE session_transcript_archives SET archive_blob = CAST(substr(archive_blob, 1, 10) || 'X' || substr(archive_blob, 12) AS BLOB) WHERE session_id = ?", victim.SessionID); err != nil {
		t.Fatal(err)
	}
	w.Exec("PRAGMA wal_checkpoint(TRUNCATE)")
	w.Close()
	dst, err := store.Open(damaged, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	drep, err := dst.InspectSQLite(t.Context(), store.InspectOptions{Archived: true})
	if err != nil {
		t.Fatal(err)
	}
	ocRefuses := map[string]bool{}
	for _, a := range drep.Archives {
		ocRefuses[a.Row.Spec()] = archiveRules(a)["sqlite-archive-damaged"] > 0
	}
	answers := oracletest.PublishArchives96(t, damaged)[damaged]
	ops := answers["ops"]
	for _, r := range ops.Rows {
		spec := r.SessionID + "@" + r.Generation
		refused := r.PublishedAt == nil
		if refused != ocRefuses[spec] {
			t.Errorf("%s: 9.6 refused %v (%v), oc reports it damaged %v", spec, refused, r.LastPublishError, ocRefuses[spec])
		}
		if refused && (r.LastPublishError == nil || !strings.Contains(*r.LastPublishError, "Canonical SQLite transcript archive is corrupt")) {
			t.Errorf("%s: 9.6's error %v", spec, r.LastPublishError)
		}
		if spec == other.Spec() && !refused {
			if _, err := os.Stat(filepath.Join(damaged, "agents", "ops", "sessions", r.ArchiveName)); err != nil {
				t.Errorf("%s: 9.6 published it, but not at %s", spec, r.ArchiveName)
			}
		}
	}
	oracletest.Compared(t, "damaged blob refused by 2026.9.6's publication and oc", len(ops.Rows), 2)
}
