package sanitize

import (
	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
)

// OpenClaw 2026.9.6's sanitizeToolCallIdsForCloudCodeAssist
// (dist/tool-call-id-*.mjs). Compared with 2026.5.6: a tool result's ids are
// all rewritten to the one id its primary id (call_id, callId, tool_call_id,
// tool_use_id, toolCallId, toolUseId, in that order) resolves to, and it
// gains a toolCallId when it had none; duplicateToolCallIdStyle "openai"
// keeps a first call_* id and gives repeats call_<hash>; a sessions_spawn
// call with attachments no longer counts as needing a rewrite.

func isReplaySafeThinkingMessage96(m Message, allowed AllowedNames) bool {
	return IsReplaySafeThinking(m, allowed, toolNameNeedsTrim96)
}

// toolNameNeedsTrim96 is 9.6's replay-mutation test in that check: a tool
// call whose name is a string with white space around it.
func toolNameNeedsTrim96(bm *jsvalue.Object) bool {
	raw, isStr := jsvalue.StringMember(bm, "name")
	return isStr && raw != "" && raw != jsjson.Trim(raw)
}

// toolIDRelease96 is 2026.9.6's sanitizeToolCallIdsForCloudCodeAssist.
func toolIDRelease96() ToolIDRelease {
	return ToolIDRelease{ObjectsOnly: true, SafeThinking: isReplaySafeThinkingMessage96, RewriteResult: rewriteToolResultIDs96}
}

// rewriteToolResultIDs96 rewrites all of a tool result's ids to the one its
// primary id resolves to.
func rewriteToolResultIDs96(i int, m Message, res *IDResolver, log *ChangeLog) (Message, bool) {
	next := rewriteToolResultIDs(m, res.ResultID)
	if sameMessage(next, m) {
		return m, false
	}
	log.Add(i, KindIDRewritten, "tool result id -> %s", jsvalue.StringOrEmpty(next, "toolCallId"))
	return next, true
}
