package wire

import (
	"fmt"
	"strings"

	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
	"github.com/openclaw-tools/oc/pkg/replay/models"
	"github.com/openclaw-tools/oc/pkg/vocab"
)

// OpenAI Chat Completions (`openai-completions`): pi-ai
// providers/openai-completions.js, buildParams / convertMessages / getCompat,
// with no tools, no max tokens, no reasoning effort and no session id.
//
// Body: {model, messages, stream: true, stream_options: {include_usage: true}
// (unless compat.supportsUsageInStreaming is false), store: false (when
// compat.supportsStore), tools: [] (when the history has tool calls or
// results), then the "reasoning off" field of the compat's thinking format:
// zai/qwen enable_thinking: false, qwen-chat-template chat_template_kwargs,
// deepseek thinking: {type: "disabled"}, openrouter reasoning: {effort:
// thinkingLevelMap.off ?? "none"} (unless off is null), otherwise
// reasoning_effort: off when the model maps off to a string}.
// OpenRouter "anthropic/..." models get Anthropic cache_control markers.
//
// Compat: pi-ai's detectCompat by provider (the base URL is not known, as in
// the oracle), overridden field by field by the known model's compat.

// completionsCompat is pi-ai's resolved OpenAICompletionsCompat (the fields
// that shape a body without tools or options).
type completionsCompat struct {
	supportsStore, supportsDeveloperRole, supportsReasoningEffort, supportsUsageInStreaming bool
	requiresToolResultName, requiresAssistantAfterToolResult, requiresThinkingAsText        bool
	requiresReasoningContentOnAssistantMessages                                             bool
	thinkingFormat, cacheControlFormat                                                      string
	// assistantTextJoin joins an assistant turn's texts ("" in pi-ai 0.73,
	// "\n" in @openclaw/ai 2026.9.6).
	assistantTextJoin string
}

func completionsCompatFor(m *models.Model) completionsCompat {
	p := m.Provider
	isZai := p == "zai"
	isMoonshot := p == "moonshotai" || p == "moonshotai-cn"
	isCFWorkers := p == "cloudflare-workers-ai"
	isCFGateway := p == "cloudflare-ai-gateway"
	nonStandard := p == "cerebras" || p == "xai" || isZai || isMoonshot || p == "opencode" || isCFWorkers || isCFGateway
	isDeepSeek := p == "deepseek"
	c := completionsCompat{
		supportsStore:                               !nonStandard,
		supportsDeveloperRole:                       !nonStandard,
		supportsReasoningEffort:                     p != "xai" && !isZai && !isMoonshot && !isCFGateway,
		supportsUsageInStreaming:                    true,
		requiresReasoningContentOnAssistantMessages: isDeepSeek,
		thinkingFormat:                              "openai",
	}
	switch {
	case isDeepSeek:
		c.thinkingFormat = "deepseek"
	case isZai:
		c.thinkingFormat = "zai"
	case p == "openrouter":
		c.thinkingFormat = "openrouter"
	}
	if p == "openrouter" && strings.HasPrefix(m.ID, "anthropic/") {
		c.cacheControlFormat = "anthropic"
	}
	override := func(dst *bool, key string) {
		if v, ok := m.CompatBool(key); ok {
			*dst = v
		}
	}
	override(&c.supportsStore, "supportsStore")
	override(&c.supportsDeveloperRole, "supportsDeveloperRole")
	override(&c.supportsReasoningEffort, "supportsReasoningEffort")
	override(&c.supportsUsageInStreaming, "supportsUsageInStreaming")
	override(&c.requiresToolResultName, "requiresToolResultName")
	override(&c.requiresAssistantAfterToolResult, "requiresAssistantAfterToolResult")
	override(&c.requiresThinkingAsText, "requiresThinkingAsText")
	override(&c.requiresReasoningContentOnAssistantMessages, "requiresReasoningContentOnAssistantMessages")
	if v, ok := m.CompatString("thinkingFormat"); ok {
		c.thinkingFormat = v
	}
	if v, ok := m.CompatString("cacheControlFormat"); ok {
		c.cacheControlFormat = v
	}
	return c
}

func renderOpenAICompletions(c *conv, msgs []Message, system string) *jsvalue.Object {
	return renderOpenAICompletionsWith(c, msgs, system, completionsCompatFor(c.model))
}

// renderOpenAICompletionsWith is buildParams with a resolved compat.
func renderOpenAICompletionsWith(c *conv, msgs []Message, system string, compat completionsCompat) *jsvalue.Object {
	m := c.model
	messages := c.completionsMessages(msgs, system, compat)
	body := jsvalue.NewObject("model", m.ID, "messages", messages, "stream", true)
	if compat.supportsUsageInStreaming {
		body.Set("stream_options", jsvalue.NewObject("include_usage", true))
	}
	if compat.supportsStore {
		body.Set("store", false)
	}
	var tools []any
	if c.hasToolHistory(msgs) {
		tools = []any{}
		body.Set("tools", tools)
	}
	if compat.cacheControlFormat == "anthropic" {
		completionsCacheControl(messages)
	}
	if m.Reasoning {
		switch compat.thinkingFormat {
		case "zai", "qwen":
			body.Set("enable_thinking", false)
		case "qwen-chat-template":
			body.Set("chat_template_kwargs", jsvalue.NewObject("enable_thinking", false, "preserve_thinking", true))
		case "deepseek":
			body.Set("thinking", jsvalue.NewObject("type", "disabled"))
		case "openrouter":
			switch m.ThinkingOff {
			case models.OffUnset:
				body.Set("reasoning", jsvalue.NewObject("effort", "none"))
			case models.OffValue:
				body.Set("reasoning", jsvalue.NewObject("effort", m.ThinkingOffValue))
			}
		default:
			if compat.supportsReasoningEffort && m.ThinkingOff == models.OffValue {
				body.Set("reasoning_effort", m.ThinkingOffValue)
			}
		}
	}
	return body
}

// hasToolHistory: any tool result, or an assistant turn with a tool call.
func (c *conv) hasToolHistory(msgs []Message) bool {
	for _, msg := range msgs {
		switch msg.Get("role") {
		case vocab.RoleToolResult:
			return true
		case "assistant":
			for _, b := range c.contentBlocks(msg) {
				if typeOf(b) == vocab.BlockToolCall {
					return true
				}
			}
		}
	}
	return false
}

// completionsCacheControl is applyAnthropicCacheControl without a system
// message or tools: the last user/assistant message with text gets the marker
// on its last text part (string content becomes a part).
func completionsCacheControl(messages []any) {
	for _, v := range messages {
		o := v.(*jsvalue.Object)
		if r := o.Get("role"); r == "system" || r == "developer" {
			addCacheControlToText(o)
			break
		}
	}
	for i := len(messages) - 1; i >= 0; i-- {
		o := messages[i].(*jsvalue.Object)
		if r := o.Get("role"); (r == "user" || r == "assistant") && addCacheControlToText(o) {
			return
		}
	}
}

func addCacheControlToText(o *jsvalue.Object) bool {
	content := o.Get("content")
	switch x := content.(type) {
	case string:
		if x == "" {
			return false
		}
		o.Set("content", []any{jsvalue.NewObject("type", "text", "text", x, "cache_control", ephemeral())})
		return true
	case []any:
		for i := len(x) - 1; i >= 0; i-- {
			if p, ok := x[i].(*jsvalue.Object); ok {
				if t := p.Get("type"); t == "text" {
					p.Set("cache_control", ephemeral())
					return true
				}
			}
		}
	}
	return false
}

func (c *conv) completionsToolCallID(id string, _ Message) string {
	if strings.Contains(id, "|") {
		return jsjson.Slice(replaceIDChars(jsSplitFirst(id, "|"), "_", true), 40)
	}
	if c.model.Provider == "openai" && jsjson.Len(id) > 40 {
		return jsjson.Slice(id, 40)
	}
	return id
}

func imageURL(b *jsvalue.Object) *jsvalue.Object {
	return jsvalue.NewObject("type", "image_url", "image_url", jsvalue.NewObject("url", "data:"+tmpl(b, "mimeType")+";base64,"+tmpl(b, "data")))
}

func (c *conv) completionsMessages(msgs []Message, system string, compat completionsCompat) []any {
	m := c.model
	tm := c.transformMessages(msgs, c.completionsToolCallID)
	params := make([]any, 0, len(tm)+1)
	if system != "" {
		role := "system"
		if m.Reasoning && compat.supportsDeveloperRole {
			role = "developer"
		}
		params = append(params, jsvalue.NewObject("role", role, "content", sanitizeSurrogates(system)))
	}
	bridge := func() *jsvalue.Object {
		return jsvalue.NewObject("role", "assistant", "content", "I have processed the tool results.")
	}
	lastRole := ""
	for i := 0; i < len(tm) && c.err == nil; i++ {
		msg := tm[i]
		role, _ := msg.Get("role").(string)
		if compat.requiresAssistantAfterToolResult && lastRole == vocab.RoleToolResult && role == "user" {
			params = append(params, bridge())
		}
		switch role {
		case "user":
			if s, ok := msg.Get("content").(string); ok {
				params = append(params, jsvalue.NewObject("role", "user", "content", sanitizeSurrogates(s)))
				break
			}
			items := c.contentBlocks(msg)
			if len(items) == 0 {
				continue
			}
			content := make([]any, 0, len(items))
			for _, item := range items {
				if typeOf(item) == "text" {
					content = append(content, jsvalue.NewObject("type", "text", "text", sanitizeSurrogates(c.str(item, "text"))))
				} else {
					content = append(content, imageURL(item))
				}
			}
			params = append(params, jsvalue.NewObject("role", "user", "content", content))
		case "assistant":
			am := jsvalue.NewObject("role", "assistant")
			if compat.requiresAssistantAfterToolResult {
				am.Set("content", "")
			} else {
				am.Set("content", nil)
			}
			blocks := c.contentBlocks(msg)
			var textParts []any
			var text strings.Builder
			var thinking []*jsvalue.Object
			var toolCalls []*jsvalue.Object
			for _, b := range blocks {
				switch typeOf(b) {
				case "text":
					if t := c.str(b, "text"); !jsjson.Blank(t) {
						t = sanitizeSurrogates(t) // the joined text is of the sanitized parts
						textParts = append(textParts, jsvalue.NewObject("type", "text", "text", t))
						if len(textParts) > 1 {
							text.WriteString(compat.assistantTextJoin)
						}
						text.WriteString(t)
					}
				case "thinking":
					if !jsjson.Blank(c.str(b, "thinking")) {
						thinking = append(thinking, b)
					}
				case vocab.BlockToolCall:
					toolCalls = append(toolCalls, b)
				}
			}
			if len(thinking) > 0 {
				if compat.requiresThinkingAsText {
					parts := make([]string, len(thinking))
					for k, b := range thinking {
						parts[k] = sanitizeSurrogates(b.Get("thinking").(string))
					}
					am.Set("content", append([]any{jsvalue.NewObject("type", "text", "text", strings.Join(parts, "\n\n"))}, textParts...))
				} else {
					if text.Len() > 0 {
						am.Set("content", text.String())
					}
					if sig, ok := thinking[0].Get("thinkingSignature").(string); ok && sig != "" {
						parts := make([]string, len(thinking))
						for k, b := range thinking {
							parts[k] = b.Get("thinking").(string)
						}
						am.Set(sig, strings.Join(parts, "\n"))
					}
				}
			} else if text.Len() > 0 {
				am.Set("content", text.String())
			}
			if len(toolCalls) > 0 {
				calls := make([]any, 0, len(toolCalls))
				var details []any
				for _, tc := range toolCalls {
					fn := jsvalue.NewObject()
					fn.Copy("name", tc, "name")
					if args, ok := c.stringify(tc, "arguments"); ok {
						fn.Set("arguments", args)
					}
					call := jsvalue.NewObject()
					call.Copy("id", tc, "id")
					call.Set("type", "function")
					call.Set("function", fn)
					calls = append(calls, call)
					if sig := tc.Get("thoughtSignature"); jsvalue.Truthy(sig) {
						if s, ok := sig.(string); ok {
							if v, err := c.parseJSON(s); err == nil && jsvalue.Truthy(v) {
								details = append(details, v)
							}
						}
					}
				}
				am.Set("tool_calls", calls)
				if len(details) > 0 {
					am.Set("reasoning_details", details)
				}
			}
			if compat.requiresReasoningContentOnAssistantMessages && m.Reasoning {
				if _, ok := am.Lookup("reasoning_content"); !ok {
					am.Set("reasoning_content", "")
				}
			}
			content := am.Get("content")
			hasContent := false
			switch x := content.(type) {
			case string:
				hasContent = x != ""
			case []any:
				hasContent = len(x) > 0
			}
			if _, hasCalls := am.Lookup("tool_calls"); !hasContent && !hasCalls {
				continue
			}
			params = append(params, am)
		case vocab.RoleToolResult:
			var images []any
			j := i
			for ; j < len(tm) && tm[j].Get("role") == vocab.RoleToolResult; j++ {
				tr := tm[j]
				content := c.contentBlocks(tr)
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
				textResult := joinTexts(texts, "\n")
				out := textResult
				if textResult == "" {
					out = "(see attached image)"
				}
				r := jsvalue.NewObject("role", "tool", "content", sanitizeSurrogates(out))
				r.Copy("tool_call_id", tr, "toolCallId")
				if compat.requiresToolResultName && jsvalue.Truthy(tr.Get("toolName")) {
					r.Set("name", tr.Get("toolName"))
				}
				params = append(params, r)
				if hasImages && m.Vision {
					if c.toolImageLabels96 {
						images = append(images, jsvalue.NewObject("type", "text", "text", toolImageLabel96(j-i+1, tr.Get("toolName"))))
					}
					for _, b := range content {
						if typeOf(b) == "image" {
							images = append(images, imageURL(b))
						}
					}
				}
			}
			i = j - 1
			if len(images) > 0 {
				if compat.requiresAssistantAfterToolResult {
					params = append(params, bridge())
				}
				if !c.toolImageLabels96 {
					images = append([]any{jsvalue.NewObject("type", "text", "text", "Attached image(s) from tool result:")}, images...)
				}
				params = append(params, jsvalue.NewObject("role", "user", "content", images))
				lastRole = "user"
			} else {
				lastRole = vocab.RoleToolResult
			}
			continue
		}
		lastRole = role
	}
	return params
}

// renderOpenAICompletions96 follows buildOpenAICompletionsRequest and
// convertMessages (dist/openai-completions-stream-*.mjs) with
// completionsCompat96.
func renderOpenAICompletions96(c *conv, msgs []Message, system string) *jsvalue.Object {
	return renderOpenAICompletionsWith(c, msgs, system, completionsCompat96(c.model))
}

// completionsCompat96 is resolveOpenAICompletionsCompat
// (dist/openai-completions-compat-*.mjs) for the oracle's model record: its
// endpoint is a configured local one (baseUrl http://127.0.0.1:9), which is
// proxy-like and not OpenAI's, so supportsStore and supportsDeveloperRole
// default to false; an assistant turn's texts are joined with "\n". The
// model's compat flags still win.
func completionsCompat96(m *models.Model) completionsCompat {
	compat := completionsCompatFor(m)
	compat.assistantTextJoin = "\n"
	if v, ok := m.CompatBool("supportsStore"); ok {
		compat.supportsStore = v
	} else {
		compat.supportsStore = false
	}
	if v, ok := m.CompatBool("supportsDeveloperRole"); ok {
		compat.supportsDeveloperRole = v
	} else {
		compat.supportsDeveloperRole = false
	}
	return compat
}

// toolImageLabel96 is 2026.9.6's label before the images of the n-th tool
// result of a run: "Image(s) from tool result #n (tool):", the tool name cut
// to 64 UTF-16 units (truncateUtf16Safe) with lone surrogates removed, and
// no parenthesis without a name.
func toolImageLabel96(n int, toolName any) string {
	name, _ := toolName.(string)
	if jsjson.Len(name) > 64 {
		name = jsjson.Slice(name, 64)
	}
	name = sanitizeSurrogates(name)
	if name == "" {
		return fmt.Sprintf("Image(s) from tool result #%d:", n)
	}
	return fmt.Sprintf("Image(s) from tool result #%d (%s):", n, name)
}
