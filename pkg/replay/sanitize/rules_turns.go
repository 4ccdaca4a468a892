package sanitize

import (
	"fmt"

	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
)

// R18-R20: turn ordering and validation (src/shared/google-turn-ordering.ts,
// src/agents/pi-embedded-helpers/turns.ts).

const googleBootstrapText = "(session bootstrap)"

// assistantFirstOrdering is sanitizeGoogleAssistantFirstOrdering: a history
// that starts with an assistant turn gets a "(session bootstrap)" user turn
// in front (Gemini and strict OpenAI-compatible servers reject it otherwise).
func (r *Run) assistantFirstOrdering(in []Message, rule string) []Message {
	log := r.Log(rule)
	if len(in) == 0 {
		return in
	}
	first := in[0]
	if jsvalue.Role(first) == "user" {
		if s, ok := first.Get("content").(string); ok && jsjson.Trim(s) == googleBootstrapText {
			return in
		}
	}
	if jsvalue.Role(first) != "assistant" {
		return in
	}
	log.Add(0, KindMessageInserted, "history starts with an assistant turn: %q user turn prepended", googleBootstrapText)
	out := make([]Message, 0, len(in)+1)
	boot := jsvalue.NewObject("role", "user", "content", googleBootstrapText, "timestamp", jsvalue.JSONNumber(float64(r.NowMillis())))
	out = append(out, boot)
	return append(out, in...)
}

// MergeConsecutive is validateTurnsWithConsecutiveMerge: messages of role
// `target` that follow one another are merged into one.
func MergeConsecutive(in []Message, target string, merge func(prev, cur Message) Message, log *ChangeLog) []Message {
	if len(in) == 0 {
		return in
	}
	out := make([]Message, 0, len(in))
	last := ""
	merged := fmt.Sprintf("consecutive %s turn merged into the one before", target)
	for i, m := range in {
		if m == nil {
			out = append(out, m)
			continue
		}
		r, ok := m.Get("role").(string)
		if !ok || r == "" {
			// A missing role is pushed as is and does not reset the run.
			if jsvalue.Truthy(m.Get("role")) {
				out = append(out, m)
				last = "\x00other"
				continue
			}
			out = append(out, m)
			continue
		}
		if r == last && last == target {
			if prev := out[len(out)-1]; prev != nil {
				out[len(out)-1] = merge(prev, m)
				log.AddText(i, KindMessagesMerged, merged)
				continue
			}
		}
		out = append(out, m)
		last = r
	}
	return out
}

func arrayOrEmpty(v any) []any {
	if a, ok := v.([]any); ok {
		return a
	}
	return nil
}

// MergeAssistantTurns is two consecutive assistant turns as one: prev with
// the contents joined and cur's usage, stopReason and errorMessage where cur
// has them (truthy).
func MergeAssistantTurns(prev, cur Message) Message {
	content := append(append(make([]any, 0), arrayOrEmpty(prev.Get("content"))...), arrayOrEmpty(cur.Get("content"))...)
	out := prev.With("content", content)
	for _, k := range []string{"usage", "stopReason", "errorMessage"} {
		if jsvalue.Truthy(cur.Get(k)) {
			out.Set(k, cur.Get(k))
		}
	}
	return out
}

// ValidateGeminiTurns merges consecutive assistant turns.
func ValidateGeminiTurns(in []Message, log *ChangeLog) []Message {
	return MergeConsecutive(in, "assistant", MergeAssistantTurns, log)
}

func userContentForMerge(v any) []any {
	switch x := v.(type) {
	case []any:
		return x
	case string:
		return []any{jsvalue.TextBlock(x)}
	}
	return nil
}

// MergeUserTurns is two consecutive user turns as one: cur with the
// contents joined as blocks, and prev's timestamp when cur has none.
func MergeUserTurns(prev, cur Message) Message {
	content := append(append(make([]any, 0), userContentForMerge(prev.Get("content"))...), userContentForMerge(cur.Get("content"))...)
	out := cur.With("content", content)
	// timestamp: current.timestamp ?? previous.timestamp (undefined is omitted).
	if cur.Get("timestamp") == nil {
		if ts, ok := prev.Lookup("timestamp"); ok {
			out.Set("timestamp", ts)
		} else {
			out.Delete("timestamp")
		}
	}
	return out
}

func isTurnsToolCallBlock(bm *jsvalue.Object) bool {
	switch jsvalue.StringOrEmpty(bm, "type") {
	case "toolUse", "toolCall", "functionCall":
		return true
	}
	return false
}

var toolResultMatchKeys = []string{"toolUseId", "toolCallId", "tool_use_id", "tool_call_id", "callId", "call_id"}

func toolResultMatchIDs(m *jsvalue.Object) []string {
	var ids []string
	for _, k := range toolResultMatchKeys {
		if s, ok := jsvalue.StringMember(m, k); ok {
			if t := jsjson.Trim(s); t != "" {
				ids = append(ids, t)
			}
		}
	}
	return ids
}

func toolResultMatchName(m *jsvalue.Object) string {
	if s, ok := jsvalue.StringMember(m, "toolName"); ok && jsjson.Trim(s) != "" {
		return jsjson.Trim(s)
	}
	if s, ok := jsvalue.StringMember(m, "name"); ok && jsjson.Trim(s) != "" {
		return jsjson.Trim(s)
	}
	return ""
}

// futureToolResults collects, up to the next assistant turn, the ids of
// tool results (any spelling, also as blocks) and the tool names trusted
// result messages give for each id.
func futureToolResults(msgs []Message, start int) (anyIDs map[string]bool, trusted map[string]map[string]bool) {
	anyIDs = map[string]bool{}
	trusted = map[string]map[string]bool{}
	addTrusted := func(ids []string, name string) {
		for _, id := range ids {
			b := trusted[id]
			if b == nil {
				b = map[string]bool{}
				trusted[id] = b
			}
			if name != "" {
				b[name] = true
			}
		}
	}
	for i := start + 1; i < len(msgs); i++ {
		m := msgs[i]
		if m == nil {
			continue
		}
		r := jsvalue.Role(m)
		if r == "assistant" {
			break
		}
		switch r {
		case "toolResult":
			if id := ToolResultID(m); id != "" {
				anyIDs[id] = true
			}
			ids := toolResultMatchIDs(m)
			if id := ToolResultID(m); id != "" {
				ids = append(ids, id)
			}
			addTrusted(ids, toolResultMatchName(m))
		case "tool":
			for _, id := range toolResultMatchIDs(m) {
				anyIDs[id] = true
			}
			addTrusted(toolResultMatchIDs(m), toolResultMatchName(m))
		}
		if content, ok := jsvalue.ArrayMember(m, "content"); ok {
			for _, b := range content {
				bm, ok := jsvalue.AsObject(b)
				if !ok {
					continue
				}
				if t := jsvalue.StringOrEmpty(bm, "type"); t != "toolResult" && t != "tool" {
					continue
				}
				for _, id := range toolResultMatchIDs(bm) {
					anyIDs[id] = true
				}
			}
		}
	}
	return anyIDs, trusted
}

func omittedToolCallsContent(m Message) []any {
	if s := jsvalue.StringOrEmpty(m, "stopReason"); s == "aborted" || s == "error" {
		return []any{}
	}
	return []any{jsvalue.TextBlock("[tool calls omitted]")}
}

// StripDanglingAnthropicToolUses removes tool calls no following tool result
// answers ("tool_use ids were found without tool_result blocks"). A thinking
// turn cannot be edited: its whole content is replaced instead.
func StripDanglingAnthropicToolUses(in []Message, log *ChangeLog) []Message {
	out := make([]Message, 0, len(in))
	for i, m := range in {
		if jsvalue.Role(m) != "assistant" {
			out = append(out, m)
			continue
		}
		content := arrayOrEmpty(m.Get("content"))
		if len(content) == 0 || len(ToolCallsOf(m)) == 0 {
			out = append(out, m)
			continue
		}
		hasThinking := false
		for _, b := range content {
			if IsThinkingBlock(b) {
				hasThinking = true
			}
		}
		anyIDs, trusted := futureToolResults(in, i)
		if hasThinking {
			ok := true
			for _, b := range content {
				bm, isMap := jsvalue.AsObject(b)
				if !isMap || !isTurnsToolCallBlock(bm) {
					continue
				}
				id := jsjson.Trim(jsvalue.StringOrEmpty(bm, "id"))
				name := jsjson.Trim(jsvalue.StringOrEmpty(bm, "name"))
				if id == "" || name == "" {
					ok = false
					break
				}
				names, found := trusted[id]
				if !found || (len(names) > 0 && !names[name]) {
					ok = false
					break
				}
			}
			if ok {
				out = append(out, m)
				continue
			}
			log.Add(i, KindContentChanged, "thinking turn with unanswered tool calls replaced by %q", "[tool calls omitted]")
			out = append(out, m.With("content", omittedToolCallsContent(m)))
			continue
		}
		kept := make([]any, 0, len(content))
		for _, b := range content {
			if !jsvalue.Truthy(b) {
				continue
			}
			bm, isMap := jsvalue.AsObject(b)
			if !isMap || !isTurnsToolCallBlock(bm) {
				kept = append(kept, b)
				continue
			}
			id := jsjson.Trim(jsvalue.StringOrEmpty(bm, "id"))
			if id != "" && anyIDs[id] {
				kept = append(kept, b)
				continue
			}
			log.Add(i, KindBlockDropped, "tool call %s has no result before the next assistant turn", jsvalue.StringOrEmpty(bm, "id"))
		}
		if len(kept) == len(content) {
			out = append(out, m)
			continue
		}
		if len(kept) == 0 {
			out = append(out, m.With("content", omittedToolCallsContent(m)))
			continue
		}
		out = append(out, m.With("content", kept))
	}
	return out
}
