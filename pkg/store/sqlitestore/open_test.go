package sqlitestore_test

import (
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/openclaw-tools/oc/pkg/store/sqlitestore"
)

// A database named by a relative path with a directory (`oc inspect
// --state-dir state`) opens: the path must not be read as a URI authority.
func TestOpenRelativePath(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	w, err := sql.Open("sqlite", filepath.Join(dir, "sub", "x.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Exec("CREATE TABLE t(x); INSERT INTO t VALUES (42)"); err != nil {
		t.Fatal(err)
	}
	w.Close()
	t.Chdir(dir)
	db, err := sqlitestore.Open(t.Context(), filepath.Join("sub", "x.sqlite"), sqlitestore.Options{})
	if err != nil {
		t.Fatalf("open by relative path: %v", err)
	}
	defer db.Close()
	var x int
	if err := db.ReadTx(t.Context(), func(tx *sql.Tx) error { return tx.QueryRow("SELECT x FROM t").Scan(&x) }); err != nil || x != 42 {
		t.Fatalf("read: %d, %v", x, err)
	}
}
