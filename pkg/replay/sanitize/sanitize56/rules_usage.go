package sanitize56

import (
	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
	"github.com/openclaw-tools/oc/pkg/replay/sanitize"
)

// R14: 2026.5.6's usage normalisation (src/agents/usage.ts).

// usageField returns the first present (non-null) value among keys
// (JavaScript's `a ?? b ?? c`).
func usageField(u *jsvalue.Object, keys ...string) any {
	for _, k := range keys {
		if v := u.Get(k); v != nil {
			return v
		}
	}
	return nil
}

func nested(u *jsvalue.Object, key, sub string) any {
	m, ok := jsvalue.AsObject(u.Get(key))
	if !ok {
		return nil
	}
	return m.Get(sub)
}

// normalizeUsage reads the many usage spellings providers use.
func normalizeUsage(raw any) (sanitize.NormalizedUsage, bool) {
	var n sanitize.NormalizedUsage
	if !jsvalue.Truthy(raw) {
		return n, false
	}
	u, ok := raw.(*jsvalue.Object)
	if !ok {
		return n, false
	}
	inDetails := nested(u, "input_tokens_details", "cached_tokens")
	promptDetails := nested(u, "prompt_tokens_details", "cached_tokens")
	readV := usageField(u, "cacheRead", "cache_read", "cache_read_input_tokens", "cached_tokens")
	if readV == nil {
		readV = inDetails
	}
	if readV == nil {
		readV = promptDetails
	}
	n.CacheRead, n.HasRead = sanitize.TokenCount(readV)
	inputV := usageField(u, "input", "inputTokens", "input_tokens", "promptTokens", "prompt_tokens", "prompt_n")
	if inputV == nil {
		inputV = nested(u, "timings", "prompt_n")
	}
	// `x !== undefined`: a JSON null counts as present.
	openAIStyle := jsvalue.Has(u, "cached_tokens") || sanitize.NestedPresent(u, "input_tokens_details", "cached_tokens") || sanitize.NestedPresent(u, "prompt_tokens_details", "cached_tokens")
	if rawIn, ok := jsvalue.Number(inputV); ok {
		if openAIStyle && n.HasRead {
			rawIn -= n.CacheRead
		}
		n.Input, n.HasInput = sanitize.TokenCount(rawIn)
	}
	outV := usageField(u, "output", "outputTokens", "output_tokens", "completionTokens", "completion_tokens", "predicted_n")
	if outV == nil {
		outV = nested(u, "timings", "predicted_n")
	}
	n.Output, n.HasOutput = sanitize.TokenCount(outV)
	n.CacheWrite, n.HasWrite = sanitize.TokenCount(usageField(u, "cacheWrite", "cache_write", "cache_creation_input_tokens"))
	n.Total, n.HasTotal = sanitize.TokenCount(usageField(u, "total", "totalTokens", "total_tokens"))
	if !n.HasInput && !n.HasOutput && !n.HasRead && !n.HasWrite && !n.HasTotal {
		return n, false
	}
	return n, true
}

// usageSnapshot is normalizeAssistantUsageSnapshot: the counters and cost
// the stored usage normalises to (no allocation).
func usageSnapshot(raw any) (sanitize.NormalizedUsage, *sanitize.UsageCost) {
	n, ok := normalizeUsage(raw)
	if !ok {
		return sanitize.NormalizedUsage{HasTotal: true}, &sanitize.UsageCost{}
	}
	if !n.HasTotal {
		n.Total = n.Input + n.Output + n.CacheRead + n.CacheWrite
	}
	if c, ok := sanitize.NormalizeUsageCost(raw); ok {
		return n, &c
	}
	return n, nil
}

// snapshotUsage is 2026.5.6's normalised usage object.
func snapshotUsage(raw any) (*jsvalue.Object, bool) {
	n, cost := usageSnapshot(raw)
	if sanitize.UsageMatches(raw, n, cost) {
		return nil, true
	}
	return sanitize.SnapshotValue(n, nil, cost), false
}
