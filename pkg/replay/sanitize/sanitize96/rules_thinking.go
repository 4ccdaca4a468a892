package sanitize96

import (
	"math"

	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
	"github.com/openclaw-tools/oc/pkg/replay/sanitize"
)

// OpenClaw 2026.9.6's thinking-signature steps: dist/thinking-signatures-*.mjs
// stripStaleThinkingSignaturesForCompactionReplay and
// dist/tool-result-truncation-*.mjs (region embedded-agent-runner/thinking.ts)
// shouldPreserveLatestAssistantThinking, which turns on the latest-turn
// exemption of stripInvalidThinkingSignatures.

// shouldPreserveLatestAssistantThinking: the latest assistant turn is the
// last message, or the current tool turn.
func shouldPreserveLatestAssistantThinking(in []sanitize.Message) bool {
	latest := sanitize.LatestAssistantWithContent(in)
	if latest < 0 {
		return false
	}
	if latest == len(in)-1 {
		return true
	}
	latestUser := -1
	for i := len(in) - 1; i >= 0; i-- {
		if jsvalue.Role(in[i]) == "user" {
			latestUser = i
			break
		}
	}
	return sanitize.IsCurrentToolTurn(in, latest, latestUser)
}

// stripStaleThinkingSignaturesForCompactionReplay removes the signatures of
// thinking blocks in assistant turns older than the latest compaction: they
// are bound to the prompt prefix the compaction replaced.
func stripStaleThinkingSignaturesForCompactionReplay(in []sanitize.Message, log *sanitize.ChangeLog) []sanitize.Message {
	latest := math.Inf(-1)
	found := false
	for _, m := range in {
		if jsvalue.Role(m) != "compactionSummary" {
			continue
		}
		if ts, ok := parseDateFirstTimestampMs(m.Get("timestamp")); ok {
			latest = math.Max(latest, ts)
			found = true
		}
	}
	if !found {
		return in
	}
	var out []sanitize.Message
	for i, m := range in {
		content, ok := sanitize.AssistantContent(m)
		if !ok {
			continue
		}
		ts, ok := parseDateFirstTimestampMs(m.Get("timestamp"))
		if !ok || ts >= latest {
			continue
		}
		var next []any
		for j, b := range content {
			bm, ok := jsvalue.AsObject(b)
			if !ok || !sanitize.IsThinkingBlock(b) {
				continue
			}
			redacted := jsvalue.StringOrEmpty(bm, "type") == "redacted_thinking"
			if !(jsvalue.Present(bm, "thinkingSignature") || jsvalue.Present(bm, "signature") || jsvalue.Present(bm, "thought_signature") || (redacted && jsvalue.Present(bm, "data"))) {
				continue
			}
			if next == nil {
				next = append([]any(nil), content...)
			}
			stripped := bm.Clone()
			stripped.Delete("thinkingSignature")
			stripped.Delete("signature")
			stripped.Delete("thought_signature")
			if redacted {
				stripped.Delete("data")
			}
			next[j] = stripped
		}
		if next == nil {
			continue
		}
		if out == nil {
			out = append([]sanitize.Message(nil), in...)
		}
		out[i] = m.With("content", next)
		log.Add(i, sanitize.KindContentChanged, "thinking signatures from before the latest compaction removed")
	}
	if out == nil {
		return in
	}
	return out
}

// parseDateFirstTimestampMs (dist/number-coercion-*.mjs): a finite number
// as is, a string by Date.parse, within Date's range.
func parseDateFirstTimestampMs(v any) (float64, bool) {
	if f, ok := jsvalue.Number(v); ok {
		return f, true
	}
	if s, ok := v.(string); ok {
		if f, ok := sanitize.JSDateParse(s); ok && math.Abs(f) <= 864e13 {
			return f, true
		}
	}
	return 0, false
}
