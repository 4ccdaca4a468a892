// Package policy is OpenClaw's transcript replay policy (2026.5.6 in
// policy.go and table.go, 2026.9.6 in release96.go): which
// hygiene rules the embedded runner applies to a session's history before it
// is sent to a given provider, API and model (resolveTranscriptPolicy).
//
// The answer is a Policy value whose JSON equals what the oracle's `policy`
// mode prints for the same (provider, api, model). The provider table lives in
// table.go, one row per replay family.
package policy

import (
	"strings"

	"github.com/openclaw-tools/oc/internal/jsjson"
)

// Sanitize modes (sanitizeMode). In 2026.5.6 both modes replay the same way;
// the value is kept because the oracle reports it.
const (
	ModeFull       = "full"
	ModeImagesOnly = "images-only"
)

// Tool-call id modes (toolCallIdMode).
const (
	IDStrict  = "strict"  // [A-Za-z0-9] only, at most 40 chars
	IDStrict9 = "strict9" // exactly 9 of [A-Za-z0-9] (Mistral)
)

// ThoughtSignatures configures stripThoughtSignatures (sanitizeThoughtSignatures).
type ThoughtSignatures struct {
	AllowBase64Only  bool `json:"allowBase64Only"`
	IncludeCamelCase bool `json:"includeCamelCase"`
}

// Policy is the merged transcript policy. Field order and names follow
// OpenClaw's DEFAULT_TRANSCRIPT_POLICY so that the JSON matches the oracle.
type Policy struct {
	// Release is the OpenClaw release whose rules produced the policy; it
	// decides the JSON shape (2026.9.6 has appendOnlyRuntimeContext and
	// duplicateToolCallIdStyle, 2026.5.6 has sanitizeThinkingSignatures).
	Release                           Release            `json:"-"`
	SanitizeMode                      string             `json:"sanitizeMode"`
	SanitizeToolCallIDs               bool               `json:"sanitizeToolCallIds"`
	ToolCallIDMode                    string             `json:"toolCallIdMode,omitempty"`
	PreserveNativeAnthropicToolUseIDs bool               `json:"preserveNativeAnthropicToolUseIds"`
	RepairToolUseResultPairing        bool               `json:"repairToolUseResultPairing"`
	PreserveSignatures                bool               `json:"preserveSignatures"`
	SanitizeThoughtSignatures         *ThoughtSignatures `json:"sanitizeThoughtSignatures,omitempty"`
	SanitizeThinkingSignatures        bool               `json:"sanitizeThinkingSignatures"`
	DropThinkingBlocks                bool               `json:"dropThinkingBlocks"`
	DropReasoningFromHistory          bool               `json:"dropReasoningFromHistory"`
	ApplyGoogleTurnOrdering           bool               `json:"applyGoogleTurnOrdering"`
	ValidateGeminiTurns               bool               `json:"validateGeminiTurns"`
	ValidateAnthropicTurns            bool               `json:"validateAnthropicTurns"`
	AllowSyntheticToolResults         bool               `json:"allowSyntheticToolResults"`
	// 2026.9.6 only.
	AppendOnlyRuntimeContext bool   `json:"-"`
	DuplicateToolCallIDStyle string `json:"-"`
}

// Default is DEFAULT_TRANSCRIPT_POLICY: what a provider gets when neither its
// plugin nor the API fallback says otherwise.
func Default() Policy {
	return Policy{SanitizeMode: ModeImagesOnly, RepairToolUseResultPairing: true}
}

// Overrides is what a provider plugin's buildReplayPolicy (or the API
// fallback) returns: only the fields it sets (non-nil) replace the default.
// ApplyAssistantFirstOrderingFix is the plugin-side name of
// Policy.ApplyGoogleTurnOrdering.
type Overrides struct {
	SanitizeMode                      string
	SanitizeToolCallIDs               *bool
	ToolCallIDMode                    string
	PreserveNativeAnthropicToolUseIDs *bool
	RepairToolUseResultPairing        *bool
	PreserveSignatures                *bool
	SanitizeThoughtSignatures         *ThoughtSignatures
	DropThinkingBlocks                *bool
	DropReasoningFromHistory          *bool
	ApplyAssistantFirstOrderingFix    *bool
	ValidateGeminiTurns               *bool
	ValidateAnthropicTurns            *bool
	AllowSyntheticToolResults         *bool
	// 2026.9.6 only.
	AppendOnlyRuntimeContext *bool
	DuplicateToolCallIDStyle string
}

// merge is mergeTranscriptPolicy: a field present in o replaces the default.
// A nil *Overrides (the plugin returned nothing) leaves the default alone.
func merge(o *Overrides) Policy {
	p := Default()
	if o == nil {
		return p
	}
	set := func(dst *bool, v *bool) {
		if v != nil {
			*dst = *v
		}
	}
	if o.SanitizeMode != "" {
		p.SanitizeMode = o.SanitizeMode
	}
	set(&p.SanitizeToolCallIDs, o.SanitizeToolCallIDs)
	if o.ToolCallIDMode != "" {
		p.ToolCallIDMode = o.ToolCallIDMode
	}
	set(&p.PreserveNativeAnthropicToolUseIDs, o.PreserveNativeAnthropicToolUseIDs)
	set(&p.RepairToolUseResultPairing, o.RepairToolUseResultPairing)
	set(&p.PreserveSignatures, o.PreserveSignatures)
	if o.SanitizeThoughtSignatures != nil {
		ts := *o.SanitizeThoughtSignatures
		p.SanitizeThoughtSignatures = &ts
	}
	set(&p.DropThinkingBlocks, o.DropThinkingBlocks)
	set(&p.DropReasoningFromHistory, o.DropReasoningFromHistory)
	set(&p.ApplyGoogleTurnOrdering, o.ApplyAssistantFirstOrderingFix)
	set(&p.ValidateGeminiTurns, o.ValidateGeminiTurns)
	set(&p.ValidateAnthropicTurns, o.ValidateAnthropicTurns)
	set(&p.AllowSyntheticToolResults, o.AllowSyntheticToolResults)
	return p
}

// Route names what the policy is resolved for.
type Route struct {
	Provider string // provider id as configured (aliases allowed)
	API      string // model api, e.g. "anthropic-messages"
	Model    string // model id
}

// Resolution is a resolved policy plus where it came from.
type Resolution struct {
	Policy Policy
	// Provider is the normalised provider id.
	Provider string
	// Family names the table row that produced the policy ("fallback" when
	// no provider plugin owns the provider).
	Family string
}

// Resolve is resolveTranscriptPolicy for a route.
func Resolve(r Route) Resolution {
	provider := NormalizeProviderID(r.Provider)
	if fam := familyFor(provider); fam != nil {
		return Resolution{Policy: merge(fam.Build(Ctx{Provider: provider, API: r.API, Model: r.Model})), Provider: provider, Family: fam.Name}
	}
	return Resolution{Policy: merge(unownedFallback(r.API, r.Model)), Provider: provider, Family: "fallback"}
}

// For is Resolve(...).Policy.
func For(provider, api, model string) Policy {
	return Resolve(Route{Provider: provider, API: api, Model: model}).Policy
}

// NormalizeProviderID is normalizeProviderId: trim, lower-case, then the
// built-in aliases.
func NormalizeProviderID(provider string) string {
	p := strings.ToLower(jsjson.Trim(provider))
	switch p {
	case "modelstudio", "qwencloud":
		return "qwen"
	case "z.ai", "z-ai":
		return "zai"
	case "opencode-zen":
		return "opencode"
	case "opencode-go-auth":
		return "opencode-go"
	case "kimi", "kimi-code", "kimi-coding":
		return "kimi"
	case "bedrock", "aws-bedrock":
		return "amazon-bedrock"
	case "bytedance", "doubao":
		return "volcengine"
	}
	return p
}

// IsAnthropicAPI is isAnthropicApi: the APIs whose turns follow Anthropic's rules.
func IsAnthropicAPI(api string) bool {
	return api == "anthropic-messages" || api == "bedrock-converse-stream"
}

// IsGoogleAPI is isGoogleModelApi.
func IsGoogleAPI(api string) bool {
	return api == "google-gemini-cli" || api == "google-generative-ai"
}

// IsResponsesAPI is the set of OpenAI Responses APIs the replay pipeline
// treats specially (isOpenAIResponsesApi in sanitizeSessionHistory).
func IsResponsesAPI(api string) bool {
	return api == "openai-responses" || api == "openai-codex-responses" || api == "azure-openai-responses"
}

// AllowProviderOwnedThinkingReplay is shouldAllowProviderOwnedThinkingReplay:
// signed thinking turns are replayed byte for byte (and dropped whole when
// they would need any change).
func (p Policy) AllowProviderOwnedThinkingReplay(api string) bool {
	return IsAnthropicAPI(api) && p.ValidateAnthropicTurns && p.PreserveSignatures && !p.DropThinkingBlocks
}
