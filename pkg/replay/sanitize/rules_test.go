package sanitize

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/openclaw-tools/oc/pkg/policy"
	"github.com/openclaw-tools/oc/pkg/replay/internal/replaytest"
	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
)

// Each shared rule's smallest input that triggers it, and what it must give
// (the release packages test their own rules and their values for these).

func newLog() *ChangeLog { return NewChangeLog("test", "test") }

func TestRuleThoughtSignatures(t *testing.T) {
	content := []any{
		jsvalue.NewObject("type", "text", "text", "a", "thought_signature", "msg_1"),
		jsvalue.NewObject("type", "toolCall", "thoughtSignature", "not base64!", "thought_signature", "EjQKMgEMOdbH"),
	}
	def := stripThoughtSignatures(content, nil, 0, newLog())
	if _, ok := def[0].(*jsvalue.Object).Lookup("thought_signature"); ok {
		t.Error("msg_ signature kept by default")
	}
	if _, ok := def[1].(*jsvalue.Object).Lookup("thoughtSignature"); !ok {
		t.Error("camelCase signature removed without includeCamelCase")
	}
	b64 := stripThoughtSignatures(content, &policy.ThoughtSignatures{AllowBase64Only: true, IncludeCamelCase: true}, 0, newLog())
	second := b64[1].(*jsvalue.Object)
	if _, ok := second.Lookup("thoughtSignature"); ok {
		t.Error("invalid camelCase signature kept")
	}
	if second.Get("thought_signature") != "EjQKMgEMOdbH" {
		t.Error("valid base64 signature removed")
	}
}

func TestRuleStripInvalidThinkingSignatures(t *testing.T) {
	in := replaytest.Messages(t, `[{"role":"assistant","content":[{"type":"thinking","thinking":"a"},{"type":"thinking","thinking":"b","signature":" "},{"type":"thinking","thinking":"c","thinkingSignature":"s"},{"type":"redacted_thinking","data":"d"}]},
	 {"role":"assistant","content":[{"type":"thinking","thinking":"x"}]}]`)
	replaytest.AssertMessages(t, StripInvalidThinkingSignatures(in, false, newLog()), `[
	 {"role":"assistant","content":[{"type":"thinking","thinking":"c","thinkingSignature":"s"},{"type":"redacted_thinking","data":"d"}]},
	 {"role":"assistant","content":[{"type":"text","text":"[assistant reasoning omitted]"}]}]`)
}

func TestRuleDropThinkingBlocks(t *testing.T) {
	in := replaytest.Messages(t, `[{"role":"assistant","content":[{"type":"thinking","thinking":"old","thinkingSignature":"s"}]},{"role":"user","content":"u"},
	 {"role":"assistant","content":[{"type":"thinking","thinking":"new","thinkingSignature":"s"},{"type":"text","text":"t"}]}]`)
	replaytest.AssertMessages(t, dropThinkingBlocks(in, newLog()), `[{"role":"assistant","content":[{"type":"text","text":"[assistant reasoning omitted]"}]},{"role":"user","content":"u"},
	 {"role":"assistant","content":[{"type":"thinking","thinking":"new","thinkingSignature":"s"},{"type":"text","text":"t"}]}]`)
}

func TestRuleDropReasoningFromHistory(t *testing.T) {
	in := replaytest.Messages(t, `[{"role":"user","content":"a"},{"role":"assistant","content":[{"type":"thinking","thinking":"old"},{"type":"text","text":"v"}]},
	 {"role":"user","content":"b"},{"role":"assistant","content":[{"type":"thinking","thinking":"now"},{"type":"toolCall","id":"c1","name":"x","arguments":{}}]},
	 {"role":"toolResult","toolCallId":"c1","content":[]}]`)
	out := dropReasoningFromHistory(in, newLog())
	replaytest.AssertMessages(t, out[1:2], `[{"role":"assistant","content":[{"type":"text","text":"v"}]}]`)
	if len(out[3].Get("content").([]any)) != 2 {
		t.Error("current tool turn lost its reasoning")
	}
}

// sanitizeToolCallId keeps a long strict id; makeUniqueToolId caps it at 40.
func TestRuleToolCallIDsStrictCap(t *testing.T) {
	long := sanitizeToolCallID(strings.Repeat("x", 60), policy.IDStrict)
	if u := makeUniqueToolID(strings.Repeat("x", 60), policy.IDStrict, map[string]bool{}); len(u) != 40 || long != strings.Repeat("x", 60) {
		t.Errorf("40-char cap: %q", u)
	}
}

func TestRuleOpenAIFunctionCallPairs(t *testing.T) {
	pairs := replaytest.Messages(t, `[{"role":"assistant","content":[{"type":"toolCall","id":"call_a|fc_1"}]},{"role":"toolResult","toolCallId":"call_a|fc_1"},
	 {"role":"assistant","content":[{"type":"thinking","thinkingSignature":"{\"id\":\"rs_1\",\"type\":\"reasoning\"}"},{"type":"toolCall","id":"call_b|fc_2"}]}]`)
	out := downgradeOpenAIFunctionCallReasoningPairs(pairs, newLog())
	if out[0].Get("content").([]any)[0].(*jsvalue.Object).Get("id") != "call_a" || out[1].Get("toolCallId") != "call_a" {
		t.Errorf("unpaired fc id not cut: %v", out[:2])
	}
	if out[2].Get("content").([]any)[1].(*jsvalue.Object).Get("id") != "call_b|fc_2" {
		t.Error("fc id with its reasoning item was cut")
	}
}

func TestRuleStripToolResultDetails(t *testing.T) {
	in := replaytest.Messages(t, `[{"role":"toolResult","toolCallId":"a","details":{"x":1}}]`)
	replaytest.AssertMessages(t, StripToolResultDetails(in, newLog()), `[{"role":"toolResult","toolCallId":"a"}]`)
}

func TestRuleStaleUsage(t *testing.T) {
	stale := replaytest.Messages(t, `[{"role":"assistant","content":[],"usage":{"input":5},"timestamp":10},{"role":"compactionSummary","summary":"s","timestamp":20},{"role":"assistant","content":[],"usage":{"input":5},"timestamp":30}]`)
	out := stripStaleAssistantUsageBeforeLatestCompaction(stale, newLog())
	if out[0].Get("usage").(*jsvalue.Object).Get("totalTokens") != jsvalue.JSONNumber(0) || out[2].Get("usage").(*jsvalue.Object).Get("input") != json.Number("5") {
		t.Errorf("stale usage: %v / %v", out[0].Get("usage"), out[2].Get("usage"))
	}
}

func TestRuleTurnOrderingAndValidation(t *testing.T) {
	r := &Run{now: replaytest.SyntheticTime, nowValid: true}
	in := replaytest.Messages(t, `[{"role":"assistant","content":[{"type":"text","text":"a"}]},{"role":"assistant","content":[{"type":"text","text":"b"}],"stopReason":"stop"}]`)
	ordered := r.assistantFirstOrdering(in, RuleGoogleTurnOrdering)
	if len(ordered) != 3 || ordered[0].Get("content") != "(session bootstrap)" {
		t.Fatalf("bootstrap: %v", ordered)
	}
	if again := r.assistantFirstOrdering(ordered, RuleGoogleTurnOrdering); len(again) != 3 {
		t.Error("bootstrap added twice")
	}
	replaytest.AssertMessages(t, ValidateGeminiTurns(in, newLog()), `[{"role":"assistant","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}],"stopReason":"stop"}]`)
}
