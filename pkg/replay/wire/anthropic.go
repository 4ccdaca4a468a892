package wire

import (
	"encoding/base64"
	"strings"

	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/pkg/policy"
	"github.com/openclaw-tools/oc/pkg/replay/imageops"
	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
	"github.com/openclaw-tools/oc/pkg/vocab"
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
	// 2026.9.6: replayThinkingEnabled is false unless the model requires
	// adaptive thinking; thinking is then kept only in the active tool turn
	// (findActiveAnthropicToolTurnAssistantIndex).
	dropThinking := c.anthropicThinking96 && !policy.RequiresClaudeAdaptiveThinking96(c.model.ID)
	activeToolTurn := -1
	if dropThinking {
		activeToolTurn = activeAnthropicToolTurn(tm)
	}
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
				blocks = append(blocks, c.anthropicImage(item))
			}
			if len(blocks) == 0 {
				continue
			}
			params = append(params, jsvalue.NewObject("role", "user", "content", blocks))
		case "assistant":
			var blocks []any
			omittedThinking := false
			for _, b := range c.contentBlocks(msg) {
				switch typeOf(b) {
				case "text":
					t := c.str(b, "text")
					if jsjson.Blank(t) {
						continue
					}
					blocks = append(blocks, jsvalue.NewObject("type", "text", "text", sanitizeSurrogates(t)))
				case "thinking":
					if dropThinking && i != activeToolTurn {
						omittedThinking = true
						continue
					}
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
				case vocab.BlockToolCall:
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
			if len(blocks) == 0 && omittedThinking {
				blocks = append(blocks, jsvalue.NewObject("type", "text", "text", anthropicOmittedReasoningText))
			}
			if len(blocks) == 0 {
				continue
			}
			params = append(params, jsvalue.NewObject("role", "assistant", "content", blocks))
		case vocab.RoleToolResult:
			var results []any
			j := i
			for ; j < len(tm) && tm[j].Get("role") == vocab.RoleToolResult; j++ {
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

func (c *conv) anthropicImage(item *jsvalue.Object) *jsvalue.Object {
	if c.inlineImages96 {
		return c.anthropicImage96(item)
	}
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
		blocks = append(blocks, c.anthropicImage(b))
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

// anthropicMimePrefixChars is ANTHROPIC_MIME_PREFIX_BASE64_CHARS: the base64
// prefix whose bytes are sniffed (FILE_TYPE_SNIFF_MAX_BYTES = 1 MiB).
const anthropicMimePrefixChars = 4 * ((1048576 + 2) / 3)

// anthropicImage96 is 2026.9.6's normalizeAnthropicInlineImage (the
// transport host, ai-transport-host-*.mjs), which @openclaw/ai's
// convertAnthropicMessages runs on every user and tool-result image: the
// data made canonical (media-core canonicalizeBase64, else trimmed), the type
// sniffed from the bytes (file-type) and sent when Anthropic takes it
// (jpeg, png, gif, webp), else the declared type (normalised: lower case, no
// parameters) when nothing is sniffed and Anthropic takes it; otherwise the
// image is converted: a BMP to PNG, anything else to JPEG (a failure makes
// the request fail).
func (c *conv) anthropicImage96(item *jsvalue.Object) *jsvalue.Object {
	raw, _ := item.Get("data").(string)
	declared := normalizeMime96(jsvalue.StringOrEmpty(item, "mimeType"))
	canonical, ok := imageops.CanonicalBase64For96(raw)
	data := canonical
	if !ok {
		data = jsjson.Trim(raw)
	}
	sniff := data
	if ok && len(sniff) > anthropicMimePrefixChars {
		sniff = sniff[:anthropicMimePrefixChars]
	}
	buf := lenientBase64(sniff)
	detected := imageops.SniffMime(buf)
	mime := ""
	switch {
	case anthropicImageMime(detected):
		mime = detected
	case detected == "" && anthropicImageMime(declared):
		mime = declared
	default:
		if len(sniff) != len(data) {
			buf = lenientBase64(data)
		}
		var out []byte
		var err error
		if detected == "image/bmp" {
			out, err = imageops.BMPToPNG(buf)
			mime = "image/png"
		} else {
			out, err = imageops.ToJPEG(buf)
			mime = "image/jpeg"
		}
		if err != nil {
			c.fail("the Anthropic inline image (%s) cannot be converted: %v", firstNonEmpty(detected, declared, "unknown type"), err)
			return jsvalue.NewObject("type", "image", "source", jsvalue.NewObject("type", "base64", "media_type", mime, "data", ""))
		}
		data = base64.StdEncoding.EncodeToString(out)
	}
	src := jsvalue.NewObject("type", "base64", "media_type", mime, "data", data)
	return jsvalue.NewObject("type", "image", "source", src)
}

func anthropicImageMime(m string) bool {
	return m == "image/jpeg" || m == "image/png" || m == "image/gif" || m == "image/webp"
}

// normalizeMime96 is media-core's normalizeMimeType: the part before ";",
// trimmed and lower-cased, image/apng read as image/png.
func normalizeMime96(m string) string {
	m, _, _ = strings.Cut(m, ";")
	m = strings.ToLower(jsjson.Trim(m))
	if m == "image/apng" {
		return "image/png"
	}
	return m
}

// lenientBase64 decodes base64 the way Node's Buffer.from(s, "base64")
// does: characters outside the alphabet (and "-", "_" read as "+", "/")
// are skipped, decoding stops at "=", a trailing partial group keeps its
// whole bytes.
func lenientBase64(s string) []byte {
	clean := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == '=':
			i = len(s)
			continue
		case ch == '-':
			ch = '+'
		case ch == '_':
			ch = '/'
		case !(ch >= 'A' && ch <= 'Z' || ch >= 'a' && ch <= 'z' || ch >= '0' && ch <= '9' || ch == '+' || ch == '/'):
			continue
		}
		clean = append(clean, ch)
	}
	if len(clean)%4 == 1 {
		clean = clean[:len(clean)-1]
	}
	out, _ := base64.RawStdEncoding.DecodeString(string(clean))
	return out
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// anthropicOmittedReasoningText is ANTHROPIC_OMITTED_REASONING_TEXT: an
// assistant turn left with nothing once its thinking is omitted.
const anthropicOmittedReasoningText = "[assistant reasoning omitted]"

// activeAnthropicToolTurn is findActiveAnthropicToolTurnAssistantIndex
// (anthropic-stream-reducer-*.mjs): the index of the assistant turn right
// before the trailing tool results when it calls every one of them, else -1.
func activeAnthropicToolTurn(tm []Message) int {
	ids := map[string]bool{}
	i := len(tm) - 1
	for ; i >= 0 && tm[i].Get("role") == vocab.RoleToolResult; i-- {
		if id, ok := tm[i].Get("toolCallId").(string); ok {
			ids[id] = true
		}
	}
	if len(ids) == 0 || i < 0 || tm[i].Get("role") != "assistant" {
		return -1
	}
	content, ok := tm[i].Get("content").([]any)
	if !ok {
		return -1
	}
	calls := map[string]bool{}
	for _, v := range content {
		b, ok := jsvalue.AsObject(v)
		if !ok {
			continue
		}
		if t := typeOf(b); t == vocab.BlockToolCall || t == "tool_use" || t == "function_call" {
			if id, ok := b.Get("id").(string); ok {
				calls[id] = true
			}
		}
	}
	for id := range ids {
		if !calls[id] {
			return -1
		}
	}
	return i
}
