package replay

import "fmt"

// InheritMessages gives the messages of out that the pipeline copied from
// in (a message with the same role and timestamp) the recorded key order of
// their source, and likewise their content blocks (same index and type), as
// JavaScript's {...m} copies keep it. What the pipeline made up gets the
// order of OpenClaw's object literals: tool results {role, toolCallId,
// toolName, content, isError, timestamp}, user turns {role, content,
// timestamp}, text blocks {type, text}, image blocks {type, data, mimeType},
// usage {input, output, cacheRead, cacheWrite, totalTokens, cost} and its
// cost {input, output, cacheRead, cacheWrite, total}. Not
// safe concurrently with other calls on k.
func (k *KeyOrder) InheritMessages(out, in []Message) {
	if k == nil {
		return
	}
	src := make(map[string]Message, len(in))
	for _, m := range in {
		id := messageIdentity(m)
		if _, dup := src[id]; !dup {
			src[id] = m
		}
	}
	for _, m := range out {
		s, ok := src[messageIdentity(m)]
		if !ok {
			switch m["role"] {
			case "toolResult":
				k.literal(m, "role", "toolCallId", "toolName", "content", "isError", "timestamp")
			case "user":
				k.literal(m, "role", "content", "timestamp")
			}
			s = nil
		}
		if s != nil {
			k.inheritDeep(m, s)
		}
		if u, ok := m["usage"].(map[string]any); ok {
			k.literal(u, "input", "output", "cacheRead", "cacheWrite", "totalTokens", "cost")
			if c, ok := u["cost"].(map[string]any); ok {
				k.literal(c, "input", "output", "cacheRead", "cacheWrite", "total")
			}
		}
		blocks, _ := m["content"].([]any)
		srcBlocks, _ := s["content"].([]any)
		used := make([]bool, len(srcBlocks))
		for _, b := range blocks {
			bm, ok := b.(map[string]any)
			if !ok {
				continue
			}
			// The source block: the first unused one of the same type and id
			// (rules drop and insert blocks, so indices shift).
			matched := false
			for i, sb := range srcBlocks {
				sm, ok := sb.(map[string]any)
				if ok && !used[i] && fmt.Sprint(bm["type"]) == fmt.Sprint(sm["type"]) && fmt.Sprint(bm["id"]) == fmt.Sprint(sm["id"]) {
					used[i], matched = true, true
					k.inheritDeep(bm, sm)
					break
				}
			}
			if matched {
				continue
			}
			switch bm["type"] {
			case "text":
				k.literal(bm, "type", "text")
			case "image":
				k.literal(bm, "type", "data", "mimeType")
			}
		}
	}
}

// inheritDeep gives dst, and every object inside it with a counterpart at
// the same place in src (same member name, same array index), src's order
// where dst has none recorded (the copies a rule makes of a nested value).
func (k *KeyOrder) inheritDeep(dst, src map[string]any) {
	if k.lookup(dst) == nil {
		k.Inherit(dst, src)
	}
	for key, v := range dst {
		k.inheritValue(v, src[key])
	}
}

func (k *KeyOrder) inheritValue(dst, src any) {
	switch d := dst.(type) {
	case map[string]any:
		if s, ok := src.(map[string]any); ok {
			k.inheritDeep(d, s)
		}
	case []any:
		if s, ok := src.([]any); ok {
			for i := range min(len(d), len(s)) {
				k.inheritValue(d[i], s[i])
			}
		}
	}
}

// literal records the order of an object the pipeline built, when it has
// exactly those keys.
func (k *KeyOrder) literal(m map[string]any, keys ...string) {
	if len(m) != len(keys) || k.lookup(m) != nil {
		return
	}
	for _, key := range keys {
		if _, ok := m[key]; !ok {
			return
		}
	}
	k.byMap[mapID(m)] = keys
}

func messageIdentity(m Message) string {
	return fmt.Sprintf("%v|%v", m["role"], m["timestamp"])
}
