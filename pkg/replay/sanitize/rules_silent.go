package sanitize

import (
	"encoding/json"
	"strings"
	"unicode"

	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/internal/lazyre"
	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
)

// Silent replies and reasoning-only turns (@openclaw/ai
// replay-turn-classification, OpenClaw's silent-reply tokens): what
// normalizeAssistantReplayBlockContent drops when a release says so
// (AssistantBlockRules.DropSilent, DropDisplayBlocks), and what 2026.9.6's
// own rules ask of a text.

// managedDisplayBlockTypes is MANAGED_DISPLAY_BLOCK_TYPES.
var managedDisplayBlockTypes = map[string]bool{"attachment": true, "attachment_error": true, "audio": true, "image": true, "video": true}

const silentReplyToken = "NO_REPLY"

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
