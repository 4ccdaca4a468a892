package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-tools/oc/internal/cli"
	"github.com/openclaw-tools/oc/internal/oracletest"
)

// explainRelease runs `oc replay ... --explain --json` and returns the
// release it says it followed, and why.
func explainRelease(t *testing.T, args ...string) (release, source string) {
	t.Helper()
	args = append([]string{"replay"}, append(args, "--explain", "--json")...)
	code, out, stderr := runOC(t, false, nil, args...)
	if code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, stderr)
	}
	var doc struct {
		OpenClaw       string `json:"openclaw"`
		OpenClawSource string `json:"openclawSource"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	return doc.OpenClaw, doc.OpenClawSource
}

// The default release is the install's era: a transcript path follows
// 2026.5.6, a session read from a database 2026.9.6; --openclaw wins.
func TestReplayReleaseDefaultsToTheEra(t *testing.T) {
	file := ruleTranscript("tool-ids.jsonl")
	if rel, src := explainRelease(t, file, "--provider", "anthropic"); rel != "2026.5.6" || !strings.Contains(src, "JSONL") {
		t.Errorf("JSONL transcript: %s (%s), want 2026.5.6 by the era", rel, src)
	}
	if rel, src := explainRelease(t, file, "--provider", "anthropic", "--openclaw", "v2026.9.6"); rel != "2026.9.6" || src != "--openclaw" {
		t.Errorf("JSONL transcript, --openclaw v2026.9.6: %s (%s)", rel, src)
	}
	state := oracletest.Fixture96State(t, "example-state")
	if rel, src := explainRelease(t, "agent:main:main", "--state-dir", state, "--provider", "anthropic"); rel != "2026.9.6" || !strings.Contains(src, "SQLite") {
		t.Errorf("SQLite session: %s (%s), want 2026.9.6 by the era", rel, src)
	}
	if rel, src := explainRelease(t, "agent:main:main", "--state-dir", state, "--provider", "anthropic", "--openclaw", "2026.5.6"); rel != "2026.5.6" || src != "--openclaw" {
		t.Errorf("SQLite session, --openclaw 2026.5.6: %s (%s)", rel, src)
	}
}

// Every human output names the release it follows; the JSON stages keep
// stdout the exact body and name it on stderr.
func TestReplayOutputsNameTheRelease(t *testing.T) {
	file := ruleTranscript("tool-ids.jsonl")
	for _, c := range []struct {
		args   []string
		stdout bool
	}{
		{[]string{"--explain"}, true},
		{[]string{"--diff"}, true},
		{[]string{"--provider", "all"}, true},
		{[]string{"--stage", "sanitized"}, false},
		{[]string{"--stage", "payload"}, false},
	} {
		args := append([]string{"replay", file, "--provider", "mistral", "--openclaw", "2026.9.6"}, c.args...)
		code, out, stderr := runOC(t, false, nil, args...)
		if code != 0 {
			t.Errorf("%v: exit %d: %s", c.args, code, stderr)
			continue
		}
		where := stderr
		if c.stdout {
			where = out
		}
		if !strings.Contains(where, "OpenClaw 2026.9.6 (--openclaw)") {
			t.Errorf("%v: release not named (stdout %.200q, stderr %q)", c.args, out, stderr)
		}
		if !c.stdout && !json.Valid([]byte(out)) {
			t.Errorf("%v: stdout is not one JSON value", c.args)
		}
	}
	if _, _, stderr := runOC(t, false, nil, "replay", file, "--provider", "mistral", "--json"); stderr != "" {
		t.Errorf("--json: stderr %q, want nothing (stdout is the body)", stderr)
	}
	_, out, _ := runOC(t, false, nil, "replay", file, "--provider", "mistral", "--explain")
	if !strings.Contains(out, "Policy (resolveTranscriptPolicy of OpenClaw 2026.5.6)") {
		t.Errorf("--explain's policy section does not name the release:\n%s", out)
	}
	_, out, _ = runOC(t, false, nil, "replay", file, "--provider", "all", "--json", "--openclaw", "2026.9.6")
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) < 10 {
		t.Fatalf("--provider all --json: %v, %d rows", err, len(rows))
	}
	for _, r := range rows {
		if r["openclaw"] != "2026.9.6" {
			t.Errorf("row %v: openclaw %v", r["route"], r["openclaw"])
		}
	}
	_, out, _ = runOC(t, false, nil, "replay", file, "--provider", "mistral", "--diff", "--json")
	var diff []map[string]any
	if err := json.Unmarshal([]byte(out), &diff); err != nil || len(diff) == 0 {
		t.Fatalf("--diff --json: %v, %d rows", err, len(diff))
	}
	if diff[0]["openclaw"] != "2026.5.6" || diff[0]["op"] == nil {
		t.Errorf("--diff --json row: %v", diff[0])
	}
}

// Bedrock is a plugin in 2026.9.6: said, never guessed, exit 3; 2026.5.6
// still replays it, the context stage needs no rules, and in the table and
// comparisons the row says so (exit 0).
func TestReplayProviderNotBuiltIn(t *testing.T) {
	file := ruleTranscript("tool-ids.jsonl")
	for _, stage := range []string{"payload", "sanitized"} {
		code, out, stderr := runOC(t, false, nil, "replay", file, "--provider", "amazon-bedrock", "--openclaw", "2026.9.6", "--stage", stage)
		if code != cli.ExitIncomplete || out != "" {
			t.Errorf("%s: exit %d, stdout %q", stage, code, out)
		}
		oneLineError(t, stderr)
		if !strings.Contains(stderr, "not built into OpenClaw 2026.9.6 (a plugin)") {
			t.Errorf("%s: stderr %q", stage, stderr)
		}
	}
	if code, _, stderr := runOC(t, false, nil, "replay", file, "--provider", "amazon-bedrock", "--openclaw", "2026.9.6", "--explain"); code != cli.ExitIncomplete {
		t.Errorf("--explain: exit %d: %s", code, stderr)
	}
	if code, out, stderr := runOC(t, false, nil, "replay", file, "--provider", "amazon-bedrock", "--openclaw", "2026.5.6"); code != 0 || !strings.Contains(out, `"modelId"`) {
		t.Errorf("2026.5.6: exit %d: %s %.100s", code, stderr, out)
	}
	if code, _, stderr := runOC(t, false, nil, "replay", file, "--provider", "amazon-bedrock", "--openclaw", "2026.9.6", "--stage", "context"); code != 0 {
		t.Errorf("--stage context: exit %d: %s", code, stderr)
	}
	code, out, stderr := runOC(t, false, nil, "replay", file, "--provider", "all", "--openclaw", "2026.9.6", "--json")
	if code != 0 {
		t.Fatalf("--provider all: exit %d: %s", code, stderr)
	}
	var rows []struct {
		Route      struct{ Provider, API string } `json:"route"`
		NotBuiltIn string                         `json:"notBuiltIn"`
	}
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	flagged := 0
	for _, r := range rows {
		if (r.NotBuiltIn != "") != (r.Route.API == "bedrock-converse-stream") {
			t.Errorf("%s/%s: notBuiltIn %q", r.Route.Provider, r.Route.API, r.NotBuiltIn)
		}
		if r.NotBuiltIn != "" {
			flagged++
		}
	}
	if flagged != 1 {
		t.Errorf("%d rows not built in, want 1 (amazon-bedrock)", flagged)
	}
	code, out, _ = runOC(t, false, nil, "replay", file, "--provider", "amazon-bedrock", "--openclaw", "2026.5.6,2026.9.6")
	if code != 0 || !strings.Contains(out, "not built into OpenClaw 2026.9.6 (a plugin)") {
		t.Errorf("comparison: exit %d:\n%s", code, out)
	}
}

// 2026.9.6 names Codex's api openai-chatgpt-responses, served by openai.
func TestReplayCodexRouteIn96(t *testing.T) {
	code, out, stderr := runOC(t, false, nil, "replay", ruleTranscript("tool-ids.jsonl"), "--provider", "openai-codex", "--openclaw", "2026.5.6,2026.9.6", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc releaseComparison
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Releases) != 2 {
		t.Fatalf("%d releases", len(doc.Releases))
	}
	if r := doc.Releases[0].Route; r.API != "openai-codex-responses" || r.Provider != "openai-codex" {
		t.Errorf("2026.5.6 route %+v", r)
	}
	if r := doc.Releases[1].Route; r.API != "openai-chatgpt-responses" || r.Provider != "openai" {
		t.Errorf("2026.9.6 route %+v", r)
	}
	if len(doc.Differences) == 0 || !strings.HasPrefix(doc.Differences[0], "route: ") {
		t.Errorf("differences %q: want the route first", doc.Differences)
	}
}

// Two releases, one provider: the --json shape is stable, the oldest
// release comes first whatever the order given.
func TestReplayCompareReleasesJSON(t *testing.T) {
	code, out, stderr := runOC(t, false, nil, "replay", ruleTranscript("pairing.jsonl"), "--provider", "anthropic", "--openclaw", "2026.9.6,2026.5.6", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"session", "provider", "contextMessages", "releases", "differences", "sameWireBody"} {
		if _, ok := doc[k]; !ok {
			t.Errorf("no %q member: %.300s", k, out)
		}
	}
	var rels []map[string]json.RawMessage
	if err := json.Unmarshal(doc["releases"], &rels); err != nil || len(rels) != 2 {
		t.Fatalf("releases: %v, %d", err, len(rels))
	}
	for i, want := range []string{`"2026.5.6"`, `"2026.9.6"`} {
		if string(rels[i]["openclaw"]) != want {
			t.Errorf("release %d: %s, want %s", i, rels[i]["openclaw"], want)
		}
		for _, k := range []string{"route", "family", "messagesSent", "byKind", "rules", "problems"} {
			if _, ok := rels[i][k]; !ok {
				t.Errorf("release %d: no %q member", i, k)
			}
		}
	}
	var sent int
	if err := json.Unmarshal(rels[0]["messagesSent"], &sent); err != nil || sent == 0 {
		t.Errorf("2026.5.6 sent %d messages (%v)", sent, err)
	}
}

func TestReplayReleaseFlagErrors(t *testing.T) {
	file := ruleTranscript("pairing.jsonl")
	modelFile := filepath.Join(t.TempDir(), "model.json")
	if err := os.WriteFile(modelFile, []byte(`[1,2]`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"--openclaw", "2026.1.1"},
		{"--openclaw", "2026.5.6,2026.5.6"},
		{"--openclaw", "2026.5.6,2026.9.6", "--stage", "payload"},
		{"--openclaw", "2026.5.6,2026.9.6", "--diff"},
		{"--tz", "Mars/Olympus_Mons"},
		{"--model-json", "[1]"},
		{"--model-json", "null"},
		{"--model-json", "{bad"},
		{"--model-json", "@" + modelFile},
		{"--model-json", "@" + modelFile + ".missing"},
	} {
		code, _, stderr := runOC(t, false, nil, append([]string{"replay", file, "--provider", "anthropic"}, args...)...)
		if code != cli.ExitUsage {
			t.Errorf("%v: exit %d, want %d: %s", args, code, cli.ExitUsage, stderr)
		}
	}
	okFile := filepath.Join(t.TempDir(), "ok.json")
	if err := os.WriteFile(okFile, []byte(`{"maxTokens": 64000}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"--tz", "UTC"}, {"--tz", "Local"}, {"--tz", "Europe/Berlin"},
		{"--model-json", `{"maxTokens":64000}`}, {"--model-json", "@" + okFile},
	} {
		if code, _, stderr := runOC(t, false, nil, append([]string{"replay", file, "--provider", "anthropic", "--openclaw", "2026.9.6"}, args...)...); code != 0 {
			t.Errorf("%v: exit %d: %s", args, code, stderr)
		}
	}
	if code, _, _ := runOC(t, false, nil, "inspect", file, "--openclaw", "2026.5.6,2026.9.6"); code != cli.ExitUsage {
		t.Errorf("inspect with two releases: exit %d", code)
	}
}

// inspect's replay findings name the release they follow: 2026.5.6 for a
// transcript unless --openclaw says otherwise, 2026.9.6 for a SQLite session.
func TestInspectReplayFindingsFollowTheRelease(t *testing.T) {
	file := ruleTranscript("tool-ids.jsonl")
	findings := func(args ...string) string {
		t.Helper()
		code, out, stderr := runOC(t, false, nil, append([]string{"inspect", "--json"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		var doc struct {
			Findings []struct{ Rule, Message string } `json:"findings"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, f := range doc.Findings {
			if strings.HasPrefix(f.Rule, "replay-") {
				b.WriteString(f.Message + "\n")
			}
		}
		return b.String()
	}
	if got := findings(file); !strings.Contains(got, "OpenClaw 2026.5.6") || strings.Contains(got, "2026.9.6") {
		t.Errorf("transcript: %q", got)
	}
	got := findings(file, "--openclaw", "2026.9.6")
	if !strings.Contains(got, "OpenClaw 2026.9.6") || strings.Contains(got, "amazon-bedrock") {
		t.Errorf("--openclaw 2026.9.6 (Bedrock is a plugin there, never listed): %q", got)
	}
	state := oracletest.Fixture96State(t, "example-state")
	code, out, stderr := runOC(t, false, nil, "inspect", "agent:main:main", "--state-dir", state, "--json")
	if code != 0 {
		t.Fatalf("SQLite session: exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, "at replay OpenClaw 2026.9.6 rewrites this history") || strings.Contains(out, "OpenClaw 2026.5.6") {
		t.Errorf("SQLite session: replay findings do not follow 2026.9.6:\n%.400s", out)
	}
	// The whole SQLite state dir with --replay: every session replayed.
	code, out, stderr = runOC(t, false, nil, "inspect", "--state-dir", state, "--replay", "--json")
	if code != 0 {
		t.Fatalf("SQLite state dir --replay: exit %d: %s", code, stderr)
	}
	var rep struct {
		Sessions []struct {
			Key      string                           `json:"key"`
			Findings []struct{ Rule, Message string } `json:"findings"`
		} `json:"sessions"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	replayed := 0
	for _, ses := range rep.Sessions {
		for _, f := range ses.Findings {
			if strings.HasPrefix(f.Rule, "replay-") {
				replayed++
				if !strings.Contains(f.Message, "OpenClaw 2026.9.6") {
					t.Errorf("%s: %s", ses.Key, f.Message)
				}
			}
		}
	}
	if replayed < 3 {
		t.Errorf("%d replay findings over %d sessions, want at least 3", replayed, len(rep.Sessions))
	}
}
