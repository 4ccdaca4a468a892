package replay

import (
	"fmt"
	"strings"

	"github.com/openclaw-tools/oc/pkg/policy"
	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
	"github.com/openclaw-tools/oc/pkg/replay/models"
)

// renderFunc builds one API family's wire body from the LLM messages.
type renderFunc func(c *conv, msgs []Message, system string) *jsvalue.Object

// payloadRelease is what one OpenClaw release does between the runner's
// message list (the sanitize pipeline's `limited`) and the wire body: which
// model record the renderers see, the LLM-boundary steps, and one renderer
// per API family it builds itself. A renderer or step that is the same in
// two releases is the same function in both tables; a shape that changed is
// a separate named function. A further release is one more table.
type payloadRelease struct {
	release policy.Release
	// model is the model record the body is built for.
	model func(in *PayloadInput) (models.Model, error)
	// boundary turns in.Messages into the messages the renderer converts.
	boundary func(c *conv, in *PayloadInput) ([]Message, error)
	// renderers maps an API family to its body builder.
	renderers map[string]renderFunc
	// unbuilt is the error for an API the release has no renderer for.
	unbuilt func(api string) error
	// failedTurn is how the converters' transformMessages replays an
	// assistant turn (see failedTurnAction).
	failedTurn func(msg Message) failedTurnAction
	// trimToolCallIDs and google96: see conv.
	trimToolCallIDs bool
	google96        bool
}

// payloadReleaseFor returns the table of a release (zero: 2026.5.6).
func payloadReleaseFor(r policy.Release) (*payloadRelease, error) {
	switch r {
	case "", policy.Release56:
		return release56(), nil
	case policy.Release96:
		return release96(), nil
	}
	return nil, fmt.Errorf("payload: unknown OpenClaw release %q", r)
}

// release56 is OpenClaw 2026.5.6 through pi-ai 0.73.
func release56() *payloadRelease {
	return &payloadRelease{
		release: policy.Release56,
		model: func(in *PayloadInput) (models.Model, error) {
			return models.Resolve(in.Provider, in.API, in.Model, in.Reasoning), nil
		},
		boundary: func(_ *conv, in *PayloadInput) ([]Message, error) {
			return ConvertToLLM(StripHistoricalRuntimeContext(in.Messages)), nil
		},
		renderers: map[string]renderFunc{
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
		unbuilt: func(api string) error {
			if why := unrenderedReason(api); why != "" {
				return fmt.Errorf("payload: api %q: %w (%s)", api, ErrNoWireBody, why)
			}
			return fmt.Errorf("payload: api %q is not rendered; oc renders %s", api, strings.Join(APIs(), ", "))
		},
	}
}
