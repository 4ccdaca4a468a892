package wire

import (
	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
	"github.com/openclaw-tools/oc/pkg/replay/models"
)

// Renderers of OpenClaw 2026.9.6 (@openclaw/ai 2026.9.6, dist/*.mjs) whose
// request shape differs from pi-ai 0.73's. Message conversion that did not
// change is the 2026.5.6 code (anthropicMessagesUnmarked, completionsMessages,
// mistralMessages, transformMessages); what changed is a named 9.6 function
// (cacheMarkMessages96, completionsCompat96, mistralToolResultText96,
// responsesInput96, ...). The comments name the 9.6 function each follows.
// Google and Vertex bodies use renderGoogle96: renderGoogle plus the one
// change the differential fuzzer found (a conversation with nothing to send).

// openAIToolCallProviders96 is OPENAI_TOOL_CALL_PROVIDERS and
// CODEX_TOOL_CALL_PROVIDERS of 2026.9.6 (openai-codex is gone).
func openAIToolCallProviders96(p string) bool { return p == "openai" || p == "opencode" }

// azureToolCallProviders96 is AZURE_TOOL_CALL_PROVIDERS.
func azureToolCallProviders96(p string) bool {
	return openAIToolCallProviders96(p) || p == "azure-openai-responses"
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
		if role, _ := msg.Get("role"); role != "user" {
			continue
		}
		content, _ := msg.Get("content")
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
				t, _ := b.Get("type")
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

// renderAzureOpenAIResponses96 follows azure-openai-responses.ts buildParams
// (dist/azure-openai-responses-*.mjs): {model: the deployment (the model id
// without a deployment map), input, stream, store: false}, then
// applyCommonResponsesParams' default reasoning off (render96_reasoning.go). (5.6
// sent no `store`.)
func renderAzureOpenAIResponses96(c *conv, msgs []Message, system string) *jsvalue.Object {
	body := jsvalue.NewObject("model", c.model.ID, "input", c.responsesInput96(msgs, system, true, true, azureToolCallProviders96), "stream", true, "store", false)
	setResponsesReasoningOff96(body, c.model)
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

// renderMistral96 follows mistral.ts buildChatPayload/toChatMessages
// (dist/mistral-*.mjs): the same message shapes as 2026.5.6, with the tool
// result text of formatToolResultText (mistralToolResultText96).
func renderMistral96(c *conv, msgs []Message, system string) *jsvalue.Object {
	return renderMistralWith(c, msgs, system, mistralToolResultText96)
}

// mistralToolResultText96 is formatToolResultText: the text is no longer
// trimmed (only tested for blankness), and the omitted-media placeholder
// follows it on a new line.
func mistralToolResultText96(text string, hasImages, supportsImages, isError bool) string {
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

// renderGoogle96 is renderGoogle with 2026.9.6's ending of convertMessages
// (@openclaw/ai dist/google-messages-*.mjs, after flushToolResultRun()):
//
//	if (contents.length === 0) contents.push({ role: "user", parts: [{ text: " " }] });
//
// 2026.5.6 (pi-ai 0.73 google-shared) sent `contents: []` instead.
func renderGoogle96(c *conv, msgs []Message, system string) *jsvalue.Object {
	body := renderGoogle(c, msgs, system)
	if contents, ok := body.Get("contents"); ok {
		if list, ok := contents.([]any); ok && len(list) == 0 && c.err == nil {
			body.Set("contents", []any{jsvalue.NewObject("role", "user", "parts", []any{jsvalue.NewObject("text", " ")})})
		}
	}
	return body
}
