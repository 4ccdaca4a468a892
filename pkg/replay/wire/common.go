package wire

import (
	"fmt"
	"strings"

	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
	"github.com/openclaw-tools/oc/pkg/replay/models"
	"github.com/openclaw-tools/oc/pkg/vocab"
)

// conv carries what every renderer needs: the model and the first error. An error stands for a place where pi-ai's JavaScript would throw
// (a TypeError on a malformed message, an unknown image type, ...): the
// oracle then captures no payload at all, and neither do we.
type conv struct {
	model *models.Model
	err   error
	// failedTurn classifies assistant turns for transformMessages (nil:
	// 2026.5.6's rule, failedTurn56).
	failedTurn func(msg Message) failedTurnAction
	// trimToolCallIDs is @openclaw/ai 2026.9.6's transformMessages
	// (host-*.mjs transformAssistant): every tool call id is trimmed
	// (String.prototype.trim) before it is normalised, a tool result's id is
	// trimmed and then mapped, and a call from another model loses its
	// thoughtSignature and async members whatever their value.
	trimToolCallIDs bool
	// google96 is @openclaw/ai 2026.9.6's projectGoogleMessages
	// (google-messages-*.mjs, replay "signed-parts"): a functionCall keeps
	// its id when a call with that id came from this provider, api and model
	// (sameRouteToolCallIds, not for google-gemini-cli), and so does the
	// functionResponse answering it (2026.5.6 sent ids only to models that
	// require them); for Gemini 3 Pro/Flash (requiresToolCallSignature) the
	// first functionCall of a turn without a signature of its own gets
	// "skip_thought_signature_validator".
	google96 bool
	// inlineImages96 is the 2026.9.6 transport host's
	// normalizeAnthropicInlineContentBlocks, which every Anthropic image
	// goes through (see anthropicImage96).
	inlineImages96 bool
	// toolImageLabels96 is @openclaw/ai 2026.9.6's openai-completions
	// convertMessages: the user turn after a run of tool results with images
	// labels each result's images "Image(s) from tool result #N (tool):".
	toolImageLabels96 bool
	// anthropicThinking96 is @openclaw/ai 2026.9.6's convertAnthropicMessages
	// with replayThinkingEnabled false (a model without mandatory adaptive
	// thinking): thinking is sent only in the active tool turn.
	anthropicThinking96 bool
}

// failedTurnAction is what transformMessages does with an assistant turn.
type failedTurnAction int

const (
	turnKeep   failedTurnAction = iota
	turnDrop                    // left out
	turnMarker                  // replayed with FAILED_ASSISTANT_REPLAY_TEXT as its only content
)

// failedTurn56 is pi-ai 0.73's rule: a turn that stopped with "error" or
// "aborted" is left out.
func failedTurn56(msg Message) failedTurnAction {
	if sr := msg.Get("stopReason"); sr == "error" || sr == "aborted" {
		return turnDrop
	}
	return turnKeep
}

// FailedAssistantReplayText is @openclaw/ai's FAILED_ASSISTANT_REPLAY_TEXT.
const FailedAssistantReplayText = "[This turn failed before it completed. Do not redo its work without confirming with the user first.]"

// failedTurn96 is @openclaw/ai 2026.9.6's resolveFailedAssistantReplay
// (host-*.mjs) as transformMessages calls it ({pairingAware: false}): a turn
// that stopped with "error" or "aborted" is left out when it holds a tool
// call or no text but the stream-error fallback (isStreamErrorFallbackContent:
// blank, or "[assistant turn failed before producing content]"), else it is
// replayed as a marker. It reads the turn as stored, before the model's
// thinking and tool projection.
func failedTurn96(msg Message) failedTurnAction {
	if msg.Get("role") != "assistant" || (msg.Get("stopReason") != "error" && msg.Get("stopReason") != "aborted") {
		return turnKeep
	}
	content, _ := msg.Get("content").([]any)
	marker := false
	for _, v := range content {
		b, _ := jsvalue.AsObject(v)
		if b == nil {
			continue
		}
		if typeOf(b) == vocab.BlockToolCall {
			return turnDrop
		}
		if t, ok := b.Get("text").(string); ok && typeOf(b) == "text" && !isStreamErrorFallbackText(t) {
			marker = true
		}
	}
	if marker {
		return turnMarker
	}
	return turnDrop
}

// isStreamErrorFallbackText is isStreamErrorFallbackContent for a string.
func isStreamErrorFallbackText(s string) bool {
	t := jsjson.Trim(s)
	return t == "" || t == "[assistant turn failed before producing content]"
}

func (c *conv) fail(format string, args ...any) {
	if c.err == nil {
		c.err = fmt.Errorf(format, args...)
	}
}

// str reads m[key] where JavaScript calls a string method on it: anything
// but a string is a TypeError.
func (c *conv) str(m *jsvalue.Object, key string) string {
	s, ok := m.Get(key).(string)
	if !ok {
		c.fail("%s %s is %s, not a string", jsvalue.Label(m), key, jsvalue.TypeName(m.Get(key), jsvalue.Has(m, key)))
	}
	return s
}

// list reads m[key] where JavaScript iterates it as an array.
func (c *conv) list(m *jsvalue.Object, key string) []any {
	l, ok := m.Get(key).([]any)
	if !ok {
		c.fail("%s %s is %s, not an array", jsvalue.Label(m), key, jsvalue.TypeName(m.Get(key), jsvalue.Has(m, key)))
	}
	return l
}

// tmpl is `${m[key]}` in a template literal.
func tmpl(m *jsvalue.Object, key string) string {
	v, ok := m.Lookup(key)
	return jsvalue.ToString(v, ok)
}

// typeOf is a content block's type when it is a string, else "".
func typeOf(b *jsvalue.Object) string { return jsvalue.StringOrEmpty(b, "type") }

// sanitizeSurrogates is pi-ai's sanitizeSurrogates
// (utils/sanitize-unicode.js): lone UTF-16 surrogates removed from text it
// sends.
func sanitizeSurrogates(s string) string { return jsjson.SanitizeSurrogates(s) }

// jsSplitFirst is `s.split(sep)[0]`.
func jsSplitFirst(s, sep string) string {
	before, _, _ := strings.Cut(s, sep)
	return before
}

// jsSplitTwo is `const [a, b] = s.split(sep)`: b is absent without sep.
func jsSplitTwo(s, sep string) (string, string, bool) {
	parts := strings.SplitN(s, sep, 3)
	if len(parts) == 1 {
		return parts[0], "", false
	}
	return parts[0], parts[1], true
}

// joinTexts is `blocks.map(b => b.text).join(sep)` (undefined and null join as "").
func joinTexts(blocks []*jsvalue.Object, sep string) string {
	var b strings.Builder
	for i, blk := range blocks {
		if i > 0 {
			b.WriteString(sep)
		}
		if v, ok := blk.Lookup("text"); ok && v != nil {
			if _, undef := v.(jsvalue.Undefined); !undef {
				b.WriteString(jsvalue.ToString(v, true))
			}
		}
	}
	return b.String()
}

// contentBlocks returns msg.content as a list of objects for the converters
// that iterate it; a string or missing content is a TypeError unless the
// caller handles strings first.
func (c *conv) contentBlocks(msg Message) []*jsvalue.Object {
	l := c.list(msg, "content")
	out := make([]*jsvalue.Object, len(l))
	for i, v := range l {
		b, _ := jsvalue.AsObject(v)
		if b == nil {
			if v == nil {
				c.fail("%s content[%d] is null", jsvalue.Label(msg), i)
			}
			b = &jsvalue.Object{}
		}
		out[i] = b
	}
	return out
}

// Text placeholders pi-ai's transformMessages puts in place of images for
// models without image input.
const (
	NonVisionUserImagePlaceholder = "(image omitted: model does not support images)"
	nonVisionToolImagePlaceholder = "(tool image omitted: model does not support images)"
)

// idNormalizer is a converter's normalizeToolCallId(id, model, sourceAssistant).
type idNormalizer func(id string, source Message) string

// transformMessages is pi-ai's transformMessages, run by every converter:
//   - models without image input: each run of images in user and toolResult
//     content becomes one placeholder text;
//   - assistant turns from another model (provider, api or id differ): thinking
//     becomes plain text (blank thinking and redacted thinking are dropped),
//     text loses textSignature, tool calls lose thoughtSignature and get their
//     ids normalised (results follow the new ids); the same model keeps its
//     thinking, signed or not, except blank unsigned thinking;
//   - assistant turns that stopped with "error" or "aborted" are left out;
//   - tool calls without a result before the next assistant or user turn (or
//     the end) get a synthetic error result "No result provided".
func (c *conv) transformMessages(msgs []Message, norm idNormalizer) []Message {
	m := c.model
	idMap := map[string]string{}
	transformed := make([]Message, 0, len(msgs))
	for _, msg := range msgs {
		role, _ := msg.Get("role").(string)
		if !m.Vision && (role == "user" || role == vocab.RoleToolResult) {
			if l, ok := msg.Get("content").([]any); ok {
				placeholder := NonVisionUserImagePlaceholder
				if role == vocab.RoleToolResult {
					placeholder = nonVisionToolImagePlaceholder
				}
				msg = msg.Clone()
				msg.Set("content", replaceImages(l, placeholder))
			}
		}
		switch role {
		case vocab.RoleToolResult:
			if c.trimToolCallIDs {
				// `const trimmedId = message.toolCallId.trim(); toolCallId =
				// toolCallIdMap.get(trimmedId) ?? trimmedId`
				// (a toolResult without a string toolCallId would throw in
				// JavaScript; 9.6's sanitize gives every result one first,
				// so one left without is passed on as it is)
				id, isStr := msg.Get("toolCallId").(string)
				if !isStr {
					break
				}
				n, ok := idMap[jsjson.Trim(id)]
				if !ok {
					n = jsjson.Trim(id)
				}
				if n != id {
					msg = msg.Clone()
					msg.Set("toolCallId", n)
				}
				break
			}
			if id, ok := msg.Get("toolCallId").(string); ok {
				if n, ok := idMap[id]; ok && n != "" && n != id { // JavaScript: `normalizedId && ...` (an empty id is falsy)
					msg = msg.Clone()
					msg.Set("toolCallId", n)
				}
			}
		case "assistant":
			same := msg.Get("provider") == m.Provider && msg.Get("api") == m.API && msg.Get("model") == m.ID
			content := c.list(msg, "content")
			out := make([]any, 0, len(content))
			for _, v := range content {
				b, _ := jsvalue.AsObject(v)
				if b == nil {
					if v == nil {
						c.fail("assistant message: content block is null")
					}
					out = append(out, v)
					continue
				}
				switch typeOf(b) {
				case "thinking":
					if jsvalue.Truthy(b.Get("redacted")) {
						if same {
							out = append(out, b)
						}
						continue
					}
					if same && jsvalue.Truthy(b.Get("thinkingSignature")) {
						out = append(out, b)
						continue
					}
					if !jsvalue.Truthy(b.Get("thinking")) || jsjson.Blank(c.str(b, "thinking")) {
						continue
					}
					if same {
						out = append(out, b)
						continue
					}
					out = append(out, jsvalue.NewObject("type", "text", "text", b.Get("thinking")))
				case "text":
					if same {
						out = append(out, b)
						continue
					}
					t := jsvalue.NewObject("type", "text")
					if v, ok := b.Lookup("text"); ok {
						t.Set("text", v)
					}
					out = append(out, t)
				case vocab.BlockToolCall:
					if c.trimToolCallIDs {
						out = append(out, c.toolCall96(b, same, msg, norm, idMap))
						continue
					}
					nb, cloned := b, false
					if !same && jsvalue.Truthy(b.Get("thoughtSignature")) {
						nb, cloned = b.Clone(), true
						nb.Delete("thoughtSignature")
					}
					if !same && norm != nil {
						id := c.str(b, "id")
						if n := norm(id, msg); n != id {
							idMap[id] = n
							if !cloned {
								nb = b.Clone()
							}
							nb.Set("id", n)
						}
					}
					out = append(out, nb)
				default:
					if c.trimToolCallIDs {
						// 9.6's transformAssistant treats every block that is
						// not thinking or text as a tool call: its id is
						// trimmed and normalised (and mapped for the results
						// answering it); a block without a string id throws
						// (`block.id.trim()`), so nothing is sent.
						out = append(out, c.toolCall96(b, same, msg, norm, idMap))
						continue
					}
					out = append(out, b)
				}
			}
			msg = msg.Clone()
			msg.Set("content", out)
		}
		transformed = append(transformed, msg)
	}
	if c.err != nil {
		return nil
	}

	// Second pass: skip failed turns, synthesize missing tool results.
	result := make([]Message, 0, len(transformed))
	var pending []*jsvalue.Object
	existing := map[string]bool{}
	flush := func() {
		for _, tc := range pending {
			id, isStr := tc.Get("id").(string)
			if isStr && existing[id] {
				continue
			}
			synth := jsvalue.NewObject("role", vocab.RoleToolResult)
			if v, ok := tc.Lookup("id"); ok {
				synth.Set("toolCallId", v)
			}
			if v, ok := tc.Lookup("name"); ok {
				synth.Set("toolName", v)
			}
			synth.Set("content", []any{jsvalue.TextBlock("No result provided")})
			synth.Set("isError", true)
			result = append(result, synth)
		}
		pending = nil
		clear(existing)
	}
	failedTurn := c.failedTurn
	if failedTurn == nil {
		failedTurn = failedTurn56
	}
	for i, msg := range transformed {
		switch msg.Get("role") {
		case "assistant":
			flush()
			switch failedTurn(msgs[i]) {
			case turnDrop:
				continue
			case turnMarker:
				marked := msg.Clone()
				marked.Set("content", []any{jsvalue.TextBlock(FailedAssistantReplayText)})
				result = append(result, marked)
				continue
			}
			var calls []*jsvalue.Object
			for _, v := range msg.Get("content").([]any) {
				if b, _ := jsvalue.AsObject(v); b != nil && typeOf(b) == vocab.BlockToolCall {
					calls = append(calls, b)
				}
			}
			if len(calls) > 0 {
				pending = calls
				clear(existing)
			}
			result = append(result, msg)
		case vocab.RoleToolResult:
			if id, ok := msg.Get("toolCallId").(string); ok {
				existing[id] = true
			}
			result = append(result, msg)
		case "user":
			flush()
			result = append(result, msg)
		default:
			result = append(result, msg)
		}
	}
	flush()
	return result
}

// replaceImages is pi-ai's replaceImagesWithPlaceholder.
func replaceImages(content []any, placeholder string) []any {
	out := make([]any, 0, len(content))
	prevPlaceholder := false
	for _, v := range content {
		b, _ := jsvalue.AsObject(v)
		if b != nil && typeOf(b) == "image" {
			if !prevPlaceholder {
				out = append(out, jsvalue.TextBlock(placeholder))
			}
			prevPlaceholder = true
			continue
		}
		out = append(out, v)
		prevPlaceholder = b != nil && b.Get("text") == placeholder
	}
	return out
}

// replaceIDChars is `s.replace(/[^a-zA-Z0-9_-]/g, repl)` (or
// /[^a-zA-Z0-9]/g without dashAndUnderscore). JavaScript matches UTF-16 code
// units, so a character outside the BMP is replaced twice.
func replaceIDChars(s, repl string, dashAndUnderscore bool) string {
	ok := func(c byte) bool {
		return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			dashAndUnderscore && (c == '_' || c == '-')
	}
	clean := true
	for i := 0; i < len(s); i++ {
		if !ok(s[i]) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r < 0x80 && ok(byte(r)):
			b.WriteByte(byte(r))
		case r > 0xFFFF:
			b.WriteString(repl)
			b.WriteString(repl)
		default:
			b.WriteString(repl)
		}
	}
	return b.String()
}

// parseJSON is JSON.parse(s).
func (c *conv) parseJSON(s string) (any, error) { return jsvalue.Parse(s) }

// stringify is JSON.stringify(m[key]); ok is false when it returns undefined.
func (c *conv) stringify(m *jsvalue.Object, key string) (string, bool) {
	v, present := m.Lookup(key)
	if _, undef := v.(jsvalue.Undefined); undef {
		present = false
	}
	s, ok, err := jsvalue.Stringify(v, present)
	if err != nil {
		c.fail("JSON.stringify(%s): %v", key, err)
	}
	return s, ok
}

// toolCall96 is transformAssistant's tool-call branch in 2026.9.6
// (host-*.mjs): `const trimmedId = block.id.trim()`; the same model keeps
// the block with the trimmed id; another model's call drops thoughtSignature
// and async and takes normalizeToolCallId(trimmedId), remembered for its
// results when it differs from the trimmed id.
func (c *conv) toolCall96(b *jsvalue.Object, same bool, msg Message, norm idNormalizer, idMap map[string]string) *jsvalue.Object {
	orig := c.str(b, "id")
	id := jsjson.Trim(orig)
	if same {
		if id == orig {
			return b
		}
		nb := b.Clone()
		nb.Set("id", id)
		return nb
	}
	n := id
	if norm != nil {
		n = norm(id, msg)
	}
	if n != id {
		idMap[id] = n
	}
	_, sig := b.Lookup("thoughtSignature")
	_, async := b.Lookup("async")
	if n == orig && !sig && !async {
		return b
	}
	nb := b.Clone()
	nb.Delete("thoughtSignature")
	nb.Delete("async")
	nb.Set("id", n)
	return nb
}
