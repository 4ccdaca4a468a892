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
		st, err := db.Events(s.SessionID, func(ev sqlitestore.Event) error {
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
	compared := 0
	for _, fx := range oracletest.Fixtures96() {
		state := oracletest.Fixture96State(t, fx)
		for id, ans := range oracletest.FixtureContexts96(t, fx) {
			db := filepath.Join(state, "agents", ans.Agent, "agent", "openclaw-agent.sqlite")
			got, _, _, _ := activeMessages(t, db, ans.Key)
			if got != len(ans.Messages) {
				t.Errorf("%s %s: %d context messages, oracle 2026.9.6 has %d", fx, id, got, len(ans.Messages))
			}
			compared++
		}
	}
	state, _ := oracletest.Corpus96State(t)
	db := filepath.Join(state, "agents", "main", "agent", "openclaw-agent.sqlite")
	for key, ans := range oracletest.CorpusContexts96(t) {
		got, _, _, _ := activeMessages(t, db, key)
		if got != len(ans.Messages) {
			t.Errorf("corpus %s: %d context messages, oracle 2026.9.6 has %d", key, got, len(ans.Messages))
		}
		compared++
	}
	if compared < 40 {
		t.Fatalf("only %d sessions compared; expected the 31 fixture sessions and 13 corpus sessions", compared)
	}
	t.Logf("%d sessions agree with the oracle", compared)
}

// On databases 2026.9.6 wrote itself, the cached leaf agrees with the
// computed one (a disagreement is what `oc inspect` reports as a finding).
func TestCachedLeafAgreesOnFixtures(t *testing.T) {
	checked := 0
	for _, fx := range oracletest.Fixtures96() {
		state := oracletest.Fixture96State(t, fx)
		for _, ans := range oracletest.FixtureContexts96(t, fx) {
			db := filepath.Join(state, "agents", ans.Agent, "agent", "openclaw-agent.sqlite")
			_, res, st, _ := activeMessages(t, db, ans.Key)
			if !st.Present {
				continue
			}
			checked++
			if st.LeafEventID != res.Leaf {
				t.Errorf("%s %s: cached leaf %q, computed %q", fx, ans.Key, st.LeafEventID, res.Leaf)
			}
			if st.NeedsRebuild {
				t.Errorf("%s %s: needs_rebuild set on a fresh import", fx, ans.Key)
			}
			if len(st.ActiveSeqs) != len(res.ActiveEvents) {
				t.Errorf("%s %s: cached active path has %d events, computed %d", fx, ans.Key, len(st.ActiveSeqs), len(res.ActiveEvents))
			}
		}
	}
	if checked < 20 {
		t.Fatalf("only %d sessions had a cached index state", checked)
	}
}
