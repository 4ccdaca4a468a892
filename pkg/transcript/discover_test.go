package transcript

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestClassifyName(t *testing.T) {
	cases := map[string]struct {
		kind   FileKind
		reason string
	}{
		"0197a3c2-5d1e-7f00-9b2a-4c5d6e7f8a9b.jsonl":                                      {KindLive, ""},
		"0197a3c2-5d1e-7f00-9b2a-4c5d6e7f8a9b-topic-42.jsonl":                             {KindLive, ""},
		"2026-05-01T10-00-00-000Z_abc.jsonl":                                              {KindLive, ""},
		"abc.jsonl.zst":                                                                   {KindLive, ""},
		"abc.jsonl.reset.2026-03-26T00-38-22.322Z":                                        {KindArchived, "reset"},
		"abc.jsonl.deleted.2026-02-02T06-59-21.386Z":                                      {KindArchived, "deleted"},
		"abc.jsonl.bak.2026-02-02T06-59-21Z":                                              {KindArchived, "bak"},
		"abc.jsonl.deleted.2026-12-01T21-25-29.377Z.cc61585fa12b46a89f17cb66bb5b5eb2.zst": {KindArchived, "deleted"},
		"abc.jsonl.reset.2026-12-01T21-25-29.377Z.cc61585fa12b46a89f17cb66bb5b5eb2":       {KindArchived, "reset"},
		"abc.jsonl.deleted.2026-12-01T21-25-29.377Z.not-a-generation":                     {KindOther, ""},
		"abc.jsonl.bak-164503-1777882106821":                                              {KindArchived, "repair-backup"},
		"abc.jsonl.bak-oc-20261130T101500Z":                                               {KindArchived, "oc-backup"},
		"abc.jsonl.rejected-20261130T101500Z.jsonl":                                       {KindQuarantine, ""},
		"abc.jsonl.rejected-20261130T101500Z":                                             {KindQuarantine, ""},
		"29330952.checkpoint.a3de7cd2-45e4-42f5-b649-926d1b13c4e8.jsonl":                  {KindArchived, "checkpoint"},
		"abc.jsonl.corrupt-2026-05-01T10-00-00-000Z-1a2b3c4d.jsonl":                       {KindArchived, "corrupt-header-backup"},
		"abc.trajectory.jsonl":                                                            {KindSidecar, ""},
		"abc.trajectory-path.json":                                                        {KindSidecar, ""},
		"abc.jsonl.lock":                                                                  {KindLock, ""},
		"sessions.json":                                                                   {KindIndex, ""},
		"abc.jsonl.repair-123-456.tmp":                                                    {KindTemp, ""},
		"notes.txt":                                                                       {KindOther, ""},
	}
	for name, want := range cases {
		kind, reason := ClassifyName(name)
		assert.Equal(t, want.kind, kind, name)
		assert.Equal(t, want.reason, reason, name)
	}
}

func TestResolveSessionFile(t *testing.T) {
	dir := t.TempDir()
	sessions := filepath.Join(dir, "agents", "main", "sessions")
	require.NoError(t, os.MkdirAll(sessions, 0o755))
	for _, n := range []string{"s1.jsonl", "custom.jsonl"} {
		require.NoError(t, os.WriteFile(filepath.Join(sessions, n), []byte("{}\n"), 0o644))
	}
	cases := []struct {
		name           string
		entry          IndexEntry
		want, dangling string
	}{
		{"by session id", IndexEntry{SessionID: "s1"}, "s1.jsonl", ""},
		{"relative sessionFile", IndexEntry{SessionID: "s1", SessionFile: "custom.jsonl"}, "custom.jsonl", ""},
		{"absolute inside", IndexEntry{SessionID: "s1", SessionFile: filepath.Join(sessions, "custom.jsonl")}, "custom.jsonl", ""},
		{"absolute of another root is remapped", IndexEntry{SessionID: "s1", SessionFile: "/Users/old/.openclaw/agents/main/sessions/custom.jsonl"}, "custom.jsonl", ""},
		{"escaping", IndexEntry{SessionID: "s1", SessionFile: "../../x.jsonl"}, "s1.jsonl", "escapes"},
		{"unrelated absolute", IndexEntry{SessionID: "s1", SessionFile: "/tmp/elsewhere.jsonl"}, "s1.jsonl", "outside"},
		{"missing sessionFile", IndexEntry{SessionID: "s1", SessionFile: "gone.jsonl"}, "s1.jsonl", "does not exist"},
		{"sqlite marker is not a path", IndexEntry{SessionID: "s1", SessionFile: "sqlite:main:s1:/x"}, "s1.jsonl", ""},
	}
	for _, c := range cases {
		got, dangling := ResolveSessionFile(sessions, c.entry)
		assert.Equal(t, filepath.Join(sessions, c.want), got, c.name)
		if c.dangling == "" {
			assert.Empty(t, dangling, c.name)
		} else {
			assert.Contains(t, dangling, c.dangling, c.name)
		}
	}
}

func TestDiscoverStateDirAndFolders(t *testing.T) {
	root := filepath.Join("..", "..", "testdata", "example-state")
	live, err := Discover([]string{root}, false)
	require.NoError(t, err)
	assert.Len(t, live, 4)
	for _, f := range live {
		assert.Equal(t, KindLive, f.Kind)
		assert.Contains(t, []string{"main", "ops"}, f.Agent)
	}
	all, err := Discover([]string{root}, true)
	require.NoError(t, err)
	assert.Len(t, all, 5, "the .reset archive comes with --archived")

	empty := t.TempDir()
	_, err = Discover([]string{empty}, false)
	assert.ErrorIs(t, err, ErrNoTranscripts)
}

func TestCheckIndexOnExample(t *testing.T) {
	sd, err := OpenStateDir(filepath.Join("..", "..", "testdata", "example-state"))
	require.NoError(t, err)
	require.Len(t, sd.Agents, 2)
	ic, err := CheckIndex(sd.Agents[0])
	require.NoError(t, err)
	require.Len(t, ic.MissingFiles, 1)
	assert.Equal(t, "agent:main:telegram:direct:99887766", ic.MissingFiles[0].Key)
	assert.Empty(t, ic.OrphanFiles)
	ic, err = CheckIndex(sd.Agents[1])
	require.NoError(t, err)
	require.Len(t, ic.OrphanFiles, 1)
	assert.Contains(t, ic.OrphanFiles[0], "0197d5ff")
}
