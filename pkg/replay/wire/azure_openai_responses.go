package wire

import (
	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
	"github.com/openclaw-tools/oc/pkg/replay/models"
)

// Azure OpenAI Responses (`azure-openai-responses`): pi-ai
// providers/azure-openai-responses.js buildParams. The input items are the
// OpenAI Responses ones (convertResponsesMessages, openai_responses.go)
// with "azure-openai-responses" added to the providers whose "call|item" tool
// call ids are kept as pairs. The body differs from openai-responses:
//   - model is the Azure deployment name: the model id, unless the caller
//     names a deployment (options.azureDeploymentName or the
//     AZURE_OPENAI_DEPLOYMENT_NAME_MAP environment variable, neither of
//     which the oracle sets);
//   - no `store`; prompt_cache_key is the session id (none here);
//   - a reasoning model gets reasoning {effort: thinkingLevelMap.off ??
//     "none"} unless its map says off is null (github-copilot gets no
//     exception here: it never routes through Azure).

// azureToolCallProviders is azure-openai-responses.js AZURE_TOOL_CALL_PROVIDERS.
func azureToolCallProviders(p string) bool {
	return openAIToolCallProviders(p) || p == "azure-openai-responses"
}

func renderAzureOpenAIResponses(c *conv, msgs []Message, system string) *jsvalue.Object {
	m := c.model
	body := jsvalue.NewObject("model", m.ID, "input", c.responsesInput(msgs, system, true, azureToolCallProviders), "stream", true)
	if m.Reasoning {
		switch m.ThinkingOff {
		case models.OffUnset:
			body.Set("reasoning", jsvalue.NewObject("effort", "none"))
		case models.OffValue:
			body.Set("reasoning", jsvalue.NewObject("effort", m.ThinkingOffValue))
		}
	}
	return body
}

// azureToolCallProviders96 is AZURE_TOOL_CALL_PROVIDERS.
func azureToolCallProviders96(p string) bool {
	return openAIToolCallProviders96(p) || p == "azure-openai-responses"
}

// renderAzureOpenAIResponses96 follows azure-openai-responses.ts buildParams
// (dist/azure-openai-responses-*.mjs): {model: the deployment (the model id
// without a deployment map), input, stream, store: false}, then
// applyCommonResponsesParams' default reasoning off (openai_reasoning96.go). (5.6
// sent no `store`.)
func renderAzureOpenAIResponses96(c *conv, msgs []Message, system string) *jsvalue.Object {
	body := jsvalue.NewObject("model", c.model.ID, "input", c.responsesInput96(msgs, system, true, true, azureToolCallProviders96), "stream", true, "store", false)
	setResponsesReasoningOff96(body, c.model)
	return body
}
