// Package wire holds the wire renderers: one file per API family (as pi-ai
// and @openclaw/ai have one module per provider), the 2026.5.6 and 2026.9.6
// variants side by side. A renderer turns the messages the LLM boundary
// hands the provider stream into the request body the release sends, as
// an ordered object JSON.stringify writes byte for byte.
package wire

import (
	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
	"github.com/openclaw-tools/oc/pkg/replay/models"
)

// renderFunc builds one API family's wire body from the LLM messages.
type renderFunc func(c *conv, msgs []Message, system string) *jsvalue.Object

// Renderers are the API families one release builds, and how its
// converters replay earlier turns.
type Renderers struct {
	byAPI map[string]renderFunc
	// failedTurn is how the converters' transformMessages replays an
	// assistant turn (see failedTurnAction).
	failedTurn func(msg Message) failedTurnAction
	// trimToolCallIDs and google96: see conv.
	trimToolCallIDs bool
	google96        bool
	inlineImages96  bool
	// toolImageLabels96: see conv.
	toolImageLabels96 bool
	// anthropicThinking96: see conv.
	anthropicThinking96 bool
}

// Renderers56 are OpenClaw 2026.5.6's, through pi-ai 0.73.
func Renderers56() *Renderers {
	return &Renderers{
		byAPI: map[string]renderFunc{
			"anthropic-messages":      renderAnthropic,
			"openai-completions":      renderOpenAICompletions,
			"openai-responses":        renderOpenAIResponses,
			"openai-codex-responses":  renderCodexResponses,
			"google-generative-ai":    renderGoogle,
			"bedrock-converse-stream": renderBedrock,
			"mistral-conversations":   renderMistral,
			"azure-openai-responses":  renderAzureOpenAIResponses,
			// google-vertex.js builds its params exactly like google.js (same
			// google-shared convertMessages, same config); only the client differs.
			"google-vertex": renderGoogle,
		},
		failedTurn: failedTurn56,
	}
}

// Renderers96 are OpenClaw 2026.9.6's `stream` (dist/stream-*.mjs:
// @openclaw/ai's built-in providers plus the transport host), from
// @openclaw/ai 2026.9.6 (dist/*.mjs). Message conversion that did not change
// is the 2026.5.6 code (anthropicMessagesUnmarked, completionsMessages,
// mistralMessages, transformMessages); what changed is a named 9.6 function
// beside the 5.6 one in the API family's file (cacheMarkMessages96,
// completionsCompat96, mistralToolResultText96, responsesInput96, ...). The
// comments name the 9.6 function each follows. Google and Vertex bodies use
// renderGoogle96: renderGoogle plus the one change the differential fuzzer
// found (a conversation with nothing to send).
func Renderers96() *Renderers {
	return &Renderers{
		failedTurn: failedTurn96,
		// transformMessages trims tool call ids (host-*.mjs transformAssistant)
		trimToolCallIDs: true,
		// projectGoogleMessages keeps same-route tool call ids
		google96: true,
		// the transport host normalises Anthropic inline images
		inlineImages96: true,
		// one label per tool result's images (openai-completions)
		toolImageLabels96: true,
		// thinking replayed only where 9.6's Anthropic transport replays it
		anthropicThinking96: true,
		byAPI: map[string]renderFunc{
			"anthropic-messages":       renderAnthropic96,
			"openai-completions":       renderOpenAICompletions96,
			"openai-responses":         renderOpenAIResponses96,
			"openai-chatgpt-responses": renderChatGPTResponses96,
			// 2026.5.6's google-shared convertMessages and config, plus the
			// placeholder turn when nothing is left to send.
			"google-generative-ai":   renderGoogle96,
			"google-vertex":          renderGoogle96,
			"mistral-conversations":  renderMistral96,
			"azure-openai-responses": renderAzureOpenAIResponses96,
		},
	}
}

// Builds reports whether r renders api.
func (r *Renderers) Builds(api string) bool {
	_, ok := r.byAPI[api]
	return ok
}

// Render builds api's request body for msgs (the LLM boundary's output)
// and the system prompt ("" for none), for model. The error is the first
// place where the release would throw instead of sending (a malformed
// message, an image type the API does not know, ...). api must be one r
// Builds.
func (r *Renderers) Render(api string, msgs []Message, system string, model *models.Model) (*jsvalue.Object, error) {
	c := &conv{model: model, failedTurn: r.failedTurn, trimToolCallIDs: r.trimToolCallIDs, google96: r.google96, inlineImages96: r.inlineImages96,
		toolImageLabels96: r.toolImageLabels96, anthropicThinking96: r.anthropicThinking96}
	body := r.byAPI[api](c, msgs, system)
	return body, c.err
}
