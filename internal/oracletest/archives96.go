package oracletest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// ArchiveFixtureDir is testdata/sqlite-archives of this repository: state
// dirs in which OpenClaw 2026.9.6's own code deleted sessions and archived
// their transcripts in session_transcript_archives
// (scripts/make-archive-fixture.mjs; see its README).
func ArchiveFixtureDir(t testing.TB) string {
	t.Helper()
	return repoTestdata(t, "sqlite-archives")
}

// ArchiveDecoded96 is one line of an archive fixture's decoded.jsonl: an
// archived generation as 2026.9.6 decodes it (decodeSessionArchiveBytes).
type ArchiveDecoded96 struct {
	Agent      string `json:"agent"`
	SessionID  string `json:"sessionId"`
	Generation string `json:"generation"`
	Encoding   string `json:"encoding"`
	Content    string `json:"content"`
}

// ArchivesDecoded96 reads dir/decoded.jsonl.
func ArchivesDecoded96(t testing.TB, dir string) []ArchiveDecoded96 {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "decoded.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []ArchiveDecoded96
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var d ArchiveDecoded96
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			t.Fatal(err)
		}
		out = append(out, d)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// MakeArchiveFixture96 runs scripts/make-archive-fixture.mjs on the
// oracle's example-state fixture and returns the folder it wrote (state/,
// published/, decoded.jsonl, manifest.json). A live oracle run.
func MakeArchiveFixture96(t testing.TB) string {
	t.Helper()
	src := Fixture96State(t, "example-state")
	out := filepath.Join(t.TempDir(), "archives")
	script96(t, "session archives by OpenClaw 2026.9.6", "make-archive-fixture.mjs", src, out)
	return out
}

// ArchivePublish96 is what 2026.9.6's publication pass did on one agent:
// the first line of what it threw ("" when nothing) and the rows after it.
type ArchivePublish96 struct {
	Error string `json:"error"`
	Rows  []struct {
		SessionID        string  `json:"session_id"`
		Generation       string  `json:"generation"`
		ArchiveName      string  `json:"archive_name"`
		PublishedAt      *int64  `json:"published_at"`
		PublishAttempts  int64   `json:"publish_attempts"`
		LastPublishError *string `json:"last_publish_error"`
	} `json:"rows"`
}

// PublishArchives96 runs 2026.9.6's publication pass on every agent of each
// state dir, in place (give it copies): state -> agent -> answer.
func PublishArchives96(t testing.TB, states ...string) map[string]map[string]ArchivePublish96 {
	t.Helper()
	out := script96(t, "session archives by OpenClaw 2026.9.6", "make-archive-fixture.mjs", append([]string{"--publish"}, states...)...)
	var answers []struct {
		State  string                      `json:"state"`
		Agents map[string]ArchivePublish96 `json:"agents"`
	}
	if err := json.Unmarshal(bytes.TrimSpace(out), &answers); err != nil {
		t.Fatalf("make-archive-fixture.mjs --publish: %v: %s", err, out)
	}
	res := map[string]map[string]ArchivePublish96{}
	for _, a := range answers {
		res[a.State] = a.Agents
	}
	if len(res) != len(states) {
		t.Fatalf("make-archive-fixture.mjs --publish answered for %d of %d state dirs", len(res), len(states))
	}
	return res
}
