package replay

import (
	"errors"
	"fmt"
	"strings"

	"github.com/openclaw-tools/oc/pkg/policy"
	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
	"github.com/openclaw-tools/oc/pkg/replay/models"
	"github.com/openclaw-tools/oc/pkg/replay/sanitize/sanitize96"
	"github.com/openclaw-tools/oc/pkg/replay/wire"
)

// ErrNotBuiltIn is wrapped by BuildPayload's error for an API family the
// release does not build itself: in 2026.9.6, bedrock-converse-stream (its
// provider is an installable plugin; the oracle answers "No API provider
// registered for api: bedrock-converse-stream").
var ErrNotBuiltIn = errors.New("not built in")

// release96 is OpenClaw 2026.9.6: its LLM boundary (sanitize96.Boundary), the
// oracle's minimal model record, and OpenClaw's `stream`
// (dist/stream-*.mjs: @openclaw/ai's built-in providers plus the transport
// host).
func release96() *payloadRelease {
	return &payloadRelease{
		release:   policy.Release96,
		model:     model96,
		boundary:  boundary96,
		renderers: wire.Renderers96(),
		unbuilt: func(api string) error {
			if !policy.BuildsAPI(policy.Release96, api) {
				if api == "bedrock-converse-stream" {
					return fmt.Errorf("payload: api %q: %w: OpenClaw 2026.9.6 has no built-in provider for it (Bedrock is an installable plugin)", api, ErrNotBuiltIn)
				}
				return fmt.Errorf("payload: api %q: %w: OpenClaw 2026.9.6 builds %s", api, ErrNotBuiltIn, strings.Join(policy.WireAPIs(policy.Release96), ", "))
			}
			return fmt.Errorf("payload: api %q is not rendered for OpenClaw 2026.9.6", api)
		},
	}
}

// model96 is the oracle's model record: 2026.9.6 has no built-in model
// catalogue, so the oracle builds {id, name: id, api, provider, baseUrl,
// reasoning (ORACLE_REASONING), input: ["text", "image"], cost: 0,
// contextWindow: 200000, maxTokens: 8192} and spreads ORACLE_MODEL_JSON
// over it (in.ModelOverrides).
func model96(in *PayloadInput) (models.Model, error) {
	m := models.Model{Provider: in.Provider, API: in.API, ID: in.Model, Name: in.Model, Reasoning: in.Reasoning, Vision: true, MaxTokens: 8192}
	if len(in.ModelOverrides) == 0 {
		return m, nil
	}
	return applyModelOverrides(m, in.ModelOverrides)
}

// applyModelOverrides spreads a JSON object over the model record, as the
// oracle's `{...record, ...JSON.parse(ORACLE_MODEL_JSON)}`: the members the
// renderers read (name, reasoning, input, maxTokens, compat,
// thinkingLevelMap.off) take effect; others do not change a body.
func applyModelOverrides(m models.Model, raw []byte) (models.Model, error) {
	v, err := jsvalue.DecodeWithNumbers(raw)
	if err != nil {
		return m, fmt.Errorf("model overrides: %w", err)
	}
	o, ok := v.(map[string]any)
	if !ok {
		return m, fmt.Errorf("model overrides: want a JSON object, got %s", jsvalue.TypeName(v, true))
	}
	if s, ok := o["id"].(string); ok {
		m.ID = s
	}
	if v, ok := o["name"]; ok {
		m.Name = jsvalue.ToString(v, true)
	}
	if v, ok := o["reasoning"]; ok {
		m.Reasoning = jsvalue.Truthy(v)
	}
	if v, ok := o["input"]; ok {
		m.Vision = false
		if l, ok := v.([]any); ok {
			for _, x := range l {
				if x == "image" {
					m.Vision = true
				}
			}
		}
	}
	if v, ok := o["maxTokens"]; ok {
		f, ok := jsvalue.Number(v)
		if !ok || f != float64(int(f)) {
			return m, fmt.Errorf("model overrides: maxTokens %s is not an integer", jsvalue.ToString(v, true))
		}
		m.MaxTokens = int(f)
	}
	if v, ok := o["compat"]; ok {
		m.Compat, _ = v.(map[string]any)
	}
	if tl, ok := o["thinkingLevelMap"].(map[string]any); ok {
		switch off, has := tl["off"]; {
		case !has:
			m.ThinkingOff = models.OffUnset
		case off == nil:
			m.ThinkingOff = models.OffNull
		default:
			m.ThinkingOff, m.ThinkingOffValue = models.OffValue, jsvalue.ToString(off, true)
		}
	}
	return m, nil
}

// boundary96 is 2026.9.6's LLM boundary (sanitize96.Boundary) for in.
func boundary96(in *PayloadInput) ([]Message, error) {
	return sanitize96.Boundary(sanitize96.BoundaryInput{
		Provider: in.Provider, API: in.API, Model: in.Model, Messages: in.Messages,
		Location: in.Location, SessionVersion: in.SessionVersion,
	})
}
