package replay

import (
	"fmt"
	"strings"

	"github.com/openclaw-tools/oc/pkg/policy"
	"github.com/openclaw-tools/oc/pkg/replay/models"
	"github.com/openclaw-tools/oc/pkg/replay/sanitize/sanitize56"
	"github.com/openclaw-tools/oc/pkg/replay/wire"
)

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
	boundary func(in *PayloadInput) ([]Message, error)
	// renderers are the API families the release builds.
	renderers *wire.Renderers
	// unbuilt is the error for an API the release has no renderer for.
	unbuilt func(api string) error
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
		boundary: func(in *PayloadInput) ([]Message, error) {
			return sanitize56.Boundary(in.Messages), nil
		},
		renderers: wire.Renderers56(),
		unbuilt: func(api string) error {
			if why := unrenderedReason(api); why != "" {
				return fmt.Errorf("payload: api %q: %w (%s)", api, ErrNoWireBody, why)
			}
			return fmt.Errorf("payload: api %q is not rendered; oc renders %s", api, strings.Join(APIs(), ", "))
		},
	}
}
