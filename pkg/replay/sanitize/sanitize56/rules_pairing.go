package sanitize56

import (
	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
	"github.com/openclaw-tools/oc/pkg/replay/sanitize"
)

// R12: 2026.5.6's tool-use/result pairing repair
// (src/agents/session-transcript-repair.ts).

// normalizeToolResultName trims the result's toolName, else fills it from
// the call, else "unknown" (only when toolName was a string).
func normalizeToolResultName(m sanitize.Message, call sanitize.ToolOccurrence) (sanitize.Message, bool) {
	raw, isStr := jsvalue.StringMember(m, "toolName")
	if t := jsjson.Trim(raw); t != "" {
		if raw == t {
			return m, false
		}
		return m.With("toolName", t), true
	}
	if name, ok := stringName(call); ok {
		if t := jsjson.Trim(name); t != "" {
			return m.With("toolName", t), true
		}
	}
	if isStr {
		return m.With("toolName", "unknown"), true
	}
	return m, false
}

// repairPairing runs repairToolUseResultPairing with the replay policy
// (errored assistant turns dropped with their results) under rule name.
func repairPairing(r *sanitize.Run, in []sanitize.Message, rule, missingText string) []sanitize.Message {
	if missingText == "" {
		missingText = sanitize.MissingResultDefault
	}
	return repairToolUseResultPairing(in, missingText, r.NowMillis, r.Log(rule))
}

// repairToolUseResultPairing moves each tool result directly after the
// assistant turn that called it, drops duplicates and orphans, inserts a
// synthetic error result for every call left without one, and drops failed
// (error/aborted) tool-call turns together with their results.
func repairToolUseResultPairing(in []sanitize.Message, missingText string, now func() int64, log *sanitize.ChangeLog) []sanitize.Message {
	out := make([]sanitize.Message, 0, len(in)+4)
	seen := map[string]bool{}
	changed := false
	pushResult := func(m sanitize.Message, index int) {
		id := sanitize.ToolResultID(m)
		if id != "" && seen[id] {
			changed = true
			log.Add(index, sanitize.KindMessageDropped, "duplicate tool result %s dropped", id)
			return
		}
		if id != "" {
			seen[id] = true
		}
		out = append(out, m)
	}
	for i := 0; i < len(in); i++ {
		m := in[i]
		if m == nil {
			out = append(out, m)
			continue
		}
		switch jsvalue.Role(m) {
		case "assistant":
		case "toolResult":
			changed = true
			log.Add(i, sanitize.KindMessageDropped, "orphan tool result %s dropped (no tool call before it)", sanitize.ToolResultID(m))
			continue
		default:
			out = append(out, m)
			continue
		}
		calls := sanitize.ToolCallsOf(m)
		if len(calls) == 0 {
			out = append(out, m)
			continue
		}
		// JavaScript's Map keeps the last name for a repeated id.
		byID := map[string]sanitize.ToolOccurrence{}
		for _, c := range calls {
			byID[c.ID] = c
		}
		type spanResult struct {
			msg   sanitize.Message
			index int
		}
		span := map[string]spanResult{}
		var remainder []sanitize.Message
		j := i + 1
		for ; j < len(in); j++ {
			next := in[j]
			if next == nil {
				remainder = append(remainder, next)
				continue
			}
			nr := jsvalue.Role(next)
			if nr == "assistant" {
				break
			}
			if nr == "toolResult" {
				id := sanitize.ToolResultID(next)
				if call, ok := byID[id]; ok && id != "" {
					if seen[id] {
						changed = true
						log.Add(j, sanitize.KindMessageDropped, "duplicate tool result %s dropped", id)
						continue
					}
					norm, c := normalizeToolResultName(next, call)
					if c {
						changed = true
						log.Add(j, sanitize.KindMetadataChanged, "tool result %s toolName set to %q", id, jsvalue.StringOrEmpty(norm, "toolName"))
					}
					if _, ok := span[id]; !ok {
						span[id] = spanResult{norm, j}
					}
					continue
				}
				changed = true
				log.Add(j, sanitize.KindMessageDropped, "orphan tool result %s dropped (not called by the turn before it)", id)
				continue
			}
			remainder = append(remainder, next)
		}
		stop := jsvalue.StringOrEmpty(m, "stopReason")
		if stop == "error" || stop == "aborted" {
			changed = true
			log.Add(i, sanitize.KindMessageDropped, "%s assistant turn with %s dropped with its %s", stop, sanitize.CountNoun(len(calls), "tool call", "tool calls"), sanitize.CountNoun(len(span), "result", "results"))
			out = append(out, remainder...)
			i = j - 1
			continue
		}
		out = append(out, m)
		if len(span) > 0 && len(remainder) > 0 {
			changed = true
			log.Add(i, sanitize.KindResultMoved, "tool results moved before %s", sanitize.CountNoun(len(remainder), "interleaved message", "interleaved messages"))
		}
		for _, c := range calls {
			if seen[c.ID] {
				// A repeated id gets no second result.
				changed = true
				log.Add(i, sanitize.KindBlockDropped, "repeated tool call id %s: no second result", c.ID)
				continue
			}
			if res, ok := span[c.ID]; ok {
				pushResult(res.msg, res.index)
				continue
			}
			name := "unknown"
			if s, ok := stringName(c); ok {
				name = s
			}
			synthetic := jsvalue.NewObject(
				"role", "toolResult",
				"toolCallId", c.ID,
				"toolName", name,
				"content", []any{jsvalue.TextBlock(missingText)},
				"isError", true,
				"timestamp", jsvalue.JSONNumber(float64(now())),
			)
			changed = true
			log.Add(i, sanitize.KindSyntheticResult, "synthetic result inserted for tool call %s (%s)", c.ID, name)
			pushResult(synthetic, i)
		}
		out = append(out, remainder...)
		i = j - 1
	}
	if !changed {
		return in
	}
	return out
}
