package wire

import (
	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
)

// Anthropic Messages (`anthropic-messages`): pi-ai providers/anthropic.js,
// buildParams and convertMessages, for an API key (not an OAuth token), no
// tools, no thinking option and the default ("short") cache retention.
//
// Body: {model, messages, max_tokens: floor(model.maxTokens/3), stream: true,
// system?}. Messages:
//   - user: string content only when not blank; blocks text / image
//     ({type:"image", source:{type:"base64", media_type, data}}), blank texts
//     dropped, a message left empty skipped;
//   - assistant: blank text skipped; thinking: redacted -> redacted_thinking
//     with the signature as data, blank skipped, unsigned -> text, signed ->
//     {type:"thinking", thinking, signature}; toolCall -> tool_use with
//     input = arguments ?? {}; a turn with no blocks skipped;
//   - consecutive tool results -> one user message of tool_result blocks,
//     content a "\n"-joined string, or blocks when images are present (with
//     "(see attached image)" first when there is no text);
//   - the last message, when a user one, gets cache_control {type:"ephemeral"}
//     on its last text/image/tool_result block (string content becomes a block).
// Tool call ids from other models are normalised to [a-zA-Z0-9_-], 64 chars.

func anthropicToolCallID(id string, _ Message) string {
	return jsjson.Slice(replaceIDChars(id, "_", true), 64)
}

func ephemeral() *jsvalue.Object { return jsvalue.NewObject("type", "ephemeral") }

func renderAnthropic(c *conv, msgs []Message, system string) *jsvalue.Object {
	body := jsvalue.NewObject("model", c.model.ID)
	body.Set("messages", c.anthropicMessages(msgs))
	body.Set("max_tokens", c.model.MaxTokens/3)
	body.Set("stream", true)
	if system != "" {
		body.Set("system", []any{jsvalue.NewObject("type", "text", "text", sanitizeSurrogates(system), "cache_control", ephemeral())})
	}
	return body
}

func (c *conv) anthropicMessages(msgs []Message) []any {
	params := c.anthropicMessagesUnmarked(msgs)
	cacheMarkLastUser56(params)
	return params
}

// anthropicMessages without cache markers (convertMessages, shared by 2026.5.6
// and 2026.9.6's convertAnthropicMessages).
func (c *conv) anthropicMessagesUnmarked(msgs []Message) []any {
	tm := c.transformMessages(msgs, anthropicToolCallID)
	params := make([]any, 0, len(tm))
	for i := 0; i < len(tm) && c.err == nil; i++ {
		msg := tm[i]
		switch msg.Get("role") {
		case "user":
			if s, ok := msg.Get("content").(string); ok {
				if !jsjson.Blank(s) {
					params = append(params, jsvalue.NewObject("role", "user", "content", sanitizeSurrogates(s)))
				}
				continue
			}
			var blocks []any
			for _, item := range c.contentBlocks(msg) {
				if typeOf(item) == "text" {
					t := c.str(item, "text")
					if !jsjson.Blank(t) {
						blocks = append(blocks, jsvalue.NewObject("type", "text", "text", sanitizeSurrogates(t)))
					}
					continue
				}
				blocks = append(blocks, anthropicImage(item))
			}
			if len(blocks) == 0 {
				continue
			}
			params = append(params, jsvalue.NewObject("role", "user", "content", blocks))
		case "assistant":
			var blocks []any
			for _, b := range c.contentBlocks(msg) {
				switch typeOf(b) {
				case "text":
					t := c.str(b, "text")
					if jsjson.Blank(t) {
						continue
					}
					blocks = append(blocks, jsvalue.NewObject("type", "text", "text", sanitizeSurrogates(t)))
				case "thinking":
					if jsvalue.Truthy(b.Get("redacted")) {
						o := jsvalue.NewObject("type", "redacted_thinking")
						o.Copy("data", b, "thinkingSignature")
						blocks = append(blocks, o)
						continue
					}
					th := c.str(b, "thinking")
					if jsjson.Blank(th) {
						continue
					}
					if !jsvalue.Truthy(b.Get("thinkingSignature")) || jsjson.Blank(c.str(b, "thinkingSignature")) {
						blocks = append(blocks, jsvalue.NewObject("type", "text", "text", sanitizeSurrogates(th)))
						continue
					}
					blocks = append(blocks, jsvalue.NewObject("type", "thinking", "thinking", sanitizeSurrogates(th), "signature", b.Get("thinkingSignature")))
				case "toolCall":
					o := jsvalue.NewObject("type", "tool_use")
					o.Copy("id", b, "id")
					o.Copy("name", b, "name")
					if args, ok := b.Lookup("arguments"); ok && args != nil {
						o.Set("input", args)
					} else {
						o.Set("input", jsvalue.NewObject())
					}
					blocks = append(blocks, o)
				}
			}
			if len(blocks) == 0 {
				continue
			}
			params = append(params, jsvalue.NewObject("role", "assistant", "content", blocks))
		case "toolResult":
			var results []any
			j := i
			for ; j < len(tm) && tm[j].Get("role") == "toolResult"; j++ {
				r := jsvalue.NewObject("type", "tool_result")
				r.Copy("tool_use_id", tm[j], "toolCallId")
				r.Set("content", c.anthropicToolContent(tm[j]))
				r.Copy("is_error", tm[j], "isError")
				results = append(results, r)
			}
			i = j - 1
			params = append(params, jsvalue.NewObject("role", "user", "content", results))
		}
	}
	return params
}

// cacheMarkLastUser56 is pi-ai 0.73's cache marker: the last message, when a
// user one, gets cache_control on its last text/image/tool_result block.
func cacheMarkLastUser56(params []any) {
	if n := len(params); n > 0 {
		last := params[n-1].(*jsvalue.Object)
		if role := last.Get("role"); role == "user" {
			content := last.Get("content")
			switch x := content.(type) {
			case []any:
				if lb, ok := x[len(x)-1].(*jsvalue.Object); ok {
					if t := lb.Get("type"); t == "text" || t == "image" || t == "tool_result" {
						lb.Set("cache_control", ephemeral())
					}
				}
			case string:
				last.Set("content", []any{jsvalue.NewObject("type", "text", "text", x, "cache_control", ephemeral())})
			}
		}
	}
}

func anthropicImage(item *jsvalue.Object) *jsvalue.Object {
	src := jsvalue.NewObject("type", "base64")
	src.Copy("media_type", item, "mimeType")
	src.Copy("data", item, "data")
	return jsvalue.NewObject("type", "image", "source", src)
}

// anthropicToolContent is pi-ai's convertContentBlocks for a tool result.
func (c *conv) anthropicToolContent(msg Message) any {
	content := c.contentBlocks(msg)
	hasImages := false
	for _, b := range content {
		if typeOf(b) == "image" {
			hasImages = true
			break
		}
	}
	if !hasImages {
		return sanitizeSurrogates(joinTexts(content, "\n"))
	}
	blocks := make([]any, 0, len(content)+1)
	hasText := false
	for _, b := range content {
		if typeOf(b) == "text" {
			blocks = append(blocks, jsvalue.NewObject("type", "text", "text", sanitizeSurrogates(c.str(b, "text"))))
			hasText = true
			continue
		}
		blocks = append(blocks, anthropicImage(b))
	}
	if !hasText {
		blocks = append([]any{jsvalue.NewObject("type", "text", "text", "(see attached image)")}, blocks...)
	}
	return blocks
}

// renderAnthropic96 follows anthropic.ts buildParams
// (dist/anthropic-*.mjs): max_tokens is options.maxTokens ?? model.maxTokens
// (no streamSimple thinking budget adjustment: the runner calls `stream`),
// and the cache markers of applyAnthropicRequestCacheControl
// (cacheMarkMessages96).
func renderAnthropic96(c *conv, msgs []Message, system string) *jsvalue.Object {
	body := jsvalue.NewObject("model", c.model.ID)
	params := c.anthropicMessagesUnmarked(msgs)
	body.Set("messages", params)
	body.Set("max_tokens", c.model.MaxTokens)
	body.Set("stream", true)
	markers := 0
	if system != "" {
		body.Set("system", []any{jsvalue.NewObject("type", "text", "text", sanitizeSurrogates(system), "cache_control", ephemeral())})
		markers = 1
	}
	cacheMarkMessages96(params, anthropicCacheControlLimit-markers)
	return body
}

// anthropicCacheControlLimit is ANTHROPIC_CACHE_CONTROL_LIMIT.
const anthropicCacheControlLimit = 4

// cacheMarkMessages96 is applyAnthropicCacheControlToMessages
// (dist/anthropic-stream-reducer-*.mjs): from the end, the first user
// message with a text or image block gets cache_control on its last such
// block (string content becomes a text block); a tool_result met on the way
// (the latest one of a tool-result-only user turn) is marked too, when the
// marker limit leaves room for two, or instead, when it leaves one.
func cacheMarkMessages96(params []any, limit int) {
	if len(params) == 0 || limit <= 0 {
		return
	}
	var fallback *jsvalue.Object
	for i := len(params) - 1; i >= 0; i-- {
		msg, ok := params[i].(*jsvalue.Object)
		if !ok {
			continue
		}
		if role := msg.Get("role"); role != "user" {
			continue
		}
		content := msg.Get("content")
		switch x := content.(type) {
		case string:
			if fallback != nil && limit == 1 {
				fallback.Set("cache_control", ephemeral())
				return
			}
			msg.Set("content", []any{jsvalue.NewObject("type", "text", "text", x, "cache_control", ephemeral())})
			if fallback != nil && limit > 1 {
				fallback.Set("cache_control", ephemeral())
			}
			return
		case []any:
			for j := len(x) - 1; j >= 0; j-- {
				b, ok := x[j].(*jsvalue.Object)
				if !ok {
					continue
				}
				t := b.Get("type")
				if t == "text" || t == "image" {
					if fallback != nil && limit == 1 {
						fallback.Set("cache_control", ephemeral())
						return
					}
					b.Set("cache_control", ephemeral())
					if fallback != nil && limit > 1 {
						fallback.Set("cache_control", ephemeral())
					}
					return
				}
				if t == "tool_result" && fallback == nil {
					fallback = b
				}
			}
		}
	}
	if fallback != nil {
		fallback.Set("cache_control", ephemeral())
	}
}
