package cmd

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/openclaw-tools/oc/internal/oracletest"
)

// Two releases side by side for one provider, on a session 2026.9.6 wrote
// (a failed empty assistant turn that 2026.9.6 drops).
func TestReplayCompareReleasesGolden(t *testing.T) {
	state := oracletest.Fixture96State(t, "example-state")
	code, out, errOut := runOC(t, false, nil, "replay", "agent:main:slack:channel:c0aelhcgw4f", "--state-dir", state,
		"--provider", "anthropic", "--openclaw", "2026.5.6,2026.9.6", "--tz", "UTC")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	golden(t, "replay-compare-releases.txt", []byte(strings.ReplaceAll(out, state, "$STATE")))
}

// --provider all for two releases: a table per release, then what changed.
func TestReplayAllReleasesGolden(t *testing.T) {
	code, out, errOut := runOC(t, false, nil, "replay", ruleTranscript("pairing.jsonl"), "--provider", "all", "--openclaw", "2026.5.6,2026.9.6", "--tz", "UTC")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	golden(t, "replay-all-releases.txt", []byte(out))
}

// A route OpenClaw itself throws on (2026.9.6's Responses replay guard)
// is that row's answer; the other providers are still replayed (exit 0).
func TestReplayAllRowWhereOpenClawFails(t *testing.T) {
	code, out, stderr := runOC(t, false, nil, "replay", ruleTranscript("pairing.jsonl"), "--provider", "all", "--openclaw", "2026.9.6", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rows []struct {
		Route        struct{ Provider, API string } `json:"route"`
		Fails        string                         `json:"openclawFails"`
		MessagesSent int                            `json:"messagesSent"`
	}
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	failed, sent := 0, 0
	for _, r := range rows {
		if r.Fails != "" {
			failed++
			if !strings.Contains(r.Fails, "invalid_replay_transcript") || r.Route.API != "openai-responses" && r.Route.API != "openai-chatgpt-responses" && r.Route.API != "azure-openai-responses" {
				t.Errorf("%s/%s: fails %q", r.Route.Provider, r.Route.API, r.Fails)
			}
		} else if r.MessagesSent > 0 {
			sent++
		}
	}
	if failed == 0 || sent < 8 {
		t.Errorf("%d rows fail, %d sent messages; want the Responses rows to fail and the rest replayed", failed, sent)
	}
}
