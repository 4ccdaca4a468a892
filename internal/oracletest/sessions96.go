package oracletest

import (
	"database/sql"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"testing"

	_ "modernc.org/sqlite" // pure-Go driver "sqlite"
)

// SessionRow96 is one session_nodes row of an agent database 2026.9.6 wrote.
type SessionRow96 struct {
	Agent     string
	Key       string
	SessionID string
	// Indexed: the session has a session_transcript_index_state row (2026.9.6
	// cached its navigation).
	Indexed bool
	// Events: the session's transcript_events rows.
	Events int
}

// Sessions96 lists the sessions of every agent database under a state dir
// (agents/<id>/agent/openclaw-agent.sqlite), sorted by agent and key. It
// reads them with SQL of its own, read-only and immutable (no byte of the
// databases changes), not through the code under test: differential tests
// take the number of comparisons their inputs call for from it.
func Sessions96(t testing.TB, state string) []SessionRow96 {
	t.Helper()
	dbs, err := filepath.Glob(filepath.Join(state, "agents", "*", "agent", "openclaw-agent.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	if len(dbs) == 0 {
		t.Fatalf("%s: no agent databases", state)
	}
	var out []SessionRow96
	for _, p := range dbs {
		if _, err := os.Stat(p); err != nil {
			t.Fatal(err)
		}
		agent := filepath.Base(filepath.Dir(filepath.Dir(p)))
		u := url.URL{Scheme: "file", Path: p, RawQuery: "mode=ro&immutable=1"}
		db, err := sql.Open("sqlite", u.String())
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		rows, err := db.Query(`SELECT n.session_key, n.current_session_id,
			EXISTS (SELECT 1 FROM session_transcript_index_state s WHERE s.session_id = n.current_session_id),
			(SELECT count(*) FROM transcript_events e WHERE e.session_id = n.current_session_id)
			FROM session_nodes n`)
		if err != nil {
			db.Close()
			t.Fatalf("%s: sessions: %v", p, err)
		}
		for rows.Next() {
			r := SessionRow96{Agent: agent}
			if err := rows.Scan(&r.Key, &r.SessionID, &r.Indexed, &r.Events); err != nil {
				rows.Close()
				db.Close()
				t.Fatalf("%s: sessions: %v", p, err)
			}
			out = append(out, r)
		}
		err = rows.Err()
		rows.Close()
		db.Close()
		if err != nil {
			t.Fatalf("%s: sessions: %v", p, err)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Agent != out[j].Agent {
			return out[i].Agent < out[j].Agent
		}
		return out[i].Key < out[j].Key
	})
	return out
}
