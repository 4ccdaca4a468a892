package sanitize96

import (
	"strings"

	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
	"github.com/openclaw-tools/oc/pkg/replay/sanitize"
)

// OpenClaw 2026.9.6's usage normalisation (dist/usage-*.mjs normalizeUsage)
// and ensureAssistantUsageSnapshots (dist/builtin-openclaw-*.mjs). Compared
// with 2026.5.6: CLI and Responses cache spellings (cached_input_tokens,
// cached, cache_write_input_tokens, *_details.cache_write_tokens) are read,
// a usage with only a cost, reasoning tokens or a context usage counts, and
// the snapshot keeps a valid contextUsage between cacheWrite and totalTokens.

type contextUsage struct {
	state         string
	prompt, total float64
}

type normalizedUsage struct {
	sanitize.NormalizedUsage
	reasoning float64
	context   *contextUsage
}

// normalizeUsage is 9.6's normalizeUsage (ok false: undefined).
func normalizeUsage(raw any) (normalizedUsage, bool) {
	var n normalizedUsage
	if !jsvalue.Truthy(raw) {
		return n, false
	}
	u, ok := jsvalue.AsObject(raw)
	if !ok {
		// An array has no usage members; normalizeUsage returns undefined.
		return n, false
	}
	// first is a ?? b ?? …; "a.b" reads a nested member (a?.b).
	first := func(paths ...string) any {
		for _, p := range paths {
			// the path's "."-separated keys, walked without splitting
			// (this runs for every assistant turn of every family)
			var cur any = u
			for rest, more := p, true; more; {
				var k string
				k, rest, more = strings.Cut(rest, ".")
				m, ok := jsvalue.AsObject(cur)
				if !ok {
					cur = nil
					break
				}
				cur = m.Get(k)
			}
			if cur != nil {
				return cur
			}
		}
		return nil
	}
	defined := func(path string) bool {
		key, sub, nested := strings.Cut(path, ".")
		if !nested {
			return jsvalue.Has(u, path)
		}
		return sanitize.NestedPresent(u, key, sub)
	}
	n.CacheRead, n.HasRead = sanitize.TokenCount(first("cacheRead", "cache_read", "cache_read_input_tokens", "cached_input_tokens", "cached", "cached_tokens", "input_tokens_details.cached_tokens", "prompt_tokens_details.cached_tokens"))
	n.CacheWrite, n.HasWrite = sanitize.TokenCount(first("cacheWrite", "cache_write", "cache_creation_input_tokens", "cache_write_input_tokens", "input_tokens_details.cache_write_tokens", "prompt_tokens_details.cache_write_tokens", "prompt_tokens_details.cache_creation_input_tokens"))
	_, directInput := jsvalue.Number(u.Get("input"))
	if rawIn, ok := jsvalue.Number(first("input", "inputTokens", "input_tokens", "promptTokens", "prompt_tokens", "prompt_n", "timings.prompt_n")); ok {
		cliCached := defined("cached_input_tokens") || defined("cached")
		openAICached := defined("cached_tokens") || defined("input_tokens_details.cached_tokens") || defined("prompt_tokens_details.cached_tokens")
		writeIncluded := defined("cache_write_input_tokens") || defined("input_tokens_details.cache_write_tokens") || defined("prompt_tokens_details.cache_write_tokens") || defined("prompt_tokens_details.cache_creation_input_tokens")
		if openAICached || (!directInput && cliCached) {
			rawIn -= n.CacheRead
		}
		if !directInput && writeIncluded {
			rawIn -= n.CacheWrite
		}
		n.Input, n.HasInput = sanitize.TokenCount(rawIn)
	}
	n.Output, n.HasOutput = sanitize.TokenCount(first("output", "outputTokens", "output_tokens", "completionTokens", "completion_tokens", "predicted_n", "timings.predicted_n"))
	if cu, ok := jsvalue.AsObject(u.Get("contextUsage")); ok {
		switch cu.Get("state") {
		case "unavailable":
			n.context = &contextUsage{state: "unavailable"}
		case "available":
			p, pOK := sanitize.TokenCount(cu.Get("promptTokens"))
			t, tOK := sanitize.TokenCount(cu.Get("totalTokens"))
			if pOK && tOK && t >= p {
				n.context = &contextUsage{state: "available", prompt: p, total: t}
			}
		}
	}
	reasoning, hasReasoning := sanitize.TokenCount(first("reasoningTokens", "reasoning_tokens", "completion_tokens_details.reasoning_tokens", "output_tokens_details.reasoning_tokens", "output_tokens_details.thinking_tokens"))
	n.reasoning = reasoning
	n.Total, n.HasTotal = sanitize.TokenCount(first("total", "totalTokens", "total_tokens"))
	costTotal, hasCost := jsvalue.Number(first("cost.total"))
	hasCost = hasCost && costTotal >= 0
	if !n.HasInput && !n.HasOutput && !n.HasRead && !n.HasWrite && n.context == nil && !hasReasoning && !n.HasTotal && !hasCost {
		return n, false
	}
	return n, true
}

// snapshotUsage is 2026.9.6's normalised usage object (with its
// contextUsage).
func snapshotUsage(raw any) (*jsvalue.Object, bool) {
	n, ok := normalizeUsage(raw)
	var cost *sanitize.UsageCost
	if !ok {
		n = normalizedUsage{}
		cost = &sanitize.UsageCost{}
	} else {
		if !n.HasTotal {
			n.Total = n.Input + n.Output + n.CacheRead + n.CacheWrite
		}
		if c, ok := sanitize.NormalizeUsageCost(raw); ok {
			cost = &c
		}
	}
	if sanitize.UsageMatches(raw, n.NormalizedUsage, cost) && contextUsageMatches(raw, n.context) {
		return nil, true
	}
	var cu *jsvalue.Object
	if n.context != nil {
		cu = jsvalue.NewObject("state", n.context.state)
		if n.context.state == "available" {
			cu.Set("promptTokens", jsvalue.JSONNumber(n.context.prompt))
			cu.Set("totalTokens", jsvalue.JSONNumber(n.context.total))
		}
	}
	return sanitize.SnapshotValue(n.NormalizedUsage, cu, cost), false
}

// contextUsageMatches: the stored contextUsage already equals the normalised one.
func contextUsageMatches(raw any, want *contextUsage) bool {
	u, _ := jsvalue.AsObject(raw)
	stored, present := u.Lookup("contextUsage")
	if want == nil {
		return !present
	}
	cu, ok := jsvalue.AsObject(stored)
	if !ok || cu.Get("state") != want.state {
		return false
	}
	if want.state == "unavailable" {
		return true
	}
	p, pOK := jsvalue.Number(cu.Get("promptTokens"))
	t, tOK := jsvalue.Number(cu.Get("totalTokens"))
	return pOK && tOK && p == want.prompt && t == want.total
}
