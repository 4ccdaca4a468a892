package sanitize96

import (
	"encoding/json"
	"reflect"

	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
	"github.com/openclaw-tools/oc/pkg/replay/sanitize"
)

// OpenClaw 2026.9.6's normalizeAssistantReplayContent (dist/builtin-openclaw-*.mjs,
// region embedded-agent-runner/replay-history.ts) and what it calls:
// sanitizeUserReplayContent (keeps a blank user turn that carries persisted
// media), isTranscriptOnlyOpenClawAssistantMessage (also the
// openclawDeliveryMirror marker), isStreamErrorFallbackContent and
// isZeroUsageEmptyStopAssistantTurn (failed or zero-usage empty turns are now
// dropped, where 5.6 gave them a fallback text), stripInternalMetadataForDisplay,
// isSilentReplyPayloadText (NO_REPLY turns dropped), managed display blocks
// dropped, isReasoningOnlyLengthAssistantTurn and isBareDeliveryMirrorDuplicate.

// isTranscriptOnlyOpenClawAssistant is 9.6's
// isTranscriptOnlyOpenClawAssistantMessage: 5.6's provider/model test, or an
// openclawDeliveryMirror marker of a known kind.
func isTranscriptOnlyOpenClawAssistant(m sanitize.Message) bool {
	if sanitize.IsTranscriptOnlyOpenClawAssistant(m) {
		return true
	}
	marker, ok := jsvalue.AsObject(m.Get("openclawDeliveryMirror"))
	if !ok {
		return false
	}
	switch jsvalue.StringOrEmpty(marker, "kind") {
	case "channel-final", "channel-final-suppressed", "message-tool-source-reply", "cron-direct-delivery-context":
		return true
	}
	return false
}

// isStreamErrorFallbackContent (@openclaw/ai host-*.mjs): no content, blank
// text, or only text blocks holding the failed-turn fallback text.
func isStreamErrorFallbackContent(v any) bool {
	switch c := v.(type) {
	case nil:
		return true
	case string:
		t := jsjson.Trim(c)
		return t == "" || t == sanitize.StreamErrorFallbackText
	case []any:
		for _, b := range c {
			bm, ok := jsvalue.AsObject(b)
			if !ok {
				return false
			}
			switch jsvalue.StringOrEmpty(bm, "type") {
			case "text", "input_text", "output_text":
			default:
				return false
			}
			t, ok := jsvalue.StringMember(bm, "text")
			if !ok || !isStreamErrorFallbackContent(t) {
				return false
			}
		}
		return true
	}
	return false
}

// normalizeAssistantReplayContent drops blank user turns (unless they carry
// media), transcript-only and failed empty assistant turns, silent (NO_REPLY)
// and reasoning-only length-limited turns, display-only blocks and inbound
// metadata, and a zero-usage stop turn that repeats the previous turn.
func normalizeAssistantReplayContent(in []sanitize.Message, log *sanitize.ChangeLog) []sanitize.Message {
	out := make([]sanitize.Message, 0, len(in))
	touched := false
	for i, m := range in {
		if m != nil && jsvalue.Role(m) == "user" {
			next, _ := sanitize.SanitizeUserReplayContent(m, true)
			if next == nil {
				log.Add(i, sanitize.KindMessageDropped, "blank user turn dropped")
			} else if !sameMessage(next, m) {
				log.Add(i, sanitize.KindBlockDropped, "blank user text removed")
			}
			if next != nil {
				out = append(out, next)
			}
			touched = touched || !sameMessage(next, m)
			continue
		}
		if m == nil || jsvalue.Role(m) != "assistant" {
			out = append(out, m)
			continue
		}
		if isTranscriptOnlyOpenClawAssistant(m) {
			touched = true
			log.Add(i, sanitize.KindMessageDropped, "transcript-only assistant row dropped")
			continue
		}
		if isStreamErrorFallbackContent(m.Get("content")) && (jsvalue.StringOrEmpty(m, "stopReason") == "error" || sanitize.IsZeroUsageEmptyStop(m.With("content", []any{}))) {
			touched = true
			log.Add(i, sanitize.KindMessageDropped, "empty %s assistant turn dropped", jsvalue.StringOrEmpty(m, "stopReason"))
			continue
		}
		am := m
		content := m.Get("content")
		if s, ok := content.(string); ok {
			touched = true
			stripped := stripInternalMetadataForDisplay(s)
			t := jsjson.Trim(stripped)
			if t == "" || sanitize.IsSilentReplyPayloadText(t) {
				log.Add(i, sanitize.KindMessageDropped, "assistant turn with only metadata, blank or silent text dropped")
				continue
			}
			text := jsvalue.TextBlock(stripped)
			log.Add(i, sanitize.KindContentChanged, "string content wrapped as a text block")
			out = append(out, replaceReplayOwnerContent(m, []any{text}))
			continue
		}
		if _, ok := content.([]any); !ok {
			if _, obj := jsvalue.AsObject(content); obj {
				content = []any{content}
			} else if arr, ok := content.([]any); ok {
				content = arr
			} else {
				content = []any{}
			}
			am = replaceReplayOwnerContent(m, content.([]any))
			touched = true
			log.Add(i, sanitize.KindContentChanged, "content that is not an array made one")
		}
		blocksIn := content.([]any)
		next, changed := sanitize.NormalizeAssistantBlocks(am, blocksIn, assistantBlockRules())
		if changed {
			touched = true
			if next == nil {
				log.Add(i, sanitize.KindMessageDropped, "assistant turn left empty (display blocks, metadata or silent text) dropped")
				continue
			}
			log.Add(i, sanitize.KindContentChanged, "display blocks, inbound metadata or silent text removed")
			am = next
		}
		if jsvalue.StringOrEmpty(am, "stopReason") == "length" && sanitize.HasOnlyAssistantReasoningContent(am) {
			touched = true
			log.Add(i, sanitize.KindMessageDropped, "length-limited turn with only reasoning dropped")
			continue
		}
		if isBareDeliveryMirrorDuplicate(out, am) {
			touched = true
			log.Add(i, sanitize.KindMessageDropped, "zero-usage stop turn repeating the previous assistant turn dropped")
			continue
		}
		out = append(out, am)
	}
	if !touched {
		return in
	}
	return out
}

// assistantBlockRules is 2026.9.6's: internal metadata stripped for
// display, managed display blocks and silent replies dropped.
func assistantBlockRules() sanitize.AssistantBlockRules {
	return sanitize.AssistantBlockRules{
		StripText:         stripInternalMetadataForDisplay,
		DropDisplayBlocks: true,
		DropSilent:        true,
		ReplaceContent:    replaceReplayOwnerContent,
	}
}

// isBareDeliveryMirrorDuplicate: a zero-usage "stop" turn without tool calls
// whose content equals the previous assistant turn's (no tool calls either).
func isBareDeliveryMirrorDuplicate(out []sanitize.Message, next sanitize.Message) bool {
	if len(out) == 0 {
		return false
	}
	prev := out[len(out)-1]
	if prev == nil || jsvalue.Role(prev) != "assistant" {
		return false
	}
	usage, ok := next.Lookup("usage")
	if !ok || !jsvalue.IsObjectOrArray(usage) || hasNonzeroUsage(usage) || jsvalue.StringOrEmpty(next, "stopReason") != "stop" ||
		len(sanitize.ToolCallsOf(prev)) > 0 || len(sanitize.ToolCallsOf(next)) > 0 {
		return false
	}
	pc, ok1 := prev.Get("content").([]any)
	nc, ok2 := next.Get("content").([]any)
	return ok1 && ok2 && len(pc) > 0 && deepEqualJSON(pc, nc)
}

// hasNonzeroUsage is hasNonzeroUsage(normalizeUsage(usage)) of 9.6
// (dist/usage-*.mjs): any normalised counter above zero.
func hasNonzeroUsage(v any) bool {
	n, ok := normalizeUsage(v)
	if !ok {
		return false
	}
	if n.Input > 0 || n.Output > 0 || n.CacheRead > 0 || n.CacheWrite > 0 || n.Total > 0 || n.reasoning > 0 {
		return true
	}
	return n.context != nil && n.context.state == "available" && (n.context.prompt > 0 || n.context.total > 0)
}

// deepEqualJSON is util.isDeepStrictEqual on JSON values.
func deepEqualJSON(a, b any) bool {
	switch x := a.(type) {
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		fx, _ := jsvalue.Number(x)
		fy, _ := jsvalue.Number(y)
		return fx == fy
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !deepEqualJSON(x[i], y[i]) {
				return false
			}
		}
		return true
	case *jsvalue.Object:
		y, ok := b.(*jsvalue.Object)
		if !ok || x.Len() != y.Len() {
			return false
		}
		for _, mb := range x.Members {
			w, ok := y.Lookup(mb.Key)
			if !ok || !deepEqualJSON(mb.Value, w) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}

// stripInternalMetadataForDisplay (dist/display-text-sanitize-*.mjs) is
// stripInboundMetadata(stripInternalRuntimeContext(text)). Runtime-context
// blocks (<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>) are only recognised by
// their delimiters here; see stripInternalRuntimeContext.
func stripInternalMetadataForDisplay(text string) string {
	return stripInboundMetadata(stripInternalRuntimeContext(text))
}
