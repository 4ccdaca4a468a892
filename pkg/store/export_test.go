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
	if _, err := st.Export(t.Context(), ses, nil, &buf); err != nil {
		t.Fatalf("export %s: %v", ses.Label(), err)
	}
	rows := bytes.Split(buf.Bytes(), []byte("\n"))
	return rows[:len(rows)-1]
}

// sourceFile is the JSONL file 9.6 imported for a session: the sessions.json
// entry's file, or <id>.jsonl for a recovered (unreferenced) transcript.
func sourceFile(t *testing.T, sessionsDir, key, id string) string {
	entries, err := transcript.ReadIndex(filepath.Join(sessionsDir, "sessions.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Key == key {
			p, _ := transcript.ResolveSessionFile(sessionsDir, e)
			return p
		}
	}
	if strings.Contains(key, ":recovered:") {
		return filepath.Join(sessionsDir, id+".jsonl")
	}
	return ""
}

// checkExport reports whether the export agrees with the imported source.
func checkExport(t *testing.T, name string, src []byte, rows [][]byte, rewrites map[string]int) bool {
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
	return err == nil
}

// Export gives back the lines 2026.9.6 imported, byte for byte, except the
// import's known rewrites, on every session of the oracle's fixtures and of
// the real corpus it imported.
func TestExportEqualsImportedSource(t *testing.T) {
	rewrites := map[string]int{}
	compared, identical, want := 0, 0, 0
	for _, fx := range oracletest.Fixtures96() {
		state := oracletest.Fixture96State(t, fx)
		srcRoot := filepath.Join(oracletest.SharedDir(t), "oracle-2026.9.6", "fixtures", fx, "source")
		// want: the sessions of the databases 2026.9.6 wrote (read with SQL
		// of the test's own) whose source file is there to compare with.
		rows96 := oracletest.Sessions96(t, state)
		for _, r := range rows96 {
			if p := sourceFile(t, filepath.Join(srcRoot, "agents", r.Agent, "sessions"), r.Key, r.SessionID); p != "" {
				if _, err := os.Stat(p); err == nil {
					want++
				}
			}
		}
		st, err := store.Open(state, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		sessions, err := st.SQLiteSessions(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if len(sessions) != len(rows96) {
			t.Errorf("%s: %d sessions listed, the databases hold %d", fx, len(sessions), len(rows96))
		}
		for _, ses := range sessions {
			rows := exportRows(t, st, ses)
			path := sourceFile(t, filepath.Join(srcRoot, "agents", ses.Agent, "sessions"), ses.Key, ses.ID)
			src, err := os.ReadFile(path)
			if err != nil {
				if len(rows) != 0 {
					t.Errorf("%s %s: no source file, but %d rows", fx, ses.Key, len(rows))
				}
				continue
			}
			if checkExport(t, fx+" "+ses.Key, src, rows, rewrites) {
				compared++
			}
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
	want += len(keys) // every session of the corpus's sessions.json
	for key, file := range keys {
		ses, err := st.Resolve(t.Context(), key)
		if err != nil {
			t.Fatal(err)
		}
		src, err := os.ReadFile(filepath.Join(oracletest.CorpusDir(t), file))
		if err != nil {
			t.Fatal(err)
		}
		if checkExport(t, key, src, exportRows(t, st, ses), rewrites) {
			compared++
		}
	}
	oracletest.Compared(t, "exports equal the source files 2026.9.6 imported, but for its known rewrites (every session with a source file)", compared, want)
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
