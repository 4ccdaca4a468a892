package cmd

import (
	"encoding/json"
	"strings"
	"testing"
)

// --tz and --model-json reach 2026.9.6's payload: the zone of the user-turn
// stamps and the model record's maxTokens.
func TestReplayTZAndModelJSON96(t *testing.T) {
	file := ruleTranscript("pairing.jsonl")
	body := func(args ...string) map[string]any {
		t.Helper()
		code, out, stderr := runOC(t, false, nil, append([]string{"replay", file, "--provider", "anthropic", "--json"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		var b map[string]any
		if err := json.Unmarshal([]byte(out), &b); err != nil {
			t.Fatal(err)
		}
		return b
	}
	text := func(b map[string]any) string { s, _ := json.Marshal(b["messages"]); return string(s) }
	utc := body("--openclaw", "2026.9.6", "--tz", "UTC")
	tokyo := body("--openclaw", "2026.9.6", "--tz", "Asia/Tokyo")
	if !strings.Contains(text(utc), " UTC] ") {
		t.Errorf("--tz UTC: no UTC stamp in %.300s", text(utc))
	}
	if text(utc) == text(tokyo) || strings.Contains(text(tokyo), " UTC] ") {
		t.Errorf("--tz Asia/Tokyo changed nothing: %.300s", text(tokyo))
	}
	if text(body("--openclaw", "2026.5.6", "--tz", "UTC")) != text(body("--openclaw", "2026.5.6", "--tz", "Asia/Tokyo")) {
		t.Error("2026.5.6 depends on --tz")
	}
	if got := body("--openclaw", "2026.9.6", "--tz", "UTC")["max_tokens"]; got != float64(8192) {
		t.Errorf("default model record: max_tokens %v, want 8192 (the oracle's minimal record)", got)
	}
	if got := body("--openclaw", "2026.9.6", "--tz", "UTC", "--model-json", `{"maxTokens":64000}`)["max_tokens"]; got != float64(64000) {
		t.Errorf("--model-json maxTokens 64000: max_tokens %v", got)
	}
}
