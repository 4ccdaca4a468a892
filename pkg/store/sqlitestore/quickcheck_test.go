package sqlitestore_test

import (
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-tools/oc/pkg/store/sqlitestore"
)

// quickCheckDB writes a ~16 MB database of 16,000 rows of 1 KiB.
func quickCheckDB(t *testing.T, path string) {
	t.Helper()
	w, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.Exec("CREATE TABLE t(id INTEGER PRIMARY KEY, b BLOB); WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 16000) INSERT INTO t SELECT i, randomblob(1024) FROM n"); err != nil {
		t.Fatal(err)
	}
}

// QuickCheck reads through a memory map. A file cut short while it runs (an
// operator's truncate: SQLite's own writers never shrink a file under a
// reader) must end in an answer or a one-line error naming the file, never
// in a crash of the process (SIGBUS on a mapped page past the end).
func TestQuickCheckSurvivesTruncation(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src.sqlite")
	quickCheckDB(t, src)
	whole, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sqlitestore.Open(t.Context(), src, sqlitestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := db.QuickCheck(t.Context()); err != nil || got != "ok" {
		t.Fatalf("sound database: quick_check %q, %v; want ok", got, err)
	}
	db.Close()

	outcomes := map[string]int{}
	for try := 0; try < 12; try++ {
		path := filepath.Join(dir, "cut.sqlite")
		if err := os.WriteFile(path, whole, 0o644); err != nil {
			t.Fatal(err)
		}
		db, err := sqlitestore.Open(t.Context(), path, sqlitestore.Options{})
		if err != nil {
			t.Fatal(err)
		}
		type result struct {
			answer string
			err    error
		}
		done := make(chan result, 1)
		go func() {
			a, err := db.QuickCheck(t.Context())
			done <- result{a, err}
		}()
		time.Sleep(time.Duration(try) * time.Millisecond)
		if err := os.Truncate(path, 8192); err != nil {
			t.Fatal(err)
		}
		r := <-done
		db.Close()
		switch {
		case r.err != nil:
			if !strings.Contains(r.err.Error(), path) || strings.Contains(r.err.Error(), "\n") || !errors.Is(r.err, sqlitestore.ErrUnusable) && !strings.Contains(r.err.Error(), "sqlite") {
				t.Fatalf("try %d: error %q: want one line naming %s", try, r.err, path)
			}
			outcomes["error"]++
		case r.answer == "ok":
			outcomes["ok (finished before the cut)"]++
		case r.answer != "":
			outcomes["damage reported"]++
		default:
			t.Fatalf("try %d: empty answer and no error", try)
		}
	}
	t.Logf("outcomes of 12 cuts: %v", outcomes)
	if outcomes["error"]+outcomes["damage reported"] == 0 {
		t.Fatal("no cut landed while quick_check ran: the test did not exercise the cut-short file")
	}
}

// A session read (ReadTx) through the memory map of a file cut short while
// it reads row after row ends in a one-line error naming the file, not in
// a crash, and the database can still be closed.
func TestReadTxSurvivesTruncation(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cut.sqlite")
	quickCheckDB(t, path)
	db, err := sqlitestore.Open(t.Context(), path, sqlitestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	read := 0
	err = db.ReadTx(t.Context(), func(tx *sql.Tx) error {
		rows, err := tx.Query("SELECT b FROM t ORDER BY id")
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var b []byte
			if err := rows.Scan(&b); err != nil {
				return err
			}
			if read++; read == 10 {
				if err := os.Truncate(path, 8192); err != nil {
					t.Fatal(err)
				}
			}
		}
		return rows.Err()
	})
	if err == nil {
		t.Fatalf("read %d rows of a file cut to 8 KiB after 10: no error", read)
	}
	if !strings.Contains(err.Error(), path) || strings.Contains(err.Error(), "\n") {
		t.Fatalf("error %q: want one line naming %s", err, path)
	}
	t.Logf("after %d rows: %v", read, err)
}
