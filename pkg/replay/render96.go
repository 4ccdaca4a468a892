package replay

// Renderers of OpenClaw 2026.9.6 (@openclaw/ai 2026.9.6, dist/*.mjs) whose
// request shape differs from pi-ai 0.73's. Each is the 2026.5.6 renderer's
// conversion (shared code) with the 9.6 shape applied on top; the comments
// name the 9.6 function whose output they follow.

// renderAnthropic96 follows anthropic.ts buildParams
// (dist/anthropic-*.mjs): max_tokens is options.maxTokens ?? model.maxTokens
// (no streamSimple thinking budget adjustment: the runner calls `stream`).
func renderAnthropic96(c *conv, msgs []Message, system string) *Object {
	body := renderAnthropic(c, msgs, system)
	body.Set("max_tokens", c.model.MaxTokens)
	return body
}

// renderOpenAICompletions96 follows buildOpenAICompletionsRequest
// (dist/openai-completions-stream-*.mjs): the model's endpoint is a
// configured one (the oracle's baseUrl http://127.0.0.1:9, endpoint class
// "local", proxy-like), so resolveOpenAICompletionsCompatDefaults gives
// supportsStore false: no `store` member unless model.compat.supportsStore.
func renderOpenAICompletions96(c *conv, msgs []Message, system string) *Object {
	body := renderOpenAICompletions(c, msgs, system)
	if v, ok := c.model.compatBool("supportsStore"); !ok || !v {
		body.Delete("store")
	}
	return body
}

// renderOpenAIResponses96 follows openai-responses.ts buildParams and
// convertResponsesMessagesWithStyle "provider" (dist/openai-responses-shared-*.mjs):
// input messages are built by buildResponsesInputMessage, {type: "message",
// role, content}.
func renderOpenAIResponses96(c *conv, msgs []Message, system string) *Object {
	body := renderOpenAIResponses(c, nil, "")
	body.Set("input", c.responsesInput96(msgs, system, true, openAIToolCallProviders))
	return body
}

// renderAzureOpenAIResponses96: azure-openai-responses uses the same
// convertResponsesMessages as openai-responses.
func renderAzureOpenAIResponses96(c *conv, msgs []Message, system string) *Object {
	body := renderAzureOpenAIResponses(c, nil, "")
	body.Set("input", c.responsesInput96(msgs, system, true, azureToolCallProviders))
	return body
}

// renderChatGPTResponses96 follows openai-chatgpt-responses.ts
// buildRequestBody (dist/openai-chatgpt-responses-*.mjs), the successor of
// Codex: instructions default to "You are a helpful assistant.", no
// tool_choice/parallel_tool_calls without tools, and input messages built by
// buildResponsesInputMessage.
func renderChatGPTResponses96(c *conv, msgs []Message, system string) *Object {
	instructions := system
	if instructions == "" {
		instructions = "You are a helpful assistant."
	}
	body := NewObject(
		"model", c.model.ID,
		"store", false,
		"stream", true,
		"instructions", instructions,
		"input", c.responsesInput96(msgs, system, false, openAIToolCallProviders),
		"text", NewObject("verbosity", "low"),
		"include", []any{"reasoning.encrypted_content"},
	)
	return body
}
