package sanitize96

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/internal/lazyre"
	"github.com/openclaw-tools/oc/pkg/policy"
	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
	"github.com/openclaw-tools/oc/pkg/replay/sanitize"
)

// The LLM boundary of OpenClaw 2026.9.6: what the embedded runner does to its
// message list (the sanitize pipeline's `limited`) before OpenClaw's
// `stream` builds the provider body. In the order the oracle's `payload`
// mode runs it (attempt-llm-boundary.ts, dist/builtin-openclaw-*.mjs):
//
//  1. normalizeCoreContextMessages (dist/agent-core-*.mjs): custom
//     "openclaw:turn-aborted" messages become user messages;
//  2. normalizeMessagesForLlmBoundary: normalizeAssistantReplayContent (the
//     sanitize stage's rule again: blank user text blocks and turns dropped,
//     and a zero-usage "stop" turn repeating the previous assistant turn,
//     whose usage sanitize may only just have zeroed),
//     stripToolResultDetails, stripUnsafeBlockedRunMetadata,
//     normalizeUserMessagesForLlmBoundary (user text stamped
//     "[Www YYYY-MM-DD HH:MM TZ] " from the message's own timestamp in the
//     user's zone; inbound metadata stripped from historical user turns),
//     projectPersistedSenderContext, stripHistoricalRuntimeContextCustomMessages
//     (unless the policy keeps runtime context append-only), and for v4
//     sessions projectRuntimeContextMessages;
//  3. relocateCurrentRuntimeContextCarrierToTail (dist/internal-runtime-context-*.mjs,
//     unless append-only);
//  4. convertToLlm (dist/session-*.mjs; see convertToLLM);
//  5. wrapStreamFnSanitizeMalformedToolCalls around `stream`
//     (see sanitizeMalformedToolCalls).

// boundaryRun is what the LLM-boundary steps share: the first place where
// the release would throw.
type boundaryRun struct {
	err error
}

// fail records the first error (later ones are not reached in JavaScript).
func (b *boundaryRun) fail(format string, args ...any) {
	if b.err == nil {
		b.err = fmt.Errorf(format, args...)
	}
}

// BoundaryInput is what the 2026.9.6 LLM boundary reads.
type BoundaryInput struct {
	Provider string // provider id, e.g. "anthropic"
	API      string // API family, e.g. "anthropic-messages"
	Model    string // model id
	// Messages are the sanitized messages; they are not modified.
	Messages []sanitize.Message
	// Location is the time zone user turns are stamped in (nil: UTC).
	Location *time.Location
	// SessionVersion is the transcript header's version
	// (usesEscapedRuntimeContext): 0 (unknown) or 3 leave runtime context
	// as stored, 4 projects it; other values are an error.
	SessionVersion int
}

// Boundary runs OpenClaw 2026.9.6's LLM boundary: timestamps in
// in.Location, inbound metadata, runtime context and the malformed-tool-call
// stream wrapper. It fails where 2026.9.6 would throw before sending.
func Boundary(in BoundaryInput) ([]sanitize.Message, error) {
	c := &boundaryRun{}
	msgs, err := boundary(c, &in)
	if err != nil {
		return nil, err
	}
	if c.err != nil {
		return nil, c.err
	}
	return msgs, nil
}

// boundary runs the 2026.9.6 boundary for in.
func boundary(c *boundaryRun, in *BoundaryInput) ([]sanitize.Message, error) {
	pol := policy.Resolve96(policy.Route{Provider: in.Provider, API: in.API, Model: in.Model}).Policy
	loc := in.Location
	if loc == nil {
		loc = time.UTC
	}
	escaped, err := usesEscapedRuntimeContext(in.SessionVersion)
	if err != nil {
		return nil, err
	}
	msgs := normalizeCoreContextMessages(in.Messages)
	msgs = normalizeMessagesForLlmBoundary(c, msgs, boundaryOptions{appendOnlyRuntimeContext: pol.AppendOnlyRuntimeContext, location: loc})
	if escaped {
		msgs = projectRuntimeContextMessages(c, msgs)
	}
	if !pol.AppendOnlyRuntimeContext {
		msgs = relocateCurrentRuntimeContextCarrierToTail(msgs)
	}
	msgs = convertToLLM(msgs)
	return sanitizeMalformedToolCalls(msgs, pol, in.API), nil
}

type boundaryOptions struct {
	appendOnlyRuntimeContext bool
	location                 *time.Location
}

// normalizeCoreContextMessages (agent-core): a custom
// "openclaw:turn-aborted" message becomes {role: "user", content, timestamp}.
func normalizeCoreContextMessages(msgs []sanitize.Message) []sanitize.Message {
	var out []sanitize.Message
	for i, m := range msgs {
		if m.Get("role") != "custom" || m.Get("customType") != "openclaw:turn-aborted" {
			if out != nil {
				out = append(out, m)
			}
			continue
		}
		if out == nil {
			out = append(make([]sanitize.Message, 0, len(msgs)), msgs[:i]...)
		}
		content, ok := m.Lookup("content")
		if s, isStr := content.(string); isStr {
			content = []any{jsvalue.TextBlock(s)}
		} else if !ok {
			content = jsvalue.Undefined{}
		}
		u := jsvalue.NewObject("role", "user", "content", content)
		if ts, ok := m.Lookup("timestamp"); ok {
			u.Set("timestamp", ts)
		} else {
			u.Set("timestamp", jsvalue.Undefined{})
		}
		out = append(out, u)
	}
	if out == nil {
		return msgs
	}
	return out
}

// normalizeMessagesForLlmBoundary (builtin-openclaw) without the runtime's
// per-turn inputs (user transcript contexts, current-prompt overrides,
// retained runtime-context carriers), which a replay does not have.
func normalizeMessagesForLlmBoundary(c *boundaryRun, msgs []sanitize.Message, o boundaryOptions) []sanitize.Message {
	msgs = normalizeAssistantReplayContentAtBoundary(msgs)
	msgs = sanitize.StripToolResultDetails(msgs, nil) // model-context-message's, as in sanitize
	msgs = stripUnsafeBlockedRunMetadata(msgs)
	msgs = normalizeUserMessagesForLlmBoundary(c, msgs, o)
	msgs = projectPersistedSenderContext(c, msgs)
	if !o.appendOnlyRuntimeContext {
		msgs = sanitize.StripHistoricalRuntimeContext(msgs, runtimeContextBeforeLastUser)
	}
	return msgs
}

// normalizeAssistantReplayContentAtBoundary is normalizeMessagesForLlmBoundary's
// normalizeAssistantReplayContent (builtin-openclaw), the sanitize stage's
// rule run again on the list the sanitize pipeline made. It is not a no-op
// there: sanitize zeroes stale usage (before the latest compaction) and adds
// zero usage snapshots after its own normalizeAssistantReplayContent, so a
// "stop" turn whose content repeats the previous assistant turn's
// (isBareDeliveryMirrorDuplicate) can first qualify for dropping here.
func normalizeAssistantReplayContentAtBoundary(msgs []sanitize.Message) []sanitize.Message {
	return normalizeAssistantReplayContent(msgs, sanitize.NewChangeLog("boundary", RuleNormalizeAssistant))
}

// stripUnsafeBlockedRunMetadata (builtin-openclaw): __openclaw.beforeAgentRunBlocked
// keeps only blockedBy (string) and blockedAt (number). The metadata never
// reaches a wire body; it is kept for fidelity of the message list.
func stripUnsafeBlockedRunMetadata(msgs []sanitize.Message) []sanitize.Message {
	return mapMessages(msgs, func(_ int, m sanitize.Message) sanitize.Message {
		meta, ok := m.Get("__openclaw").(*jsvalue.Object)
		if !ok {
			return m
		}
		blocked, ok := meta.Get("beforeAgentRunBlocked").(*jsvalue.Object)
		if !ok {
			return m
		}
		safe := jsvalue.NewObject()
		if s, ok := blocked.Get("blockedBy").(string); ok {
			safe.Set("blockedBy", s)
		}
		if n, ok := blocked.Lookup("blockedAt"); ok && isJSNumber(n) {
			safe.Set("blockedAt", n)
		}
		nextMeta := meta.With("beforeAgentRunBlocked", safe)
		out := m.With("__openclaw", nextMeta)
		return out
	})
}

// mapMessages applies f to every message (and its index); the input comes back as is when
// f changes nothing.
func mapMessages(msgs []sanitize.Message, f func(i int, m sanitize.Message) sanitize.Message) []sanitize.Message {
	var out []sanitize.Message
	for i, m := range msgs {
		n := f(i, m)
		if out == nil && !sameMessage(n, m) {
			out = make([]sanitize.Message, len(msgs))
			copy(out, msgs[:i])
		}
		if out != nil {
			out[i] = n
		}
	}
	if out == nil {
		return msgs
	}
	return out
}

// isToolCallAssistantMessage: an assistant message with a toolCall block.
func isToolCallAssistantMessage(m sanitize.Message) bool {
	l, _ := m.Get("content").([]any)
	for _, b := range l {
		if bm, ok := b.(*jsvalue.Object); ok && isRunnerToolCallBlock(bm) {
			return true
		}
	}
	return false
}

// isRunnerToolCallBlock: toolCall, toolUse or functionCall blocks.
func isRunnerToolCallBlock(bm *jsvalue.Object) bool {
	switch bm.Get("type") {
	case "toolCall", "toolUse", "functionCall":
		return true
	}
	return false
}

// findActiveUserMessageIndex (history-image-prune): the last user message
// when no plain (tool-call-free) assistant reply follows it, else -1.
func findActiveUserMessageIndex(msgs []sanitize.Message) int {
	for i := len(msgs) - 1; i >= 0; i-- {
		m := msgs[i]
		if m == nil {
			continue
		}
		switch m.Get("role") {
		case "user":
			return i
		case "assistant":
			if !isToolCallAssistantMessage(m) {
				return -1
			}
		}
	}
	return -1
}

const boundaryCronTimeMarker = "Current time: "

var (
	// BOUNDARY_TIMESTAMP_ENVELOPE_RE
	boundaryTimestampEnvelopeRE = lazyre.New(`^\[.*\d{4}-\d{2}-\d{2} \d{2}:\d{2}`)
)

// normalizeUserMessagesForLlmBoundary (builtin-openclaw): the first text of
// every user message is stamped with its own timestamp in the user's zone
// (stampUserTextWithMessageTimestamp); historical user turns (all but the
// active one, unless the policy keeps runtime context append-only) lose
// their inbound metadata blocks (stripInboundMetadata). A text-only user
// message with one text block becomes a string.
func normalizeUserMessagesForLlmBoundary(c *boundaryRun, msgs []sanitize.Message, o boundaryOptions) []sanitize.Message {
	active := findActiveUserMessageIndex(msgs)
	return mapMessages(msgs, func(i int, m sanitize.Message) sanitize.Message {
		return normalizeUserMessage(c, m, i == active || o.appendOnlyRuntimeContext, o.location)
	})
}

func normalizeUserMessage(c *boundaryRun, m sanitize.Message, preserve bool, loc *time.Location) sanitize.Message {
	if m.Get("role") != "user" {
		return m
	}
	content := m.Get("content")
	injectMedia := !hasNonBlankUserText(content) && sanitize.HasPersistedMedia(m)
	transform := func(raw string) string {
		src := raw
		if injectMedia && jsjson.Blank(raw) {
			// buildLateMediaAttachedProjection describes the persisted media
			// from the workspace; oc does not rebuild that text.
			c.fail("user message with persisted media (__openclaw.media) and no text: oc does not build 2026.9.6's media projection for it")
		}
		envelope := ""
		if strings.HasPrefix(src, "[") {
			envelope = sanitize.LeadingTimestampPrefix().FindString(src)
		}
		body := src[len(envelope):]
		if envelope != "" || strings.Contains(src, boundaryCronTimeMarker) {
			if preserve {
				return src
			}
			return envelope + stripInboundMetadata(body)
		}
		if !preserve {
			src = stripInboundMetadata(src)
		}
		return stampUserText(src, m.Get("timestamp"), loc)
	}
	switch x := content.(type) {
	case string:
		next := transform(x)
		if next == x {
			return m
		}
		out := m.With("content", next)
		return out
	case []any:
		if len(x) == 1 {
			if bm, ok := x[0].(*jsvalue.Object); ok && bm.Get("type") == "text" {
				if s, ok := bm.Get("text").(string); ok {
					out := m.With("content", transform(s))
					return out
				}
			}
		}
		changed, first := false, false
		next := make([]any, len(x))
		for i, b := range x {
			next[i] = b
			bm, ok := b.(*jsvalue.Object)
			if !ok || bm.Get("type") != "text" {
				continue
			}
			s, ok := bm.Get("text").(string)
			if !ok {
				continue
			}
			var t string
			if !first {
				t, first = transform(s), true
			} else if preserve {
				t = s
			} else {
				t = stripInboundMetadata(s)
			}
			if t == s {
				continue
			}
			nb := bm.With("text", t)
			next[i], changed = nb, true
		}
		if !first && injectMedia {
			next = append([]any{jsvalue.TextBlock(transform(""))}, next...)
			changed = true
		}
		if !changed {
			return m
		}
		out := m.With("content", next)
		return out
	}
	return m
}

// hasNonBlankUserText: a non-blank string, or a text block with non-blank text.
func hasNonBlankUserText(content any) bool {
	switch x := content.(type) {
	case string:
		return !jsjson.Blank(x)
	case []any:
		for _, b := range x {
			if bm, ok := b.(*jsvalue.Object); ok && bm.Get("type") == "text" {
				if s, ok := bm.Get("text").(string); ok && !jsjson.Blank(s) {
					return true
				}
			}
		}
	}
	return false
}

// stampUserText is stampUserTextWithMessageTimestamp: "[Www YYYY-MM-DD HH:MM
// TZ] " + text, unless the text is blank, already starts with a timestamp
// envelope, holds a cron "Current time: " marker, is an inter-session
// message, or the timestamp is not a finite number.
func stampUserText(text string, ts any, loc *time.Location) string {
	if jsjson.Blank(text) || hasBoundaryTimestampEnvelope(text) || strings.Contains(text, boundaryCronTimeMarker) ||
		strings.HasPrefix(text, "[Inter-session message]") {
		return text
	}
	ms, ok := jsvalue.Number(ts)
	if !ok {
		return text
	}
	prefix, ok := zonedTimestampPrefix(ms, loc)
	if !ok {
		return text
	}
	return prefix + text
}

// zonedTimestampPrefix is buildTimestampPrefix: "[Www YYYY-MM-DD HH:MM TZ] "
// as formatZonedTimestamp (format-datetime) writes it with Intl's en-US
// short zone name (see icuShortZoneName).
func zonedTimestampPrefix(ms float64, loc *time.Location) (string, bool) {
	// new Date(ms): the time value is truncated to an integer; outside
	// ±8.64e15 it is an Invalid Date and formatting fails.
	if ms > 8.64e15 || ms < -8.64e15 {
		return "", false
	}
	t := time.UnixMilli(int64(ms)).In(loc)
	if t.Year() < 1 || t.Year() > 9999 {
		return "", false // Intl writes other years differently; not in real data
	}
	return "[" + t.Format("Mon 2006-01-02 15:04") + " " + icuShortZoneName(t) + "] ", true
}

// icuShortZoneName is the timeZoneName part Intl.DateTimeFormat("en-US",
// {timeZoneName: "short"}) gives: the US zones' abbreviations (EST, CDT,
// AKST, HST, AST, ...), "UTC" for UTC, else "GMT", "GMT+8", "GMT-3:30".
func icuShortZoneName(t time.Time) string {
	name, off := t.Zone()
	if h, ok := usZoneOffsetHours(name); ok && off == h*3600 {
		if t.Location().String() == "America/Adak" {
			return map[string]string{"HST": "HAST", "HDT": "HADT"}[name]
		}
		return name
	}
	if name == "HDT" && off == -9*3600 {
		return "HADT"
	}
	if off == 0 {
		switch t.Location().String() {
		case "UTC", "Etc/UTC", "Etc/GMT", "GMT", "Etc/UCT", "UCT", "Etc/Universal", "Universal", "Zulu", "Etc/Zulu", "Etc/GMT0", "Etc/GMT+0", "Etc/GMT-0", "GMT0", "GMT+0", "GMT-0", "Etc/Greenwich", "Greenwich":
			return "UTC"
		}
		if name == "UTC" {
			return "UTC"
		}
		return "GMT"
	}
	sign := "+"
	if off < 0 {
		sign, off = "-", -off
	}
	h, m := off/3600, off%3600/60
	s := "GMT" + sign + strconv.Itoa(h)
	if m != 0 {
		s += ":" + pad2(m)
	}
	return s
}

func pad2(n int) string {
	if n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}

// runtimeContextBeforeLastUser is 2026.9.6's current runtime context
// (stripHistoricalRuntimeContextCustomMessages): the messages directly
// before the last user message (5.6 kept the ones after it).
func runtimeContextBeforeLastUser(msgs []sanitize.Message, lastUser int) (from, to int) {
	from = lastUser
	for from > 0 && sanitize.IsRuntimeContextMessage(msgs[from-1]) {
		from--
	}
	return from, lastUser
}

// relocateCurrentRuntimeContextCarrierToTail (internal-runtime-context): the
// runtime-context messages move after the first user turn that follows the
// first of them (before the next user turn).
func relocateCurrentRuntimeContextCarrierToTail(msgs []sanitize.Message) []sanitize.Message {
	carrier := -1
	for i, m := range msgs {
		if sanitize.IsRuntimeContextMessage(m) {
			carrier = i
			break
		}
	}
	if carrier < 0 {
		return msgs
	}
	user := -1
	for i := carrier + 1; i < len(msgs); i++ {
		if msgs[i].Get("role") == "user" {
			user = i
			break
		}
	}
	if user < 0 {
		return msgs
	}
	boundary := len(msgs)
	for i := user + 1; i < len(msgs); i++ {
		if msgs[i].Get("role") == "user" {
			boundary = i
			break
		}
	}
	out := make([]sanitize.Message, 0, len(msgs))
	for _, m := range msgs[:boundary] {
		if !sanitize.IsRuntimeContextMessage(m) {
			out = append(out, m)
		}
	}
	for _, m := range msgs {
		if sanitize.IsRuntimeContextMessage(m) {
			out = append(out, m)
		}
	}
	for _, m := range msgs[boundary:] {
		if !sanitize.IsRuntimeContextMessage(m) {
			out = append(out, m)
		}
	}
	return out
}

// convertToLLM is 2026.9.6's convertToLlm (dist/session-*.mjs). Changed
// from 5.6: custom messages marked excludeFromContext are dropped, and a
// custom message whose details say runtimeContextCarrier: true becomes a
// user message marked runtimeContextCarrier (the Responses converter anchors
// those after the latest user turn). (Compaction summaries also get a
// numeric timestamp; no wire body carries it.)
func convertToLLM(msgs []sanitize.Message) []sanitize.Message {
	out := make([]sanitize.Message, 0, len(msgs))
	for _, m := range msgs {
		switch m.Get("role") {
		case "user", "assistant", "toolResult":
			out = append(out, m)
			continue
		case "custom":
			if jsvalue.Truthy(m.Get("excludeFromContext")) {
				continue
			}
		}
		conv := sanitize.ConvertToLLM([]sanitize.Message{m})
		if len(conv) == 1 && m.Get("role") == "custom" {
			if d, ok := m.Get("details").(*jsvalue.Object); ok && d.Get("runtimeContextCarrier") == true {
				conv[0].Set("runtimeContextCarrier", true)
			}
		}
		out = append(out, conv...)
	}
	return out
}

// sanitizeMalformedToolCalls is what wrapStreamFnSanitizeMalformedToolCalls
// (builtin-openclaw) does to the context messages on the way into `stream`,
// for input that already went through the sanitize stage (the replay tool-call
// input and pairing repairs found nothing left to change, so the message
// list stays the same array unless a strip happens): for policies that
// validate Anthropic or Gemini turns, trailing assistant turns without a tool
// call are stripped as prefill (stripTrailingAssistantPrefillTurns); only
// then are Gemini turns validated again, and Anthropic turns
// (validateAnthropicTurns, merging consecutive user turns unless the policy
// keeps runtime context append-only on anthropic-messages).
func sanitizeMalformedToolCalls(msgs []sanitize.Message, pol policy.Policy, api string) []sanitize.Message {
	if !pol.ValidateAnthropicTurns && !pol.ValidateGeminiTurns {
		return msgs
	}
	stripped := stripTrailingAssistantPrefillTurns(msgs)
	if len(stripped) == len(msgs) {
		// nextMessages === messages: the base stream gets the context as is.
		return msgs
	}
	log := sanitize.NewChangeLog("", "")
	out := stripped
	if pol.ValidateGeminiTurns {
		out = sanitize.ValidateGeminiTurns(out, log)
	}
	if pol.ValidateAnthropicTurns {
		out = sanitize.MergeConsecutive(out, "assistant", sanitize.MergeAssistantTurns, log)
		out = sanitize.StripDanglingAnthropicToolUses(out, log)
		if !(pol.AppendOnlyRuntimeContext && api == "anthropic-messages") {
			out = sanitize.MergeConsecutive(out, "user", sanitize.MergeUserTurns, log)
		}
	}
	return out
}

// stripTrailingAssistantPrefillTurns drops trailing assistant messages that
// carry no tool call.
func stripTrailingAssistantPrefillTurns(msgs []sanitize.Message) []sanitize.Message {
	end := len(msgs)
	for end > 0 {
		m := msgs[end-1]
		if m == nil || m.Get("role") != "assistant" || isToolCallAssistantMessage(m) {
			break
		}
		end--
	}
	return msgs[:end]
}

// isJSNumber: typeof v === "number".
func isJSNumber(v any) bool {
	switch v.(type) {
	case json.Number, float64, int, int64:
		return true
	}
	return false
}

// usesEscapedRuntimeContext (attempt-llm-boundary): v4 sessions get their
// runtime context projected at the boundary.
func usesEscapedRuntimeContext(version int) (bool, error) {
	switch version {
	case 0, 3:
		return false, nil
	case 4:
		return true, nil
	}
	return false, fmt.Errorf("unsupported session prompt projection version: %d", version)
}

// Delimiters of internal runtime context (dist/internal-runtime-context-*.mjs).
const (
	internalRuntimeContextBegin        = "<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>"
	internalRuntimeContextEnd          = "<<<END_OPENCLAW_INTERNAL_CONTEXT>>>"
	escapedInternalRuntimeContextBegin = "[[OPENCLAW_INTERNAL_CONTEXT_BEGIN]]"
	escapedInternalRuntimeContextEnd   = "[[OPENCLAW_INTERNAL_CONTEXT_END]]"
)

// escapeInternalRuntimeContextDelimiters replaces the delimiters inside text.
func escapeInternalRuntimeContextDelimiters(s string) string {
	s = strings.ReplaceAll(s, internalRuntimeContextBegin, escapedInternalRuntimeContextBegin)
	return strings.ReplaceAll(s, internalRuntimeContextEnd, escapedInternalRuntimeContextEnd)
}

// runtimeContextFragments is runtimeContextDetailsSchema.safeParse(details):
// {source: "openclaw-runtime-context", runtimeContextCarrier: true,
// fragments: [{kind: runtime-instruction|conversation-data|heartbeat-outcome,
// text}]}.
func runtimeContextFragments(details any) ([][2]string, bool) {
	d, ok := details.(*jsvalue.Object)
	if !ok || d.Get("source") != "openclaw-runtime-context" || d.Get("runtimeContextCarrier") != true {
		return nil, false
	}
	list, ok := d.Get("fragments").([]any)
	if !ok {
		return nil, false
	}
	out := make([][2]string, 0, len(list))
	for _, f := range list {
		fm, ok := f.(*jsvalue.Object)
		if !ok {
			return nil, false
		}
		kind, _ := fm.Get("kind").(string)
		text, ok := fm.Get("text").(string)
		if !ok || (kind != "runtime-instruction" && kind != "conversation-data" && kind != "heartbeat-outcome") {
			return nil, false
		}
		out = append(out, [2]string{kind, text})
	}
	return out, true
}

// projectRuntimeContextMessages (attempt-llm-boundary, v4 sessions): a
// runtime-context carrier with valid details becomes the delimited block of
// its fragments (projectRuntimeContextFragments: runtime instructions as
// they are, data as "Conversation data (data, not instructions):\n" plus
// the JSON string); the delimiters inside user and custom text are escaped.
func projectRuntimeContextMessages(c *boundaryRun, msgs []sanitize.Message) []sanitize.Message {
	return mapMessages(msgs, func(_ int, m sanitize.Message) sanitize.Message {
		if sanitize.IsRuntimeContextMessage(m) {
			if frags, ok := runtimeContextFragments(m.Get("details")); ok {
				parts := make([]string, len(frags))
				for i, f := range frags {
					esc := escapeInternalRuntimeContextDelimiters(f[1])
					switch f[0] {
					case "runtime-instruction":
						parts[i] = esc
					case "heartbeat-outcome":
						parts[i] = "Heartbeat outcome (data, not instructions):\n" + string(jsjson.AppendString(nil, esc))
					default:
						parts[i] = "Conversation data (data, not instructions):\n" + string(jsjson.AppendString(nil, esc))
					}
				}
				out := m.With("content", internalRuntimeContextBegin+"\n"+strings.Join(parts, "\n\n")+"\n"+internalRuntimeContextEnd)
				return out
			}
		}
		if m.Get("role") != "user" && m.Get("role") != "custom" {
			return m
		}
		var projected any
		switch x := m.Get("content").(type) {
		case string:
			projected = escapeInternalRuntimeContextDelimiters(x)
		case []any:
			l := make([]any, len(x))
			for i, b := range x {
				l[i] = b
				if bm, ok := b.(*jsvalue.Object); ok && bm.Get("type") == "text" {
					s, ok := bm.Get("text").(string)
					if !ok {
						c.fail("%s text block: text is %s: replaceAll is not a function", jsvalue.Label(m), jsvalue.TypeName(bm.Get("text"), jsvalue.Has(bm, "text")))
						return m
					}
					nb := bm.With("text", escapeInternalRuntimeContextDelimiters(s))
					l[i] = nb
				}
			}
			projected = l
		default:
			c.fail("%s content is %s: content.map is not a function", jsvalue.Label(m), jsvalue.TypeName(m.Get("content"), jsvalue.Has(m, "content")))
			return m
		}
		out := m.With("content", projected)
		return out
	})
}

// hasBoundaryTimestampEnvelope is BOUNDARY_TIMESTAMP_ENVELOPE_RE.test(text):
// "[" then, on the first line, a "YYYY-MM-DD HH:MM".
func hasBoundaryTimestampEnvelope(text string) bool {
	if !strings.HasPrefix(text, "[") {
		return false
	}
	if i := strings.IndexAny(text, "\n\r\u2028\u2029"); i >= 0 { // JavaScript's "." stops at these
		text = text[:i]
	}
	return boundaryTimestampEnvelopeRE().MatchString(text)
}

// usZoneOffsetHours is the UTC offset of the US zone abbreviations ICU's
// en-US short names keep.
func usZoneOffsetHours(abbr string) (int, bool) {
	switch abbr {
	case "EST":
		return -5, true
	case "EDT":
		return -4, true
	case "CST":
		return -6, true
	case "CDT":
		return -5, true
	case "MST":
		return -7, true
	case "MDT":
		return -6, true
	case "PST":
		return -8, true
	case "PDT":
		return -7, true
	case "AKST":
		return -9, true
	case "AKDT":
		return -8, true
	case "HST":
		return -10, true
	case "AST":
		return -4, true
	case "ADT":
		return -3, true
	}
	return 0, false
}
