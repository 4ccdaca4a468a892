package sanitize56

import (
	"fmt"

	"github.com/openclaw-tools/oc/pkg/policy"
	"github.com/openclaw-tools/oc/pkg/replay/sanitize"
	"github.com/openclaw-tools/oc/pkg/transcript"
)

// Rule names of the steps 2026.5.6 has its own way, in pipeline order
// (research/replay-policy.md §3): each names the OpenClaw 2026.5.6 function
// the step reproduces. The steps every release runs the same way are named
// in package sanitize (sanitize.RuleImages, ...).
const (
	RuleInterSessionMarkers = "annotateInterSessionUserMessages"
	RuleNormalizeAssistant  = "normalizeAssistantReplayContent"
	RuleInvalidSignatures   = "stripInvalidThinkingSignatures"
	RuleToolCallInputs      = "sanitizeToolCallInputs"
	RuleResponsesPairing    = "sanitizeToolUseResultPairing(responses)"
	RuleOpenAIReasoning     = "downgradeOpenAIReasoningBlocks"
	RuleToolCallIDs         = "sanitizeToolCallIdsForCloudCodeAssist"
	RulePairing             = "sanitizeToolUseResultPairing"
	RuleUsageSnapshots      = "ensureAssistantUsageSnapshots"
	RuleAnthropicTurns      = "validateAnthropicTurns"
	RuleHeartbeat           = "filterHeartbeatPairs"
	RuleSecondPairing       = "sanitizeToolUseResultPairing(after limit)"
)

// Pipeline is OpenClaw 2026.5.6's replay pipeline: replay-history.ts's
// sanitizeSessionHistory and validateReplayTurns (no bundled provider plugin
// of 2026.5.6 has its own validateReplayTurns hook), then the runner's
// heartbeat filter and second pairing repair.
func Pipeline() sanitize.Pipeline {
	return sanitize.Pipeline{
		Release: policy.Release56,
		Policy: func(rt policy.Route) policy.Policy {
			return policy.For(rt.Provider, rt.API, rt.Model)
		},
		Prepare: func(r *sanitize.Run) {
			api := r.Opts.API
			r.OwnedThinking = r.Policy.AllowProviderOwnedThinkingReplay(api)
			r.Responses = policy.IsResponsesAPI(api)
			if snap := r.Opts.PriorSnapshot; snap != nil && (r.Opts.Provider != "" || api != "" || r.Opts.Model != "") {
				r.ModelChanged = snap.Provider != r.Opts.Provider || snap.ModelAPI != api || snap.ModelID != r.Opts.Model
			}
		},
		Sanitize: []sanitize.Step{
			sanitize.Pure(RuleInterSessionMarkers, nil, annotateInterSessionUserMessages),
			sanitize.Pure(RuleNormalizeAssistant, nil, normalizeAssistantReplayContent),
			{Rule: sanitize.RuleImages, Apply: func(r *sanitize.Run, in []sanitize.Message) ([]sanitize.Message, error) {
				pol := r.Policy
				o := sanitize.ImageStepOptions{
					IDMode:         pol.ToolCallIDMode,
					PreserveNative: pol.PreserveNativeAnthropicToolUseIDs,
					PreserveSigs:   pol.PreserveSignatures,
					ThoughtSigs:    pol.SanitizeThoughtSignatures,
					Images:         imageRelease(),
				}
				if pol.SanitizeToolCallIDs && !r.OwnedThinking && !r.Responses {
					ids := toolIDRelease()
					o.ToolIDs = &ids
				}
				return r.SanitizeImages(in, o)
			}},
			sanitize.Pure(RuleInvalidSignatures, polPreserveSignatures, func(in []sanitize.Message, log *sanitize.ChangeLog) []sanitize.Message {
				return sanitize.StripInvalidThinkingSignatures(in, false, log)
			}),
			sanitize.DropReasoningStep(),
			sanitize.DropThinkingStep(),
			sanitize.ToolCallInputsStep(RuleToolCallInputs, toolInputRelease()),
			pairingStep(RuleResponsesPairing, sanitize.ResponsesRepair, sanitize.AbortedText),
			{Rule: RuleOpenAIReasoning, When: sanitize.IsResponses, Apply: func(r *sanitize.Run, in []sanitize.Message) ([]sanitize.Message, error) {
				return downgradeOpenAIReasoningBlocks(in, r.ModelChanged, r.Log(RuleOpenAIReasoning)), nil
			}},
			sanitize.FunctionCallPairsStep(),
			{Rule: RuleToolCallIDs, When: sanitize.PolSanitizeIDs, Apply: func(r *sanitize.Run, in []sanitize.Message) ([]sanitize.Message, error) {
				pol := r.Policy
				return sanitize.SanitizeToolCallIDs(in, pol.ToolCallIDMode, sanitize.ToolIDOptions{
					PreserveNative:       pol.PreserveNativeAnthropicToolUseIDs,
					PreserveSafeThinking: r.OwnedThinking,
					Allowed:              sanitize.NormalizeAllowedToolNames(r.Opts.AllowedToolNames),
				}, toolIDRelease(), r.Log(RuleToolCallIDs)), nil
			}},
			pairingStep(RulePairing, sanitize.NotResponsesRepair, sanitize.DefaultText),
			sanitize.ToolResultDetailsStep(),
			sanitize.StaleUsageStep(),
			{Rule: RuleUsageSnapshots, Apply: func(r *sanitize.Run, in []sanitize.Message) ([]sanitize.Message, error) {
				return sanitize.EnsureAssistantUsageSnapshots(in, snapshotUsage, r.Log(RuleUsageSnapshots)), nil
			}},
			sanitize.ProviderHookStep(func(r *sanitize.Run) bool {
				fam := policy.FamilyOf(r.Opts.Provider)
				return fam != nil && fam.AssistantFirstHook
			}),
			sanitize.GoogleTurnOrderingStep(),
		},
		Validate: []sanitize.Step{
			sanitize.GeminiTurnsStep(),
			sanitize.Pure(RuleAnthropicTurns, sanitize.PolValidateAnthropic, validateAnthropicTurns),
		},
		Limit: []sanitize.Step{
			sanitize.Pure(RuleHeartbeat, nil, filterHeartbeatPairs),
			pairingStep(RuleSecondPairing, sanitize.PolRepairPairing, func(r *sanitize.Run) string {
				if isLimitResponsesAPI(r.Opts.API) {
					return sanitize.MissingResultAborted
				}
				return ""
			}),
		},
	}
}

// ContextError is the OpenClawFailure of a context OpenClaw 2026.5.6 never
// finishes building (its active branch runs into a parentId cycle), or nil.
func ContextError(ctx *transcript.Context) error {
	if ctx.CycleLine > 0 {
		return &sanitize.OpenClawFailure{What: fmt.Sprintf("line %d: the active branch runs into a cycle of parentId links: OpenClaw 2026.5.6's buildSessionContext never returns on it (the session hangs), so it sends nothing (oc inspect reports it as parent-cycle)", ctx.CycleLine)}
	}
	return nil
}

// isLimitResponsesAPI: the runner's second pairing repair uses the Responses
// synthetic text on these APIs.
func isLimitResponsesAPI(api string) bool {
	return api == "openai-responses" || api == "azure-openai-responses" || api == "openai-codex-responses"
}

// polPreserveSignatures: the policy keeps thinking signatures.
func polPreserveSignatures(r *sanitize.Run) bool { return r.Policy.PreserveSignatures }

// pairingStep is sanitizeToolUseResultPairing under rule, with the synthetic
// result text missingText ("" the default).
func pairingStep(rule string, when func(r *sanitize.Run) bool, missingText func(r *sanitize.Run) string) sanitize.Step {
	return sanitize.Step{Rule: rule, When: when, Apply: func(r *sanitize.Run, in []sanitize.Message) ([]sanitize.Message, error) {
		return repairPairing(r, in, rule, missingText(r)), nil
	}}
}
