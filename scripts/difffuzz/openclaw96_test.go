package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/openclaw-tools/oc/internal/oracletest"
	"github.com/openclaw-tools/oc/pkg/upgrade"
)

// The state dir the 9.6 import reads: one transcript a session under
// agents/main/sessions, and a sessions.json that names each by its key with
// the fields 2026.5.6 wrote (sessionId, updatedAt, sessionFile).
func TestWriteStateDir96(t *testing.T) {
	dir := t.TempDir()
	sessions := []session96{sessionOf96(0), sessionOf96(7)}
	texts := [][]byte{
		[]byte(`{"type":"session","version":3,"id":"` + sessions[0].ID + `","timestamp":"2026-05-12T06:10:20.699Z","cwd":"/w"}` + "\n"),
		[]byte(`{"type":"session","version":3,"id":"` + sessions[1].ID + `","timestamp":"2026-05-12T06:10:20.699Z","cwd":"/w"}` + "\n" +
			`{"type":"message","id":"e0","parentId":null,"message":{"role":"user","content":"hi"}}` + "\n"),
	}
	if err := writeStateDir96(dir, sessions, texts); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "agents", "main", "sessions", "sessions.json"))
	if err != nil {
		t.Fatal(err)
	}
	var index map[string]map[string]any
	if err := json.Unmarshal(raw, &index); err != nil {
		t.Fatalf("sessions.json: %v", err)
	}
	if len(index) != 2 {
		t.Fatalf("sessions.json has %d entries, want 2: %s", len(index), raw)
	}
	for i, s := range sessions {
		e, ok := index[s.Key]
		if !ok {
			t.Fatalf("sessions.json has no %s: %s", s.Key, raw)
		}
		if e["sessionId"] != s.ID || e["sessionFile"] != s.ID+".jsonl" {
			t.Errorf("%s: entry %v, want sessionId %s and sessionFile %s.jsonl", s.Key, e, s.ID, s.ID)
		}
		if _, ok := e["updatedAt"].(float64); !ok {
			t.Errorf("%s: updatedAt %v is not a number", s.Key, e["updatedAt"])
		}
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(s.File)))
		if err != nil || string(got) != string(texts[i]) {
			t.Errorf("%s: file %q (%v), want the transcript", s.File, got, err)
		}
		// 9.6 reads the session id from the file name (a generated UUID).
		if id := upgrade.FileSessionID(filepath.Base(s.File)); id != s.ID {
			t.Errorf("%s: 9.6 reads session id %q from the name, want %q", s.File, id, s.ID)
		}
	}
	// oc's prediction of the import sees both as registered sessions under
	// their keys, imported whole.
	rep, err := upgrade.PredictStateDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]upgrade.Outcome{}
	for _, s := range rep.Sessions {
		keys[s.SessionKey] = s.Outcome
	}
	for _, s := range sessions {
		if keys[s.Key] != upgrade.Whole {
			t.Errorf("prediction for %s: %q, want %q (all: %v)", s.Key, keys[s.Key], upgrade.Whole, keys)
		}
	}
	// Writing fewer sessions again (a refused transcript taken out) leaves
	// sessions.json naming only those.
	if err := writeStateDir96(dir, sessions[1:], texts[1:]); err != nil {
		t.Fatal(err)
	}
	raw, _ = os.ReadFile(filepath.Join(dir, "agents", "main", "sessions", "sessions.json"))
	index = nil
	if err := json.Unmarshal(raw, &index); err != nil || len(index) != 1 || index[sessions[1].Key] == nil {
		t.Errorf("after rewriting with one session: %s (%v)", raw, err)
	}
	if err := writeStateDir96(dir, sessions, texts[:1]); err == nil {
		t.Error("writeStateDir96 accepted 2 sessions with 1 transcript")
	}
}

// -routes all for 9.6 is providers.txt: the 9 triples 9.6 builds, no Bedrock.
func TestRoutes96All(t *testing.T) {
	shared := oracletest.SharedDir(t)
	if _, err := os.Stat(filepath.Join(shared, "corpus", "oracle-2026.9.6", "providers.txt")); err != nil {
		oracletest.Unavailable(t, fmt.Sprintf("the 9.6 route list: %v", err))
	}
	rs, err := routes96(shared, "all")
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) < 9 {
		t.Errorf("%d routes, want the 9 of providers.txt", len(rs))
	}
	for _, r := range rs {
		if r.api == "bedrock-converse-stream" {
			t.Errorf("route %v: 9.6 builds no Bedrock", r)
		}
	}
}

// A refused migration: 9.6's failure report (the shape of
// session-sqlite-migration-runs/*.failure.json) gives the issues that name no
// file, and a count mismatch is matched to the file by oc's predicted counts.
func TestRefusedMigrationIssues(t *testing.T) {
	dir := t.TempDir()
	runs := filepath.Join(dir, "session-sqlite-migration-runs")
	if err := os.MkdirAll(runs, 0o755); err != nil {
		t.Fatal(err)
	}
	report := `{"reason":"doctor import reported session SQLite migration issues","targets":[{"agentId":"main","completedMoves":0,"issues":[
{"code":"transcript_malformed","message":"/x/agents/main/sessions/a.jsonl: SyntaxError: Unterminated string","sessionKey":"[redacted-session-key:1]"},
{"code":"sqlite_transcript_count_mismatch","message":"SQLite transcript has 8 events; verified import expects 9.","sessionKey":"[redacted-session-key:2]"},
{"code":"sqlite_transcript_count_mismatch","message":"SQLite transcript has 6 events; verified import expects 7.","sessionKey":"[redacted-session-key:3]"}]}]}`
	if err := os.WriteFile(filepath.Join(runs, "session-sqlite-1-x.failure.json"), []byte(report), 0o644); err != nil {
		t.Fatal(err)
	}
	issues, err := failureIssues(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(issues) != 2 {
		t.Fatalf("issues %q, want the 2 count mismatches (the malformed file is a per-file finding)", issues)
	}
	want := issues[1]
	if _, ok := takeMismatch(&issues, &upgrade.FileResult{Keys: 4, Events: 9}); ok {
		t.Error("4 of 9 events matched a mismatch that names other numbers")
	}
	if got, ok := takeMismatch(&issues, &upgrade.FileResult{Keys: 6, Events: 7}); !ok || got != want {
		t.Errorf("6 of 7 events: %q %v, want %q", got, ok, want)
	}
	// an issue is taken once: a second file with the same numbers (seed 2's
	// fz-0011, a partial import 9.6 does not refuse over) gets none
	if got, ok := takeMismatch(&issues, &upgrade.FileResult{Keys: 6, Events: 7}); ok {
		t.Errorf("6 of 7 events matched twice: %q", got)
	}
	if len(issues) != 1 || !hasMismatch(issues) || hasMismatch([]string{"transcript_malformed: x"}) {
		t.Errorf("left %q, want the 8-of-9 issue", issues)
	}
	if _, err := failureIssues(t.TempDir()); err == nil {
		t.Error("no failure report: no error")
	}
}

// The oracle's import answer calls a file "partial" when a valid line's id is
// not among the stored events (it matches lines by id): a transcript
// imported whole under a header id the import rewrote (sessions.json's
// sessionId) is one (found with -files: crafted transcripts whose header id
// is not their session id); a file whose only left-behind line repeats an
// id stored before it is not (seed 3508's fz-0059), one whose left-behind
// id is not stored is.
func TestOracleStatus96(t *testing.T) {
	whole := &upgrade.FileResult{Events: 5, Keys: 5}
	rewritten := &upgrade.FileResult{Events: 5, Keys: 5, HeaderRewritten: true, Unmatched: []int64{1}}
	repeatBehind := &upgrade.FileResult{Events: 12, LeftBehind: []int64{14}}
	lostBehind := &upgrade.FileResult{Events: 12, LeftBehind: []int64{14}, Unmatched: []int64{14}}
	for _, c := range []struct {
		outcome upgrade.Outcome
		r       *upgrade.FileResult
		want    string
	}{
		{upgrade.Whole, whole, "imported"},
		{upgrade.Whole, rewritten, "partial"},
		{upgrade.Partial, repeatBehind, "imported"},
		{upgrade.Partial, lostBehind, "partial"},
		{upgrade.Nothing, whole, ""},
	} {
		if got := oracleStatus96(c.outcome, c.r); got != c.want {
			t.Errorf("oracleStatus96(%s, unmatched %v) = %q, want %q", c.outcome, c.r.Unmatched, got, c.want)
		}
	}
}
