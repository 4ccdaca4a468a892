package sanitize

import (
	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/pkg/policy"
)

// The pipeline of each release is data: a list of named steps per stage.
// A step that every release runs the same way is made here (DropReasoningStep
// and the others below) and listed by each release's table; a step a release
// changed is its own value, with a Rule naming that release's function, so
// that a Change says which release did what. A release is a package
// (sanitize56, sanitize96) whose Pipeline is its table plus the steps and
// values it has its own way; a new release is a new such package.

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
	// Release is the OpenClaw release the pipeline reproduces.
	Release policy.Release
	// Policy resolves the route's replay policy as the release does.
	Policy func(rt policy.Route) policy.Policy
	// Prepare derives the run's values the steps share (nil: none).
	Prepare func(r *Run)
	// Sanitize is sanitizeSessionHistory, Validate validateReplayTurns,
	// Limit what the embedded runner does between them and the model call.
	Sanitize, Validate, Limit []Step
}

// runSteps applies the steps whose condition holds, in order.
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

// Step conditions (Step.When) of the shared steps: the policy says so.
func polDropReasoning(r *Run) bool  { return r.Policy.DropReasoningFromHistory }
func polDropThinking(r *Run) bool   { return r.Policy.DropThinkingBlocks }
func polGoogleOrdering(r *Run) bool { return r.Policy.ApplyGoogleTurnOrdering }
func polValidateGemini(r *Run) bool { return r.Policy.ValidateGeminiTurns }

// PolRepairPairing is a step condition: the policy repairs tool-use/result
// pairing.
func PolRepairPairing(r *Run) bool { return r.Policy.RepairToolUseResultPairing }

// PolValidateAnthropic is a step condition: the policy validates Anthropic
// turns.
func PolValidateAnthropic(r *Run) bool { return r.Policy.ValidateAnthropicTurns }

// PolSanitizeIDs is a step condition: the policy sanitizes tool-call ids, in
// a mode it names.
func PolSanitizeIDs(r *Run) bool {
	return r.Policy.SanitizeToolCallIDs && r.Policy.ToolCallIDMode != ""
}

// IsResponses is a step condition: the route is an OpenAI Responses API (as
// the release's Prepare decided).
func IsResponses(r *Run) bool { return r.Responses }

// ResponsesRepair is a step condition: pairing repair on a Responses API.
func ResponsesRepair(r *Run) bool { return r.Responses && r.Policy.RepairToolUseResultPairing }

// NotResponsesRepair is a step condition: pairing repair on any other API.
func NotResponsesRepair(r *Run) bool {
	return !r.Responses && r.Policy.RepairToolUseResultPairing
}

// The steps every release runs the same way.

// DropReasoningStep is dropReasoningFromHistory, when the policy says so.
func DropReasoningStep() Step {
	return Pure(RuleDropReasoning, polDropReasoning, dropReasoningFromHistory)
}

// DropThinkingStep is dropThinkingBlocks, when the policy says so.
func DropThinkingStep() Step { return Pure(RuleDropThinking, polDropThinking, dropThinkingBlocks) }

// ToolCallInputsStep is sanitizeToolCallInputs under rule, with a
// release's values for it: the live tool registry's names and the
// provider-owned thinking the run's prepare step worked out.
func ToolCallInputsStep(rule string, rel ToolInputRelease) Step {
	return Step{Rule: rule, Apply: func(r *Run, in []Message) ([]Message, error) {
		return SanitizeToolCallInputs(in, ToolInputOptions{
			Allowed:       NormalizeAllowedToolNames(r.Opts.AllowedToolNames),
			OwnedThinking: r.OwnedThinking,
		}, rel, r.Log(rule)), nil
	}}
}

// FunctionCallPairsStep is downgradeOpenAIFunctionCallReasoningPairs, on the
// OpenAI Responses APIs.
func FunctionCallPairsStep() Step {
	return Pure(RuleOpenAIFunctionCallPairs, IsResponses, downgradeOpenAIFunctionCallReasoningPairs)
}

// ToolResultDetailsStep is stripToolResultDetails.
func ToolResultDetailsStep() Step { return Pure(RuleToolResultDetails, nil, StripToolResultDetails) }

// StaleUsageStep is stripStaleAssistantUsageBeforeLatestCompaction.
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

// GoogleTurnOrderingStep is sanitizeGoogleTurnOrdering, when the policy says
// so.
func GoogleTurnOrderingStep() Step {
	return Step{Rule: RuleGoogleTurnOrdering, When: polGoogleOrdering, Apply: func(r *Run, in []Message) ([]Message, error) {
		return r.assistantFirstOrdering(in, RuleGoogleTurnOrdering), nil
	}}
}

// GeminiTurnsStep is validateGeminiTurns, when the policy says so.
func GeminiTurnsStep() Step { return Pure(RuleGeminiTurns, polValidateGemini, ValidateGeminiTurns) }

// AbortedText is a pairing repair's synthetic result text on the Responses
// APIs (MissingResultAborted).
func AbortedText(*Run) string { return MissingResultAborted }

// DefaultText is a pairing repair's default synthetic result text ("" asks
// for MissingResultDefault).
func DefaultText(*Run) string { return "" }
