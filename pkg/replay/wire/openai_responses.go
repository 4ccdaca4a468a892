package wire

import (
	"strconv"
	"strings"

	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
	"github.com/openclaw-tools/oc/pkg/replay/models"
	"github.com/openclaw-tools/oc/pkg/vocab"
)

// OpenAI Responses (`openai-responses`) and ChatGPT Codex Responses
// (`openai-codex-responses`): pi-ai providers/openai-responses-shared.js
// convertResponsesMessages, with the bodies of openai-responses.js
// buildParams and openai-codex-responses.js buildRequestBody (no tools, no
// options, no session id).
//
// input items:
//   - system (Responses only, not Codex: it goes to `instructions`):
//     {role: developer|system, content};
//   - user: {role: "user", content: [input_text | input_image{detail:"auto"}]};
//   - assistant: a signed thinking block is its signature parsed as JSON (a
//     reasoning item; unparseable -> no payload); text -> {type:"message",
//     role:"assistant", content:[{type:"output_text", text, annotations:[]}],
//     status:"completed", id, phase?} with id and phase from textSignature
//     (JSON {v:1,id,phase} or a plain id), else "msg_<index>", and ids over
//     64 chars -> "msg_<ShortHash>"; toolCall -> {type:"function_call",
//     id: item id after "|" (left out for another model of the same provider
//     and api when it starts with "fc_"), call_id, name, arguments: JSON text};
//   - tool result: {type:"function_call_output", call_id, output: text
//     (or "(see attached image)") or input_text/input_image parts}.
// Tool call ids of other models: each "|" part cleaned to [a-zA-Z0-9_-], 64
// chars, trailing "_" trimmed; for providers openai, openai-codex and
// opencode a foreign item id becomes "fc_<ShortHash>", and "fc_" is
// prefixed when missing.

// openAIToolCallProviders is the allowedToolCallProviders set of
// openai-responses.js and openai-codex-responses.js: target providers whose
// "call|item" tool call ids are kept as pairs.
func openAIToolCallProviders(p string) bool {
	return p == "openai" || p == "openai-codex" || p == "opencode"
}

func normalizeIDPart(part string) string {
	s := jsjson.Slice(replaceIDChars(part, "_", true), 64)
	return strings.TrimRight(s, "_")
}

// responsesToolCallID is convertResponsesMessages' normalizeToolCallId for
// the allowedToolCallProviders set `allowed`.
func (c *conv) responsesToolCallID(allowed func(provider string) bool) idNormalizer {
	return func(id string, source Message) string {
		m := c.model
		if !allowed(m.Provider) || !strings.Contains(id, "|") {
			return normalizeIDPart(id)
		}
		callID, itemID, _ := jsSplitTwo(id, "|")
		foreign := source.Get("provider") != m.Provider || source.Get("api") != m.API
		var item string
		if foreign {
			item = jsjson.Slice("fc_"+ShortHash(itemID), 64)
		} else {
			item = normalizeIDPart(itemID)
		}
		if !strings.HasPrefix(item, "fc_") {
			item = normalizeIDPart("fc_" + item)
		}
		return normalizeIDPart(callID) + "|" + item
	}
}

// ShortHash is pi-ai's shortHash (utils/hash.js) over UTF-16 code units.
func ShortHash(s string) string {
	h1, h2 := uint32(0xdeadbeef), uint32(0x41c6ce57)
	for _, ch := range jsjson.Units(s) {
		h1 = (h1 ^ uint32(ch)) * 2654435761
		h2 = (h2 ^ uint32(ch)) * 1597334677
	}
	h1 = (h1^(h1>>16))*2246822507 ^ (h2^(h2>>13))*3266489909
	h2 = (h2^(h2>>16))*2246822507 ^ (h1^(h1>>13))*3266489909
	return strconv.FormatUint(uint64(h2), 36) + strconv.FormatUint(uint64(h1), 36)
}

func renderOpenAIResponses(c *conv, msgs []Message, system string) *jsvalue.Object {
	m := c.model
	body := jsvalue.NewObject("model", m.ID, "input", c.responsesInput(msgs, system, true, openAIToolCallProviders), "stream", true, "store", false)
	if m.Reasoning && m.Provider != "github-copilot" {
		switch m.ThinkingOff {
		case models.OffUnset:
			body.Set("reasoning", jsvalue.NewObject("effort", "none"))
		case models.OffValue:
			body.Set("reasoning", jsvalue.NewObject("effort", m.ThinkingOffValue))
		}
	}
	return body
}

func renderCodexResponses(c *conv, msgs []Message, system string) *jsvalue.Object {
	return jsvalue.NewObject(
		"model", c.model.ID,
		"store", false,
		"stream", true,
		"instructions", system,
		"input", c.responsesInput(msgs, system, false, openAIToolCallProviders),
		"text", jsvalue.NewObject("verbosity", "low"),
		"include", []any{"reasoning.encrypted_content"},
		"tool_choice", "auto",
		"parallel_tool_calls", true,
	)
}

// textSignature is pi-ai's parseTextSignature result.
type textSignature struct {
	id, phase string
	ok        bool
}

func (c *conv) parseTextSignature(b *jsvalue.Object) textSignature {
	v := b.Get("textSignature")
	if !jsvalue.Truthy(v) {
		return textSignature{}
	}
	sig, isStr := v.(string)
	if !isStr {
		c.fail("text block: textSignature is %s, not a string", jsvalue.TypeName(v, true))
		return textSignature{}
	}
	if strings.HasPrefix(sig, "{") {
		if parsed, err := c.parseJSON(sig); err == nil {
			if p, ok := jsvalue.AsObject(parsed); ok && isJSOne(p.Get("v")) {
				if id, ok := p.Get("id").(string); ok {
					ts := textSignature{id: id, ok: true}
					if ph, _ := p.Get("phase").(string); ph == "commentary" || ph == "final_answer" {
						ts.phase = ph
					}
					return ts
				}
			}
		}
	}
	return textSignature{id: sig, ok: true}
}

func isJSOne(v any) bool {
	switch x := v.(type) {
	case string, bool, nil:
		return false
	default:
		f, err := strconv.ParseFloat(jsvalue.ToString(x, true), 64)
		return err == nil && f == 1
	}
}

// responsesInput is convertResponsesMessages(model, context,
// allowedToolCallProviders, {includeSystemPrompt}).
func (c *conv) responsesInput(msgs []Message, system string, includeSystem bool, allowed func(provider string) bool) []any {
	m := c.model
	tm := c.transformMessages(msgs, c.responsesToolCallID(allowed))
	items := make([]any, 0, len(tm)+1)
	if includeSystem && system != "" {
		role := "system"
		if m.Reasoning {
			role = "developer"
		}
		items = append(items, jsvalue.NewObject("role", role, "content", sanitizeSurrogates(system)))
	}
	msgIndex := 0
	for _, msg := range tm {
		if c.err != nil {
			break
		}
		switch msg.Get("role") {
		case "user":
			if s, ok := msg.Get("content").(string); ok {
				items = append(items, jsvalue.NewObject("role", "user", "content", []any{jsvalue.NewObject("type", "input_text", "text", sanitizeSurrogates(s))}))
				break
			}
			blocks := c.contentBlocks(msg)
			if len(blocks) == 0 {
				continue
			}
			content := make([]any, 0, len(blocks))
			for _, b := range blocks {
				if typeOf(b) == "text" {
					content = append(content, jsvalue.NewObject("type", "input_text", "text", sanitizeSurrogates(c.str(b, "text"))))
				} else {
					content = append(content, inputImage(b))
				}
			}
			items = append(items, jsvalue.NewObject("role", "user", "content", content))
		case "assistant":
			differentModel := msg.Get("model") != m.ID && msg.Get("provider") == m.Provider && msg.Get("api") == m.API
			var output []any
			for _, b := range c.contentBlocks(msg) {
				switch typeOf(b) {
				case "thinking":
					if jsvalue.Truthy(b.Get("thinkingSignature")) {
						sig, ok := b.Get("thinkingSignature").(string)
						if !ok {
							c.fail("thinking block: thinkingSignature is not a string")
							continue
						}
						item, err := c.parseJSON(sig)
						if err != nil {
							c.fail("thinking block: thinkingSignature is not JSON (JSON.parse throws): %v", err)
							continue
						}
						output = append(output, item)
					}
				case "text":
					ts := c.parseTextSignature(b)
					id := ts.id
					if id == "" {
						id = "msg_" + strconv.Itoa(msgIndex)
					} else if jsjson.Len(id) > 64 {
						id = "msg_" + ShortHash(id)
					}
					item := jsvalue.NewObject("type", "message", "role", "assistant",
						"content", []any{jsvalue.NewObject("type", "output_text", "text", sanitizeSurrogates(c.str(b, "text")), "annotations", []any{})},
						"status", "completed", "id", id)
					if ts.phase != "" {
						item.Set("phase", ts.phase)
					}
					output = append(output, item)
				case vocab.BlockToolCall:
					callID, itemID, hasItem := jsSplitTwo(c.str(b, "id"), "|")
					if differentModel && hasItem && strings.HasPrefix(itemID, "fc_") {
						hasItem = false
					}
					fc := jsvalue.NewObject("type", "function_call")
					if hasItem {
						fc.Set("id", itemID)
					}
					fc.Set("call_id", callID)
					fc.Copy("name", b, "name")
					if args, ok := c.stringify(b, "arguments"); ok {
						fc.Set("arguments", args)
					}
					output = append(output, fc)
				}
			}
			if len(output) == 0 {
				continue
			}
			items = append(items, output...)
		case vocab.RoleToolResult:
			content := c.contentBlocks(msg)
			var texts []*jsvalue.Object
			hasImages := false
			for _, b := range content {
				switch typeOf(b) {
				case "text":
					texts = append(texts, b)
				case "image":
					hasImages = true
				}
			}
			text := joinTexts(texts, "\n")
			callID := jsSplitFirst(c.str(msg, "toolCallId"), "|")
			var output any
			if hasImages && m.Vision {
				parts := make([]any, 0, len(content)+1)
				if text != "" {
					parts = append(parts, jsvalue.NewObject("type", "input_text", "text", sanitizeSurrogates(text)))
				}
				for _, b := range content {
					if typeOf(b) == "image" {
						parts = append(parts, inputImage(b))
					}
				}
				output = parts
			} else if text != "" {
				output = sanitizeSurrogates(text)
			} else {
				output = "(see attached image)"
			}
			items = append(items, jsvalue.NewObject("type", "function_call_output", "call_id", callID, "output", output))
		}
		msgIndex++
	}
	return items
}

func inputImage(b *jsvalue.Object) *jsvalue.Object {
	return jsvalue.NewObject("type", "input_image", "detail", "auto", "image_url", "data:"+tmpl(b, "mimeType")+";base64,"+tmpl(b, "data"))
}

// openAIToolCallProviders96 is OPENAI_TOOL_CALL_PROVIDERS and
// CODEX_TOOL_CALL_PROVIDERS of 2026.9.6 (openai-codex is gone).
func openAIToolCallProviders96(p string) bool { return p == "openai" || p == "opencode" }

// renderOpenAIResponses96 follows openai-responses.ts buildParams and
// convertResponsesMessagesWithStyle "provider" (dist/openai-responses-shared-*.mjs):
// input messages are built by buildResponsesInputMessage, {type: "message",
// role, content}.
func renderOpenAIResponses96(c *conv, msgs []Message, system string) *jsvalue.Object {
	body := jsvalue.NewObject("model", c.model.ID, "input", c.responsesInput96(msgs, system, true, false, openAIToolCallProviders96), "stream", true, "store", false)
	if c.model.Provider != "github-copilot" { // setDefaultReasoningOff
		setResponsesReasoningOff96(body, c.model)
	}
	return body
}

// renderChatGPTResponses96 follows openai-chatgpt-responses.ts
// buildRequestBody (dist/openai-chatgpt-responses-*.mjs), the successor of
// Codex: instructions default to "You are a helpful assistant.", no
// tool_choice/parallel_tool_calls without tools, and input messages built by
// buildResponsesInputMessage.
func renderChatGPTResponses96(c *conv, msgs []Message, system string) *jsvalue.Object {
	instructions := system
	if instructions == "" {
		instructions = "You are a helpful assistant."
	}
	body := jsvalue.NewObject(
		"model", c.model.ID,
		"store", false,
		"stream", true,
		"instructions", instructions,
		"input", c.responsesInput96(msgs, system, false, false, openAIToolCallProviders96),
		"text", jsvalue.NewObject("verbosity", "low"),
		"include", []any{"reasoning.encrypted_content"},
	)
	return body
}
