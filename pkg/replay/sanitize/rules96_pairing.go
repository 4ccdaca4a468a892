package sanitize

import (
	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
)

// OpenClaw 2026.9.6's tool-use/result pairing repair, which pairs results per
// call occurrence: dist/tool-result-pairing-*.mjs classifyToolUseResultPairing
// (packages/agent-core/src/harness/session/tool-result-pairing.ts) and
// dist/session-transcript-repair-*.mjs repairToolUseResultPairing /
// sanitizeToolUseResultPairingForModel (erroredAssistantResultPolicy "drop").

// syntheticMissingResultKey is SYNTHETIC_MISSING_TOOL_RESULT_DETAIL_KEY.
const syntheticMissingResultKey = "openclawSyntheticMissingToolResult"

// isJSObjectMessage is `message && typeof message === "object"`.
func isJSObjectMessage(m Message) bool {
	if m == nil {
		return false
	}
	if v, ok := jsvalue.NonObjectValue(m); ok {
		_, arr := v.([]any)
		return arr
	}
	return true
}

// toolResultIDs96 is extractToolResultIds: the trimmed, distinct string ids
// of toolCallId, toolUseId, tool_call_id, tool_use_id, callId, call_id.
func toolResultIDs96(m Message) []string {
	var ids []string
	for _, k := range []string{"toolCallId", "toolUseId", "tool_call_id", "tool_use_id", "callId", "call_id"} {
		s, ok := jsvalue.StringMember(m, k)
		if !ok {
			continue
		}
		id := jsjson.Trim(s)
		if id == "" {
			continue
		}
		dup := false
		for _, x := range ids {
			dup = dup || x == id
		}
		if !dup {
			ids = append(ids, id)
		}
	}
	return ids
}

// toolResultID96 is extractToolResultId ("" for null).
func toolResultID96(m Message) string {
	if ids := toolResultIDs96(m); len(ids) > 0 {
		return ids[0]
	}
	return ""
}

// optionalString is normalizeOptionalString: a string trimmed, "" otherwise.
func optionalString(v any) string {
	s, _ := v.(string)
	return jsjson.Trim(s)
}

// normalizeToolResultName96 is tool-result-pairing's normalizeToolResultName.
func normalizeToolResultName96(m Message, fallback any) Message {
	raw := m.Get("toolName")
	if n := optionalString(raw); n != "" {
		if s, _ := raw.(string); s == n {
			return m
		}
		return m.With("toolName", n)
	}
	if n := optionalString(fallback); n != "" {
		return m.With("toolName", n)
	}
	if _, ok := raw.(string); ok {
		return m.With("toolName", "unknown")
	}
	return m
}

// normalizeLegacyToolResultID is normalizeLegacyToolResultId: a result
// without an id under a turn with one call is that call's (marked an error).
func normalizeLegacyToolResultID(m Message, calls []toolOccurrence) Message {
	if toolResultID96(m) != "" || len(calls) != 1 {
		return m
	}
	rn, cn := optionalString(m.Get("toolName")), optionalString(calls[0].name)
	if rn != "" && cn != "" && rn != cn {
		return m
	}
	return spread(m, "toolCallId", calls[0].id, "isError", true)
}

// isSyntheticMissingToolResult: a result the repair made up.
func isSyntheticMissingToolResult(m Message) bool {
	if !jsvalue.Truthy(m.Get("isError")) {
		return false
	}
	if d, ok := jsvalue.AsObject(m.Get("details")); ok {
		if b, ok := d.Get(syntheticMissingResultKey).(bool); ok && b {
			return true
		}
	}
	content, _ := jsvalue.ArrayMember(m, "content")
	for _, b := range content {
		if bm, ok := jsvalue.AsObject(b); ok && jsvalue.StringOrEmpty(bm, "type") == "text" && jsvalue.StringOrEmpty(bm, "text") == missingResultDefault {
			return true
		}
	}
	return false
}

type pairingFrame struct {
	start, end  int
	assistant   Message
	remainder   []Message
	unclaimed   []unclaimedResult
	occurrences []*toolOccurrence
	failed      bool
}

type unclaimedResult struct {
	result, source Message
	index          int
	id             string
}

// classifyToolUseResultPairing assigns results to call occurrences.
func classifyToolUseResultPairing(in []Message, log *changeLog) []*pairingFrame {
	var starts []int
	for i, m := range in {
		if m != nil && jsvalue.Role(m) == "assistant" && len(toolCallsOf(m)) > 0 {
			starts = append(starts, i)
		}
	}
	frames := make([]*pairingFrame, len(starts))
	for fi, start := range starts {
		f := &pairingFrame{start: start, end: len(in), assistant: in[start]}
		if fi+1 < len(starts) {
			f.end = starts[fi+1]
		}
		calls := toolCallsOf(f.assistant)
		pending := map[string][]*toolOccurrence{}
		for i := range calls {
			occ := &calls[i]
			f.occurrences = append(f.occurrences, occ)
			pending[occ.id] = append(pending[occ.id], occ)
		}
		synthetic := map[string][]*toolOccurrence{}
		for index := start + 1; index < f.end; index++ {
			m := in[index]
			if !isJSObjectMessage(m) {
				continue
			}
			if jsvalue.Role(m) != "toolResult" {
				f.remainder = append(f.remainder, m)
				continue
			}
			norm := normalizeLegacyToolResultID(m, calls)
			id := toolResultID96(norm)
			var occ *toolOccurrence
			if id != "" && len(pending[id]) > 0 {
				occ = pending[id][0]
				pending[id] = pending[id][1:]
			}
			if occ != nil {
				occ.result = normalizeToolResultName96(norm, occ.name)
				occ.source, occ.sourceIndex = m, index
				if isSyntheticMissingToolResult(occ.result) {
					synthetic[occ.id] = append(synthetic[occ.id], occ)
				}
				continue
			}
			called := false
			for _, c := range f.occurrences {
				called = called || c.id == id
			}
			if id == "" || !called {
				f.unclaimed = append(f.unclaimed, unclaimedResult{result: norm, source: m, index: index, id: id})
				continue
			}
			if !isSyntheticMissingToolResult(norm) && len(synthetic[id]) > 0 {
				rep := synthetic[id][0]
				synthetic[id] = synthetic[id][1:]
				log.add(rep.sourceIndex, KindMessageDropped, "synthetic result for tool call %s replaced by the real one at %d", id, index)
				rep.result = normalizeToolResultName96(norm, rep.name)
				rep.source, rep.sourceIndex = m, index
				continue
			}
			log.add(index, KindMessageDropped, "duplicate tool result %s dropped", id)
		}
		stop := jsvalue.StringOrEmpty(f.assistant, "stopReason")
		f.failed = stop == "error" || stop == "aborted"
		frames[fi] = f
	}
	unresolved := map[string][]*toolOccurrence{}
	for _, f := range frames {
		for _, occ := range f.occurrences {
			if occ.result == nil || isSyntheticMissingToolResult(occ.result) {
				unresolved[occ.id] = append(unresolved[occ.id], occ)
			}
		}
		for _, rec := range f.unclaimed {
			var cands []*toolOccurrence
			if rec.id != "" {
				for _, c := range unresolved[rec.id] {
					if c.result == nil || (isSyntheticMissingToolResult(c.result) && !isSyntheticMissingToolResult(rec.result)) {
						cands = append(cands, c)
					}
				}
			}
			if len(cands) != 1 {
				log.add(rec.index, KindMessageDropped, "orphan tool result %s dropped (no unanswered call of that id)", rec.id)
				continue
			}
			c := cands[0]
			if c.result != nil {
				log.add(c.sourceIndex, KindMessageDropped, "synthetic result for tool call %s replaced by the real one at %d", c.id, rec.index)
			}
			c.result = normalizeToolResultName96(rec.result, c.name)
			c.source, c.sourceIndex = rec.source, rec.index
			log.add(rec.index, KindResultMoved, "tool result %s moved after its call (message %d)", c.id, f.start)
		}
	}
	return frames
}

// repairPairing96 is sanitizeToolUseResultPairingForModel: every call
// occurrence gets its result right after the calling turn (a synthetic error
// result when it has none), orphans and duplicates are dropped, and failed
// (error/aborted) tool-call turns are dropped with their results.
func (r *run) repairPairing96(in []Message, rule, missingText string) []Message {
	log := r.step(rule)
	if missingText == "" {
		missingText = missingResultDefault
	}
	frames := classifyToolUseResultPairing(in, log)
	out := make([]Message, 0, len(in)+4)
	cursor := 0
	pushUnframed := func(end int) {
		for ; cursor < end; cursor++ {
			m := in[cursor]
			if !isJSObjectMessage(m) {
				log.add(cursor, KindMessageDropped, "message that is not an object dropped")
				continue
			}
			if jsvalue.Role(m) == "toolResult" {
				log.add(cursor, KindMessageDropped, "orphan tool result %s dropped (no tool call before it)", toolResultID96(m))
				continue
			}
			out = append(out, m)
		}
	}
	for _, f := range frames {
		pushUnframed(f.start)
		cursor = f.end
		if f.failed {
			log.add(f.start, KindMessageDropped, "%s assistant turn with %s dropped with its results", jsvalue.StringOrEmpty(f.assistant, "stopReason"), countNoun(len(f.occurrences), "tool call", "tool calls"))
			out = append(out, f.remainder...)
			continue
		}
		out = append(out, f.assistant)
		for _, occ := range f.occurrences {
			if occ.result != nil {
				out = append(out, occ.result)
				continue
			}
			name := any("unknown")
			if occ.name != nil {
				name = occ.name
			}
			missing := jsvalue.NewObject(
				"role", "toolResult",
				"toolCallId", occ.id,
				"toolName", name,
				"content", []any{jsvalue.TextBlock(missingText)},
				"details", jsvalue.NewObject(syntheticMissingResultKey, true, "reason", "missing_tool_result"),
				"isError", true,
				"timestamp", jsvalue.JSONNumber(float64(r.nowMillis())),
			)
			occ.result = missing
			log.add(f.start, KindSyntheticResult, "synthetic result inserted for tool call %s (%v)", occ.id, name)
			out = append(out, missing)
		}
		out = append(out, f.remainder...)
	}
	pushUnframed(len(in))
	if len(out) == len(in) {
		same := true
		for i := range out {
			if !sameMessage(out[i], in[i]) {
				same = false
				break
			}
		}
		if same {
			return in
		}
	}
	return out
}

// sameMessage is JavaScript's === on two messages (identity).
func sameMessage(a, b Message) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a == b
}
