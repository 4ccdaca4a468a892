package sanitize96

import (
	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
	"github.com/openclaw-tools/oc/pkg/replay/sanitize"
)

// replaceCompactionReplayOwnerContent (@openclaw/ai transports.mjs): 9.6's
// way to give an assistant message new content. A message that carries a
// prefix-bound server compaction checkpoint (providerReplay of type
// anthropic-compaction or openai-responses-compaction) has the checkpoint's
// replayIndex recounted over the blocks kept in place, or the checkpoint
// removed when blocks before it were rewritten or all content went.

func isCompactionReplayCheckpoint(v any) bool {
	r, ok := jsvalue.AsObject(v)
	if !ok {
		return false
	}
	switch jsvalue.StringOrEmpty(r, "type") {
	case "anthropic-compaction", "openai-responses-compaction", "openai-responses-retained-compaction":
		return true
	}
	return false
}

// sameJSValue is === for two content blocks: identity for objects and
// arrays, value for the rest.
func sameJSValue(a, b any) bool {
	switch x := a.(type) {
	case *jsvalue.Object:
		y, ok := b.(*jsvalue.Object)
		return ok && x != nil && x == y
	case []any:
		y, ok := b.([]any)
		return ok && len(x) > 0 && len(y) > 0 && &x[0] == &y[0] && len(x) == len(y)
	}
	return jsvalue.StrictEqual(a, b)
}

func replaceReplayOwnerContent(m sanitize.Message, content []any) sanitize.Message {
	next := m.With("content", content)
	replay, _ := jsvalue.AsObject(m.Get("providerReplay"))
	if !isCompactionReplayCheckpoint(replay) || jsvalue.StringOrEmpty(replay, "type") == "openai-responses-retained-compaction" {
		return next
	}
	old, _ := m.Get("content").([]any)
	replayIndex := 0.0
	if v, ok := replay.Lookup("replayIndex"); ok && v != nil {
		replayIndex, _ = jsvalue.Number(v)
	}
	strip := func() sanitize.Message {
		next.Delete("providerReplay")
		return next
	}
	if (len(content) == 0 && len(old) > 0) || replayIndex > float64(len(old)) {
		return strip()
	}
	source, nextIndex := 0, 0
	for _, b := range content {
		found := -1
		for k := source; k < len(old); k++ {
			if sameJSValue(old[k], b) {
				found = k
				break
			}
		}
		if found < 0 {
			return strip()
		}
		source = found + 1
		if float64(found) < replayIndex {
			nextIndex++
		}
	}
	if float64(nextIndex) == replayIndex {
		return next
	}
	return spread(next, "providerReplay", spread(replay, "replayIndex", jsvalue.JSONNumber(float64(nextIndex))))
}
