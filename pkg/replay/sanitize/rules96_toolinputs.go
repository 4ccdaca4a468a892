package sanitize

import (
	"encoding/json"
	"strings"

	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
)

// OpenClaw 2026.9.6's sanitizeToolCallInputs (dist/session-transcript-repair-*.mjs
// repairToolCallInputs). Compared with 2026.5.6: messages that are not
// objects are dropped; the tool-call block types of tool-block-contract
// (also tool_call, tool_use, function_call) are checked; any of the id keys
// counts as an id; a finalized OpenAI Responses call keeps its arguments and
// loses its partialJson, other calls with partialJson are dropped;
// sessions_spawn attachments are no longer redacted; a signed-thinking turn
// whose results were displaced is checked against earlier calls.

// isContractToolCallBlock: a tool-call block type of tool-block-contract.
func isContractToolCallBlock(b any) bool {
	bm, ok := jsvalue.AsObject(b)
	if !ok {
		return false
	}
	switch jsvalue.StringOrEmpty(bm, "type") {
	case "toolCall", "toolUse", "functionCall", "tool_call", "tool_use", "function_call":
		return true
	}
	return false
}

// hasContractToolCallID is collectToolCallIds(block).length > 0.
func hasContractToolCallID(bm *jsvalue.Object) bool {
	for _, k := range []string{"call_id", "tool_call_id", "toolCallId", "tool_use_id", "toolUseId", "id"} {
		if optionalString(bm.Get(k)) != "" {
			return true
		}
	}
	return false
}

// isCompleteJSONObject is safeParseJsonRecord(value) !== undefined.
func isCompleteJSONObject(s string) bool {
	var v any
	if json.Unmarshal([]byte(s), &v) != nil {
		return false
	}
	_, ok := v.(map[string]any)
	return ok
}

// isFinalizedOpenAIResponsesToolCall: a finished Responses call ("toolUse"
// turn, "call|item" id, object arguments) whose partialJson is complete or
// empty.
func isFinalizedOpenAIResponsesToolCall(m Message, bm *jsvalue.Object) bool {
	pj, ok := jsvalue.StringMember(bm, "partialJson")
	if jsvalue.Role(m) != "assistant" || !jsvalue.Has(m, "stopReason") || jsvalue.StringOrEmpty(m, "stopReason") != "toolUse" || !ok {
		return false
	}
	id, ok := jsvalue.StringMember(bm, "id")
	if !ok || jsvalue.Has(bm, "input") {
		return false
	}
	args, ok := jsvalue.AsObject(bm.Get("arguments"))
	if !ok {
		return false
	}
	if !isCompleteJSONObject(pj) && (jsjson.Trim(pj) != "" || args.Len() > 0) {
		return false
	}
	sep := strings.Index(id, "|")
	return sep > 0 && sep < len(id)-1
}

// trimToolCallName96 is 9.6's sanitizeToolCallBlock: only the name is trimmed.
func trimToolCallName96(bm *jsvalue.Object) (*jsvalue.Object, bool) {
	raw, ok := jsvalue.StringMember(bm, "name")
	t := jsjson.Trim(raw)
	if !ok || t == "" || t == raw {
		return bm, false
	}
	return bm.With("name", t), true
}

func isReplaySafeThinkingTurn96(content []any, allowed allowedNames) bool {
	sawCall := false
	seen := map[string]bool{}
	for _, b := range content {
		if !isContractToolCallBlock(b) {
			continue
		}
		bm := b.(*jsvalue.Object)
		sawCall = true
		id := jsjson.Trim(jsvalue.StringOrEmpty(bm, "id"))
		if !hasToolCallInput(bm) || jsvalue.Has(bm, "partialJson") && isStringValue(bm.Get("partialJson")) || id == "" || seen[id] || !isAllowedToolCallName(bm.Get("name"), allowed) {
			return false
		}
		seen[id] = true
		if _, changed := trimToolCallName96(bm); changed {
			return false
		}
	}
	return sawCall
}

func isStringValue(v any) bool { _, ok := v.(string); return ok }

func hasSessionsSpawnAttachments(content []any) bool {
	for _, b := range content {
		if !isContractToolCallBlock(b) {
			continue
		}
		bm := b.(*jsvalue.Object)
		if jsvalue.StringOrEmpty(bm, "name") != "sessions_spawn" {
			continue
		}
		input, ok := jsvalue.AsObject(bm.Get("input"))
		if !ok {
			continue
		}
		if a, ok := input.Get("attachments").([]any); ok && len(a) > 0 {
			return true
		}
	}
	return false
}

// collectFollowingToolResults: the result ids after an assistant turn up to
// the next tool-calling turn, and whether any came after another message.
func collectFollowingToolResults(in []Message, index int) (map[string]bool, bool) {
	ids := map[string]bool{}
	calls := toolCalls96(in[index])
	sawOther, displaced := false, false
	for _, m := range in[index+1:] {
		if !isJSObjectMessage(m) {
			sawOther = true
			continue
		}
		if jsvalue.Role(m) == "assistant" && len(toolCalls96(m)) > 0 {
			break
		}
		if jsvalue.Role(m) == "toolResult" {
			rids := toolResultIDs96(normalizeLegacyToolResultID(m, calls))
			for _, id := range rids {
				ids[id] = true
			}
			displaced = displaced || (len(rids) > 0 && sawOther)
			continue
		}
		sawOther = true
	}
	return ids, displaced
}

func sanitizeToolCallInputs96(in []Message, o toolInputOptions, log *changeLog) []Message {
	out := make([]Message, 0, len(in))
	changed := false
	preserved := map[string]bool{}
	prior := map[string]bool{}
	for i, m := range in {
		if !isJSObjectMessage(m) {
			changed = true
			log.add(i, KindMessageDropped, "message that is not an object dropped")
			continue
		}
		content, ok := assistantContent(m)
		if !ok {
			out = append(out, m)
			continue
		}
		calls, thinking := 0, false
		for _, b := range content {
			if isContractToolCallBlock(b) {
				calls++
			}
			thinking = thinking || isThinkingBlock(b)
		}
		if o.ownedThinking && thinking && calls > 0 {
			refs := toolCalls96(m)
			following, displaced := collectFollowingToolResults(in, i)
			spawn := hasSessionsSpawnAttachments(content)
			safe := isReplaySafeThinkingTurn96(content, o.allowed)
			for _, r := range refs {
				if preserved[r.id] || (spawn && !following[r.id]) || (displaced && prior[r.id]) {
					safe = false
				}
			}
			if safe {
				for _, r := range refs {
					preserved[r.id] = true
					prior[r.id] = true
				}
				changed = changed || displaced
				out = append(out, m)
			} else {
				changed = true
				log.add(i, KindMessageDropped, "signed-thinking turn with %s that would need changes dropped whole", countNoun(calls, "tool call", "tool calls"))
			}
			continue
		}
		next := make([]any, 0, len(content))
		msgChanged := false
		for j, b := range content {
			if isContractToolCallBlock(b) {
				bm := b.(*jsvalue.Object)
				if !hasToolCallInput(bm) || !hasContractToolCallID(bm) || !isAllowedToolCallName(bm.Get("name"), o.allowed) {
					msgChanged = true
					log.add(i, KindBlockDropped, "tool call %d (%s) has no input, no id or an invalid name", j, describeCall(bm))
					continue
				}
				work := bm
				if isStringValue(bm.Get("partialJson")) {
					if !isFinalizedOpenAIResponsesToolCall(m, bm) {
						msgChanged = true
						log.add(i, KindBlockDropped, "tool call %d (%s) was never finished (partialJson)", j, describeCall(bm))
						continue
					}
					work = bm.Clone()
					work.Delete("partialJson")
					msgChanged = true
					log.add(i, KindContentChanged, "tool call %d: partialJson of a finished call removed", j)
				}
				if s, c := trimToolCallName96(work); c {
					msgChanged = true
					log.add(i, KindContentChanged, "tool call %d name trimmed", j)
					work = s
				}
				next = append(next, work)
				continue
			}
			next = append(next, b)
		}
		if msgChanged {
			changed = true
			if len(next) == 0 {
				log.add(i, KindMessageDropped, "assistant turn left empty after dropping tool calls")
				continue
			}
			nm := replaceReplayOwnerContent(m, next)
			for _, c := range toolCalls96(nm) {
				prior[c.id] = true
			}
			out = append(out, nm)
			continue
		}
		for _, c := range toolCalls96(m) {
			prior[c.id] = true
		}
		out = append(out, m)
	}
	if !changed {
		return in
	}
	return out
}
