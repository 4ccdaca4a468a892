package store_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/openclaw-tools/oc/internal/benchdb"
	"github.com/openclaw-tools/oc/internal/oracletest"
	"github.com/openclaw-tools/oc/pkg/store"
)

// benchState is a SQLite-era state dir for the inspect benchmark:
// $OC_BENCH_SQLITE_STATE when set (e.g. one kept by scripts/bench-sqlite.sh
// with KEEP=1), else 20 generated sessions x 500 events x ~1 KiB (~14 MB).
func benchState(b *testing.B) string {
	b.Helper()
	if dir := os.Getenv("OC_BENCH_SQLITE_STATE"); dir != "" {
		return dir
	}
	schema := filepath.Join(oracletest.SharedDir(b), "spec", "research", "sqlite-era", "agent-schema-2026.9.6.sql")
	ddl, err := os.ReadFile(schema)
	if err != nil {
		oracletest.Unavailable(b, fmt.Sprintf("no agent schema: %v", err))
	}
	dir := b.TempDir()
	db := filepath.Join(dir, "agents", "main", "agent", store.AgentDBName)
	if err := os.MkdirAll(filepath.Dir(db), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := benchdb.Generate(string(ddl), db, benchdb.Spec{Sessions: 20, Events: 500, Text: 1000}); err != nil {
		b.Fatal(err)
	}
	return dir
}

// BenchmarkInspectSQLite is the hot path of `oc inspect` on a SQLite state
// dir: every session read, analysed and checked against 9.6's rules.
func BenchmarkInspectSQLite(b *testing.B) {
	dir := benchState(b)
	st, err := store.Open(dir, store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	var bytes int64
	for _, a := range st.AgentDBs {
		if fi, err := os.Stat(a.Path); err == nil {
			bytes += fi.Size()
		}
	}
	b.SetBytes(bytes)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rep, err := st.InspectSQLite(b.Context(), store.InspectOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if len(rep.Errors) > 0 || len(rep.Sessions) == 0 {
			b.Fatalf("errors %v, %d sessions", rep.Errors, len(rep.Sessions))
		}
	}
}
