package sanitize

import (
	"encoding/json"
	"reflect"
	"strings"
	"unicode"

	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/internal/lazyre"
	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
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

// managedDisplayBlockTypes is MANAGED_DISPLAY_BLOCK_TYPES.
var managedDisplayBlockTypes = map[string]bool{"attachment": true, "attachment_error": true, "audio": true, "image": true, "video": true}

const silentReplyToken = "NO_REPLY"

// isTranscriptOnlyOpenClawAssistant96 is 9.6's
// isTranscriptOnlyOpenClawAssistantMessage: 5.6's provider/model test, or an
// openclawDeliveryMirror marker of a known kind.
func isTranscriptOnlyOpenClawAssistant96(m Message) bool {
	if IsTranscriptOnlyOpenClawAssistant(m) {
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
		return t == "" || t == StreamErrorFallbackText
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

// HasOnlyAssistantReasoningContent (@openclaw/ai replay-turn-classification):
// thinking blocks and blank text only, at least one thinking block.
func HasOnlyAssistantReasoningContent(m Message) bool {
	if jsvalue.Role(m) != "assistant" {
		return false
	}
	var content []any
	switch c := m.Get("content").(type) {
	case []any:
		content = c
	case *jsvalue.Object:
		content = []any{c}
	}
	thinking := false
	for _, b := range content {
		bm, ok := jsvalue.AsObject(b)
		if !ok || !jsvalue.Has(bm, "type") {
			return false
		}
		switch jsvalue.StringOrEmpty(bm, "type") {
		case "thinking", "redacted_thinking":
			thinking = true
			continue
		case "text":
			if t, ok := jsvalue.StringMember(bm, "text"); ok && jsjson.Blank(t) {
				continue
			}
		}
		return false
	}
	return thinking
}

// normalizeAssistantReplayContent96 drops blank user turns (unless they carry
// media), transcript-only and failed empty assistant turns, silent (NO_REPLY)
// and reasoning-only length-limited turns, display-only blocks and inbound
// metadata, and a zero-usage stop turn that repeats the previous turn.
func normalizeAssistantReplayContent96(in []Message, log *ChangeLog) []Message {
	out := make([]Message, 0, len(in))
	touched := false
	for i, m := range in {
		if m != nil && jsvalue.Role(m) == "user" {
			next, _ := SanitizeUserReplayContent(m, true)
			if next == nil {
				log.Add(i, KindMessageDropped, "blank user turn dropped")
			} else if !sameMessage(next, m) {
				log.Add(i, KindBlockDropped, "blank user text removed")
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
		if isTranscriptOnlyOpenClawAssistant96(m) {
			touched = true
			log.Add(i, KindMessageDropped, "transcript-only assistant row dropped")
			continue
		}
		if isStreamErrorFallbackContent(m.Get("content")) && (jsvalue.StringOrEmpty(m, "stopReason") == "error" || IsZeroUsageEmptyStop(m.With("content", []any{}))) {
			touched = true
			log.Add(i, KindMessageDropped, "empty %s assistant turn dropped", jsvalue.StringOrEmpty(m, "stopReason"))
			continue
		}
		am := m
		content := m.Get("content")
		if s, ok := content.(string); ok {
			touched = true
			stripped := stripInternalMetadataForDisplay(s)
			t := jsjson.Trim(stripped)
			if t == "" || IsSilentReplyPayloadText(t) {
				log.Add(i, KindMessageDropped, "assistant turn with only metadata, blank or silent text dropped")
				continue
			}
			text := jsvalue.TextBlock(stripped)
			log.Add(i, KindContentChanged, "string content wrapped as a text block")
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
			log.Add(i, KindContentChanged, "content that is not an array made one")
		}
		blocksIn := content.([]any)
		next, changed := NormalizeAssistantBlocks(am, blocksIn, assistantBlockRules96())
		if changed {
			touched = true
			if next == nil {
				log.Add(i, KindMessageDropped, "assistant turn left empty (display blocks, metadata or silent text) dropped")
				continue
			}
			log.Add(i, KindContentChanged, "display blocks, inbound metadata or silent text removed")
			am = next
		}
		if jsvalue.StringOrEmpty(am, "stopReason") == "length" && HasOnlyAssistantReasoningContent(am) {
			touched = true
			log.Add(i, KindMessageDropped, "length-limited turn with only reasoning dropped")
			continue
		}
		if isBareDeliveryMirrorDuplicate(out, am) {
			touched = true
			log.Add(i, KindMessageDropped, "zero-usage stop turn repeating the previous assistant turn dropped")
			continue
		}
		out = append(out, am)
	}
	if !touched {
		return in
	}
	return out
}

// assistantBlockRules96 is 2026.9.6's: internal metadata stripped for
// display, managed display blocks and silent replies dropped.
func assistantBlockRules96() AssistantBlockRules {
	return AssistantBlockRules{
		StripText:         stripInternalMetadataForDisplay,
		DropDisplayBlocks: true,
		DropSilent:        true,
		ReplaceContent:    replaceReplayOwnerContent,
	}
}

// isBareDeliveryMirrorDuplicate: a zero-usage "stop" turn without tool calls
// whose content equals the previous assistant turn's (no tool calls either).
func isBareDeliveryMirrorDuplicate(out []Message, next Message) bool {
	if len(out) == 0 {
		return false
	}
	prev := out[len(out)-1]
	if prev == nil || jsvalue.Role(prev) != "assistant" {
		return false
	}
	usage, ok := next.Lookup("usage")
	if !ok || !jsvalue.IsObjectOrArray(usage) || hasNonzeroUsage(usage) || jsvalue.StringOrEmpty(next, "stopReason") != "stop" ||
		len(ToolCallsOf(prev)) > 0 || len(ToolCallsOf(next)) > 0 {
		return false
	}
	pc, ok1 := prev.Get("content").([]any)
	nc, ok2 := next.Get("content").([]any)
	return ok1 && ok2 && len(pc) > 0 && deepEqualJSON(pc, nc)
}

// hasNonzeroUsage is hasNonzeroUsage(normalizeUsage(usage)) of 9.6
// (dist/usage-*.mjs): any normalised counter above zero.
func hasNonzeroUsage(v any) bool {
	n, ok := normalizeUsage96(v)
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
// stripInboundMetadata96(stripInternalRuntimeContext(text)). Runtime-context
// blocks (<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>) are only recognised by
// their delimiters here; see stripInternalRuntimeContext.
func stripInternalMetadataForDisplay(text string) string {
	return stripInboundMetadata96(stripInternalRuntimeContext(text))
}

var (
	silentExact        = lazyre.New(`(?i)^\s*NO_REPLY(?:\s+NO_REPLY)*\s*$`)
	taggedReasoningPre = lazyre.New(`(?i)^\s*<\s*(?:(?:antml:|mm:)?(?:think(?:ing)?|thought)|antthinking)\b[^<>]*>[\s\S]*?<\s*/\s*(?:(?:antml:|mm:)?(?:think(?:ing)?|thought)|antthinking)\s*>\s*`)
	openReasoningPre   = lazyre.New(`(?i)^\s*<\s*(?:(?:antml:|mm:)?(?:think(?:ing)?|thought)|antthinking)\b[^<>]*>`)
	plainReasoningPre  = lazyre.New(`(?i)^\s*(?:think(?:ing)?|thought|analysis|reasoning)\s*:?\s*\r?\n`)
	finalSilentToken   = lazyre.New(`(?i)(?:^|[\s*.])NO_REPLY\s*$`)
	silentIntentText   = lazyre.New(`(?i)^\s*(?:i|i'll|i\s+will|i'm|i\s+am|we|we'll|we\s+will|the\s+assistant|assistant|the\s+bot|bot|openclaw)\s+(?:(?:will\s+)?(?:stay|remain|keep|be)\s+(?:quiet|silent)(?:\s+(?:here|for\s+now|on\s+this|in\s+this\s+(?:chat|thread|channel|conversation)))?|(?:do\s+not|don't|dont|will\s+not|won't|would\s+not|should\s+not)\s+(?:reply|respond)(?:\s+(?:here|for\s+now|on\s+this|in\s+this\s+(?:chat|thread|channel|conversation)))?|(?:have|has)\s+nothing\s+(?:to|for)\s+(?:say|add|reply|respond))(?:[.!?]+)?\s*$`)
	substantiveCue     = lazyre.New(`(?i)\b(?:answer|here(?:'s|\s+is)|tell\s+them|you\s+(?:should|can|could|need|must)|please|try|use|send|service\s+is|resolved|retry|yes|no,|sure)\b`)
	bareReasoning      = lazyre.New(`(?i)^\s*(?:(?:internal|private)\s+)?(?:reasoning|thinking|thoughts?|analysis)(?:\s+notes?)?\s*$`)
	crlfSplit          = lazyre.New(`\r?\n`)
)

// isSilentReplyText (dist/tokens-*.mjs): only the NO_REPLY token, possibly
// repeated or wrapped in punctuation.
func isSilentReplyText(text string) bool {
	if text == "" {
		return false
	}
	return silentExact().MatchString(text) || silentExact().MatchString(stripEdgePunctuation(jsjson.Trim(text)))
}

func stripEdgePunctuation(s string) string {
	s = strings.TrimLeftFunc(s, unicode.IsPunct)
	return strings.TrimRightFunc(s, unicode.IsPunct)
}

// IsSilentReplyPayloadText: token-only, a JSON string of the token, an
// {"action": token} envelope, or reasoning followed by the token.
func IsSilentReplyPayloadText(text string) bool {
	if !hasSilentToken(text) {
		// every way below to true matches NO_REPLY (case-insensitively) in
		// text or in a suffix of it: skip the regular expressions
		return false
	}
	if isSilentReplyText(text) {
		return true
	}
	t := jsjson.Trim(text)
	if strings.Contains(t, silentReplyToken) {
		if strings.HasPrefix(t, `"`) && strings.HasSuffix(t, `"`) {
			var s string
			if json.Unmarshal([]byte(t), &s) == nil && jsjson.Trim(s) == silentReplyToken {
				return true
			}
		}
		if strings.HasPrefix(t, "{") && strings.HasSuffix(t, "}") {
			var o map[string]any
			if json.Unmarshal([]byte(t), &o) == nil && len(o) == 1 {
				if a, ok := o["action"].(string); ok && jsjson.Trim(a) == silentReplyToken {
					return true
				}
			}
		}
	}
	return isReasoningPrefixedSilentReplyText(text)
}

// hasSilentToken reports whether text holds NO_REPLY in any letter case,
// as the (?i) expressions above match it (none of its letters has a
// non-ASCII case fold). It looks for the '_' first, which has no case.
func hasSilentToken(text string) bool {
	const under = 2 // silentReplyToken[under] == '_'
	for i := 0; ; {
		j := strings.IndexByte(text[i:], '_')
		if j < 0 {
			return false
		}
		j += i
		if j >= under && j-under+len(silentReplyToken) <= len(text) && strings.EqualFold(text[j-under:j-under+len(silentReplyToken)], silentReplyToken) {
			return true
		}
		i = j + 1
	}
}

func stripFinalSilentToken(text string) (string, bool) {
	stripped := jsjson.Trim(finalSilentToken().ReplaceAllString(text, ""))
	if stripped == jsjson.Trim(text) {
		return "", false
	}
	return stripped, true
}

func isReasoningPrefixedSilentReplyText(text string) bool {
	t := jsjson.Trim(text)
	if t == "" {
		return false
	}
	without := t
	for {
		next := taggedReasoningPre().ReplaceAllString(without, "")
		if next == without {
			break
		}
		without = next
	}
	if without != t {
		if isSilentReplyText(without) {
			return true
		}
		w, ok := stripFinalSilentToken(without)
		return ok && (w == "" || silentIntentText().MatchString(w))
	}
	plainFinal := func(s string) bool {
		w, ok := stripFinalSilentToken(s)
		if !ok {
			return false
		}
		if w == "" || silentIntentText().MatchString(w) {
			return true
		}
		var lines []string
		for _, l := range crlfSplit().Split(w, -1) {
			if l = jsjson.Trim(l); l != "" {
				lines = append(lines, l)
			}
		}
		if len(lines) > 0 {
			final := lines[len(lines)-1]
			prev := strings.Join(lines[:len(lines)-1], "\n")
			if silentIntentText().MatchString(final) && prev != "" && !substantiveCue().MatchString(prev) {
				return true
			}
		}
		return bareReasoning().MatchString(w)
	}
	if openReasoningPre().MatchString(t) {
		rest := openReasoningPre().ReplaceAllString(t, "")
		return isSilentReplyText(rest) || plainFinal(rest)
	}
	if !plainReasoningPre().MatchString(t) {
		return false
	}
	rest := plainReasoningPre().ReplaceAllString(t, "")
	return isSilentReplyText(rest) || plainFinal(rest)
}
