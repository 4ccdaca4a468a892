package transcript

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// CheckEntries is the one sessions.json-versus-files check (oc inspect and
// oc doctor): orphans are primary transcripts (spec §1.1) that no entry
// resolves to; a topic transcript belongs to its session's entry.
func TestCheckEntriesRules(t *testing.T) {
	dir := t.TempDir()
	sessions := filepath.Join(dir, "agents", "main", "sessions")
	require.NoError(t, os.MkdirAll(sessions, 0o755))
	for _, n := range []string{
		"s1.jsonl",                                 // s1's transcript
		"s1-topic-42.jsonl",                        // s1's forum topic: not an orphan
		"custom.jsonl",                             // named by s2's sessionFile
		"moved.jsonl",                              // s6's, named by another machine's path
		"2026-05-01T10-00-00-000Z_stray.jsonl",     // a primary transcript nobody names: orphan
		"gone-topic-7.jsonl",                       // topic of no entry: orphan
		"old.jsonl.reset.2026-03-26T00-38-22.322Z", // archive: never an orphan
		"packed.jsonl.zst",                         // compressed copy, not a primary transcript
		"s1.trajectory.jsonl",                      // sidecar
	} {
		require.NoError(t, os.WriteFile(filepath.Join(sessions, n), []byte("{}\n"), 0o644))
	}
	a := Agent{ID: "main", SessionsDir: sessions, IndexPath: filepath.Join(sessions, "sessions.json")}
	ic, err := CheckEntries(a, []IndexEntry{
		{Key: "k1", SessionID: "s1"},
		{Key: "k2", SessionID: "s2", SessionFile: "custom.jsonl"},
		{Key: "k3", SessionID: "s3"},                                    // no file: missing
		{Key: "k4", SessionID: "s4", SessionFile: "sqlite:main:s4:/db"}, // a marker, not a path
		{Key: "k5", SessionID: "s5", SessionFile: "/elsewhere/x.jsonl"}, // unusable: dangling, falls back to s5.jsonl
		// Found here, but OpenClaw looks at the path as written: dangling, not missing.
		{Key: "k6", SessionID: "s6", SessionFile: "/home/old/.openclaw/agents/main/sessions/moved.jsonl"},
	})
	require.NoError(t, err)
	var orphans []string
	for _, f := range ic.OrphanFiles {
		orphans = append(orphans, filepath.Base(f))
	}
	assert.ElementsMatch(t, []string{"2026-05-01T10-00-00-000Z_stray.jsonl", "gone-topic-7.jsonl"}, orphans)
	var missing []string
	for _, r := range ic.MissingFiles {
		missing = append(missing, r.Key)
	}
	assert.ElementsMatch(t, []string{"k3", "k4", "k5"}, missing, "k4 and k5 resolve to their absent <sessionId>.jsonl")
	require.Len(t, ic.Dangling, 2)
	assert.Equal(t, "k5", ic.Dangling[0].Key)
	assert.Contains(t, ic.Dangling[0].Reason, "outside")
	assert.Equal(t, "k6", ic.Dangling[1].Key)
	assert.Contains(t, ic.Dangling[1].Reason, "another root")

	// An unlistable folder is an error, not an empty result.
	_, err = CheckEntries(Agent{ID: "x", SessionsDir: filepath.Join(dir, "nope")}, nil)
	assert.Error(t, err)
}

func TestStorePath(t *testing.T) {
	home, err := os.UserHomeDir()
	require.NoError(t, err)
	assert.Equal(t, filepath.Join("/s", "agents", "ops", "sessions", "sessions.json"), StorePath("/s", "", "ops"))
	assert.Equal(t, "/data/ops/sessions.json", StorePath("/s", "/data/{agentId}/sessions.json", "ops"))
	assert.Equal(t, filepath.Join(home, "st", "ops.json"), StorePath("/s", "~/st/{agentId}.json", "ops"))
	assert.Equal(t, "/shared/sessions.json", StorePath("/s", "/shared/sessions.json", "ops"), "no placeholder: one store for every agent")
}
