package cmd

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/openclaw-tools/oc/internal/oracletest"
)

// oracleAnswers96 are stored 2026.9.6 oracle answers for the sessions of one
// SQLite state dir (golden.jsonl lines: mode, args [DB, KEY, PROVIDER, API,
// MODEL], ok, out).
type oracleAnswers96 struct {
	name, state, golden string
}

// On SQLite sessions read by 2026.9.6, `oc replay KEY` equals the oracle's
// stored context, sanitize and payload answers. The context comes from 9.6's
// active branch (leaf controls, side entries, resets, re-attached orphans),
// not from every stored row: testdata/replay-branch96 is a session 9.6
// imported with leaf, side and reset rows, and the test checks that its
// whole-export context (2026.5.6's rules) differs, so that it covers what
// the old code got wrong.
func TestReplaySQLiteActiveBranchMatchesOracle96(t *testing.T) {
	fixtures := filepath.Join(oracletest.SharedDir(t), "oracle-2026.9.6", "fixtures")
	branch := filepath.Join("..", "testdata", "replay-branch96")
	sets := []oracleAnswers96{
		{"replay-branch96", oracletest.ColdState96(t, branch, "db"), filepath.Join(branch, "golden.jsonl")},
		{"example-state", oracletest.Fixture96State(t, "example-state"), filepath.Join(fixtures, "example-state", "golden.jsonl")},
		{"corpus", oracletest.Fixture96State(t, "corpus"), filepath.Join(fixtures, "corpus", "golden.jsonl")},
	}
	compared, want, branchSensitive := 0, 0, 0
	for _, set := range sets {
		f, err := os.Open(set.golden)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			var g struct {
				Mode string          `json:"mode"`
				Args []string        `json:"args"`
				OK   bool            `json:"ok"`
				Out  json.RawMessage `json:"out"`
			}
			if err := json.Unmarshal(sc.Bytes(), &g); err != nil {
				t.Fatal(err)
			}
			if !g.OK || g.Mode != "payload" && g.Mode != "sanitize" && !(g.Mode == "context" && set.name == "replay-branch96") {
				continue
			}
			want++
			key := g.Args[1]
			// The context stage takes any route; oc names 9.6's
			// openai-chatgpt-responses by its 2026.5.6 api (RouteForRelease).
			provider, api, model := "anthropic", "anthropic-messages", "claude-sonnet-4-5"
			if len(g.Args) == 5 {
				provider, api, model = g.Args[2], g.Args[3], g.Args[4]
				if api == "openai-chatgpt-responses" {
					api = "openai-codex-responses"
				}
			}
			route := []string{"--state-dir", set.state, "--provider", provider, "--api", api, "--model", model, "--tz", "UTC", "--json"}
			stage, wantOut := "payload", g.Out
			switch g.Mode {
			case "context":
				stage = "context"
				var c struct {
					Messages json.RawMessage `json:"messages"`
				}
				if err := json.Unmarshal(g.Out, &c); err != nil {
					t.Fatal(err)
				}
				wantOut = c.Messages
				_, ctx56, _ := runOC(t, false, nil, append([]string{"replay", key, "--stage", "context", "--openclaw", "2026.5.6"}, route...)...)
				if !jsonEqual(t, []byte(ctx56), wantOut) {
					branchSensitive++
				}
			case "sanitize":
				stage = "sanitized"
				var s struct {
					Limited json.RawMessage `json:"limited"`
				}
				if err := json.Unmarshal(g.Out, &s); err != nil {
					t.Fatal(err)
				}
				wantOut = s.Limited
			}
			code, out, stderr := runOC(t, false, nil, append([]string{"replay", key, "--stage", stage}, route...)...)
			if code != 0 {
				t.Errorf("%s %s %s %s: exit %d: %s", set.name, key, g.Mode, provider, code, stderr)
				continue
			}
			if !jsonEqual(t, []byte(out), wantOut) {
				t.Errorf("%s %s %s %s/%s/%s differs from the 2026.9.6 oracle:\n got %.800s\nwant %.800s", set.name, key, stage, provider, api, model, out, wantOut)
				continue
			}
			compared++
		}
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	oracletest.Compared(t, "oc replay of 2026.9.6 SQLite sessions equals the oracle's stored context/sanitize/payload answers", compared, want)
	if branchSensitive == 0 {
		t.Fatal("no session whose active branch changes the context: the test covers nothing the whole export gets wrong")
	}
}

// jsonEqual compares two JSON documents as values, synthetic tool result
// times left out.
func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	maskSyntheticTimes(x)
	maskSyntheticTimes(y)
	return reflect.DeepEqual(x, y)
}

// A SQLite session read by 2026.5.6's rules is exported to a temporary file
// first; an error names the session and its database, not that file. Under
// 2026.9.6 (the era's default) the same empty session is an empty context.
func TestReplaySQLiteErrorNamesSession(t *testing.T) {
	state := oracletest.Fixture96State(t, "damaged")
	args := []string{"replay", "agent:main:dmg-empty-file", "--state-dir", state, "--stage", "context",
		"--provider", "anthropic", "--api", "anthropic-messages", "--model", "claude-sonnet-4-5", "--json"}
	code, _, stderr := runOC(t, false, nil, append(args, "--openclaw", "2026.5.6")...)
	if code != 3 || !strings.Contains(stderr, "agent:main:dmg-empty-file in ") || strings.Contains(stderr, "oc-replay-") {
		t.Errorf("--openclaw 2026.5.6: exit %d, stderr %q: want exit 3 naming the session, not its temporary export", code, stderr)
	}
	code, out, stderr := runOC(t, false, nil, args...)
	if code != 0 || strings.TrimSpace(out) != "[]" {
		t.Errorf("2026.9.6: exit %d, out %q, stderr %q: want an empty context", code, out, stderr)
	}
}
