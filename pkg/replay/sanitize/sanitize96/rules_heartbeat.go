package sanitize96

import (
	"encoding/json"
	"strings"

	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
	"github.com/openclaw-tools/oc/pkg/replay/sanitize"
)

// OpenClaw 2026.9.6's filterHeartbeatTranscriptArtifacts
// (dist/heartbeat-filter-*.mjs, region auto-reply/heartbeat-filter.ts), run
// with the oracle's arguments (no ackMaxChars: 300; no configured heartbeat
// prompt). 5.6 dropped a poll and the bare HEARTBEAT_OK right after it; 9.6
// drops a heartbeat prompt with the whole span it started (tool turns, acks,
// silent heartbeat_respond calls) up to the next real user turn, unless the
// span held visible assistant output or a completed visible notification.

const (
	heartbeatContextPrompt      = "Follow the heartbeat monitor scratch context when provided. Recurring tasks are automations; create or change their schedules with the automations tool, not heartbeat scratch. Do not infer or repeat old tasks from prior chats."
	heartbeatToolInstructions   = "Use heartbeat_respond to report the wake outcome. Set notify=false when nothing needs the user's attention. Set notify=true with notificationText only when the user should be interrupted."
	heartbeatToolFallback       = "If the heartbeat_respond tool is not available in this run, reply NO_REPLY when nothing needs the user's attention; when the user should be interrupted, reply with only the alert text instead of a prose report."
	heartbeatResponseToolPrompt = heartbeatContextPrompt + " " + heartbeatToolInstructions + " " + heartbeatToolFallback
	heartbeatResponseToolName   = "heartbeat_respond"
)

// internalWakeTranscriptPrompts is INTERNAL_WAKE_TRANSCRIPT_PROMPTS.
var internalWakeTranscriptPrompts = []string{
	"[OpenClaw heartbeat poll]",
	"[OpenClaw exec completion]\nDisable automatic completion turns with tools.exec.notifyOnExit=false; check per-agent overrides. Background exec and process poll remain available.",
	"[OpenClaw exec completion]",
	"[OpenClaw cron wake]",
	"[OpenClaw session event]",
}

// heartbeatTaskCompletions is HEARTBEAT_TASK_PROMPT_COMPLETIONS.
var heartbeatTaskCompletions = []string{
	"After completing all due tasks, reply HEARTBEAT_OK.",
	"After completing all due tasks, reply NO_REPLY.",
	heartbeatToolInstructions,
	"After completing all due tasks, use " + heartbeatResponseToolName,
}

// messageText is 9.6's resolveMessageText: thinking and reasoning blocks
// are skipped, input_text and output_text count as text.
func messageText(content any) (string, bool) {
	return sanitize.JoinTextBlocks(content, textBlockKind)
}

func textBlockKind(typ string) sanitize.BlockKind {
	switch typ {
	case "thinking", "reasoning", "redacted_thinking":
		return sanitize.BlockSkip
	case "text", "input_text", "output_text":
		return sanitize.BlockText
	}
	return sanitize.BlockOther
}

func isContractToolResultBlock(b any) bool {
	bm, ok := jsvalue.AsObject(b)
	if !ok {
		return false
	}
	switch jsvalue.StringOrEmpty(bm, "type") {
	case "toolResult", "tool_result", "tool_result_error", "function_call_output":
		return true
	}
	return false
}

func contentBlocksWhere(content any, pred func(any) bool) []*jsvalue.Object {
	c, _ := content.([]any)
	var out []*jsvalue.Object
	for _, b := range c {
		if pred(b) {
			out = append(out, b.(*jsvalue.Object))
		}
	}
	return out
}

func isEmbeddedToolResultOnlyContent(content any) bool {
	c, ok := content.([]any)
	if !ok || len(c) == 0 {
		return false
	}
	for _, b := range c {
		if !isContractToolResultBlock(b) {
			return false
		}
	}
	return true
}

func isToolResultMessage(m sanitize.Message) bool {
	r := jsvalue.Role(m)
	return r == "toolResult" || r == "tool" || (r == "user" && isEmbeddedToolResultOnlyContent(m.Get("content")))
}

// messageToolCalls is collectMessageToolCalls: message.tool_calls records.
func messageToolCalls(m sanitize.Message) []*jsvalue.Object {
	calls, _ := m.Get("tool_calls").([]any)
	var out []*jsvalue.Object
	for _, c := range calls {
		if cm, ok := jsvalue.AsObject(c); ok {
			out = append(out, cm)
		}
	}
	return out
}

func hasAssistantToolCall(m sanitize.Message) bool {
	return jsvalue.Role(m) == "assistant" && (len(messageToolCalls(m)) > 0 || len(contentBlocksWhere(m.Get("content"), isContractToolCallBlock)) > 0)
}

// readToolCallName is tool-block-contract's readToolCallName.
func readToolCallName(block *jsvalue.Object) string {
	for _, cand := range []any{block, block.Get("function")} {
		if s := optionalString(cand); s != "" {
			return s
		}
		cm, ok := jsvalue.AsObject(cand)
		if !ok {
			continue
		}
		for _, k := range []string{"name", "toolName", "tool_name", "functionName", "function_name"} {
			if s := optionalString(cm.Get(k)); s != "" {
				return s
			}
		}
	}
	return ""
}

func toolCallArguments(block *jsvalue.Object) any {
	for _, k := range []string{"arguments", "args", "input"} {
		if v := block.Get(k); v != nil {
			return v
		}
	}
	if f, ok := jsvalue.AsObject(block.Get("function")); ok {
		for _, k := range []string{"arguments", "args", "input"} {
			if v := f.Get(k); v != nil {
				return v
			}
		}
	}
	return nil
}

func isVisibleHeartbeatResponseToolCall(block *jsvalue.Object) bool {
	var notify any
	switch v := toolCallArguments(block).(type) {
	case *jsvalue.Object:
		if v == nil {
			return false
		}
		notify = v.Get("notify")
	case string:
		var args map[string]any
		if jsjson.Trim(v) == "" || json.Unmarshal([]byte(v), &args) != nil || args == nil {
			return false
		}
		notify = args["notify"]
	default:
		return false
	}
	return notify == true || notify == "true"
}

func heartbeatToolCalls(m sanitize.Message) []*jsvalue.Object {
	return append(messageToolCalls(m), contentBlocksWhere(m.Get("content"), isContractToolCallBlock)...)
}

func visibleHeartbeatResponseToolCalls(m sanitize.Message) []*jsvalue.Object {
	if jsvalue.Role(m) != "assistant" {
		return nil
	}
	var out []*jsvalue.Object
	for _, c := range heartbeatToolCalls(m) {
		if readToolCallName(c) == heartbeatResponseToolName && isVisibleHeartbeatResponseToolCall(c) {
			out = append(out, c)
		}
	}
	return out
}

func isRemovableHeartbeatResponseToolCall(m sanitize.Message) bool {
	if jsvalue.Role(m) != "assistant" {
		return false
	}
	for _, c := range heartbeatToolCalls(m) {
		if readToolCallName(c) == heartbeatResponseToolName && !isVisibleHeartbeatResponseToolCall(c) {
			return true
		}
	}
	return false
}

func isFailedToolResultRecord(r *jsvalue.Object) bool {
	return r.Get("isError") == true || r.Get("is_error") == true || optionalString(r.Get("type")) == "tool_result_error"
}

func hasSuccessfulToolResultMessage(m sanitize.Message) bool {
	if rb := contentBlocksWhere(m.Get("content"), isContractToolResultBlock); len(rb) > 0 {
		for _, b := range rb {
			if !isFailedToolResultRecord(b) {
				return true
			}
		}
		return false
	}
	return isToolResultMessage(m) && !isFailedToolResultRecord(m)
}

func contractToolCallIDs(block *jsvalue.Object) []string {
	var ids []string
	for _, k := range []string{"call_id", "tool_call_id", "toolCallId", "tool_use_id", "toolUseId", "id"} {
		if id := optionalString(block.Get(k)); id != "" {
			ids = append(ids, id)
		}
	}
	return ids
}

func successfulToolResultCallIDs(m sanitize.Message) []string {
	rb := contentBlocksWhere(m.Get("content"), isContractToolResultBlock)
	var ids []string
	if len(rb) == 0 {
		if !isFailedToolResultRecord(m) {
			for _, k := range []string{"toolCallId", "tool_call_id", "toolUseId", "tool_use_id", "call_id", "id"} {
				if id := optionalString(m.Get(k)); id != "" {
					ids = append(ids, id)
				}
			}
		}
		return ids
	}
	for _, b := range rb {
		if !isFailedToolResultRecord(b) {
			ids = append(ids, contractToolCallIDs(b)...)
		}
	}
	return ids
}

func matchesHeartbeatPromptText(text, prompt string) bool {
	p := jsjson.Trim(prompt)
	return p != "" && (text == p || strings.HasPrefix(text, p+"\n"))
}

func isHeartbeatUserMessage(m sanitize.Message) bool {
	if jsvalue.Role(m) != "user" {
		return false
	}
	text, _ := messageText(m.Get("content"))
	t := jsjson.Trim(text)
	if t == "" {
		return false
	}
	for _, p := range internalWakeTranscriptPrompts {
		if t == p {
			return true
		}
	}
	for _, h := range messageToolDeliveryHints {
		if strings.HasPrefix(t, h) {
			for _, p := range internalWakeTranscriptPrompts {
				if strings.HasSuffix(t, p) {
					return true
				}
			}
		}
	}
	if matchesHeartbeatPromptText(t, heartbeatResponseToolPrompt) {
		return true
	}
	if !strings.HasPrefix(t, sanitize.HeartbeatTaskPrefix) {
		return false
	}
	for _, c := range heartbeatTaskCompletions {
		if strings.Contains(t, c) {
			return true
		}
	}
	return false
}

func isRealNonHeartbeatUserMessage(m sanitize.Message) bool {
	return jsvalue.Role(m) == "user" && !isEmbeddedToolResultOnlyContent(m.Get("content")) && !isHeartbeatUserMessage(m)
}

func isHeartbeatOkResponse(m sanitize.Message) bool {
	if jsvalue.Role(m) != "assistant" || hasAssistantToolCall(m) {
		return false
	}
	text, nonText := messageText(m.Get("content"))
	if nonText {
		return false
	}
	return sanitize.IsSilentReplyPayloadText(text) || sanitize.HeartbeatShouldSkip(text)
}

func advancePastAdjacentToolResults(in []sanitize.Message, i int) int {
	for i < len(in) && in[i] != nil && isToolResultMessage(in[i]) {
		i++
	}
	return i
}

func hasCompletedVisibleHeartbeatResponseToolCall(in []sanitize.Message, index int) bool {
	calls := visibleHeartbeatResponseToolCalls(in[index])
	if len(calls) == 0 {
		return false
	}
	ids := map[string]bool{}
	for _, c := range calls {
		for _, id := range contractToolCallIDs(c) {
			ids[id] = true
		}
	}
	for _, res := range in[index+1:] {
		if res == nil || !(isToolResultMessage(res) || len(contentBlocksWhere(res.Get("content"), isContractToolResultBlock)) > 0) {
			break
		}
		if !hasSuccessfulToolResultMessage(res) {
			continue
		}
		if len(ids) == 0 {
			return true
		}
		for _, id := range successfulToolResultCallIDs(res) {
			if ids[id] {
				return true
			}
		}
	}
	return false
}

// heartbeatSpanEnd is resolveHeartbeatArtifactSpanEnd (-1: keep the prompt).
func heartbeatSpanEnd(in []sanitize.Message, start int) int {
	i := start + 1
	sawTerminal, sawOutput := false, false
	for i < len(in) {
		m := in[i]
		if m == nil || isRealNonHeartbeatUserMessage(m) || isHeartbeatUserMessage(m) {
			break
		}
		switch {
		case isHeartbeatOkResponse(m):
			sawTerminal = true
			i = advancePastAdjacentToolResults(in, i+1)
		case len(visibleHeartbeatResponseToolCalls(m)) > 0:
			if hasCompletedVisibleHeartbeatResponseToolCall(in, i) {
				return -1
			}
			i++
		case isRemovableHeartbeatResponseToolCall(m):
			sawTerminal = true
			i = advancePastAdjacentToolResults(in, i+1)
		case sawTerminal, isToolResultMessage(m), hasAssistantToolCall(m):
			i++
		case jsvalue.Role(m) == "assistant":
			sawOutput = true
			i++
		default:
			return -1
		}
	}
	if sawOutput && !sawTerminal {
		return -1
	}
	return i
}

// filterHeartbeatTranscriptArtifacts drops heartbeat prompts with the
// acknowledgements and silent tool turns that followed them.
func filterHeartbeatTranscriptArtifacts(in []sanitize.Message, log *sanitize.ChangeLog) []sanitize.Message {
	if len(in) == 0 {
		return in
	}
	out := make([]sanitize.Message, 0, len(in))
	whats := map[int]string{} // the change text by span length: made once, not per prompt
	for i := 0; i < len(in); {
		if in[i] == nil || !isHeartbeatUserMessage(in[i]) {
			out = append(out, in[i])
			i++
			continue
		}
		next := heartbeatSpanEnd(in, i)
		if next < 0 {
			out = append(out, in[i])
			i++
			continue
		}
		if log != nil {
			what, ok := whats[next-i-1]
			if !ok {
				what = "heartbeat prompt and " + sanitize.CountNoun(next-i-1, "message", "messages") + " of its span dropped"
				whats[next-i-1] = what
			}
			log.AddText(i, sanitize.KindMessageDropped, what)
		}
		i = next
	}
	return out
}
