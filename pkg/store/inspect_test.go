package store_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/openclaw-tools/oc/internal/oracletest"
	"github.com/openclaw-tools/oc/pkg/store"
)

func ruleCount(rep *store.SQLiteReport) map[string]int {
	out := map[string]int{}
	for _, f := range rep.Findings {
		out[f.Rule]++
	}
	return out
}

// A mid-upgrade install: a registered database missing, an unregistered one,
// a JSONL transcript still waiting for import.
func TestInspectSQLiteStateFindings(t *testing.T) {
	state := oracletest.Fixture96State(t, "example-state")
	st, err := store.Open(state, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := st.InspectSQLite(t.Context(), store.InspectOptions{QuickCheck: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Era != "sqlite" || len(rep.Sessions) != 5 || len(rep.Errors) != 0 {
		t.Fatalf("clean fixture: era %s, %d sessions, errors %v", rep.Era, len(rep.Sessions), rep.Errors)
	}
	for _, d := range rep.Databases {
		if d.QuickCheck != "ok" || d.Schema != 23 {
			t.Errorf("%s: quick_check %q schema %d", d.Path, d.QuickCheck, d.Schema)
		}
	}
	clean := ruleCount(rep)

	ops := filepath.Join(state, "agents", "ops", "agent", "openclaw-agent.sqlite")
	extra := filepath.Join(state, "agents", "extra", "agent", "openclaw-agent.sqlite")
	data, err := os.ReadFile(ops)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(extra), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(extra, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(ops); err != nil {
		t.Fatal(err)
	}
	sessions := filepath.Join(state, "agents", "main", "sessions")
	if err := os.MkdirAll(sessions, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sessions, "0197ffff-0000-7000-8000-000000000001.jsonl"), []byte(`{"type":"session","version":3,"id":"0197ffff-0000-7000-8000-000000000001","timestamp":"2026-05-17T06:40:00.000Z","cwd":"/"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	st, err = store.Open(state, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rep, err = st.InspectSQLite(t.Context(), store.InspectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := ruleCount(rep)
	for rule, n := range map[string]int{"sqlite-registered-db-missing": 1, "sqlite-unregistered-db": 1, "jsonl-awaiting-import": 1} {
		if got[rule]-clean[rule] != n {
			t.Errorf("%s: %d findings, want %d more than the clean fixture's %d (all: %v)", rule, got[rule], n, clean[rule], got)
		}
	}
	if rep.Era != "mid-upgrade" {
		t.Errorf("era %q, want mid-upgrade", rep.Era)
	}
}
