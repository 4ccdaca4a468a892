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

// Step is one rule of a release's pipeline.
type Step struct {
	// Rule names the OpenClaw function the step reproduces (Change.Rule).
	Rule string
	// When reports whether the release runs the step for this run's policy
	// and route (nil: always).
	When func(r *Run) bool
	// Apply runs the step; it copies what it changes.
	Apply func(r *Run, in []Message) ([]Message, error)
}

// Pipeline is one release's replay pipeline.
type Pipeline struct {
	Release policy.Release
	// Policy resolves the route's replay policy as the release does.
	Policy func(rt policy.Route) policy.Policy
	// Prepare derives the run's values the steps share (nil: none).
	Prepare func(r *Run)
	// Sanitize is sanitizeSessionHistory, validate validateReplayTurns, limit
	// what the embedded runner does between them and the model call.
	Sanitize, Validate, Limit []Step
}

// pipelineFor returns the pipeline of a release (zero: 2026.5.6).
func pipelineFor(rel policy.Release) Pipeline {
	if rel == policy.Release96 {
		return pipeline96()
	}
	return pipeline56()
}

func (r *Run) runSteps(steps []Step, msgs []Message) ([]Message, error) {
	for _, s := range steps {
		if s.When != nil && !s.When(r) {
			continue
		}
		r.log.rule = s.Rule
		out, err := s.Apply(r, msgs)
		if err != nil {
			return nil, err
		}
		msgs = out
	}
	return msgs, nil
}

// Pure makes a step of a rule that needs only its change log.
func Pure(rule string, when func(r *Run) bool, fn func(in []Message, log *ChangeLog) []Message) Step {
	return Step{Rule: rule, When: when, Apply: func(r *Run, in []Message) ([]Message, error) {
		return fn(in, r.Log(rule)), nil
	}}
}

// Conditions shared by the tables.
func polPreserveSignatures(r *Run) bool { return r.Policy.PreserveSignatures }
func polDropReasoning(r *Run) bool      { return r.Policy.DropReasoningFromHistory }
func polDropThinking(r *Run) bool       { return r.Policy.DropThinkingBlocks }
func PolRepairPairing(r *Run) bool      { return r.Policy.RepairToolUseResultPairing }
func polGoogleOrdering(r *Run) bool     { return r.Policy.ApplyGoogleTurnOrdering }
func polValidateGemini(r *Run) bool     { return r.Policy.ValidateGeminiTurns }
func PolValidateAnthropic(r *Run) bool  { return r.Policy.ValidateAnthropicTurns }
func IsResponses(r *Run) bool           { return r.Responses }
func ResponsesRepair(r *Run) bool       { return r.Responses && r.Policy.RepairToolUseResultPairing }
func NotResponsesRepair(r *Run) bool    { return !r.Responses && r.Policy.RepairToolUseResultPairing }
func PolSanitizeIDs(r *Run) bool {
	return r.Policy.SanitizeToolCallIDs && r.Policy.ToolCallIDMode != ""
}

// The steps both releases run the same way.

func DropReasoningStep() Step {
	return Pure(RuleDropReasoning, polDropReasoning, dropReasoningFromHistory)
}

func DropThinkingStep() Step { return Pure(RuleDropThinking, polDropThinking, dropThinkingBlocks) }

func FunctionCallPairsStep() Step {
	return Pure(RuleOpenAIFunctionCallPairs, IsResponses, downgradeOpenAIFunctionCallReasoningPairs)
}

func ToolResultDetailsStep() Step { return Pure(RuleToolResultDetails, nil, StripToolResultDetails) }

func StaleUsageStep() Step {
	return Pure(RuleStaleUsage, nil, stripStaleAssistantUsageBeforeLatestCompaction)
}

// ProviderHookStep is the provider plugin's sanitizeReplayHistory hook that
// puts a user turn first (the Google family); hasHook says whether the
// route's provider has it (a blank provider never does).
func ProviderHookStep(hasHook func(r *Run) bool) Step {
	return Step{Rule: RuleProviderHook, When: func(r *Run) bool { return jsjson.Trim(r.Opts.Provider) != "" && hasHook(r) }, Apply: func(r *Run, in []Message) ([]Message, error) {
		return r.assistantFirstOrdering(in, RuleProviderHook), nil
	}}
}

func GoogleTurnOrderingStep() Step {
	return Step{Rule: RuleGoogleTurnOrdering, When: polGoogleOrdering, Apply: func(r *Run, in []Message) ([]Message, error) {
		return r.assistantFirstOrdering(in, RuleGoogleTurnOrdering), nil
	}}
}

func GeminiTurnsStep() Step { return Pure(RuleGeminiTurns, polValidateGemini, ValidateGeminiTurns) }

// pairingStep is sanitizeToolUseResultPairing under rule, with the synthetic
// result text missingText ("" the default).
func pairingStep(rule string, when func(r *Run) bool, missingText func(r *Run) string) Step {
	return Step{Rule: rule, When: when, Apply: func(r *Run, in []Message) ([]Message, error) {
		return repairPairing(r, in, rule, missingText(r)), nil
	}}
}

func AbortedText(*Run) string { return MissingResultAborted }
func DefaultText(*Run) string { return "" }

// pipeline56 is OpenClaw 2026.5.6: replay-history.ts's sanitizeSessionHistory
// and validateReplayTurns (no bundled provider plugin of 2026.5.6 has its own
// validateReplayTurns hook), then the runner's heartbeat filter and second
// pairing repair.
func pipeline56() Pipeline {
	return Pipeline{
		Release: policy.Release56,
		Policy: func(rt policy.Route) policy.Policy {
			return policy.For(rt.Provider, rt.API, rt.Model)
		},
		Prepare: func(r *Run) {
			api := r.Opts.API
			r.OwnedThinking = r.Policy.AllowProviderOwnedThinkingReplay(api)
			r.Responses = policy.IsResponsesAPI(api)
			if snap := r.Opts.PriorSnapshot; snap != nil && (r.Opts.Provider != "" || api != "" || r.Opts.Model != "") {
				r.ModelChanged = snap.Provider != r.Opts.Provider || snap.ModelAPI != api || snap.ModelID != r.Opts.Model
			}
		},
		Sanitize: []Step{
			Pure(RuleInterSessionMarkers, nil, annotateInterSessionUserMessages),
			Pure(RuleNormalizeAssistant, nil, normalizeAssistantReplayContent),
			{Rule: RuleImages, Apply: func(r *Run, in []Message) ([]Message, error) {
				pol := r.Policy
				o := ImageStepOptions{
					IDMode:         pol.ToolCallIDMode,
					PreserveNative: pol.PreserveNativeAnthropicToolUseIDs,
					PreserveSigs:   pol.PreserveSignatures,
					ThoughtSigs:    pol.SanitizeThoughtSignatures,
					Images:         imageRelease56(),
				}
				if pol.SanitizeToolCallIDs && !r.OwnedThinking && !r.Responses {
					ids := toolIDRelease56()
					o.ToolIDs = &ids
				}
				return r.SanitizeImages(in, o)
			}},
			Pure(RuleInvalidSignatures, polPreserveSignatures, func(in []Message, log *ChangeLog) []Message {
				return StripInvalidThinkingSignatures(in, false, log)
			}),
			DropReasoningStep(),
			DropThinkingStep(),
			{Rule: RuleToolCallInputs, Apply: func(r *Run, in []Message) ([]Message, error) {
				return SanitizeToolCallInputs(in, ToolInputOptions{
					Allowed:       NormalizeAllowedToolNames(r.Opts.AllowedToolNames),
					OwnedThinking: r.OwnedThinking,
				}, toolInputRelease56(), r.Log(RuleToolCallInputs)), nil
			}},
			pairingStep(RuleResponsesPairing, ResponsesRepair, AbortedText),
			{Rule: RuleOpenAIReasoning, When: IsResponses, Apply: func(r *Run, in []Message) ([]Message, error) {
				return downgradeOpenAIReasoningBlocks(in, r.ModelChanged, r.Log(RuleOpenAIReasoning)), nil
			}},
			FunctionCallPairsStep(),
			{Rule: RuleToolCallIDs, When: PolSanitizeIDs, Apply: func(r *Run, in []Message) ([]Message, error) {
				pol := r.Policy
				return SanitizeToolCallIDs(in, pol.ToolCallIDMode, ToolIDOptions{
					PreserveNative:       pol.PreserveNativeAnthropicToolUseIDs,
					PreserveSafeThinking: r.OwnedThinking,
					Allowed:              NormalizeAllowedToolNames(r.Opts.AllowedToolNames),
				}, toolIDRelease56(), r.Log(RuleToolCallIDs)), nil
			}},
			pairingStep(RulePairing, NotResponsesRepair, DefaultText),
			ToolResultDetailsStep(),
			StaleUsageStep(),
			{Rule: RuleUsageSnapshots, Apply: func(r *Run, in []Message) ([]Message, error) {
				return EnsureAssistantUsageSnapshots(in, snapshotUsage56, r.Log(RuleUsageSnapshots)), nil
			}},
			ProviderHookStep(func(r *Run) bool {
				fam := policy.FamilyOf(r.Opts.Provider)
				return fam != nil && fam.AssistantFirstHook
			}),
			GoogleTurnOrderingStep(),
		},
		Validate: []Step{
			GeminiTurnsStep(),
			Pure(RuleAnthropicTurns, PolValidateAnthropic, validateAnthropicTurns),
		},
		Limit: []Step{
			Pure(RuleHeartbeat, nil, filterHeartbeatPairs),
			pairingStep(RuleSecondPairing, PolRepairPairing, func(r *Run) string {
				if isLimitResponsesAPI(r.Opts.API) {
					return MissingResultAborted
				}
				return ""
			}),
		},
	}
}
