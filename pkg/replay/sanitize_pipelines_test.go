package replay

import (
	"testing"

	"github.com/openclaw-tools/oc/pkg/policy"
	"github.com/openclaw-tools/oc/pkg/replay/internal/replaytest"
	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
	"github.com/openclaw-tools/oc/pkg/replay/sanitize"
	"github.com/openclaw-tools/oc/pkg/replay/sanitize/sanitize56"
	"github.com/openclaw-tools/oc/pkg/replay/sanitize/sanitize96"
)

// The release tables: 2026.5.6 is the zero release; every step has a rule;
// the steps 2026.9.6 changed carry their own rule names, so a change says
// which release made it.
func TestPipelineTablesNameTheirSteps(t *testing.T) {
	p56, p96 := pipelineFor(""), pipelineFor(policy.Release96)
	if p56.Release != policy.Release56 || p96.Release != policy.Release96 {
		t.Fatalf("releases: %q %q", p56.Release, p96.Release)
	}
	rules := func(p sanitize.Pipeline) map[string]bool {
		out := map[string]bool{}
		for _, st := range [][]sanitize.Step{p.Sanitize, p.Validate, p.Limit} {
			for _, s := range st {
				if s.Rule == "" || s.Apply == nil {
					t.Fatalf("%s: a step without a rule or body", p.Release)
				}
				out[s.Rule] = true
			}
		}
		return out
	}
	r56, r96 := rules(p56), rules(p96)
	for _, shared := range []string{sanitize.RuleDropReasoning, sanitize.RuleDropThinking, sanitize.RuleToolResultDetails, sanitize.RuleStaleUsage, sanitize.RuleGeminiTurns, sanitize.RuleGoogleTurnOrdering, sanitize.RuleProviderHook, sanitize.RuleImages} {
		if !r56[shared] || !r96[shared] {
			t.Errorf("%s: expected in both tables", shared)
		}
	}
	for _, only96 := range []string{sanitize96.RuleNormalizeAssistant, sanitize96.RuleStaleCompactionSignatures, sanitize96.RuleInvalidSignatures, sanitize96.RulePairing,
		sanitize96.RuleStaleOpenAIReasoning, sanitize96.RuleResponsesToolCallIDs, sanitize96.RuleAnthropicTurns, sanitize96.RuleHeartbeat, sanitize96.RuleLimitPairing, sanitize96.RuleResponsesInvariant} {
		if !r96[only96] || r56[only96] {
			t.Errorf("%s: expected in the 2026.9.6 table only", only96)
		}
	}
	for _, only56 := range []string{sanitize56.RuleOpenAIReasoning, sanitize56.RuleHeartbeat, sanitize56.RuleSecondPairing, sanitize56.RuleNormalizeAssistant} {
		if !r56[only56] || r96[only56] {
			t.Errorf("%s: expected in the 2026.5.6 table only", only56)
		}
	}
}

// A failed empty assistant turn: 2026.5.6 gives it a fallback text, 2026.9.6
// drops it, and the change names 9.6's function.
func TestReleaseDecidesFailedEmptyTurn(t *testing.T) {
	msgs := []Message{
		jsvalue.NewObject("role", "user", "content", "hi", "timestamp", jsvalue.JSONNumber(1)),
		jsvalue.NewObject("role", "assistant", "content", []any{}, "stopReason", "error", "timestamp", jsvalue.JSONNumber(2)),
		jsvalue.NewObject("role", "user", "content", "again", "timestamp", jsvalue.JSONNumber(3)),
	}
	route := Options{Provider: "anthropic", API: "anthropic-messages", Model: "claude-sonnet-4-5", Now: replaytest.FixedNow96}
	r56, err := Sanitize(msgs, route)
	if err != nil {
		t.Fatal(err)
	}
	route.Release = policy.Release96
	r96, err := Sanitize(msgs, route)
	if err != nil {
		t.Fatal(err)
	}
	if len(r56.Sanitized) != 3 {
		t.Errorf("2026.5.6 sanitized %d messages, want 3 (fallback text)", len(r56.Sanitized))
	}
	// 9.6: the failed turn is dropped and the two user turns are merged.
	if len(r96.Limited) != 1 {
		t.Errorf("2026.9.6 limited %d messages, want 1", len(r96.Limited))
	}
	var dropped, merged bool
	for _, c := range r96.Changes {
		dropped = dropped || (c.Rule == sanitize96.RuleNormalizeAssistant && c.Kind == sanitize.KindMessageDropped)
		merged = merged || (c.Rule == sanitize96.RuleAnthropicTurns && c.Kind == sanitize.KindMessagesMerged)
		if c.Rule == sanitize56.RuleNormalizeAssistant {
			t.Errorf("2026.9.6 change under the 5.6 rule %q", c.Rule)
		}
	}
	if !dropped || !merged {
		t.Errorf("2026.9.6 changes %+v: want a drop by %s and a merge by %s", r96.Changes, sanitize96.RuleNormalizeAssistant, sanitize96.RuleAnthropicTurns)
	}
}
