package sqlitestore_test

import (
	"path/filepath"
	"testing"

	"github.com/openclaw-tools/oc/internal/oracletest"
	"github.com/openclaw-tools/oc/pkg/store/nav96"
	"github.com/openclaw-tools/oc/pkg/store/sqlitestore"
)

// activeMessages reads one session from an agent database and counts its
// context messages by 2026.9.6's rules.
func activeMessages(t *testing.T, dbPath, key string) (int, *nav96.Result, *sqlitestore.IndexState, [][]byte) {
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
		st, err := db.Events(t.Context(), s.SessionID, nil, func(ev sqlitestore.Event) error {
			rows = append(rows, ev.JSON)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		res := nav96.Analyze(rows)
		return res.Messages, res, st, rows
	}
	t.Fatalf("%s: no session %s", dbPath, key)
	return 0, nil, nil, nil
}

func TestActiveBranchMatchesOracleContext(t *testing.T) {
	compared, want := 0, 0
	// Every session of the databases 2026.9.6 wrote (read with SQL of the
	// test's own) is compared with its stored answer; a session without one
	// fails, and so does an answer without a session.
	compare := func(name, state string, sessions []oracletest.SessionRow96, answers map[string]oracletest.ContextAnswer96, id func(oracletest.SessionRow96) string) {
		want += len(sessions)
		for _, s := range sessions {
			ans, ok := answers[id(s)]
			if !ok {
				t.Errorf("%s %s: no stored 2026.9.6 context answer", name, id(s))
				continue
			}
			got, _, _, _ := activeMessages(t, stateAgentDB(state, s.Agent), s.Key)
			if got != len(ans.Messages) {
				t.Errorf("%s %s: %d context messages, oracle 2026.9.6 has %d", name, id(s), got, len(ans.Messages))
			}
			compared++
		}
		if len(answers) != len(sessions) {
			t.Errorf("%s: %d stored context answers for %d sessions", name, len(answers), len(sessions))
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
	oracletest.Compared(t, "2026.9.6 active-branch message counts equal the oracle's context (every fixture and corpus session)", compared, want)
}

func stateAgentDB(state, agent string) string {
	return filepath.Join(state, "agents", agent, "agent", "openclaw-agent.sqlite")
}

// On databases 2026.9.6 wrote itself, the cached leaf agrees with the
// computed one (a disagreement is what `oc inspect` reports as a finding).
// Every session with a session_transcript_index_state row (counted with SQL
// of the test's own) is checked.
func TestCachedLeafAgreesOnFixtures(t *testing.T) {
	checked, want := 0, 0
	for _, fx := range oracletest.Fixtures96() {
		state := oracletest.Fixture96State(t, fx)
		for _, s := range oracletest.Sessions96(t, state) {
			_, res, st, _ := activeMessages(t, stateAgentDB(state, s.Agent), s.Key)
			if s.Indexed {
				want++
			}
			if st.Present != s.Indexed {
				t.Errorf("%s %s/%s: index state present %v, the database has a row: %v", fx, s.Agent, s.Key, st.Present, s.Indexed)
			}
			if !st.Present {
				continue
			}
			checked++
			if st.LeafEventID != res.Leaf {
				t.Errorf("%s %s: cached leaf %q, computed %q", fx, s.Key, st.LeafEventID, res.Leaf)
			}
			if st.NeedsRebuild {
				t.Errorf("%s %s: needs_rebuild set on a fresh import", fx, s.Key)
			}
			if len(st.ActiveSeqs) != len(res.ActiveEvents) {
				t.Errorf("%s %s: cached active path has %d events, computed %d", fx, s.Key, len(st.ActiveSeqs), len(res.ActiveEvents))
			}
		}
	}
	oracletest.Compared(t, "2026.9.6 cached leaf and active path equal the computed ones (every indexed fixture session)", checked, want)
}
