package sanitize56

import (
	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
	"github.com/openclaw-tools/oc/pkg/replay/sanitize"
)

// R10: 2026.5.6's own OpenAI Responses replay rule
// (src/agents/pi-embedded-helpers/openai.ts).

func isReasoningBlock(b any) bool {
	bm, ok := jsvalue.AsObject(b)
	return ok && jsvalue.StringOrEmpty(bm, "type") == "thinking" && sanitize.IsReplayableReasoning(bm.Get("thinkingSignature"))
}

// downgradeOpenAIReasoningBlocks drops replayable reasoning blocks that no
// other block follows (orphan reasoning items are rejected), or all of them
// after a model switch.
func downgradeOpenAIReasoningBlocks(in []sanitize.Message, modelChanged bool, log *sanitize.ChangeLog) []sanitize.Message {
	out := make([]sanitize.Message, 0, len(in))
	anyChanged := false
	for i, m := range in {
		content, ok := sanitize.AssistantContent(m)
		if !ok {
			out = append(out, m)
			continue
		}
		next := make([]any, 0, len(content))
		changed := false
		for j, b := range content {
			if !isReasoningBlock(b) {
				next = append(next, b)
				continue
			}
			if modelChanged {
				changed = true
				log.Add(i, sanitize.KindBlockDropped, "reasoning block %d dropped after a model switch", j)
				continue
			}
			if hasFollowingNonThinkingBlock(content, j) {
				next = append(next, b)
				continue
			}
			changed = true
			log.Add(i, sanitize.KindBlockDropped, "orphan reasoning block %d dropped (nothing follows it)", j)
		}
		if !changed {
			out = append(out, m)
			continue
		}
		anyChanged = true
		if len(next) == 0 {
			log.Add(i, sanitize.KindMessageDropped, "assistant turn left empty dropped")
			continue
		}
		out = append(out, m.With("content", next))
	}
	if !anyChanged {
		return in
	}
	return out
}

func hasFollowingNonThinkingBlock(content []any, index int) bool {
	for _, b := range content[index+1:] {
		bm, ok := jsvalue.AsObject(b)
		if !ok || jsvalue.StringOrEmpty(bm, "type") != "thinking" {
			return true
		}
	}
	return false
}
