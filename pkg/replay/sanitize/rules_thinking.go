package sanitize

import (
	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
)

// R6-R8: thinking-block rules (src/agents/pi-embedded-runner/thinking.ts).

const omittedReasoningText = "[assistant reasoning omitted]"

func omittedReasoningContent() []any {
	return []any{jsvalue.TextBlock(omittedReasoningText)}
}

// AssistantContent returns an assistant message's array content.
func AssistantContent(m Message) ([]any, bool) {
	if jsvalue.Role(m) != "assistant" {
		return nil, false
	}
	return jsvalue.ArrayMember(m, "content")
}

// IsThinkingBlock: a thinking or redacted_thinking block.
func IsThinkingBlock(b any) bool {
	bm, ok := b.(*jsvalue.Object)
	if !ok || bm == nil {
		return false
	}
	t := jsvalue.StringOrEmpty(bm, "type")
	return t == "thinking" || t == "redacted_thinking"
}

// isThinkingToolCallBlock is thinking.ts's tool-call test (toolCall,
// tool_use, function_call).
func isThinkingToolCallBlock(b any) bool {
	bm, ok := b.(*jsvalue.Object)
	if !ok || bm == nil {
		return false
	}
	switch jsvalue.StringOrEmpty(bm, "type") {
	case "toolCall", "tool_use", "function_call":
		return true
	}
	return false
}

// hasReplayableThinkingSignature: a non-blank signature (or, for
// redacted_thinking, data).
func hasReplayableThinkingSignature(bm *jsvalue.Object) bool {
	keys := []string{"signature", "thinkingSignature", "thought_signature"}
	if jsvalue.StringOrEmpty(bm, "type") == "redacted_thinking" {
		keys = append([]string{"data"}, keys...)
	}
	for _, k := range keys {
		if s, ok := jsvalue.StringMember(bm, k); ok && !jsjson.Blank(s) {
			return true
		}
	}
	return false
}

// replaceContent records a thinking rule's rewrite of message i.
func replaceThinking(m Message, kept []any) Message {
	if len(kept) == 0 {
		return m.With("content", omittedReasoningContent())
	}
	return m.With("content", kept)
}

// LatestAssistantWithContent is the index of the last assistant message
// with array content (-1: none).
func LatestAssistantWithContent(in []Message) int {
	for i := len(in) - 1; i >= 0; i-- {
		if _, ok := AssistantContent(in[i]); ok {
			return i
		}
	}
	return -1
}

// StripInvalidThinkingSignatures removes thinking blocks whose signature is
// missing or blank (Anthropic and Bedrock reject them); a turn left empty
// says "[assistant reasoning omitted]". preserveLatest (2026.9.6, where
// providers reject a modified latest thinking block) leaves the latest
// assistant turn alone.
func StripInvalidThinkingSignatures(in []Message, preserveLatest bool, log *ChangeLog) []Message {
	latest := -1
	if preserveLatest {
		latest = LatestAssistantWithContent(in)
	}
	unsigned := func(b any) bool {
		return IsThinkingBlock(b) && !hasReplayableThinkingSignature(b.(*jsvalue.Object))
	}
	return dropAssistantBlocks(in, log, func(i int) bool { return i == latest }, unsigned, "unsigned thinking block removed", "unsigned thinking blocks removed")
}

// dropAssistantBlocks removes the blocks drop picks from every assistant turn
// skip does not exclude, copying only the messages it changes; a turn left
// empty says "[assistant reasoning omitted]". what names the blocks in the
// change log.
func dropAssistantBlocks(in []Message, log *ChangeLog, skip func(i int) bool, drop func(b any) bool, one, many string) []Message {
	var out []Message
	for i, m := range in {
		content, ok := AssistantContent(m)
		if !ok || (skip != nil && skip(i)) {
			continue
		}
		kept := make([]any, 0, len(content))
		for _, b := range content {
			if !drop(b) {
				kept = append(kept, b)
			}
		}
		if len(kept) == len(content) {
			continue
		}
		if out == nil {
			out = append([]Message(nil), in...)
		}
		log.AddText(i, KindBlockDropped, CountNoun(len(content)-len(kept), one, many))
		out[i] = replaceThinking(m, kept)
	}
	if out == nil {
		return in
	}
	return out
}

// dropThinkingBlocks removes thinking blocks from every assistant turn but
// the latest one (older Claude models must not see earlier reasoning).
func dropThinkingBlocks(in []Message, log *ChangeLog) []Message {
	latest := -1
	for i := len(in) - 1; i >= 0; i-- {
		if _, ok := AssistantContent(in[i]); ok {
			latest = i
			break
		}
	}
	return dropAssistantBlocks(in, log, func(i int) bool { return i == latest }, IsThinkingBlock, "thinking block removed from an earlier turn", "thinking blocks removed from an earlier turn")
}

// IsCurrentToolTurn is shouldPreserveCurrentToolTurnReasoning: the assistant
// turn that called a tool after the latest user message, directly after it,
// with a tool result following before any user turn.
func IsCurrentToolTurn(msgs []Message, index, latestUser int) bool {
	content, ok := AssistantContent(msgs[index])
	if index < latestUser || !ok {
		return false
	}
	hasCall := false
	for _, b := range content {
		if isThinkingToolCallBlock(b) {
			hasCall = true
			break
		}
	}
	if !hasCall {
		return false
	}
	for i := index - 1; i >= 0; i-- {
		switch jsvalue.Role(msgs[i]) {
		case "user":
			i = -1
		case "assistant":
			return false
		}
	}
	for i := index + 1; i < len(msgs); i++ {
		switch jsvalue.Role(msgs[i]) {
		case "toolResult":
			return true
		case "user":
			return false
		}
	}
	return false
}

// dropReasoningFromHistory removes thinking blocks from every assistant turn
// except the current tool turn (Gemma 4 over OpenAI-compatible endpoints).
func dropReasoningFromHistory(in []Message, log *ChangeLog) []Message {
	latestUser := -1
	for i := len(in) - 1; i >= 0; i-- {
		if jsvalue.Role(in[i]) == "user" {
			latestUser = i
			break
		}
	}
	return dropAssistantBlocks(in, log, func(i int) bool { return IsCurrentToolTurn(in, i, latestUser) }, IsThinkingBlock, "reasoning block removed from history", "reasoning blocks removed from history")
}
