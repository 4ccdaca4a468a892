package replay

import (
	"encoding/json"
	"testing"

	"github.com/openclaw-tools/oc/internal/oracletest"
	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
)

// An assistant "stop" turn whose content repeats the previous assistant
// turn's and whose usage sanitize has zeroed (stale: stamped before the
// latest compaction) or added (none stored) is dropped at 2026.9.6's LLM
// boundary: normalizeMessagesForLlmBoundary runs normalizeAssistantReplayContent
// (isBareDeliveryMirrorDuplicate) again on the sanitized list. Fuzz-found
// (the wire had one assistant turn more than OpenClaw's). repeat.jsonl
// (crafted) has two and three repeats, a repeat with real usage and one
// after a turn with real usage, a repeat after an aborted turn and an
// aborted or errored repeat, thinking plus text, a text signature on one
// side, another key order, a runtime-context message between, a white-space
// difference, a length-stopped repeat, repeated user turns, string against
// block content, a repeat without usage and one after a silent turn.
// Expected: the 9.6 oracle's answers (gen.sh), from its `limited` list.
func TestPayload96RepeatedAssistantTurn(t *testing.T) {
	answers, cases := storedRouteCases96(t, "testdata/payload96-repeat/oracle-answers.jsonl", "repeat", []string{"openai|openai-responses|gpt-5", "openai|openai-completions|gpt-4o-mini",
		"anthropic|anthropic-messages|claude-sonnet-4-5", "google|google-generative-ai|gemini-2.5-pro",
		"mistral|mistral-conversations|mistral-large-latest", "azure-openai-responses|azure-openai-responses|gpt-5",
		"openai|openai-chatgpt-responses|gpt-5.5"})
	// The answers must hold dropped repeats, or the test compares nothing
	// new: on openai-completions each assistant turn is one message.
	msgs := limitedMessages(t, answers["sanitize|openai|openai-completions|gpt-4o-mini"])
	var body struct {
		Messages []struct {
			Role string `json:"role"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(answers["payload|openai|openai-completions|gpt-4o-mini"], &body); err != nil {
		t.Fatal(err)
	}
	limitedTurns, wireTurns := 0, 0
	for _, m := range msgs {
		if jsvalue.Role(m) == "assistant" {
			limitedTurns++
		}
	}
	for _, m := range body.Messages {
		if m.Role == "assistant" {
			wireTurns++
		}
	}
	if wireTurns >= limitedTurns {
		t.Fatalf("stored answers: %d assistant turns in limited, %d on the wire: no repeat dropped", limitedTurns, wireTurns)
	}
	equal, _ := runPayload96Cases(t, cases)
	oracletest.Compared(t, "2026.9.6 repeated assistant turn payload equal byte for byte", equal, len(cases))
}
