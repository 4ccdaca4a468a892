package sanitize96

import (
	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
	"github.com/openclaw-tools/oc/pkg/replay/sanitize"
)

// OpenClaw 2026.9.6's tool-use/result pairing repair, which pairs results per
// call occurrence: dist/tool-result-pairing-*.mjs classifyToolUseResultPairing
// (packages/agent-core/src/harness/session/tool-result-pairing.ts) and
// dist/session-transcript-repair-*.mjs repairToolUseResultPairing /
// sanitizeToolUseResultPairingForModel (erroredAssistantResultPolicy "drop").

// syntheticMissingResultKey is SYNTHETIC_MISSING_TOOL_RESULT_DETAIL_KEY.
const syntheticMissingResultKey = "openclawSyntheticMissingToolResult"

// toolResultIDs is extractToolResultIds: the trimmed, distinct string ids
// of toolCallId, toolUseId, tool_call_id, tool_use_id, callId, call_id.
func toolResultIDs(m sanitize.Message) []string {
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

// toolResultID is extractToolResultId ("" for null).
func toolResultID(m sanitize.Message) string {
	if ids := toolResultIDs(m); len(ids) > 0 {
		return ids[0]
	}
	return ""
}

// optionalString is normalizeOptionalString: a string trimmed, "" otherwise.
func optionalString(v any) string {
	s, _ := v.(string)
	return jsjson.Trim(s)
}

// normalizeToolResultName is tool-result-pairing's normalizeToolResultName.
func normalizeToolResultName(m sanitize.Message, fallback any) sanitize.Message {
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
func normalizeLegacyToolResultID(m sanitize.Message, calls []sanitize.ToolOccurrence) sanitize.Message {
	if toolResultID(m) != "" || len(calls) != 1 {
		return m
	}
	rn, cn := optionalString(m.Get("toolName")), optionalString(calls[0].Name)
	if rn != "" && cn != "" && rn != cn {
		return m
	}
	return spread(m, "toolCallId", calls[0].ID, "isError", true)
}

// isSyntheticMissingToolResult: a result the repair made up.
func isSyntheticMissingToolResult(m sanitize.Message) bool {
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
		if bm, ok := jsvalue.AsObject(b); ok && jsvalue.StringOrEmpty(bm, "type") == "text" && jsvalue.StringOrEmpty(bm, "text") == sanitize.MissingResultDefault {
			return true
		}
	}
	return false
}

type pairingFrame struct {
	start, end  int
	assistant   sanitize.Message
	remainder   []sanitize.Message
	unclaimed   []unclaimedResult
	occurrences []*sanitize.ToolOccurrence
	failed      bool
}

type unclaimedResult struct {
	result, source sanitize.Message
	index          int
	id             string
}

// classifyToolUseResultPairing assigns results to call occurrences.
func classifyToolUseResultPairing(in []sanitize.Message, log *sanitize.ChangeLog) []*pairingFrame {
	var starts []int
	for i, m := range in {
		if m != nil && jsvalue.Role(m) == "assistant" && len(sanitize.ToolCallsOf(m)) > 0 {
			starts = append(starts, i)
		}
	}
	frames := make([]*pairingFrame, len(starts))
	for fi, start := range starts {
		f := &pairingFrame{start: start, end: len(in), assistant: in[start]}
		if fi+1 < len(starts) {
			f.end = starts[fi+1]
		}
		calls := sanitize.ToolCallsOf(f.assistant)
		pending := map[string][]*sanitize.ToolOccurrence{}
		for i := range calls {
			occ := &calls[i]
			f.occurrences = append(f.occurrences, occ)
			pending[occ.ID] = append(pending[occ.ID], occ)
		}
		synthetic := map[string][]*sanitize.ToolOccurrence{}
		for index := start + 1; index < f.end; index++ {
			m := in[index]
			if !sanitize.IsJSObjectMessage(m) {
				continue
			}
			if jsvalue.Role(m) != "toolResult" {
				f.remainder = append(f.remainder, m)
				continue
			}
			norm := normalizeLegacyToolResultID(m, calls)
			id := toolResultID(norm)
			var occ *sanitize.ToolOccurrence
			if id != "" && len(pending[id]) > 0 {
				occ = pending[id][0]
				pending[id] = pending[id][1:]
			}
			if occ != nil {
				occ.Result = normalizeToolResultName(norm, occ.Name)
				occ.Source, occ.SourceIndex = m, index
				if isSyntheticMissingToolResult(occ.Result) {
					synthetic[occ.ID] = append(synthetic[occ.ID], occ)
				}
				continue
			}
			called := false
			for _, c := range f.occurrences {
				called = called || c.ID == id
			}
			if id == "" || !called {
				f.unclaimed = append(f.unclaimed, unclaimedResult{result: norm, source: m, index: index, id: id})
				continue
			}
			if !isSyntheticMissingToolResult(norm) && len(synthetic[id]) > 0 {
				rep := synthetic[id][0]
				synthetic[id] = synthetic[id][1:]
				log.Add(rep.SourceIndex, sanitize.KindMessageDropped, "synthetic result for tool call %s replaced by the real one at %d", id, index)
				rep.Result = normalizeToolResultName(norm, rep.Name)
				rep.Source, rep.SourceIndex = m, index
				continue
			}
			log.Add(index, sanitize.KindMessageDropped, "duplicate tool result %s dropped", id)
		}
		stop := jsvalue.StringOrEmpty(f.assistant, "stopReason")
		f.failed = stop == "error" || stop == "aborted"
		frames[fi] = f
	}
	unresolved := map[string][]*sanitize.ToolOccurrence{}
	for _, f := range frames {
		for _, occ := range f.occurrences {
			if occ.Result == nil || isSyntheticMissingToolResult(occ.Result) {
				unresolved[occ.ID] = append(unresolved[occ.ID], occ)
			}
		}
		for _, rec := range f.unclaimed {
			var cands []*sanitize.ToolOccurrence
			if rec.id != "" {
				for _, c := range unresolved[rec.id] {
					if c.Result == nil || (isSyntheticMissingToolResult(c.Result) && !isSyntheticMissingToolResult(rec.result)) {
						cands = append(cands, c)
					}
				}
			}
			if len(cands) != 1 {
				log.Add(rec.index, sanitize.KindMessageDropped, "orphan tool result %s dropped (no unanswered call of that id)", rec.id)
				continue
			}
			c := cands[0]
			if c.Result != nil {
				log.Add(c.SourceIndex, sanitize.KindMessageDropped, "synthetic result for tool call %s replaced by the real one at %d", c.ID, rec.index)
			}
			c.Result = normalizeToolResultName(rec.result, c.Name)
			c.Source, c.SourceIndex = rec.source, rec.index
			log.Add(rec.index, sanitize.KindResultMoved, "tool result %s moved after its call (message %d)", c.ID, f.start)
		}
	}
	return frames
}

// repairPairing is sanitizeToolUseResultPairingForModel: every call
// occurrence gets its result right after the calling turn (a synthetic error
// result when it has none), orphans and duplicates are dropped, and failed
// (error/aborted) tool-call turns are dropped with their results.
func repairPairing(r *sanitize.Run, in []sanitize.Message, rule, missingText string) []sanitize.Message {
	log := r.Log(rule)
	if missingText == "" {
		missingText = sanitize.MissingResultDefault
	}
	frames := classifyToolUseResultPairing(in, log)
	out := make([]sanitize.Message, 0, len(in)+4)
	cursor := 0
	pushUnframed := func(end int) {
		for ; cursor < end; cursor++ {
			m := in[cursor]
			if !sanitize.IsJSObjectMessage(m) {
				log.Add(cursor, sanitize.KindMessageDropped, "message that is not an object dropped")
				continue
			}
			if jsvalue.Role(m) == "toolResult" {
				log.Add(cursor, sanitize.KindMessageDropped, "orphan tool result %s dropped (no tool call before it)", toolResultID(m))
				continue
			}
			out = append(out, m)
		}
	}
	for _, f := range frames {
		pushUnframed(f.start)
		cursor = f.end
		if f.failed {
			log.Add(f.start, sanitize.KindMessageDropped, "%s assistant turn with %s dropped with its results", jsvalue.StringOrEmpty(f.assistant, "stopReason"), sanitize.CountNoun(len(f.occurrences), "tool call", "tool calls"))
			out = append(out, f.remainder...)
			continue
		}
		out = append(out, f.assistant)
		for _, occ := range f.occurrences {
			if occ.Result != nil {
				out = append(out, occ.Result)
				continue
			}
			name := any("unknown")
			if occ.Name != nil {
				name = occ.Name
			}
			missing := jsvalue.NewObject(
				"role", "toolResult",
				"toolCallId", occ.ID,
				"toolName", name,
				"content", []any{jsvalue.TextBlock(missingText)},
				"details", jsvalue.NewObject(syntheticMissingResultKey, true, "reason", "missing_tool_result"),
				"isError", true,
				"timestamp", jsvalue.JSONNumber(float64(r.NowMillis())),
			)
			occ.Result = missing
			log.Add(f.start, sanitize.KindSyntheticResult, "synthetic result inserted for tool call %s (%v)", occ.ID, name)
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
func sameMessage(a, b sanitize.Message) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a == b
}
