package sanitize

import (
	"math"
	"strings"
	"time"

	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
)

// R14: usage normalisation (replay-history.ts, src/agents/usage.ts). Not on
// the wire, but part of the sanitized messages the oracle prints. Each
// release normalises a usage its own way; the snapshot object, the cost and
// ensureAssistantUsageSnapshots are shared.

func zeroUsageSnapshot() *jsvalue.Object {
	return SnapshotValue(NormalizedUsage{}, nil, &UsageCost{})
}

// parseMessageTimestamp: a finite number, or a string Date.parse accepts.
func parseMessageTimestamp(v any) (float64, bool) {
	if f, ok := jsvalue.Number(v); ok {
		return f, true
	}
	if s, ok := v.(string); ok {
		return JSDateParse(s)
	}
	return 0, false
}

// JSDateParse covers the date strings transcripts hold: ISO 8601 / RFC 3339
// forms and RFC 1123 dates.
func JSDateParse(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	layouts := []string{
		time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02T15:04", "2006-01-02T15:04Z07:00",
		"2006-01-02", "2006-01", "2006", time.RFC1123, time.RFC1123Z, "Mon, 2 Jan 2006 15:04:05 MST",
	}
	for _, l := range layouts {
		loc := time.UTC
		if l == "2006-01-02T15:04:05.999999999" || l == "2006-01-02T15:04" {
			loc = time.Local // ISO date-times without an offset are local time
		}
		if t, err := time.ParseInLocation(l, s, loc); err == nil {
			return float64(t.UnixMilli()), true
		}
	}
	return 0, false
}

// stripStaleAssistantUsageBeforeLatestCompaction zeroes the usage of
// assistant turns older than the latest compaction summary.
func stripStaleAssistantUsageBeforeLatestCompaction(in []Message, log *ChangeLog) []Message {
	latest := -1
	var latestTS float64
	latestHasTS := false
	for i, m := range in {
		if jsvalue.Role(m) != "compactionSummary" {
			continue
		}
		latest = i
		latestTS, latestHasTS = parseMessageTimestamp(m.Get("timestamp"))
	}
	if latest == -1 {
		return in
	}
	var out []Message
	for i, m := range in {
		if jsvalue.Role(m) != "assistant" || !jsvalue.IsObjectOrArray(m.Get("usage")) {
			continue
		}
		ts, ok := parseMessageTimestamp(m.Get("timestamp"))
		if !(latestHasTS && ok && ts <= latestTS) && !(i < latest) {
			continue
		}
		if out == nil {
			out = append([]Message(nil), in...)
		}
		out[i] = m.With("usage", zeroUsageSnapshot())
		log.Add(i, KindMetadataChanged, "usage zeroed (before the latest compaction)")
	}
	if out == nil {
		return in
	}
	return out
}

// TokenCount is normalizeTokenCount: finite numbers, truncated, negatives 0.
func TokenCount(v any) (float64, bool) {
	f, ok := jsvalue.Number(v)
	if !ok {
		return 0, false
	}
	if f <= 0 {
		return 0, true
	}
	return math.Min(math.Trunc(f), 9007199254740991), true
}

// NestedPresent: u[key] is an object with a sub member (`u[key]?.[sub] !==
// undefined` for a present member).
func NestedPresent(u *jsvalue.Object, key, sub string) bool {
	m, ok := jsvalue.AsObject(u.Get(key))
	return ok && jsvalue.Has(m, sub)
}

// NormalizedUsage is a usage's token counters as normalizeUsage reads them,
// and which of them it found.
type NormalizedUsage struct {
	Input, Output, CacheRead, CacheWrite, Total      float64
	HasInput, HasOutput, HasRead, HasWrite, HasTotal bool
}

// UsageCost is a normalised usage cost.
type UsageCost struct{ input, output, cacheRead, cacheWrite, total float64 }

// NormalizeUsageCost keeps a cost object with at least one finite field.
func NormalizeUsageCost(raw any) (UsageCost, bool) {
	u, ok := jsvalue.AsObject(raw)
	if !ok {
		return UsageCost{}, false
	}
	c, ok := jsvalue.AsObject(u.Get("cost"))
	if !ok {
		return UsageCost{}, false
	}
	in, okIn := jsvalue.Number(c.Get("input"))
	out, okOut := jsvalue.Number(c.Get("output"))
	read, okRead := jsvalue.Number(c.Get("cacheRead"))
	write, okWrite := jsvalue.Number(c.Get("cacheWrite"))
	total, okTotal := jsvalue.Number(c.Get("total"))
	if !okIn && !okOut && !okRead && !okWrite && !okTotal {
		return UsageCost{}, false
	}
	uc := UsageCost{input: in, output: out, cacheRead: read, cacheWrite: write}
	if okTotal {
		uc.total = total
	} else {
		uc.total = uc.input + uc.output + uc.cacheRead + uc.cacheWrite
	}
	return uc, true
}

// SnapshotValue builds the usage object for a normalised snapshot: {input,
// output, cacheRead, cacheWrite, contextUsage (2026.9.6, when not nil),
// totalTokens, cost (when not nil)}.
func SnapshotValue(n NormalizedUsage, contextUsage *jsvalue.Object, cost *UsageCost) *jsvalue.Object {
	snap := jsvalue.NewObject("input", jsvalue.JSONNumber(n.Input), "output", jsvalue.JSONNumber(n.Output),
		"cacheRead", jsvalue.JSONNumber(n.CacheRead), "cacheWrite", jsvalue.JSONNumber(n.CacheWrite))
	if contextUsage != nil {
		snap.Set("contextUsage", contextUsage)
	}
	snap.Set("totalTokens", jsvalue.JSONNumber(n.Total))
	if cost != nil {
		snap.Set("cost", jsvalue.NewObject("input", jsvalue.JSONNumber(cost.input), "output", jsvalue.JSONNumber(cost.output),
			"cacheRead", jsvalue.JSONNumber(cost.cacheRead), "cacheWrite", jsvalue.JSONNumber(cost.cacheWrite), "total", jsvalue.JSONNumber(cost.total)))
	}
	return snap
}

// UsageMatches: the stored usage already equals its normalised snapshot.
func UsageMatches(raw any, n NormalizedUsage, cost *UsageCost) bool {
	u, ok := jsvalue.AsObject(raw)
	if !ok {
		return false
	}
	eq := func(key string, want float64) bool {
		f, ok := jsvalue.Number(u.Get(key))
		return ok && f == want
	}
	if !eq("input", n.Input) || !eq("output", n.Output) || !eq("cacheRead", n.CacheRead) || !eq("cacheWrite", n.CacheWrite) || !eq("totalTokens", n.Total) {
		return false
	}
	stored, hasCost := u.Lookup("cost")
	if cost == nil {
		return !hasCost
	}
	c, ok := jsvalue.AsObject(stored)
	if !ok {
		return false
	}
	ceq := func(key string, want float64) bool {
		f, ok := jsvalue.Number(c.Get(key))
		return ok && f == want
	}
	return ceq("input", cost.input) && ceq("output", cost.output) && ceq("cacheRead", cost.cacheRead) && ceq("cacheWrite", cost.cacheWrite) && ceq("total", cost.total)
}

// EnsureAssistantUsageSnapshots gives every assistant turn the usage
// object the release's snapshot makes of its usage (same: the usage already
// is that object).
func EnsureAssistantUsageSnapshots(in []Message, snapshot func(raw any) (next *jsvalue.Object, same bool), log *ChangeLog) []Message {
	var out []Message
	for i, m := range in {
		if jsvalue.Role(m) != "assistant" {
			continue
		}
		next, same := snapshot(m.Get("usage"))
		if same {
			continue
		}
		if out == nil {
			out = append([]Message(nil), in...)
		}
		out[i] = m.With("usage", next)
		log.Add(i, KindMetadataChanged, "usage normalised")
	}
	if out == nil {
		return in
	}
	return out
}
