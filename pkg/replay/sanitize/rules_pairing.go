package sanitize

import (
	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
)

// R12/R13 (src/agents/session-transcript-repair.ts): what the releases'
// tool-use/result pairing repairs share, and tool-result detail stripping.

const (
	// MissingResultDefault is the synthetic result's text of a call left
	// without one.
	MissingResultDefault = "[openclaw] missing tool result in session history; inserted synthetic error result for transcript repair."
	// MissingResultAborted is the synthetic text on OpenAI Responses routes.
	MissingResultAborted = "aborted"
)

// IsJSObjectMessage is `message && typeof message === "object"`.
func IsJSObjectMessage(m Message) bool {
	if m == nil {
		return false
	}
	if v, ok := jsvalue.NonObjectValue(m); ok {
		_, arr := v.([]any)
		return arr
	}
	return true
}

// ToolResultID is extractToolResultId: toolCallId, else toolUseId.
func ToolResultID(m Message) string {
	if s, ok := jsvalue.StringMember(m, "toolCallId"); ok && s != "" {
		return s
	}
	if s, ok := jsvalue.StringMember(m, "toolUseId"); ok && s != "" {
		return s
	}
	return ""
}

// StripToolResultDetails deletes `details` from every tool result (a nil
// log records nothing: the 2026.9.6 LLM boundary runs it again so).
func StripToolResultDetails(in []Message, log *ChangeLog) []Message {
	var out []Message
	for i, m := range in {
		if jsvalue.Role(m) != "toolResult" || !jsvalue.Has(m, "details") {
			continue
		}
		if out == nil {
			out = append([]Message(nil), in...)
		}
		next := m.Clone()
		next.Delete("details")
		out[i] = next
		log.Add(i, KindMetadataChanged, "tool result details removed")
	}
	if out == nil {
		return in
	}
	return out
}
