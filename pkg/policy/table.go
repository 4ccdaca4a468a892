package policy

import (
	"sort"
	"strings"

	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/internal/lazyre"
)

// Ctx is what a replay family's builder sees (buildReplayPolicy's context).
// Provider is already normalised.
type Ctx struct {
	Provider string
	API      string
	Model    string
}

// Family is one row of the provider table: the providers whose bundled
// plugin owns their replay policy through the same builder.
type Family struct {
	Name      string
	Providers []string
	// Source is the OpenClaw file the row was read from, for a reader
	// checking the table.
	Source string
	// Build is the plugin's buildReplayPolicy; nil Overrides means "nothing
	// to add" (the default policy applies).
	Build func(Ctx) *Overrides
	// AssistantFirstHook marks plugins whose sanitizeReplayHistory hook puts
	// a "(session bootstrap)" user turn before a leading assistant turn.
	AssistantFirstHook bool
}

// table is OpenClaw 2026.5.6's provider table. A provider not listed here
// has no replay-owning plugin and gets the fallback keyed on the API
// (unownedFallback). Check against: extensions/*/index.js and
// src/plugins/provider-replay-helpers.ts in the openclaw npm package.
func table() []Family {
	return []Family{
		// provider                      builder
		{Name: "native-anthropic-by-model", Providers: []string{"anthropic", "anthropic-vertex"},
			Source: "extensions/anthropic/replay-policy.ts (NATIVE_ANTHROPIC_REPLAY_HOOKS)", Build: nativeAnthropicByModel},
		{Name: "anthropic-by-model", Providers: []string{"amazon-bedrock"},
			Source: "extensions/amazon-bedrock (ANTHROPIC_BY_MODEL_REPLAY_HOOKS)", Build: anthropicByModel},
		{Name: "openai", Providers: []string{"openai", "openai-codex"},
			Source: "extensions/openai/replay-policy.ts", Build: openAIPolicy},
		{Name: "google-gemini", Providers: []string{"google", "google-gemini-cli", "google-vertex"},
			Source: "extensions/google/provider-hooks.ts", Build: googleGemini, AssistantFirstHook: true},
		{Name: "passthrough-gemini", Providers: []string{"openrouter", "kilocode", "opencode", "opencode-go", "deepinfra"},
			Source: "PASSTHROUGH_GEMINI_REPLAY_HOOKS", Build: passthroughGemini},
		{Name: "openai-compatible", Providers: []string{"arcee", "deepseek", "fireworks", "xai", "zai"},
			Source: "OPENAI_COMPATIBLE_REPLAY_HOOKS", Build: openAICompatibleFamily(true)},
		{Name: "openai-compatible (ids kept)", Providers: []string{"moonshot"},
			Source: "extensions/moonshot/index.ts (sanitizeToolCallIds: false)", Build: openAICompatibleFamily(false)},
		{Name: "ollama", Providers: []string{"ollama"},
			Source: "extensions/ollama/index.ts (openai-compatible without the model id)", Build: ollamaPolicy},
		{Name: "hybrid-anthropic-openai", Providers: []string{"minimax", "minimax-portal"},
			Source: "extensions/minimax (anthropicModelDropThinkingBlocks: true)", Build: hybridAnthropicOpenAI},
		{Name: "mistral", Providers: []string{"mistral"},
			Source: "extensions/mistral/index.ts", Build: func(Ctx) *Overrides {
				return &Overrides{SanitizeToolCallIDs: yes(), ToolCallIDMode: IDStrict9}
			}},
		{Name: "kimi", Providers: []string{"kimi"},
			Source: "extensions/kimi-coding/replay-policy.ts", Build: func(Ctx) *Overrides {
				return &Overrides{PreserveSignatures: no()}
			}},
		{Name: "github-copilot", Providers: []string{"github-copilot"},
			Source: "extensions/github-copilot/replay-policy.ts", Build: func(c Ctx) *Overrides {
				if strings.Contains(lowerTrim(c.Model), "claude") {
					return &Overrides{DropThinkingBlocks: yes()}
				}
				return &Overrides{}
			}},
	}
}

// FamilyOf returns the table row owning a provider id (normalised first), or nil.
func FamilyOf(provider string) *Family {
	return familyFor(NormalizeProviderID(provider))
}

func familyFor(provider string) *Family {
	for _, f := range table() {
		for _, p := range f.Providers {
			if p == provider {
				return &f
			}
		}
	}
	return nil
}

func yes() *bool { b := true; return &b }
func no() *bool  { b := false; return &b }
func boolp(v bool) *bool {
	return &v
}

func lowerTrim(s string) string { return strings.ToLower(jsjson.Trim(s)) }

func base64Only() *ThoughtSignatures {
	return &ThoughtSignatures{AllowBase64Only: true, IncludeCamelCase: true}
}

// strictAnthropic is buildStrictAnthropicReplayPolicy.
func strictAnthropic(dropThinking, sanitizeIDs, preserveNative bool) *Overrides {
	o := &Overrides{
		SanitizeMode:               ModeFull,
		PreserveSignatures:         yes(),
		RepairToolUseResultPairing: yes(),
		ValidateAnthropicTurns:     yes(),
		AllowSyntheticToolResults:  yes(),
	}
	if sanitizeIDs {
		o.SanitizeToolCallIDs = yes()
		o.ToolCallIDMode = IDStrict
		if preserveNative {
			o.PreserveNativeAnthropicToolUseIDs = yes()
		}
	}
	if dropThinking {
		o.DropThinkingBlocks = yes()
	}
	return o
}

func isOldClaude(model string) bool {
	return strings.Contains(lowerTrim(model), "claude") && !ShouldPreserveThinkingBlocks(model)
}

func nativeAnthropicByModel(c Ctx) *Overrides {
	return strictAnthropic(isOldClaude(c.Model), true, true)
}

func anthropicByModel(c Ctx) *Overrides {
	return strictAnthropic(isOldClaude(c.Model), true, false)
}

func hybridAnthropicOpenAI(c Ctx) *Overrides {
	if IsAnthropicAPI(c.API) {
		return strictAnthropic(isOldClaude(c.Model), true, false)
	}
	return openAICompatible(c.API, true, c.Model)
}

func openAIPolicy(c Ctx) *Overrides {
	o := &Overrides{
		SanitizeMode:                   ModeImagesOnly,
		ApplyAssistantFirstOrderingFix: no(),
		ValidateGeminiTurns:            no(),
		ValidateAnthropicTurns:         no(),
	}
	if c.API == "openai-completions" {
		o.SanitizeToolCallIDs = yes()
		o.ToolCallIDMode = IDStrict
	} else {
		o.SanitizeToolCallIDs = no()
	}
	return o
}

func googleGemini(Ctx) *Overrides {
	return &Overrides{
		SanitizeMode:                   ModeFull,
		SanitizeToolCallIDs:            yes(),
		ToolCallIDMode:                 IDStrict,
		SanitizeThoughtSignatures:      base64Only(),
		RepairToolUseResultPairing:     yes(),
		ApplyAssistantFirstOrderingFix: yes(),
		ValidateGeminiTurns:            yes(),
		ValidateAnthropicTurns:         no(),
		AllowSyntheticToolResults:      yes(),
	}
}

func passthroughGemini(c Ctx) *Overrides {
	o := &Overrides{
		ApplyAssistantFirstOrderingFix: no(),
		ValidateGeminiTurns:            no(),
		ValidateAnthropicTurns:         no(),
	}
	if strings.Contains(lowerTrim(c.Model), "gemini") {
		o.SanitizeThoughtSignatures = base64Only()
	}
	return o
}

func isOpenAICompatibleAPI(api string) bool {
	return api == "openai-completions" || api == "openai-responses" || api == "openai-codex-responses" || api == "azure-openai-responses"
}

// openAICompatible is buildOpenAICompatibleReplayPolicy; model "" means the
// plugin did not pass a model id (no Gemma 4 reasoning strip).
func openAICompatible(api string, sanitizeIDs bool, model string) *Overrides {
	if !isOpenAICompatibleAPI(api) {
		return nil
	}
	o := &Overrides{}
	if sanitizeIDs {
		o.SanitizeToolCallIDs = yes()
		o.ToolCallIDMode = IDStrict
	}
	completions := api == "openai-completions"
	o.ApplyAssistantFirstOrderingFix = boolp(completions)
	o.ValidateGeminiTurns = boolp(completions)
	o.ValidateAnthropicTurns = boolp(completions)
	if completions && IsGemma4Model(model) {
		o.DropReasoningFromHistory = yes()
	}
	return o
}

func openAICompatibleFamily(sanitizeIDs bool) func(Ctx) *Overrides {
	return func(c Ctx) *Overrides { return openAICompatible(c.API, sanitizeIDs, c.Model) }
}

// ollamaPolicy: the Ollama plugin overrides the family builder and passes no
// model id; its native "ollama" api is treated as openai-completions.
func ollamaPolicy(c Ctx) *Overrides {
	api := c.API
	if api == "ollama" {
		api = "openai-completions"
	}
	return openAICompatible(api, true, "")
}

// unownedFallback is buildUnownedProviderTransportReplayFallback: the policy
// of a provider no plugin owns, keyed on the API.
func unownedFallback(api, model string) *Overrides {
	google := IsGoogleAPI(api)
	anthropic := IsAnthropicAPI(api)
	completions := api == "openai-completions"
	idSanitizing := isOpenAICompatibleAPI(api)
	if !google && !anthropic && !completions && !idSanitizing {
		return nil
	}
	id := lowerTrim(model)
	o := &Overrides{}
	if google || anthropic {
		o.SanitizeMode = ModeFull
		o.AllowSyntheticToolResults = yes()
	}
	if google || anthropic || idSanitizing {
		o.SanitizeToolCallIDs = yes()
		o.ToolCallIDMode = IDStrict
	}
	if anthropic {
		o.PreserveSignatures = yes()
		o.ValidateAnthropicTurns = yes()
		if strings.Contains(id, "claude") {
			o.DropThinkingBlocks = boolp(!ShouldPreserveThinkingBlocks(id))
		}
	}
	if google {
		o.SanitizeThoughtSignatures = base64Only()
	}
	if completions {
		o.ValidateAnthropicTurns = yes()
		if IsGemma4Model(id) {
			o.DropReasoningFromHistory = yes()
		}
	}
	if google || completions {
		o.ApplyAssistantFirstOrderingFix = yes()
		o.ValidateGeminiTurns = yes()
	}
	return o
}

var (
	claudeGen5Plus  = lazyre.New(`claude-[5-9]`)
	claudeGen10Plus = lazyre.New(`claude-\d{2,}`)
	gemma4Model     = lazyre.New(`(?:^|[/_:-])gemma[-_]?4(?:$|[/_.:-])`)
)

// ShouldPreserveThinkingBlocks is true for Claude models that keep earlier
// thinking blocks in context natively (Opus/Sonnet/Haiku 4 and later).
func ShouldPreserveThinkingBlocks(model string) bool {
	id := lowerTrim(model)
	if !strings.Contains(id, "claude") {
		return false
	}
	if strings.Contains(id, "opus-4") || strings.Contains(id, "sonnet-4") || strings.Contains(id, "haiku-4") {
		return true
	}
	return claudeGen5Plus().MatchString(id) || claudeGen10Plus().MatchString(id)
}

// IsGemma4Model is isGemma4ModelId.
func IsGemma4Model(model string) bool {
	return gemma4Model().MatchString(lowerTrim(model))
}

// KnownProviders lists, sorted, the provider ids the table names (each
// owns a replay family; any other id gets the api-keyed fallback).
func KnownProviders() []string {
	var out []string
	for _, f := range table() {
		out = append(out, f.Providers...)
	}
	sort.Strings(out)
	return out
}

// ProviderAliases are the built-in aliases NormalizeProviderID resolves,
// as alias and provider id pairs.
func ProviderAliases() [][2]string {
	return [][2]string{
		{"modelstudio", "qwen"}, {"qwencloud", "qwen"},
		{"z.ai", "zai"}, {"z-ai", "zai"},
		{"opencode-zen", "opencode"},
		{"opencode-go-auth", "opencode-go"},
		{"kimi-code", "kimi"}, {"kimi-coding", "kimi"},
		{"bedrock", "amazon-bedrock"}, {"aws-bedrock", "amazon-bedrock"},
		{"bytedance", "volcengine"}, {"doubao", "volcengine"},
	}
}
