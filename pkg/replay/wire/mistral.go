package wire

import (
	"strconv"

	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
)

// Mistral (`mistral-conversations`): pi-ai providers/mistral.js
// buildChatPayload and toChatMessages (no tools, no options).
//
// Body: {model, stream: true, messages}; the system prompt, if any, is the
// first message {role:"system", content}. messages:
//   - user: string content as is; blocks {type:"text"} / {type:"image_url",
//     imageUrl:"data:..."} (images only for image models); a message left
//     empty is skipped (or says "(image omitted: ...)" when it had images);
//   - assistant: {role, content?: text and {type:"thinking", thinking:[{type:
//     "text", text}]} parts (blank ones skipped), toolCalls?: [{id, type:
//     "function", function:{name, arguments: JSON text of arguments || {}}}]}
//     (every block that is not text or thinking counts as a tool call); a
//     turn with neither is skipped;
//   - tool result (and any other role): {role:"tool", toolCallId, name,
//     content:[{type:"text", text}, ...image_url]} where the text is trimmed,
//     prefixed "[tool error] " for errors, and stands in for missing output.
// Tool call ids of other models become 9 alphanumerics: the id's own when it
// has exactly 9, else a ShortHash, made unique within the request.

const mistralToolCallIDLength = 9

// MistralDeriveID is the id pi-ai's Mistral converter gives tool call id on
// the given attempt (0 first, then one more per collision): the id's own
// alphanumerics when there are 9, else 9 of a ShortHash.
func MistralDeriveID(id string, attempt int) string {
	normalized := replaceIDChars(id, "", false)
	if attempt == 0 && len(normalized) == mistralToolCallIDLength {
		return normalized
	}
	seed := normalized
	if seed == "" {
		seed = id
	}
	if attempt != 0 {
		seed += ":" + strconv.Itoa(attempt)
	}
	return jsjson.Slice(replaceIDChars(ShortHash(seed), "", false), mistralToolCallIDLength)
}

// mistralIDNormalizer is pi-ai's createMistralToolCallIdNormalizer: stable per
// id, collisions resolved by retrying with ":<attempt>".
func mistralIDNormalizer() idNormalizer {
	ids := map[string]string{}
	owners := map[string]string{}
	return func(id string, _ Message) string {
		if n, ok := ids[id]; ok && n != "" {
			return n
		}
		for attempt := 0; ; attempt++ {
			cand := MistralDeriveID(id, attempt)
			if owner, ok := owners[cand]; !ok || owner == "" || owner == id {
				ids[id] = cand
				owners[cand] = id
				return cand
			}
		}
	}
}

func renderMistral(c *conv, msgs []Message, system string) *jsvalue.Object {
	return renderMistralWith(c, msgs, system, mistralToolResultText)
}

// mistralToolText builds a tool result's text from its joined texts.
type mistralToolText func(text string, hasImages, supportsImages, isError bool) string

// renderMistralWith is buildChatPayload/toChatMessages with the release's
// tool-result text.
func renderMistralWith(c *conv, msgs []Message, system string, toolText mistralToolText) *jsvalue.Object {
	tm := c.transformMessages(msgs, mistralIDNormalizer())
	messages := c.mistralMessages(tm, toolText)
	if system != "" {
		messages = append([]any{jsvalue.NewObject("role", "system", "content", sanitizeSurrogates(system))}, messages...)
	}
	return jsvalue.NewObject("model", c.model.ID, "stream", true, "messages", messages)
}

func (c *conv) mistralMessages(tm []Message, toolText mistralToolText) []any {
	images := c.model.Vision
	dataURL := func(b *jsvalue.Object) string { return "data:" + tmpl(b, "mimeType") + ";base64," + tmpl(b, "data") }
	result := make([]any, 0, len(tm))
	for _, msg := range tm {
		if c.err != nil {
			break
		}
		switch msg.Get("role") {
		case "user":
			if s, ok := msg.Get("content").(string); ok {
				result = append(result, jsvalue.NewObject("role", "user", "content", sanitizeSurrogates(s)))
				continue
			}
			hadImages := false
			var content []any
			for _, b := range c.contentBlocks(msg) {
				t := typeOf(b)
				if t == "image" {
					hadImages = true
				}
				if t != "text" && !images {
					continue
				}
				if t == "text" {
					content = append(content, jsvalue.NewObject("type", "text", "text", sanitizeSurrogates(c.str(b, "text"))))
				} else {
					content = append(content, jsvalue.NewObject("type", "image_url", "imageUrl", dataURL(b)))
				}
			}
			if len(content) > 0 {
				result = append(result, jsvalue.NewObject("role", "user", "content", content))
			} else if hadImages && !images {
				result = append(result, jsvalue.NewObject("role", "user", "content", NonVisionUserImagePlaceholder))
			}
		case "assistant":
			var parts, calls []any
			for _, b := range c.contentBlocks(msg) {
				switch typeOf(b) {
				case "text":
					if t := c.str(b, "text"); !jsjson.Blank(t) {
						parts = append(parts, jsvalue.NewObject("type", "text", "text", sanitizeSurrogates(t)))
					}
				case "thinking":
					if t := c.str(b, "thinking"); !jsjson.Blank(t) {
						parts = append(parts, jsvalue.NewObject("type", "thinking", "thinking", []any{jsvalue.NewObject("type", "text", "text", sanitizeSurrogates(t))}))
					}
				default:
					fn := jsvalue.NewObject()
					fn.Copy("name", b, "name")
					if jsvalue.Truthy(b.Get("arguments")) {
						args, _ := c.stringify(b, "arguments")
						fn.Set("arguments", args)
					} else {
						fn.Set("arguments", "{}")
					}
					call := jsvalue.NewObject()
					call.Copy("id", b, "id")
					call.Set("type", "function")
					call.Set("function", fn)
					calls = append(calls, call)
				}
			}
			am := jsvalue.NewObject("role", "assistant")
			if len(parts) > 0 {
				am.Set("content", parts)
			}
			if len(calls) > 0 {
				am.Set("toolCalls", calls)
			}
			if len(parts) > 0 || len(calls) > 0 {
				result = append(result, am)
			}
		default:
			blocks := c.contentBlocks(msg)
			var texts []*jsvalue.Object
			hasImages := false
			for _, b := range blocks {
				switch typeOf(b) {
				case "text":
					c.str(b, "text")
					texts = append(texts, b)
				case "image":
					hasImages = true
				}
			}
			text := toolText(joinTexts(texts, "\n"), hasImages, images, jsvalue.Truthy(msg.Get("isError")))
			content := []any{jsvalue.NewObject("type", "text", "text", text)}
			if images {
				for _, b := range blocks {
					if typeOf(b) == "image" {
						content = append(content, jsvalue.NewObject("type", "image_url", "imageUrl", dataURL(b)))
					}
				}
			}
			r := jsvalue.NewObject("role", "tool")
			r.Copy("toolCallId", msg, "toolCallId")
			r.Copy("name", msg, "toolName")
			r.Set("content", content)
			result = append(result, r)
		}
	}
	return result
}

// mistralToolResultText is pi-ai's buildToolResultText.
func mistralToolResultText(text string, hasImages, supportsImages, isError bool) string {
	trimmed := jsjson.Trim(text)
	prefix := ""
	if isError {
		prefix = "[tool error] "
	}
	if trimmed != "" {
		suffix := ""
		if hasImages && !supportsImages {
			suffix = "\n[tool image omitted: model does not support images]"
		}
		return prefix + trimmed + suffix
	}
	if hasImages {
		if supportsImages {
			return prefix + "(see attached image)"
		}
		return prefix + "(image omitted: model does not support images)"
	}
	return prefix + "(no tool output)"
}

// renderMistral96 follows mistral.ts buildChatPayload/toChatMessages
// (dist/mistral-*.mjs): the same message shapes as 2026.5.6, with the tool
// result text of formatToolResultText (mistralToolResultText96).
func renderMistral96(c *conv, msgs []Message, system string) *jsvalue.Object {
	return renderMistralWith(c, msgs, system, mistralToolResultText96)
}

// mistralToolResultText96 is formatToolResultText: the text is no longer
// trimmed (only tested for blankness), and the omitted-media placeholder
// follows it on a new line. Each text block's lone surrogates are removed
// (extractToolResultBlockText → sanitizeSurrogates, host-*.mjs).
func mistralToolResultText96(text string, hasImages, supportsImages, isError bool) string {
	text = sanitizeSurrogates(text)
	prefix := ""
	if isError {
		prefix = "[tool error] "
	}
	omitted := ""
	if hasImages && !supportsImages {
		if !jsjson.Blank(text) {
			omitted = "[tool image omitted: model does not support images]"
		} else {
			omitted = "(image omitted: model does not support images)"
		}
	}
	if !jsjson.Blank(text) {
		if omitted != "" {
			return prefix + text + "\n" + omitted
		}
		return prefix + text
	}
	if omitted != "" {
		return prefix + omitted
	}
	if hasImages {
		return prefix + "(see attached image)"
	}
	return prefix + "(no tool output)"
}
