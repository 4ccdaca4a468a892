package sqlitestore_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/openclaw-tools/oc/pkg/store/sqlitestore"
)

// The command's context reaches the queries: cancelled while PRAGMA
// quick_check runs, the check stops with the context's error instead of an
// answer; cancelled while a session's rows are read, the read stops at the
// next row.
func TestReadsStopWithTheirContext(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.sqlite")
	w, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Exec(`CREATE TABLE transcript_events(session_id TEXT NOT NULL, seq INTEGER NOT NULL, event_json TEXT, created_at INTEGER NOT NULL, PRIMARY KEY(session_id, seq));
		WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 30000)
		INSERT INTO transcript_events SELECT 's', i, '{"pad":"' || hex(randomblob(500)) || '"}', i FROM n`); err != nil {
		t.Fatal(err)
	}
	w.Close()
	db, err := sqlitestore.Open(t.Context(), path, sqlitestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()

	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(5*time.Millisecond, cancel)
	answer, err := db.QuickCheck(ctx)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("quick_check cancelled after 5 ms: answer %q, error %v; want context.Canceled", answer, err)
	}

	ctx, cancel = context.WithCancel(t.Context())
	defer cancel()
	read := 0
	_, err = db.RawEvents(ctx, "s", nil, func(sqlitestore.Event) error {
		if read++; read == 100 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) || read >= 30000 {
		t.Errorf("read cancelled at row 100: %d rows read, error %v; want context.Canceled", read, err)
	}
	// the database still reads with a live context
	if got, err := db.QuickCheck(t.Context()); err != nil || got != "ok" {
		t.Errorf("after the cancelled reads: quick_check %q, %v", got, err)
	}
}
