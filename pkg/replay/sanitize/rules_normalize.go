package sanitize

import (
	"regexp"

	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/internal/lazyre"
	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
)

// R2: what the releases' normalizeAssistantReplayContent (replay-history.ts)
// and inbound metadata strippers (src/auto-reply/reply/strip-inbound-meta.ts)
// share: blank user text, transcript-only rows, the assistant block rule
// (normalizeAssistantReplayBlockContent) and the texts they look for.

// StreamErrorFallbackText is the text of a failed turn without content;
// the ActiveMemory tags fence the active-memory plugin's prompt prefix.
const (
	StreamErrorFallbackText = "[assistant turn failed before producing content]"
	ActiveMemoryOpenTag     = "<active_memory_plugin>"
	ActiveMemoryCloseTag    = "</active_memory_plugin>"
)

var leadingTimestampRE = lazyre.New(`^\[[A-Za-z]{3} \d{4}-\d{2}-\d{2} \d{2}:\d{2}[^\]]*\] *`)

// LeadingTimestampPrefix matches a leading "[Wed 2026-01-28 20:31 UTC] "
// timestamp, which the inbound metadata strippers remove.
func LeadingTimestampPrefix() *regexp.Regexp { return leadingTimestampRE() }

// IsZeroUsageEmptyStop is isZeroUsageEmptyStopAssistantTurn: a "stop" turn
// with no content whose usage counters are all zero.
func IsZeroUsageEmptyStop(m Message) bool {
	if jsvalue.StringOrEmpty(m, "stopReason") != "stop" {
		return false
	}
	c, ok := jsvalue.ArrayMember(m, "content")
	if !ok || len(c) != 0 {
		return false
	}
	return hasZeroTokenUsage(m.Get("usage"))
}

func hasZeroTokenUsage(v any) bool {
	u, ok := v.(*jsvalue.Object)
	if !ok || u == nil {
		// Arrays are objects too, but carry no counters.
		return false
	}
	count := func(key string) (float64, bool) { return jsvalue.Number(u.Get(key)) }
	totalV := u.Get("total")
	if totalV == nil {
		totalV = u.Get("totalTokens")
	}
	if totalV == nil {
		totalV = u.Get("total_tokens")
	}
	comps := []string{"input", "output", "cacheRead", "cacheWrite"}
	if total, ok := jsvalue.Number(totalV); ok {
		if total != 0 {
			return false
		}
		for _, k := range comps {
			if v, ok := count(k); ok && v != 0 {
				return false
			}
		}
		return true
	}
	n := 0
	for _, k := range comps {
		if v, ok := count(k); ok {
			if v != 0 {
				return false
			}
			n++
		}
	}
	return n > 0
}

// HasPersistedMedia (provider-utils hasPersistedMedia: readPersistedMediaFacts
// + isMeaningfulMediaFact in media-facts): message.__openclaw.media holds a
// fact with a non-blank path or url (normalizeOptionalString, then trim), a
// non-blank content type, or a truthy kind other than "unknown". (A fact
// without a kind derives one from its content type, which then counts
// already.)
func HasPersistedMedia(m Message) bool {
	meta, ok := jsvalue.AsObject(m.Get("__openclaw"))
	if !ok {
		return false
	}
	media, ok := meta.Get("media").([]any)
	if !ok {
		return false
	}
	for _, e := range media {
		f, ok := jsvalue.AsObject(e)
		if !ok {
			continue
		}
		for _, key := range []string{"path", "url", "contentType"} {
			if s, ok := f.Get(key).(string); ok && !jsjson.Blank(s) {
				return true
			}
		}
		if k, ok := f.Lookup("kind"); ok && jsvalue.Truthy(k) && k != "unknown" {
			return true
		}
	}
	return false
}

// SanitizeUserReplayContent drops blank text from a user turn: the message
// to keep (nil: drop it) and whether it changed. keepMedia (2026.9.6): a
// turn left with nothing that carries persisted media is kept, its content
// "" when it had blocks.
func SanitizeUserReplayContent(m Message, keepMedia bool) (Message, bool) {
	media := func() bool { return keepMedia && HasPersistedMedia(m) }
	switch content := m.Get("content").(type) {
	case string:
		if !jsjson.Blank(content) || media() {
			return m, false
		}
		return nil, true
	case []any:
		kept := make([]any, 0, len(content))
		for _, b := range content {
			if bm, ok := jsvalue.AsObject(b); ok && jsvalue.StringOrEmpty(bm, "type") == "text" {
				if t, ok := jsvalue.StringMember(bm, "text"); ok && jsjson.Blank(t) {
					continue
				}
			}
			kept = append(kept, b)
		}
		if len(kept) == 0 {
			if media() {
				return m.With("content", ""), true
			}
			return nil, true
		}
		if len(kept) == len(content) {
			return m, false
		}
		return m.With("content", kept), true
	}
	return m, false
}

// IsTranscriptOnlyOpenClawAssistant is isTranscriptOnlyOpenClawAssistantMessage:
// an assistant row OpenClaw wrote to the transcript only (provider
// "openclaw", model delivery-mirror or gateway-injected).
func IsTranscriptOnlyOpenClawAssistant(m Message) bool {
	if jsvalue.StringOrEmpty(m, "provider") != "openclaw" {
		return false
	}
	model, ok := jsvalue.StringMember(m, "model")
	return ok && (model == "delivery-mirror" || model == "gateway-injected")
}

// AssistantBlockRules is what a release's
// normalizeAssistantReplayBlockContent does its own way.
type AssistantBlockRules struct {
	// StripText removes the metadata the release strips from text.
	StripText func(text string) string
	// DropDisplayBlocks: managed display blocks are dropped (2026.9.6).
	DropDisplayBlocks bool
	// DropSilent: silent-reply text blocks are dropped, and a turn left with
	// only reasoning after that is dropped whole (2026.9.6).
	DropSilent bool
	// ReplaceContent is m with its content replaced by next.
	ReplaceContent func(m Message, next []any) Message
}

// NormalizeAssistantBlocks is normalizeAssistantReplayBlockContent: the
// assistant turn with its blocks cleaned as the release's rules say (nil:
// drop the turn), and whether it changed.
func NormalizeAssistantBlocks(m Message, content []any, rules AssistantBlockRules) (Message, bool) {
	touched, removedSilent := false, false
	kept := make([]any, 0, len(content))
	for _, b := range content {
		bm, ok := jsvalue.AsObject(b)
		if !ok {
			kept = append(kept, b)
			continue
		}
		if rules.DropDisplayBlocks {
			if t, ok := jsvalue.StringMember(bm, "type"); ok && managedDisplayBlockTypes[t] {
				touched = true
				continue
			}
		}
		text, ok := jsvalue.StringMember(bm, "text")
		if !ok {
			kept = append(kept, b)
			continue
		}
		stripped := rules.StripText(text)
		if stripped == text {
			if rules.DropSilent && IsSilentReplyPayloadText(jsjson.Trim(text)) {
				touched, removedSilent = true, true
			} else {
				kept = append(kept, b)
			}
			continue
		}
		touched = true
		t := jsjson.Trim(stripped)
		silent := t != "" && rules.DropSilent && IsSilentReplyPayloadText(t)
		if t != "" && !silent {
			kept = append(kept, bm.With("text", stripped))
		}
		removedSilent = removedSilent || silent
	}
	if !touched {
		return m, false
	}
	if len(kept) == 0 {
		return nil, true
	}
	next := rules.ReplaceContent(m, kept)
	if removedSilent && HasOnlyAssistantReasoningContent(next) {
		return nil, true
	}
	return next, true
}
