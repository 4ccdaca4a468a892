package store_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-tools/oc/internal/oracletest"
	"github.com/openclaw-tools/oc/pkg/store"
	"github.com/openclaw-tools/oc/pkg/transcript"
)

func exportRows(t *testing.T, st *store.State, ses store.Session) [][]byte {
	t.Helper()
	var buf bytes.Buffer
	if _, err := st.Export(ses, nil, &buf); err != nil {
		t.Fatalf("export %s: %v", ses.Label(), err)
	}
	rows := bytes.Split(buf.Bytes(), []byte("\n"))
	return rows[:len(rows)-1]
}

// sourceFile is the JSONL file 9.6 imported for a session: the sessions.json
// entry's file, or <id>.jsonl for a recovered (unreferenced) transcript.
func sourceFile(t *testing.T, sessionsDir string, ses store.Session) string {
	entries, err := transcript.ReadIndex(filepath.Join(sessionsDir, "sessions.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Key == ses.Key {
			p, _ := transcript.ResolveSessionFile(sessionsDir, e)
			return p
		}
	}
	if strings.Contains(ses.Key, ":recovered:") {
		return filepath.Join(sessionsDir, ses.ID+".jsonl")
	}
	return ""
}

func checkExport(t *testing.T, name string, src []byte, rows [][]byte, rewrites map[string]int) {
	t.Helper()
	verdicts, err := store.CompareImported(src, rows)
	if err != nil {
		t.Errorf("%s: %v", name, err)
	}
	for _, v := range verdicts {
		if v.Rewrite != "" && v.Rewrite != store.RewriteNone {
			rewrites[v.Rewrite]++
		}
		if v.Dropped != "" {
			rewrites["dropped: "+v.Dropped]++
		}
	}
}

// Export gives back the lines 2026.9.6 imported, byte for byte, except the
// import's known rewrites, on every session of the oracle's fixtures and of
// the real corpus it imported.
func TestExportEqualsImportedSource(t *testing.T) {
	rewrites := map[string]int{}
	compared, identical := 0, 0
	for _, fx := range oracletest.Fixtures96() {
		state := oracletest.Fixture96State(t, fx)
		srcRoot := filepath.Join(oracletest.SharedDir(t), "oracle-2026.9.6", "fixtures", fx, "source")
		st, err := store.Open(state, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		sessions, err := st.SQLiteSessions()
		if err != nil {
			t.Fatal(err)
		}
		for _, ses := range sessions {
			rows := exportRows(t, st, ses)
			path := sourceFile(t, filepath.Join(srcRoot, "agents", ses.Agent, "sessions"), ses)
			src, err := os.ReadFile(path)
			if err != nil {
				if len(rows) != 0 {
					t.Errorf("%s %s: no source file, but %d rows", fx, ses.Key, len(rows))
				}
				continue
			}
			checkExport(t, fx+" "+ses.Key, src, rows, rewrites)
			compared++
			if bytes.Equal(src, append(bytes.Join(rows, []byte("\n")), '\n')) {
				identical++
			}
		}
	}
	state, keys := oracletest.Corpus96State(t)
	st, err := store.Open(state, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for key, file := range keys {
		ses, err := st.Resolve(key)
		if err != nil {
			t.Fatal(err)
		}
		src, err := os.ReadFile(filepath.Join(oracletest.CorpusDir(t), file))
		if err != nil {
			t.Fatal(err)
		}
		checkExport(t, key, src, exportRows(t, st, ses), rewrites)
		compared++
	}
	if compared < 40 {
		t.Fatalf("only %d sessions compared", compared)
	}
	for _, want := range []string{store.RewriteCodexRoute, store.RewriteInboundMarker, store.RewriteHeaderID} {
		found := false
		for k := range rewrites {
			found = found || strings.Contains(k, want)
		}
		if !found {
			t.Errorf("expected the import's %s rewrite somewhere in the fixtures", want)
		}
	}
	t.Logf("%d sessions compared (%d identical files); rewrites and drops: %v", compared, identical, rewrites)
}
