package sanitize56

import (
	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
	"github.com/openclaw-tools/oc/pkg/replay/sanitize"
)

// R11: 2026.5.6's values for sanitizeToolCallIdsForCloudCodeAssist
// (src/agents/tool-call-id.ts).

// toolIDRelease is 2026.5.6's sanitizeToolCallIdsForCloudCodeAssist.
func toolIDRelease() sanitize.ToolIDRelease {
	return sanitize.ToolIDRelease{SafeThinking: isReplaySafeThinkingMessage, RewriteResult: rewriteToolResultIDs}
}

// isReplaySafeThinkingMessage is tool-call-id.ts's check for a signed
// thinking turn whose ids must stay as they are.
func isReplaySafeThinkingMessage(m sanitize.Message, allowed sanitize.AllowedNames) bool {
	return sanitize.IsReplaySafeThinking(m, allowed, toolCallNeedsReplayMutation)
}

// toolCallNeedsReplayMutation: an untrimmed name or unredacted
// sessions_spawn attachments.
func toolCallNeedsReplayMutation(bm *jsvalue.Object) bool {
	if raw, ok := jsvalue.StringMember(bm, "name"); ok && raw != "" && raw != jsjson.Trim(raw) {
		return true
	}
	return hasUnredactedSessionsSpawnAttachments(bm)
}

func hasUnredactedSessionsSpawnAttachments(bm *jsvalue.Object) bool {
	if !isSessionsSpawn(bm) {
		return false
	}
	for _, key := range []string{"arguments", "input"} {
		p, ok := jsvalue.AsObject(bm.Get(key))
		if !ok {
			continue
		}
		atts, ok := p.Get("attachments").([]any)
		if !ok {
			continue
		}
		for _, a := range atts {
			if !isRedactedAttachment(a) {
				return true
			}
		}
	}
	return false
}

// rewriteToolResultIDs resolves a tool result's toolCallId and toolUseId
// (one id when they are equal).
func rewriteToolResultIDs(i int, m sanitize.Message, res *sanitize.IDResolver, log *sanitize.ChangeLog) (sanitize.Message, bool) {
	callID, _ := jsvalue.StringMember(m, "toolCallId")
	useID, _ := jsvalue.StringMember(m, "toolUseId")
	var nextCall, nextUse string
	if callID != "" && useID != "" && callID == useID {
		shared := res.ResultID(callID)
		nextCall, nextUse = shared, shared
	} else {
		if callID != "" {
			nextCall = res.ResultID(callID)
		}
		if useID != "" {
			nextUse = res.ResultID(useID)
		}
	}
	if nextCall == callID && nextUse == useID {
		return m, false
	}
	next := m.Clone()
	if nextCall != "" {
		next.Set("toolCallId", nextCall)
	}
	if nextUse != "" {
		next.Set("toolUseId", nextUse)
	}
	if nextCall != callID {
		log.Add(i, sanitize.KindIDRewritten, "tool result id %s -> %s", callID, nextCall)
	}
	if nextUse != useID {
		log.Add(i, sanitize.KindIDRewritten, "tool result toolUseId %s -> %s", useID, nextUse)
	}
	return next, true
}
