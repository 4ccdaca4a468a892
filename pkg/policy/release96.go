package policy

import (
	"strings"

	"github.com/openclaw-tools/oc/internal/lazyre"
)

// This file is OpenClaw 2026.9.6's resolveTranscriptPolicy
// (dist/helpers-*.mjs, region src/agents/transcript-policy.ts). Compared with
// 2026.5.6:
//   - provider ids are only trimmed and lower-cased (packages/model-catalog-core
//     provider-id.ts): the built-in aliases (bedrock, z.ai, kimi-code, …) are gone;
//   - far fewer bundled plugins own a replay policy (table96); Anthropic,
//     Bedrock, Mistral, MiniMax, DeepSeek … now get the API fallback;
//   - the policy gains appendOnlyRuntimeContext and duplicateToolCallIdStyle and
//     loses sanitizeThinkingSignatures;
//   - "Claude" is recognised by model identity (anthropic.ts in llm-core), not
//     by a substring.

// table96 is 2026.9.6's provider table: the bundled plugins whose manifest
// (dist/extensions/<id>/openclaw.plugin.json "providers") claims a provider and
// whose runtime registers buildReplayPolicy.
func table96() []Family {
	return []Family{
		{Name: "native-anthropic-by-model", Providers: []string{"anthropic"},
			Source: "anthropic provider (buildNativeAnthropicReplayPolicyForModel, whatever the api)", Build: func(c Ctx) *Overrides {
				return nativeAnthropicByModel96(c.Model)
			}},
		{Name: "hybrid-anthropic-openai", Providers: []string{"minimax", "minimax-cn", "minimax-portal"},
			Source: "extensions/minimax (buildHybridAnthropicOrOpenAIReplayPolicy)", Build: hybridAnthropicOpenAI96},
		{Name: "openai", Providers: []string{"openai", "azure-openai-responses"},
			Source: "extensions/openai/replay-policy.ts (replay-policy-*.mjs)", Build: openAIPolicy96},
		{Name: "google-gemini", Providers: []string{"google", "google-gemini-cli", "google-vertex"},
			Source: "extensions/google (buildProviderReplayFamilyHooks google-gemini)", Build: googleGemini96, AssistantFirstHook: true},
		{Name: "passthrough-gemini", Providers: []string{"opencode-go"},
			Source: "extensions/opencode-go (buildProviderReplayFamilyHooks passthrough-gemini)", Build: passthroughGemini96},
		{Name: "openrouter", Providers: []string{"openrouter"},
			Source: "extensions/openrouter/index.ts (buildOpenRouterReplayPolicy: passthrough-gemini, strict9 for Mistral models)", Build: openRouter96},
		{Name: "openai-compatible", Providers: []string{"xai"},
			Source: "extensions/xai (buildProviderReplayFamilyHooks openai-compatible)", Build: func(c Ctx) *Overrides {
				return openAICompatible96(c.API, true, true)
			}},
		{Name: "openai-compatible (reasoning kept)", Providers: []string{"sglang"},
			Source: "extensions/sglang (openai-compatible, dropReasoningFromHistory: false)", Build: func(c Ctx) *Overrides {
				return openAICompatible96(c.API, true, false)
			}},
		{Name: "clawrouter", Providers: []string{"clawrouter"},
			Source: "extensions/clawrouter/index.ts (native Anthropic, Gemini or openai-compatible by api)", Build: clawRouter96},
		{Name: "ollama", Providers: []string{"ollama", "ollama-cloud"},
			Source: "extensions/ollama/index.ts (buildNativeOllamaReplayPolicy for api ollama)", Build: ollama96},
		{Name: "github-copilot", Providers: []string{"github-copilot"},
			Source: "extensions/github-copilot/replay-policy.ts (strict Anthropic on anthropic-messages only)", Build: func(c Ctx) *Overrides {
				if c.API != "anthropic-messages" {
					return nil
				}
				return strictAnthropic96(strictAnthropicOpts{dropThinking: true, keepIDs: true})
			}},
	}
}

// modelOwned96 lists providers that no plugin claims outright but that a
// plugin owns for some model ids. Measured with the 2026.9.6 oracle's `policy`
// mode on every API (testdata/replay/policy-expected-2026.9.6.json); the
// lookup itself happens in OpenClaw's native plugin bindings, which are not
// readable JavaScript, so the rule is stated as observed: azure-openai is the
// OpenAI plugin's for the OpenAI model prefixes of its manifest
// (modelSupport.modelPrefixes), google-antigravity is the Google plugin's for
// Gemini models.
func modelOwned96(provider, model string) string {
	id := lowerTrim(model)
	switch provider {
	case "azure-openai":
		for _, prefix := range []string{"gpt-", "o1", "o3", "o4"} {
			if strings.HasPrefix(id, prefix) {
				return "openai"
			}
		}
	case "google-antigravity":
		if strings.Contains(id, "gemini") {
			return "google"
		}
	}
	return ""
}

// Resolve96 is 2026.9.6's resolveTranscriptPolicy for a route, with the
// oracle's minimal model record (no params, reasoning off).
func Resolve96(r Route) Resolution {
	provider := lowerTrim(r.Provider)
	owner := provider
	if o := modelOwned96(provider, r.Model); o != "" {
		owner = o
	}
	for _, f := range table96() {
		for _, p := range f.Providers {
			if p == owner {
				pol := merge96(f.Build(Ctx{Provider: provider, API: r.API, Model: r.Model}))
				return Resolution{Policy: pol, Provider: provider, Family: f.Name}
			}
		}
	}
	return Resolution{Policy: merge96(unownedFallback96(r.API, r.Model)), Provider: provider, Family: "fallback"}
}

func merge96(o *Overrides) Policy {
	p := merge(o)
	p.Release = Release96
	if o != nil {
		if o.AppendOnlyRuntimeContext != nil {
			p.AppendOnlyRuntimeContext = *o.AppendOnlyRuntimeContext
		}
		p.DuplicateToolCallIDStyle = o.DuplicateToolCallIDStyle
	}
	return p
}

// isResponsesFamily96 is RESPONSES_FAMILY_APIS / isOpenAiResponsesCompatibleApi.
func isResponsesFamily96(api string) bool {
	return api == "openai-responses" || api == "openai-chatgpt-responses" || api == "azure-openai-responses"
}

func openAIPolicy96(c Ctx) *Overrides {
	o := openAIPolicy(c)
	if isResponsesFamily96(c.API) {
		o.AllowSyntheticToolResults = yes()
		o.AppendOnlyRuntimeContext = yes()
	}
	return o
}

// openAICompatible96 is buildOpenAICompatibleReplayPolicy (provider-replay-helpers).
func openAICompatible96(api string, sanitizeIDs, dropReasoning bool) *Overrides {
	if api != "openai-completions" && !isResponsesFamily96(api) {
		return nil
	}
	o := &Overrides{}
	if sanitizeIDs {
		o.SanitizeToolCallIDs = yes()
		o.ToolCallIDMode = IDStrict
	}
	if isResponsesFamily96(api) {
		o.AllowSyntheticToolResults = yes()
	}
	completions := api == "openai-completions"
	o.ApplyAssistantFirstOrderingFix = boolp(completions)
	o.ValidateGeminiTurns = boolp(completions)
	o.ValidateAnthropicTurns = boolp(completions)
	if completions && dropReasoning {
		o.DropReasoningFromHistory = yes()
	}
	return o
}

type strictAnthropicOpts struct {
	dropThinking, keepIDs, preserveNative, appendOnly bool
}

// strictAnthropic96 is buildStrictAnthropicReplayPolicy.
func strictAnthropic96(opt strictAnthropicOpts) *Overrides {
	o := strictAnthropic(opt.dropThinking, !opt.keepIDs, opt.preserveNative)
	o.AppendOnlyRuntimeContext = boolp(opt.appendOnly)
	return o
}

// nativeAnthropicByModel96 is buildNativeAnthropicReplayPolicyForModel.
func nativeAnthropicByModel96(model string) *Overrides {
	o := strictAnthropic96(strictAnthropicOpts{
		dropThinking: shouldDropClaudeThinkingBlocks96(model),
		appendOnly:   bindsClaudeThinkingPrefix(model),
	})
	o.PreserveNativeAnthropicToolUseIDs = yes()
	return o
}

// hybridAnthropicOpenAI96 is buildHybridAnthropicOrOpenAIReplayPolicy.
func hybridAnthropicOpenAI96(c Ctx) *Overrides {
	if IsAnthropicAPI(c.API) {
		return strictAnthropic96(strictAnthropicOpts{
			dropThinking: shouldDropClaudeThinkingBlocks96(c.Model),
			appendOnly:   bindsClaudeThinkingPrefix(c.Model),
		})
	}
	return openAICompatible96(c.API, true, true)
}

func googleGemini96(c Ctx) *Overrides {
	o := googleGemini(c)
	o.AppendOnlyRuntimeContext = no()
	return o
}

func passthroughGemini96(c Ctx) *Overrides { return passthroughGemini(c) }

func openRouter96(c Ctx) *Overrides {
	o := passthroughGemini96(c)
	id := strings.TrimPrefix(strings.TrimPrefix(lowerTrim(c.Model), "openrouter/"), "~")
	for _, prefix := range []string{"mistralai/", "mistral/", "mistral-"} {
		if strings.HasPrefix(id, prefix) {
			o.SanitizeToolCallIDs = yes()
			o.ToolCallIDMode = IDStrict9
			break
		}
	}
	return o
}

func clawRouter96(c Ctx) *Overrides {
	switch c.API {
	case "anthropic-messages":
		return nativeAnthropicByModel96(c.Model)
	case "google-generative-ai":
		return googleGemini96(c)
	}
	return openAICompatible96(c.API, true, false)
}

func ollama96(c Ctx) *Overrides {
	if c.API == "ollama" {
		o := openAICompatible96("openai-completions", false, true)
		o.SanitizeToolCallIDs = no()
		return o
	}
	return openAICompatible96(c.API, true, true)
}

// unownedFallback96 is buildUnownedProviderTransportReplayFallback.
func unownedFallback96(api, model string) *Overrides {
	google := IsGoogleAPI(api)
	anthropic := IsAnthropicAPI(api)
	completions := api == "openai-completions"
	idSanitizing := completions || isResponsesFamily96(api)
	if !google && !anthropic && !completions && !idSanitizing {
		return nil
	}
	id := lowerTrim(model)
	o := &Overrides{}
	if google || anthropic {
		o.SanitizeMode = ModeFull
	}
	if google || anthropic || idSanitizing {
		o.SanitizeToolCallIDs = yes()
		o.ToolCallIDMode = IDStrict
	}
	if anthropic {
		o.PreserveSignatures = yes()
		o.AppendOnlyRuntimeContext = boolp(bindsClaudeThinkingPrefix(id))
		if shouldDropClaudeThinkingBlocks96(id) {
			o.DropThinkingBlocks = yes()
		}
	}
	if google {
		o.SanitizeThoughtSignatures = base64Only()
	}
	if completions {
		o.DropReasoningFromHistory = boolp(!requiresReasoningContentReplay(id))
	}
	if google || completions {
		o.ApplyAssistantFirstOrderingFix = yes()
		o.ValidateGeminiTurns = yes()
	}
	if anthropic || completions || (isResponsesFamily96(api) && claudeFamilyModelID().MatchString(id)) {
		o.ValidateAnthropicTurns = yes()
	}
	if google || anthropic || isResponsesFamily96(api) {
		o.AllowSyntheticToolResults = yes()
	}
	return o
}

var (
	claudeFamilyModelID   = lazyre.New(`(?:^|[./:_-])claude(?:$|[./:_-])`)
	claudeIdentityTail    = lazyre.New(`(?:^|[-/])(claude-[^/]+)$`)
	claudeSeparators      = lazyre.New(`[._\s]+`)
	claudeOpus5           = lazyre.New(`(?:^|-)claude-opus-5(?:$|[^a-z0-9])`)
	claudeOpus55          = lazyre.New(`^claude-opus-5-5(?:$|[^a-z0-9])`)
	claudeFable51         = lazyre.New(`^claude-fable-5-1(?:$|[^a-z0-9])`)
	claudePreservesThinks = lazyre.New(`(?:^|-)claude-(?:fable-5|mythos-(?:5|preview)|opus-4-(?:5|6|7|8)|sonnet-(?:5|4-6))(?:$|[^a-z0-9])`)
)

// reasoningContentReplayModels is REASONING_CONTENT_REPLAY_MODEL_IDS.
var reasoningContentReplayModels = map[string]bool{
	"kimi-for-coding": true, "kimi-k2.5": true, "kimi-k2.6": true, "kimi-k2.7-code": true,
	"kimi-k2.7-code-highspeed": true, "kimi-k3": true, "kimi-k2-thinking": true, "kimi-k2-thinking-turbo": true,
	"mimo-v2-pro": true, "mimo-v2-omni": true, "mimo-v2.5": true, "mimo-v2.5-pro": true,
	"mimo-v2.6-flash": true, "mimo-v2.6-pro": true, "mimo-v2.6-pro-ultraspeed": true,
}

// requiresReasoningContentReplay: the last path segment of the model id (or
// the first or last of its colon parts) is a model that needs its reasoning
// content replayed.
func requiresReasoningContentReplay(model string) bool {
	id := lowerTrim(model)
	if id == "" {
		return false
	}
	parts := nonEmpty(strings.Split(id, "/"))
	final := id
	if len(parts) > 0 {
		final = parts[len(parts)-1]
	}
	candidates := []string{final}
	if colon := nonEmpty(strings.Split(final, ":")); len(colon) > 1 {
		candidates = append(candidates, colon[0], colon[len(colon)-1])
	}
	for _, c := range candidates {
		if reasoningContentReplayModels[c] {
			return true
		}
	}
	return false
}

func nonEmpty(ss []string) []string {
	out := ss[:0:0]
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// claudeModelIdentity is resolveClaudeModelIdentity without deployment
// metadata (the oracle's model record has no params.canonicalModelId).
func claudeModelIdentity(model string) string {
	n := strings.ToLower(strings.TrimSpace(model))
	n = strings.TrimPrefix(n, "anthropic/")
	n = claudeSeparators().ReplaceAllString(n, "-")
	if m := claudeIdentityTail().FindStringSubmatch(n); m != nil {
		return m[1]
	}
	return n
}

func isClaudeOpus55(id string) bool { return id == "opus-5-5" || claudeOpus55().MatchString(id) }

func isClaudeOpus5(id string) bool {
	return isClaudeOpus55(id) || id == "opus" || id == "opus-5" || claudeOpus5().MatchString(id)
}

// bindsClaudeThinkingPrefix: models whose thinking is bound to the prefix and
// need append-only runtime context (Opus 5.5, Fable 5.1).
func bindsClaudeThinkingPrefix(model string) bool {
	id := claudeModelIdentity(model)
	return isClaudeOpus55(id) || claudeFable51().MatchString(id)
}

// shouldDropClaudeThinkingBlocks96 is shouldDropClaudeThinkingBlocks: a Claude
// model that does not keep earlier thinking blocks natively.
func shouldDropClaudeThinkingBlocks96(model string) bool {
	id := claudeModelIdentity(model)
	opus5 := isClaudeOpus5(id)
	isClaude := strings.HasPrefix(id, "claude-") || opus5
	preserves := opus5 || claudePreservesThinks().MatchString(id)
	return isClaude && !preserves
}

var (
	claudeFable5        = lazyre.New(`(?:^|-)claude-fable-5(?:$|[^a-z0-9])`)
	claudeMythos5       = lazyre.New(`(?:^|-)claude-mythos-5(?:$|[^a-z0-9])`)
	claudeMythosPreview = lazyre.New(`(?:^|-)claude-mythos-preview(?:$|[^a-z0-9])`)
)

// RequiresClaudeAdaptiveThinking96 is @openclaw/ai 2026.9.6's
// requiresClaudeMandatoryAdaptiveThinking (src-*.mjs) for an
// anthropic-messages model: Opus 5.5, Fable 5, Mythos 5 or
// claude-mythos-preview. Its Anthropic transport replays earlier thinking
// only for these (replayThinkingEnabled; the runner passes no thinkingEnabled
// with thinking off).
func RequiresClaudeAdaptiveThinking96(model string) bool {
	id := claudeModelIdentity(model)
	return isClaudeOpus55(id) || claudeFable5().MatchString(id) || claudeMythos5().MatchString(id) || claudeMythosPreview().MatchString(id)
}
