package store_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-tools/oc/internal/oracletest"
	"github.com/openclaw-tools/oc/pkg/store"
)

// A session id from a database with a path separator does not name the
// temporary export's file: it stays in its private folder.
func TestExportToTempKeepsItsFolder(t *testing.T) {
	state := oracletest.ColdState96(t, oracletest.ArchiveFixtureDir(t), "state")
	st, err := store.Open(state, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ses := store.Session{Era: store.EraSQLite, Agent: "main", ID: "../../escaped", Path: filepath.Join(state, "agents", "main", "agent", "openclaw-agent.sqlite")}
	path, cleanup, err := st.ExportToTemp(t.Context(), ses)
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	if filepath.Base(path) != "session.jsonl" || !strings.HasPrefix(filepath.Base(filepath.Dir(path)), "oc-replay-") {
		t.Errorf("temporary export at %s", path)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(filepath.Dir(path)), "escaped.jsonl")); err == nil {
		t.Errorf("a file was written outside the private folder")
	}
}
