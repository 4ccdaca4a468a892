package context96_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/internal/oracletest"
	"github.com/openclaw-tools/oc/pkg/store/context96"
	"github.com/openclaw-tools/oc/pkg/store/sqlitestore"
)

// sessionRows reads one session's rows from an agent database, seq order.
func sessionRows(t *testing.T, dbPath, key string) [][]byte {
	t.Helper()
	db, err := sqlitestore.Open(dbPath, sqlitestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	sessions, err := db.Sessions()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sessions {
		if s.Key != key {
			continue
		}
		var rows [][]byte
		if _, err := db.Events(s.SessionID, func(ev sqlitestore.Event) error {
			rows = append(rows, bytes.Clone(ev.JSON))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return rows
	}
	t.Fatalf("%s: no session %s", dbPath, key)
	return nil
}

// stringify is JSON.stringify(JSON.parse(raw)).
func stringify(t *testing.T, raw []byte) []byte {
	t.Helper()
	v, err := jsjson.Parse(raw)
	if err != nil {
		t.Fatalf("parse %s: %v", raw, err)
	}
	out, err := jsjson.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// compareContext checks Build's messages against the oracle's, byte for byte
// as JSON.stringify writes them; it returns the messages compared.
func compareContext(t *testing.T, name string, rows [][]byte, want oracletest.ContextAnswer96) int {
	t.Helper()
	s, err := context96.Build(rows)
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return 0
	}
	got := s.Context.Messages
	if len(got) != len(want.Messages) {
		t.Errorf("%s: %d context messages, oracle 2026.9.6 has %d", name, len(got), len(want.Messages))
		return 0
	}
	for i := range got {
		// The stored answers are JSON.stringify's output re-encoded by the
		// fixture writer (", " separators): both sides as JSON.stringify.
		if g, w := stringify(t, got[i]), stringify(t, want.Messages[i]); !bytes.Equal(g, w) {
			t.Errorf("%s: message %d differs\n oc:     %.400s\n oracle: %.400s", name, i, g, w)
			return 0
		}
	}
	return len(got)
}

func TestBuildMatchesOracleContext(t *testing.T) {
	sessions, messages := 0, 0
	for _, fx := range oracletest.Fixtures96() {
		state := oracletest.Fixture96State(t, fx)
		for id, ans := range oracletest.FixtureContexts96(t, fx) {
			db := filepath.Join(state, "agents", ans.Agent, "agent", "openclaw-agent.sqlite")
			messages += compareContext(t, fx+" "+id, sessionRows(t, db, ans.Key), ans)
			sessions++
		}
	}
	state, _ := oracletest.Corpus96State(t)
	db := filepath.Join(state, "agents", "main", "agent", "openclaw-agent.sqlite")
	for key, ans := range oracletest.CorpusContexts96(t) {
		messages += compareContext(t, "corpus "+key, sessionRows(t, db, key), ans)
		sessions++
	}
	// 31 fixture sessions and 13 corpus sessions.
	oracletest.Compared(t, "2026.9.6 context messages equal the oracle's byte for byte (fixture + corpus sessions)", sessions, 44)
	if messages < 200 {
		t.Fatalf("only %d messages compared", messages)
	}
	t.Logf("%d sessions, %d messages equal", sessions, messages)
}

// Crafted sessions for the shapes the fixtures lack (testdata/*.jsonl; the
// oracle's `context` answer on each, after its in-process import, is
// testdata/*.context.json): branch summaries, custom messages with and
// without details, compaction replay checkpoints stripped from retained
// assistant turns only, an excluded message kept by a reset, entries a reset
// does not keep.
func TestBuildMatchesOracleOnCraftedShapes(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	compared := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var want oracletest.ContextAnswer96
		answer, err := os.ReadFile(strings.TrimSuffix(f, ".jsonl") + ".context.json")
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(answer, &want); err != nil {
			t.Fatal(err)
		}
		rows := bytes.Split(bytes.TrimSpace(data), []byte("\n"))
		if compareContext(t, f, rows, want) > 0 {
			compared++
		}
	}
	oracletest.Compared(t, "2026.9.6 context messages of crafted sessions equal the oracle's", compared, 2)
}
