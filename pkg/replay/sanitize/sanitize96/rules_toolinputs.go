package sanitize96

import (
	"encoding/json"
	"strings"

	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
	"github.com/openclaw-tools/oc/pkg/replay/sanitize"
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
func isFinalizedOpenAIResponsesToolCall(m sanitize.Message, bm *jsvalue.Object) bool {
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

// trimToolCallName is 9.6's sanitizeToolCallBlock: only the name is trimmed.
func trimToolCallName(bm *jsvalue.Object) (*jsvalue.Object, bool) {
	raw, ok := jsvalue.StringMember(bm, "name")
	t := jsjson.Trim(raw)
	if !ok || t == "" || t == raw {
		return bm, false
	}
	return bm.With("name", t), true
}

// toolCallNeedsChange is 9.6's test, in a signed-thinking turn, for a tool
// call that replay would change: an unfinished call (string partialJson) or
// a name to trim.
func toolCallNeedsChange(bm *jsvalue.Object) bool {
	if jsvalue.Has(bm, "partialJson") && isStringValue(bm.Get("partialJson")) {
		return true
	}
	_, changed := trimToolCallName(bm)
	return changed
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
func collectFollowingToolResults(in []sanitize.Message, index int) (map[string]bool, bool) {
	ids := map[string]bool{}
	calls := sanitize.ToolCallsOf(in[index])
	sawOther, displaced := false, false
	for _, m := range in[index+1:] {
		if !sanitize.IsJSObjectMessage(m) {
			sawOther = true
			continue
		}
		if jsvalue.Role(m) == "assistant" && len(sanitize.ToolCallsOf(m)) > 0 {
			break
		}
		if jsvalue.Role(m) == "toolResult" {
			rids := toolResultIDs(normalizeLegacyToolResultID(m, calls))
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

// toolInputRelease is 2026.9.6's sanitizeToolCallInputs.
func toolInputRelease() sanitize.ToolInputRelease {
	return sanitize.ToolInputRelease{
		ObjectsOnly:    true,
		IsCallBlock:    isContractToolCallBlock,
		KeepSignedTurn: keepSignedTurn,
		SanitizeCall:   sanitizeToolCall,
		ReplaceContent: replaceReplayOwnerContent,
		NoteTurn: func(seen *sanitize.ToolInputCalls, m sanitize.Message) {
			for _, c := range sanitize.ToolCallsOf(m) {
				seen.Prior[c.ID] = true
			}
		},
	}
}

// keepSignedTurn keeps a replay-safe signed-thinking turn whose call ids no
// earlier kept signed turn claimed, whose sessions_spawn attachments have
// their results, and, when its results were displaced, whose calls no
// earlier turn made; keeping a displaced turn counts as a change.
func keepSignedTurn(seen *sanitize.ToolInputCalls, in []sanitize.Message, i int, content []any, allowed sanitize.AllowedNames) (bool, bool) {
	refs := sanitize.ToolCallsOf(in[i])
	following, displaced := collectFollowingToolResults(in, i)
	spawn := hasSessionsSpawnAttachments(content)
	safe := sanitize.ReplaySafeToolCalls(content, allowed, isContractToolCallBlock, toolCallNeedsChange)
	for _, r := range refs {
		if seen.Preserved[r.ID] || (spawn && !following[r.ID]) || (displaced && seen.Prior[r.ID]) {
			safe = false
		}
	}
	if !safe {
		return false, false
	}
	for _, r := range refs {
		seen.Preserved[r.ID] = true
		seen.Prior[r.ID] = true
	}
	return true, displaced
}

// sanitizeToolCall drops a call without input, id or an allowed name, or
// never finished; removes the partialJson of a finished OpenAI Responses
// call; trims the name.
func sanitizeToolCall(m sanitize.Message, i, j int, bm *jsvalue.Object, allowed sanitize.AllowedNames, log *sanitize.ChangeLog) (*jsvalue.Object, bool, bool) {
	if !sanitize.HasToolCallInput(bm) || !hasContractToolCallID(bm) || !sanitize.IsAllowedToolCallName(bm.Get("name"), allowed) {
		log.Add(i, sanitize.KindBlockDropped, "tool call %d (%s) has no input, no id or an invalid name", j, sanitize.DescribeCall(bm))
		return nil, false, true
	}
	work, changed := bm, false
	if isStringValue(bm.Get("partialJson")) {
		if !isFinalizedOpenAIResponsesToolCall(m, bm) {
			log.Add(i, sanitize.KindBlockDropped, "tool call %d (%s) was never finished (partialJson)", j, sanitize.DescribeCall(bm))
			return nil, false, true
		}
		work = bm.Clone()
		work.Delete("partialJson")
		changed = true
		log.Add(i, sanitize.KindContentChanged, "tool call %d: partialJson of a finished call removed", j)
	}
	if s, c := trimToolCallName(work); c {
		changed = true
		log.Add(i, sanitize.KindContentChanged, "tool call %d name trimmed", j)
		work = s
	}
	return work, true, changed
}
