package sanitize96

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"regexp"
	"strings"

	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/internal/lazyre"
	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
	"github.com/openclaw-tools/oc/pkg/replay/sanitize"
)

// OpenClaw 2026.9.6's OpenAI Responses replay steps
// (dist/embedded-agent-helpers-*.mjs): dropStaleOpenAIReasoning (replaces
// 5.6's downgradeOpenAIReasoningBlocks: reasoning is dropped only from turns
// before the latest model switch) and normalizeOpenAIResponsesToolCallIds
// (call_*/fc_* ids of at most 64 characters).

var (
	responsesCallIDRE = lazyre.New(`^call_[A-Za-z0-9_-]{1,59}$`)
	responsesItemIDRE = lazyre.New(`^fc_[A-Za-z0-9_-]{1,61}$`)
	responsesIDTailRE = lazyre.New(`[^A-Za-z0-9_-]`)
	edgeUnderscores   = lazyre.New(`^_+|_+$`)
)

const responsesIDMaxLength = 64

// normalizeResponsesIDPart is normalizeOpenAIResponsesIdPart.
func normalizeResponsesIDPart(value, prefix string, valid *regexp.Regexp) string {
	t := jsjson.Trim(value)
	if valid.MatchString(t) {
		return t
	}
	rawTail := strings.TrimPrefix(t, prefix)
	seed := t
	if seed == "" {
		seed = prefix
	}
	sum := sha256.Sum256([]byte(jsUTF8(seed)))
	hashSuffix := "_" + hex.EncodeToString(sum[:])[:10]
	maxTail := responsesIDMaxLength - len(prefix)
	// JavaScript replaces each UTF-16 unit outside the alphabet: an astral
	// character becomes two "_". The result is ASCII, so byte slicing is
	// UTF-16 slicing.
	tail := edgeUnderscores().ReplaceAllString(responsesIDTailRE().ReplaceAllStringFunc(rawTail, func(m string) string {
		return strings.Repeat("_", jsjson.Len(m))
	}), "")
	tail = sliceUnits(tail, max(1, maxTail-len(hashSuffix)))
	if tail == "" {
		tail = "id"
	}
	full := tail + hashSuffix
	if len(full) > maxTail {
		full = full[:maxTail]
	}
	return prefix + full
}

// jsUTF8 is how Node hashes a string: lone surrogates become U+FFFD.
func jsUTF8(s string) string { return strings.ToValidUTF8(s, "\uFFFD") }

func sliceUnits(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}

// normalizeResponsesFunctionCallID is normalizeOpenAIResponsesFunctionCallId.
func normalizeResponsesFunctionCallID(id string) string {
	callID, itemID := sanitize.SplitFunctionCallPairing(id)
	paired := itemID != ""
	value := callID
	if paired {
		value = callID + "|" + itemID
	}
	call := normalizeResponsesIDPart(value, "call_", responsesCallIDRE())
	if !paired {
		return call
	}
	return call + "|" + normalizeResponsesIDPart(itemID, "fc_", responsesItemIDRE())
}

func shouldNormalizeResponsesID(id string) bool {
	callID, itemID := sanitize.SplitFunctionCallPairing(id)
	paired := itemID != ""
	if !responsesCallIDRE().MatchString(callID) {
		return true
	}
	if !paired {
		return false
	}
	return !responsesItemIDRE().MatchString(itemID)
}

// normalizeOpenAIResponsesToolCallIDs rewrites tool-call ids (and their
// results' ids) that do not fit the Responses call_*/fc_* shape.
func normalizeOpenAIResponsesToolCallIDs(in []sanitize.Message, log *sanitize.ChangeLog) []sanitize.Message {
	rewritten := map[string]string{}
	resolve := func(id string) string {
		if r, ok := rewritten[id]; ok {
			return r
		}
		if !shouldNormalizeResponsesID(id) {
			return id
		}
		r := normalizeResponsesFunctionCallID(id)
		rewritten[id] = r
		return r
	}
	var out []sanitize.Message
	set := func(i int, m sanitize.Message) {
		if out == nil {
			out = append([]sanitize.Message(nil), in...)
		}
		out[i] = m
	}
	for i, m := range in {
		if !sanitize.IsJSObjectMessage(m) {
			continue
		}
		switch jsvalue.Role(m) {
		case "assistant":
			content, ok := jsvalue.ArrayMember(m, "content")
			if !ok {
				continue
			}
			var next []any
			for j, b := range content {
				bm, ok := jsvalue.AsObject(b)
				if !ok || !sanitize.IsOpenAIToolCallType(jsvalue.StringOrEmpty(bm, "type")) {
					continue
				}
				id, ok := jsvalue.StringMember(bm, "id")
				if !ok {
					continue
				}
				nid := resolve(id)
				if nid == id {
					continue
				}
				if next == nil {
					next = append([]any(nil), content...)
				}
				next[j] = bm.With("id", nid)
				log.Add(i, sanitize.KindIDRewritten, "tool call id %s -> %s (Responses call_/fc_ shape)", id, nid)
			}
			if next != nil {
				set(i, replaceReplayOwnerContent(m, next))
			}
		case "toolResult":
			if next := rewriteToolResultIDs(m, resolve); !sameMessage(next, m) {
				log.Add(i, sanitize.KindIDRewritten, "tool result id -> %s", jsvalue.StringOrEmpty(next, "toolCallId"))
				set(i, next)
			}
		}
	}
	if out == nil {
		return in
	}
	return out
}

// rewriteToolResultIDs is tool-call-id's rewriteToolResultIds.
func rewriteToolResultIDs(m sanitize.Message, resolve func(string) string) sanitize.Message {
	fields := []string{"toolCallId", "toolUseId", "tool_call_id", "tool_use_id", "callId", "call_id"}
	raw := map[string]string{}
	for _, f := range fields {
		if s, ok := jsvalue.StringMember(m, f); ok && s != "" {
			raw[f] = s
		}
	}
	primary := ""
	for _, f := range []string{"call_id", "callId", "tool_call_id", "tool_use_id", "toolCallId", "toolUseId"} {
		if s, ok := raw[f]; ok {
			primary = s
			break
		}
	}
	if primary == "" {
		return m
	}
	resolved := resolve(primary)
	var kv []any
	for _, f := range fields {
		if s, ok := raw[f]; ok && s != resolved {
			kv = append(kv, f, resolved)
		}
	}
	if _, ok := jsvalue.StringMember(m, "toolCallId"); !ok && resolved != "" {
		if _, dup := raw["toolCallId"]; !dup {
			kv = append(kv, "toolCallId", resolved)
		}
	}
	if len(kv) == 0 {
		return m
	}
	return spread(m, kv...)
}

// dropStaleOpenAIReasoning drops replayable reasoning from assistant turns
// at or before the latest model switch (nil: no switch); their text blocks
// lose the msg_ pairing of their text signatures (the phase is kept).
func dropStaleOpenAIReasoning(in []sanitize.Message, before *float64, log *sanitize.ChangeLog) []sanitize.Message {
	if before == nil {
		return in
	}
	out := make([]sanitize.Message, 0, len(in))
	anyChanged := false
	for i, m := range in {
		content, ok := jsvalue.ArrayMember(m, "content")
		if !sanitize.IsJSObjectMessage(m) || jsvalue.Role(m) != "assistant" || !ok {
			out = append(out, m)
			continue
		}
		if ts, ok := parseDateFirstTimestampMs(m.Get("timestamp")); ok && ts > *before {
			out = append(out, m)
			continue
		}
		changed, droppedReasoning := false, false
		next := make([]any, 0, len(content))
		for _, b := range content {
			if !jsvalue.Truthy(b) {
				changed = true
				continue
			}
			bm, ok := jsvalue.AsObject(b)
			if !ok || jsvalue.StringOrEmpty(bm, "type") != "thinking" || !sanitize.IsReplayableReasoning(bm.Get("thinkingSignature")) {
				next = append(next, b)
				continue
			}
			changed, droppedReasoning = true, true
		}
		if !changed {
			out = append(out, m)
			continue
		}
		anyChanged = true
		if len(next) == 0 {
			log.Add(i, sanitize.KindMessageDropped, "assistant turn from before the model switch held only reasoning: dropped")
			continue
		}
		if droppedReasoning {
			for j, b := range next {
				bm, ok := jsvalue.AsObject(b)
				if !ok || jsvalue.StringOrEmpty(bm, "type") != "text" || !jsvalue.Has(bm, "textSignature") {
					continue
				}
				// {textSignature, ...rest} then {...rest, textSignature}: the
				// signature moves to the end.
				nb := bm.Clone()
				nb.Delete("textSignature")
				if sig, ok := bm.Get("textSignature").(string); ok {
					if phase := textSignaturePhase(sig); phase != "" {
						nb.Set("textSignature", `{"v":1,"phase":"`+phase+`"}`)
					}
				}
				next[j] = nb
			}
		}
		log.Add(i, sanitize.KindBlockDropped, "reasoning from before the model switch dropped")
		out = append(out, replaceReplayOwnerContent(m, next))
	}
	if !anyChanged {
		return in
	}
	return out
}

// textSignaturePhase is extractTextSignaturePhase.
func textSignaturePhase(sig string) string {
	if !strings.HasPrefix(sig, "{") {
		return ""
	}
	var p struct {
		V     json.Number `json:"v"`
		Phase any         `json:"phase"`
	}
	if json.Unmarshal([]byte(sig), &p) != nil {
		return ""
	}
	if f, ok := jsvalue.Number(p.V); !ok || f != 1 {
		return ""
	}
	if s, ok := p.Phase.(string); ok && (s == "commentary" || s == "final_answer") {
		return s
	}
	return ""
}
