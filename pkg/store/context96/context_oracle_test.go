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
	db, err := sqlitestore.Open(t.Context(), dbPath, sqlitestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	sessions, err := db.Sessions(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sessions {
		if s.Key != key {
			continue
		}
		var rows [][]byte
		if _, err := db.Events(t.Context(), s.SessionID, nil, func(ev sqlitestore.Event) error {
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
	sessions, messages, wantSessions, wantMessages := 0, 0, 0, 0
	// Every session of the databases 2026.9.6 wrote (read with SQL of the
	// test's own) is compared with its stored answer; a session without one
	// fails, and so does an answer without a session. The messages the
	// answers hold are the messages to compare.
	compare := func(name, state string, rows []oracletest.SessionRow96, answers map[string]oracletest.ContextAnswer96, id func(oracletest.SessionRow96) string) {
		wantSessions += len(rows)
		for _, s := range rows {
			ans, ok := answers[id(s)]
			if !ok {
				t.Errorf("%s %s: no stored 2026.9.6 context answer", name, id(s))
				continue
			}
			wantMessages += len(ans.Messages)
			db := filepath.Join(state, "agents", s.Agent, "agent", "openclaw-agent.sqlite")
			if n := compareContext(t, name+" "+id(s), sessionRows(t, db, s.Key), ans); n == len(ans.Messages) {
				sessions++
				messages += n
			}
		}
		if len(answers) != len(rows) {
			t.Errorf("%s: %d stored context answers for %d sessions", name, len(answers), len(rows))
		}
	}
	for _, fx := range oracletest.Fixtures96() {
		state := oracletest.Fixture96State(t, fx)
		compare(fx, state, oracletest.Sessions96(t, state), oracletest.FixtureContexts96(t, fx),
			func(s oracletest.SessionRow96) string { return s.Agent + "/" + s.Key })
	}
	state, _ := oracletest.Corpus96State(t)
	compare("corpus", state, oracletest.Sessions96(t, state), oracletest.CorpusContexts96(t),
		func(s oracletest.SessionRow96) string { return s.Key })
	oracletest.Compared(t, "2026.9.6 context equal to the oracle's byte for byte: sessions (every fixture and corpus session)", sessions, wantSessions)
	oracletest.Compared(t, "2026.9.6 context equal to the oracle's byte for byte: messages (as many as the answers hold)", messages, wantMessages)
}

// Crafted sessions for the shapes the fixtures lack (testdata/*.jsonl; the
// oracle's `context` answer on each, after its in-process import, is
// testdata/*.context.json): branch summaries, custom messages with and
// without details, compaction replay checkpoints stripped from retained
// assistant turns only, an excluded message kept by a reset, entries a reset
// does not keep, message entries whose message fails readableMessageSchema
// (isIndexedSessionEntry: a toolResult without a string toolCallId or
// toolName, a boolean isError or an array content, a user or assistant
// message without readable content, a custom message without readable
// content or with a customType that is not a string, a bashExecution
// without a command, an unknown or missing role, a message that is not an
// object or is missing), which leave the branch: out of the context, and an
// assistant turn among them does not set the model (checked when the answer
// holds one).
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
		var model struct {
			Model json.RawMessage `json:"model"`
		}
		if err := json.Unmarshal(answer, &model); err != nil {
			t.Fatal(err)
		}
		rows := bytes.Split(bytes.TrimSpace(data), []byte("\n"))
		if compareContext(t, f, rows, want) == 0 {
			continue
		}
		if model.Model != nil {
			s, err := context96.Build(rows)
			if err != nil {
				t.Fatal(err)
			}
			got := []byte("null")
			if s.Context.Model != nil {
				got = []byte(`{"provider":` + string(s.Context.Model.Provider) + `,"modelId":` + string(s.Context.Model.ModelID) + `}`)
			}
			if g, w := stringify(t, got), stringify(t, model.Model); !bytes.Equal(g, w) {
				t.Errorf("%s: model %s, oracle %s", f, g, w)
				continue
			}
		}
		compared++
	}
	oracletest.Compared(t, "2026.9.6 context messages of crafted sessions equal the oracle's", compared, 3)
}
