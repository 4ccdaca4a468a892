package sanitize

import (
	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/pkg/policy"
)

// The pipeline of each release is data: a list of named steps per stage.
// A step that both releases run the same way is one value shared by both
// tables; a step a release changed is its own value, with a Rule naming that
// release's function, so that a Change says which release did what. A new
// release is a new table (pipelineFor) plus the steps it changed.

// step is one rule of a release's pipeline.
type step struct {
	// rule names the OpenClaw function the step reproduces (Change.Rule).
	rule string
	// when reports whether the release runs the step for this run's policy
	// and route (nil: always).
	when func(r *run) bool
	// apply runs the step; it copies what it changes.
	apply func(r *run, in []Message) ([]Message, error)
}

// pipeline is one release's replay pipeline.
type pipeline struct {
	release policy.Release
	// prepare derives the run's values the steps share (nil: none).
	prepare func(r *run)
	// sanitize is sanitizeSessionHistory, validate validateReplayTurns, limit
	// what the embedded runner does between them and the model call.
	sanitize, validate, limit []step
}

// pipelineFor returns the pipeline of a release (zero: 2026.5.6).
func pipelineFor(rel policy.Release) pipeline {
	if rel == policy.Release96 {
		return pipeline96()
	}
	return pipeline56()
}

func (r *run) runSteps(steps []step, msgs []Message) ([]Message, error) {
	for _, s := range steps {
		if s.when != nil && !s.when(r) {
			continue
		}
		r.log.rule = s.rule
		out, err := s.apply(r, msgs)
		if err != nil {
			return nil, err
		}
		msgs = out
	}
	return msgs, nil
}

// pure makes a step of a rule that needs only its change log.
func pure(rule string, when func(r *run) bool, fn func(in []Message, log *changeLog) []Message) step {
	return step{rule: rule, when: when, apply: func(r *run, in []Message) ([]Message, error) {
		return fn(in, r.step(rule)), nil
	}}
}

// Conditions shared by the tables.
func polPreserveSignatures(r *run) bool { return r.pol.PreserveSignatures }
func polDropReasoning(r *run) bool      { return r.pol.DropReasoningFromHistory }
func polDropThinking(r *run) bool       { return r.pol.DropThinkingBlocks }
func polRepairPairing(r *run) bool      { return r.pol.RepairToolUseResultPairing }
func polGoogleOrdering(r *run) bool     { return r.pol.ApplyGoogleTurnOrdering }
func polValidateGemini(r *run) bool     { return r.pol.ValidateGeminiTurns }
func polValidateAnthropic(r *run) bool  { return r.pol.ValidateAnthropicTurns }
func isResponses(r *run) bool           { return r.responses }
func responsesRepair(r *run) bool       { return r.responses && r.pol.RepairToolUseResultPairing }
func notResponsesRepair(r *run) bool    { return !r.responses && r.pol.RepairToolUseResultPairing }
func polSanitizeIDs(r *run) bool        { return r.pol.SanitizeToolCallIDs && r.pol.ToolCallIDMode != "" }

// providerAssistantFirstHook: the provider's plugin has a sanitizeReplayHistory
// hook that puts a user turn first (the Google family).
func providerAssistantFirstHook(r *run) bool {
	if jsjson.Trim(r.opts.Provider) == "" {
		return false
	}
	if r.release == policy.Release96 {
		// 2026.9.6: the google-gemini replay family's sanitizeReplayHistory
		// (provider-model-shared buildProviderReplayFamilyHooks ->
		// provider-replay-helpers sanitizeGoogleGeminiReplayHistory).
		return policy.Resolve96(policy.Route{Provider: r.opts.Provider, API: r.opts.API, Model: r.opts.Model}).Family == "google-gemini"
	}
	fam := policy.FamilyOf(r.opts.Provider)
	return fam != nil && fam.AssistantFirstHook
}

// sharedSteps are the steps both releases run the same way.
type sharedSteps struct {
	interSessionMarkers, dropReasoning, dropThinking, toolCallInputs, functionCallPairs,
	toolResultDetails, staleUsage, usageSnapshots, providerHook, googleTurnOrdering, geminiTurns step
}

func shared() sharedSteps {
	return sharedSteps{
		interSessionMarkers: pure(RuleInterSessionMarkers, nil, annotateInterSessionUserMessages),
		dropReasoning:       pure(RuleDropReasoning, polDropReasoning, dropReasoningFromHistory),
		dropThinking:        pure(RuleDropThinking, polDropThinking, dropThinkingBlocks),
		toolCallInputs: step{rule: RuleToolCallInputs, apply: func(r *run, in []Message) ([]Message, error) {
			return sanitizeToolCallInputs(in, toolInputOptions{
				allowed:       normalizeAllowedToolNames(r.opts.AllowedToolNames),
				ownedThinking: r.ownedThinking,
			}, toolInputRelease56(), r.step(RuleToolCallInputs)), nil
		}},
		functionCallPairs: pure(RuleOpenAIFunctionCallPairs, isResponses, downgradeOpenAIFunctionCallReasoningPairs),
		toolResultDetails: pure(RuleToolResultDetails, nil, stripToolResultDetails),
		staleUsage:        pure(RuleStaleUsage, nil, stripStaleAssistantUsageBeforeLatestCompaction),
		usageSnapshots: step{rule: RuleUsageSnapshots, apply: func(r *run, in []Message) ([]Message, error) {
			return ensureAssistantUsageSnapshots(in, snapshotUsage56, r.step(RuleUsageSnapshots)), nil
		}},
		providerHook: step{rule: RuleProviderHook, when: providerAssistantFirstHook, apply: func(r *run, in []Message) ([]Message, error) {
			return r.assistantFirstOrdering(in, RuleProviderHook), nil
		}},
		googleTurnOrdering: step{rule: RuleGoogleTurnOrdering, when: polGoogleOrdering, apply: func(r *run, in []Message) ([]Message, error) {
			return r.assistantFirstOrdering(in, RuleGoogleTurnOrdering), nil
		}},
		geminiTurns: pure(RuleGeminiTurns, polValidateGemini, validateGeminiTurns),
	}
}

// pairingStep is sanitizeToolUseResultPairing under rule, with the synthetic
// result text missingText ("" the default).
func pairingStep(rule string, when func(r *run) bool, missingText func(r *run) string) step {
	return step{rule: rule, when: when, apply: func(r *run, in []Message) ([]Message, error) {
		return r.repairPairing(in, rule, missingText(r)), nil
	}}
}

func abortedText(*run) string { return missingResultAborted }
func defaultText(*run) string { return "" }

// pipeline56 is OpenClaw 2026.5.6: replay-history.ts's sanitizeSessionHistory
// and validateReplayTurns (no bundled provider plugin of 2026.5.6 has its own
// validateReplayTurns hook), then the runner's heartbeat filter and second
// pairing repair.
func pipeline56() pipeline {
	sh := shared()
	return pipeline{
		release: policy.Release56,
		prepare: func(r *run) {
			api := r.opts.API
			r.ownedThinking = r.pol.AllowProviderOwnedThinkingReplay(api)
			r.responses = policy.IsResponsesAPI(api)
			if snap := r.opts.PriorSnapshot; snap != nil && (r.opts.Provider != "" || api != "" || r.opts.Model != "") {
				r.modelChanged = snap.Provider != r.opts.Provider || snap.ModelAPI != api || snap.ModelID != r.opts.Model
			}
		},
		sanitize: []step{
			sh.interSessionMarkers,
			pure(RuleNormalizeAssistant, nil, normalizeAssistantReplayContent),
			{rule: RuleImages, apply: func(r *run, in []Message) ([]Message, error) {
				pol := r.pol
				return r.sanitizeImages(in, imageStepOptions{
					sanitizeIDs:    pol.SanitizeToolCallIDs && !r.ownedThinking && !r.responses,
					idMode:         pol.ToolCallIDMode,
					preserveNative: pol.PreserveNativeAnthropicToolUseIDs,
					preserveSigs:   pol.PreserveSignatures,
					thoughtSigs:    pol.SanitizeThoughtSignatures,
				})
			}},
			pure(RuleInvalidSignatures, polPreserveSignatures, func(in []Message, log *changeLog) []Message {
				return stripInvalidThinkingSignatures(in, false, log)
			}),
			sh.dropReasoning,
			sh.dropThinking,
			sh.toolCallInputs,
			pairingStep(RuleResponsesPairing, responsesRepair, abortedText),
			{rule: RuleOpenAIReasoning, when: isResponses, apply: func(r *run, in []Message) ([]Message, error) {
				return downgradeOpenAIReasoningBlocks(in, r.modelChanged, r.step(RuleOpenAIReasoning)), nil
			}},
			sh.functionCallPairs,
			{rule: RuleToolCallIDs, when: polSanitizeIDs, apply: func(r *run, in []Message) ([]Message, error) {
				pol := r.pol
				return sanitizeToolCallIDs(in, pol.ToolCallIDMode, toolIDOptions{
					preserveNative:       pol.PreserveNativeAnthropicToolUseIDs,
					preserveSafeThinking: r.ownedThinking,
					allowed:              normalizeAllowedToolNames(r.opts.AllowedToolNames),
				}, toolIDRelease56(), r.step(RuleToolCallIDs)), nil
			}},
			pairingStep(RulePairing, notResponsesRepair, defaultText),
			sh.toolResultDetails,
			sh.staleUsage,
			sh.usageSnapshots,
			sh.providerHook,
			sh.googleTurnOrdering,
		},
		validate: []step{
			sh.geminiTurns,
			pure(RuleAnthropicTurns, polValidateAnthropic, validateAnthropicTurns),
		},
		limit: []step{
			pure(RuleHeartbeat, nil, filterHeartbeatPairs),
			pairingStep(RuleSecondPairing, polRepairPairing, func(r *run) string {
				if isLimitResponsesAPI(r.opts.API) {
					return missingResultAborted
				}
				return ""
			}),
		},
	}
}
