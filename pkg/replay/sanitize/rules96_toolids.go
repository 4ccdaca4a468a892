package sanitize

import (
	"fmt"

	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/internal/lazyre"
	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
)

// OpenClaw 2026.9.6's sanitizeToolCallIdsForCloudCodeAssist
// (dist/tool-call-id-*.mjs). Compared with 2026.5.6: a tool result's ids are
// all rewritten to the one id its primary id (call_id, callId, tool_call_id,
// tool_use_id, toolCallId, toolUseId, in that order) resolves to, and it
// gains a toolCallId when it had none; duplicateToolCallIdStyle "openai"
// keeps a first call_* id and gives repeats call_<hash>; a sessions_spawn
// call with attachments no longer counts as needing a rewrite.

var openAIToolCallIDRE = lazyre.New(`^call_[A-Za-z0-9_-]+$`)

// assistantID96 is createOccurrenceAwareResolver's resolveAssistantId.
func (r *idResolver) assistantID96(id, style string) string {
	occ := r.assistantSeen[id] + 1
	r.assistantSeen[id] = occ
	var next string
	switch {
	case style == "openai" && occ > 1:
		for attempt := 0; ; attempt++ {
			c := "call_" + sha256Hex(fmt.Sprintf("%s:%d:%d", id, occ, attempt), 24)
			if !r.used[c] {
				next = c
				break
			}
		}
		r.used[next] = true
	case style == "openai" && occ == 1 && openAIToolCallIDRE().MatchString(id) && !r.used[id],
		r.preserveNative && nativeAnthropicToolUseID().MatchString(id) && occ == 1 && !r.used[id]:
		r.used[id] = true
		next = id
	case occ == 1:
		next = r.allocate(id)
	default:
		next = r.allocate(fmt.Sprintf("%s:%d", id, occ))
	}
	r.pending[id] = append(r.pending[id], next)
	return next
}

func isReplaySafeThinkingMessage96(m Message, allowed allowedNames) bool {
	return isReplaySafeThinking(m, allowed, toolNameNeedsTrim96)
}

// toolNameNeedsTrim96 is 9.6's replay-mutation test in that check: a tool
// call whose name is a string with white space around it.
func toolNameNeedsTrim96(bm *jsvalue.Object) bool {
	raw, isStr := jsvalue.StringMember(bm, "name")
	return isStr && raw != "" && raw != jsjson.Trim(raw)
}

type toolIDOptions96 struct {
	toolIDOptions
	duplicateStyle string
}

func sanitizeToolCallIDs96(in []Message, mode string, o toolIDOptions96, log *changeLog) []Message {
	var reserved map[string]bool
	preserved := map[int]bool{}
	if o.preserveSafeThinking {
		reserved = map[string]bool{}
		for i, m := range in {
			if !isJSObjectMessage(m) || jsvalue.Role(m) != "assistant" || !isReplaySafeThinkingMessage96(m, o.allowed) {
				continue
			}
			calls := toolCalls96(m)
			clash := false
			for _, c := range calls {
				clash = clash || reserved[c.id]
			}
			if clash {
				continue
			}
			preserved[i] = true
			for _, c := range calls {
				reserved[c.id] = true
			}
		}
	}
	res := newIDResolver(mode, reserved, o.preserveNative)
	var out []Message
	set := func(i int, m Message) {
		if out == nil {
			out = append([]Message(nil), in...)
		}
		out[i] = m
	}
	for i, m := range in {
		if !isJSObjectMessage(m) {
			continue
		}
		switch jsvalue.Role(m) {
		case "assistant":
			if preserved[i] {
				for _, c := range toolCalls96(m) {
					res.preserve(c.id)
				}
				continue
			}
			content, ok := jsvalue.ArrayMember(m, "content")
			if !ok {
				continue
			}
			var next []any
			for j, b := range content {
				bm, ok := jsvalue.AsObject(b)
				if !ok || !isOpenAIToolCallType(jsvalue.StringOrEmpty(bm, "type")) {
					continue
				}
				id, _ := jsvalue.StringMember(bm, "id")
				if id == "" {
					continue
				}
				nid := res.assistantID96(id, o.duplicateStyle)
				if nid == id {
					continue
				}
				if next == nil {
					next = append([]any(nil), content...)
				}
				next[j] = bm.With("id", nid)
				log.add(i, KindIDRewritten, "tool call id %s -> %s", id, nid)
			}
			if next != nil {
				set(i, m.With("content", next))
			}
		case "toolResult":
			if next := rewriteToolResultIDs(m, res.resultID); !sameMessage(next, m) {
				log.add(i, KindIDRewritten, "tool result id -> %s", jsvalue.StringOrEmpty(next, "toolCallId"))
				set(i, next)
			}
		}
	}
	if out == nil {
		return in
	}
	return out
}
