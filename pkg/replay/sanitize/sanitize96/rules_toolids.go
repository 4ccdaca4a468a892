package sanitize96

import (
	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
	"github.com/openclaw-tools/oc/pkg/replay/sanitize"
)

// OpenClaw 2026.9.6's sanitizeToolCallIdsForCloudCodeAssist
// (dist/tool-call-id-*.mjs). Compared with 2026.5.6: a tool result's ids are
// all rewritten to the one id its primary id (call_id, callId, tool_call_id,
// tool_use_id, toolCallId, toolUseId, in that order) resolves to, and it
// gains a toolCallId when it had none; duplicateToolCallIdStyle "openai"
// keeps a first call_* id and gives repeats call_<hash>; a sessions_spawn
// call with attachments no longer counts as needing a rewrite.

func isReplaySafeThinkingMessage(m sanitize.Message, allowed sanitize.AllowedNames) bool {
	return sanitize.IsReplaySafeThinking(m, allowed, toolNameNeedsTrim)
}

// toolNameNeedsTrim is 9.6's replay-mutation test in that check: a tool
// call whose name is a string with white space around it.
func toolNameNeedsTrim(bm *jsvalue.Object) bool {
	raw, isStr := jsvalue.StringMember(bm, "name")
	return isStr && raw != "" && raw != jsjson.Trim(raw)
}

// toolIDRelease is 2026.9.6's sanitizeToolCallIdsForCloudCodeAssist.
func toolIDRelease() sanitize.ToolIDRelease {
	return sanitize.ToolIDRelease{ObjectsOnly: true, SafeThinking: isReplaySafeThinkingMessage, RewriteResult: rewriteResultIDs}
}

// rewriteResultIDs rewrites all of a tool result's ids to the one its
// primary id resolves to.
func rewriteResultIDs(i int, m sanitize.Message, res *sanitize.IDResolver, log *sanitize.ChangeLog) (sanitize.Message, bool) {
	next := rewriteToolResultIDs(m, res.ResultID)
	if sameMessage(next, m) {
		return m, false
	}
	log.Add(i, sanitize.KindIDRewritten, "tool result id -> %s", jsvalue.StringOrEmpty(next, "toolCallId"))
	return next, true
}
