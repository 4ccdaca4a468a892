package sanitize

import (
	"encoding/json"
	"strings"

	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
)

// R10: OpenAI Responses replay rules (src/agents/pi-embedded-helpers/openai.ts).

// IsOpenAIToolCallType: a toolCall, toolUse or functionCall block type.
func IsOpenAIToolCallType(t string) bool {
	return t == "toolCall" || t == "toolUse" || t == "functionCall"
}

// IsReplayableReasoning is parseOpenAIReasoningSignature != null: a thinking
// signature that is (or encodes) {id: "rs_…", type: "reasoning[.…]"}.
func IsReplayableReasoning(v any) bool {
	var idV, typV any
	switch x := v.(type) {
	case string:
		t := jsjson.Trim(x)
		if !strings.HasPrefix(t, "{") || !strings.HasSuffix(t, "}") {
			return false
		}
		var parsed any
		if err := json.Unmarshal([]byte(t), &parsed); err != nil {
			return false
		}
		m, ok := parsed.(map[string]any)
		if !ok || m == nil {
			return false
		}
		idV, typV = m["id"], m["type"]
	case *jsvalue.Object:
		if x == nil {
			return false
		}
		idV, typV = x.Get("id"), x.Get("type")
	default:
		return false
	}
	id, _ := idV.(string)
	typ, _ := typV.(string)
	if !strings.HasPrefix(id, "rs_") {
		return false
	}
	return typ == "reasoning" || strings.HasPrefix(typ, "reasoning.")
}

// SplitFunctionCallPairing splits "call_id|item_id".
func SplitFunctionCallPairing(id string) (callID, itemID string) {
	sep := strings.IndexByte(id, '|')
	if sep <= 0 || sep >= len(id)-1 {
		return id, ""
	}
	return id[:sep], id[sep+1:]
}

// downgradeOpenAIFunctionCallReasoningPairs cuts "call|fc_…" ids to their
// call part when no replayable reasoning block precedes them in the turn
// (OpenAI rejects an fc_ item without its reasoning), and rewrites the tool
// results that directly follow.
func downgradeOpenAIFunctionCallReasoningPairs(in []Message, log *ChangeLog) []Message {
	var out []Message
	set := func(i int, m Message) {
		if out == nil {
			out = append([]Message(nil), in...)
		}
		out[i] = m
	}
	var pending map[string]string
	for i, m := range in {
		if m == nil {
			pending = nil
			continue
		}
		switch jsvalue.Role(m) {
		case "assistant":
			content, ok := jsvalue.ArrayMember(m, "content")
			if !ok {
				pending = nil
				continue
			}
			local := map[string]string{}
			seenReasoning := false
			var next []any
			for j, b := range content {
				bm, ok := jsvalue.AsObject(b)
				if !ok {
					continue
				}
				if jsvalue.StringOrEmpty(bm, "type") == "thinking" && IsReplayableReasoning(bm.Get("thinkingSignature")) {
					seenReasoning = true
					continue
				}
				switch jsvalue.StringOrEmpty(bm, "type") {
				case "toolCall", "toolUse", "functionCall":
				default:
					continue
				}
				id, ok := jsvalue.StringMember(bm, "id")
				if !ok {
					continue
				}
				callID, itemID := SplitFunctionCallPairing(id)
				if seenReasoning || itemID == "" || !strings.HasPrefix(itemID, "fc_") {
					continue
				}
				if next == nil {
					next = append([]any(nil), content...)
				}
				local[id] = callID
				next[j] = bm.With("id", callID)
				log.Add(i, KindIDRewritten, "tool call id %s -> %s (no reasoning item pairs with it)", id, callID)
			}
			pending = nil
			if len(local) > 0 {
				pending = local
			}
			if next != nil {
				set(i, m.With("content", next))
			}
		case "toolResult":
			if len(pending) == 0 {
				pending = nil
				continue
			}
			next, copied := m, false
			for _, key := range []string{"toolCallId", "toolUseId"} {
				if v, ok := jsvalue.StringMember(m, key); ok {
					if nv, ok := pending[v]; ok && nv != "" && nv != v {
						if !copied {
							next, copied = m.Clone(), true
						}
						next.Set(key, nv)
						log.Add(i, KindIDRewritten, "tool result %s %s -> %s", key, v, nv)
					}
				}
			}
			if copied {
				set(i, next)
			}
		default:
			pending = nil
		}
	}
	if out == nil {
		return in
	}
	return out
}
