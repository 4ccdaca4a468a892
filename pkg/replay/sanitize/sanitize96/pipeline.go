package sanitize96

import (
	"fmt"
	"strings"

	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/pkg/policy"
	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
	"github.com/openclaw-tools/oc/pkg/replay/sanitize"
)

// OpenClaw 2026.9.6's replay pipeline: dist/builtin-openclaw-*.mjs
// sanitizeSessionHistory and validateReplayTurns (region
// src/agents/embedded-agent-runner/replay-history.ts), then what
// attempt-history-prepare does before the model call:
// filterHeartbeatTranscriptArtifacts (dist/heartbeat-filter-*.mjs),
// limitHistoryTurns (no limit without config) and
// sanitizeToolUseResultPairingForModel (dist/session-transcript-repair-*.mjs).

// Rules of the steps 2026.9.6 changed or added. Each names the 9.6 function;
// "@2026.9.6" marks a function 2026.5.6 also had under that name.
const (
	RuleInterSessionMarkers        = "annotateInterSessionUserMessages@2026.9.6"
	RuleNormalizeAssistant         = "normalizeAssistantReplayContent@2026.9.6"
	RuleStaleCompactionSignatures  = "stripStaleThinkingSignaturesForCompactionReplay"
	RuleInvalidSignatures          = "stripInvalidThinkingSignatures@2026.9.6"
	RuleToolCallInputs             = "sanitizeToolCallInputs@2026.9.6"
	RuleResponsesPairing           = "sanitizeToolUseResultPairingForModel(responses)"
	RuleStaleOpenAIReasoning       = "dropStaleOpenAIReasoning"
	RuleResponsesToolCallIDs       = "normalizeOpenAIResponsesToolCallIds"
	RulePairing                    = "sanitizeToolUseResultPairingForModel"
	RuleToolCallIDs                = "sanitizeToolCallIdsForCloudCodeAssist@2026.9.6"
	RuleUsageSnapshots             = "ensureAssistantUsageSnapshots@2026.9.6"
	RuleResponsesPairingAfterHooks = "sanitizeToolUseResultPairingForModel(responses, after provider hooks)"
	RuleResponsesInvariant         = "assertOpenAIResponsesToolUseResultInvariant"
	RuleAnthropicTurns             = "validateAnthropicTurns@2026.9.6"
	RuleHeartbeat                  = "filterHeartbeatTranscriptArtifacts"
	RuleLimitPairing               = "sanitizeToolUseResultPairingForModel(after limitHistoryTurns)"
)

// spread is JavaScript's {...m, k1: v1, k2: v2}: a copy of m with the pairs
// set, existing keys in place and new ones after, in the order given.
func spread(m *jsvalue.Object, kv ...any) *jsvalue.Object {
	out := m.Clone()
	for i := 0; i+1 < len(kv); i += 2 {
		out.Set(kv[i].(string), kv[i+1])
	}
	return out
}

// providerRequiresSignedThinking is embedded-agent-helpers'
// providerRequiresSignedThinking: the provider is one of
// SIGNED_THINKING_PROVIDERS.
func providerRequiresSignedThinking(provider string) bool {
	switch lowerTrimJS(provider) {
	case "anthropic", "amazon-bedrock", "anthropic-vertex":
		return true
	}
	return false
}

func lowerTrimJS(s string) string { return strings.ToLower(jsjson.Trim(s)) }

// isResponsesAPI is sanitizeSessionHistory's isOpenAIResponsesApi.
func isResponsesAPI(api string) bool {
	return api == "openai-responses" || api == "openai-chatgpt-responses" || api == "azure-openai-responses"
}

// runState is what 2026.9.6's steps share beyond the run's common values.
type runState struct {
	// latestSwitch is the latest model switch (readModelSnapshotState).
	latestSwitch *float64
	// preserveLatestThinking is shouldPreserveLatestAssistantThinking of
	// the image step's output.
	preserveLatestThinking bool
}

// stateOf is the run's 2026.9.6 values (set by prepare).
func stateOf(r *sanitize.Run) *runState { return r.State.(*runState) }

// prepare derives what sanitizeSessionHistory computes before its steps.
func prepare(r *sanitize.Run) {
	st := &runState{}
	r.State = st
	api, provider := r.Opts.API, r.Opts.Provider
	signed := providerRequiresSignedThinking(provider)
	// shouldAllowProviderOwnedThinkingReplay (embedded-agent-helpers).
	r.OwnedThinking = policy.IsAnthropicAPI(api) && r.Policy.ValidateAnthropicTurns && (r.Policy.PreserveSignatures || signed) && !r.Policy.DropThinkingBlocks
	r.Responses = isResponsesAPI(api)
	// readModelSnapshotState over the branch, and the current snapshot.
	if provider == "" && api == "" && r.Opts.Model == "" {
		return
	}
	var last *sanitize.ModelSnapshot
	for i := range r.Opts.ModelSnapshots {
		s := &r.Opts.ModelSnapshots[i]
		if last != nil && !sameSnapshot(*last, *s) && s.Timestamp != nil {
			ts := *s.Timestamp
			st.latestSwitch = &ts
		}
		last = s
	}
	if last != nil && !sameSnapshot(*last, sanitize.ModelSnapshot{Provider: provider, ModelAPI: api, ModelID: r.Opts.Model}) {
		r.ModelChanged = true
		now := float64(r.NowMillis())
		st.latestSwitch = &now
	}
}

func sameSnapshot(a, b sanitize.ModelSnapshot) bool {
	return a.Provider == b.Provider && a.ModelAPI == b.ModelAPI && a.ModelID == b.ModelID
}

// signedOrPreserved: the provider owns signed thinking or the policy keeps
// signatures (sanitizeSessionHistory's signedThinkingProvider ||
// policy.preserveSignatures).
func signedOrPreserved(r *sanitize.Run) bool {
	return providerRequiresSignedThinking(r.Opts.Provider) || r.Policy.PreserveSignatures
}

// Pipeline is OpenClaw 2026.9.6's replay pipeline (see the file comment):
// its steps in the release's order, with the steps every release shares.
func Pipeline() sanitize.Pipeline {
	pairing := func(rule string, when func(r *sanitize.Run) bool, text func(r *sanitize.Run) string) sanitize.Step {
		return sanitize.Step{Rule: rule, When: when, Apply: func(r *sanitize.Run, in []sanitize.Message) ([]sanitize.Message, error) {
			return repairPairing(r, in, rule, text(r)), nil
		}}
	}
	responsesText := func(r *sanitize.Run) string {
		if r.Responses {
			return sanitize.MissingResultAborted
		}
		return ""
	}
	return sanitize.Pipeline{
		Release: policy.Release96,
		Policy: func(rt policy.Route) policy.Policy {
			return policy.ResolveFor(policy.Release96, rt).Policy
		},
		Prepare: prepare,
		Sanitize: []sanitize.Step{
			sanitize.Pure(RuleInterSessionMarkers, nil, annotateInterSessionUserMessages),
			sanitize.Pure(RuleNormalizeAssistant, nil, normalizeAssistantReplayContent),
			{Rule: sanitize.RuleImages, Apply: func(r *sanitize.Run, in []sanitize.Message) ([]sanitize.Message, error) {
				// 9.6 passes sanitizeToolCallIds: false: ids are left to the
				// later step.
				pol := r.Policy
				return r.SanitizeImages(in, sanitize.ImageStepOptions{
					IDMode:         pol.ToolCallIDMode,
					PreserveNative: pol.PreserveNativeAnthropicToolUseIDs,
					PreserveSigs:   pol.PreserveSignatures,
					ThoughtSigs:    pol.SanitizeThoughtSignatures,
					Images:         imageRelease(),
				})
			}},
			{Rule: RuleStaleCompactionSignatures, When: signedOrPreserved, Apply: func(r *sanitize.Run, in []sanitize.Message) ([]sanitize.Message, error) {
				// shouldPreserveLatestAssistantThinking runs on the image
				// step's output, before this step.
				stateOf(r).preserveLatestThinking = shouldPreserveLatestAssistantThinking(in)
				return stripStaleThinkingSignaturesForCompactionReplay(in, r.Log(RuleStaleCompactionSignatures)), nil
			}},
			{Rule: RuleInvalidSignatures, When: signedOrPreserved, Apply: func(r *sanitize.Run, in []sanitize.Message) ([]sanitize.Message, error) {
				return sanitize.StripInvalidThinkingSignatures(in, stateOf(r).preserveLatestThinking, r.Log(RuleInvalidSignatures)), nil
			}},
			sanitize.DropReasoningStep(),
			sanitize.DropThinkingStep(),
			sanitize.ToolCallInputsStep(RuleToolCallInputs, toolInputRelease()),
			pairing(RuleResponsesPairing, sanitize.ResponsesRepair, sanitize.AbortedText),
			{Rule: RuleStaleOpenAIReasoning, When: sanitize.IsResponses, Apply: func(r *sanitize.Run, in []sanitize.Message) ([]sanitize.Message, error) {
				return dropStaleOpenAIReasoning(in, stateOf(r).latestSwitch, r.Log(RuleStaleOpenAIReasoning)), nil
			}},
			sanitize.Pure(RuleResponsesToolCallIDs, sanitize.IsResponses, normalizeOpenAIResponsesToolCallIDs),
			sanitize.FunctionCallPairsStep(),
			pairing(RulePairing, sanitize.NotResponsesRepair, sanitize.DefaultText),
			{Rule: RuleToolCallIDs, When: func(r *sanitize.Run) bool { return !r.Responses && sanitize.PolSanitizeIDs(r) }, Apply: func(r *sanitize.Run, in []sanitize.Message) ([]sanitize.Message, error) {
				pol := r.Policy
				return sanitize.SanitizeToolCallIDs(in, pol.ToolCallIDMode, sanitize.ToolIDOptions{
					PreserveNative:       pol.PreserveNativeAnthropicToolUseIDs,
					PreserveSafeThinking: r.OwnedThinking,
					Allowed:              sanitize.NormalizeAllowedToolNames(r.Opts.AllowedToolNames),
					DuplicateStyle:       pol.DuplicateToolCallIDStyle,
				}, toolIDRelease(), r.Log(RuleToolCallIDs)), nil
			}},
			sanitize.ToolResultDetailsStep(),
			sanitize.StaleUsageStep(),
			{Rule: RuleUsageSnapshots, Apply: func(r *sanitize.Run, in []sanitize.Message) ([]sanitize.Message, error) {
				return sanitize.EnsureAssistantUsageSnapshots(in, snapshotUsage, r.Log(RuleUsageSnapshots)), nil
			}},
			sanitize.ProviderHookStep(func(r *sanitize.Run) bool {
				// 2026.9.6: the google-gemini replay family's sanitizeReplayHistory
				// (provider-model-shared buildProviderReplayFamilyHooks ->
				// provider-replay-helpers sanitizeGoogleGeminiReplayHistory).
				return policy.Resolve96(policy.Route{Provider: r.Opts.Provider, API: r.Opts.API, Model: r.Opts.Model}).Family == "google-gemini"
			}),
			pairing(RuleResponsesPairingAfterHooks, sanitize.ResponsesRepair, sanitize.AbortedText),
			{Rule: RuleResponsesInvariant, When: sanitize.IsResponses, Apply: assertResponsesInvariant},
			sanitize.GoogleTurnOrderingStep(),
			{Rule: RuleResponsesInvariant, When: func(r *sanitize.Run) bool { return r.Responses && r.Policy.ApplyGoogleTurnOrdering }, Apply: assertResponsesInvariant},
		},
		Validate: []sanitize.Step{
			sanitize.GeminiTurnsStep(),
			{Rule: RuleAnthropicTurns, When: sanitize.PolValidateAnthropic, Apply: func(r *sanitize.Run, in []sanitize.Message) ([]sanitize.Message, error) {
				// shouldMergeConsecutiveUserTurns: only the direct Messages API
				// under append-only runtime context keeps user turns apart.
				merge := !(r.Policy.AppendOnlyRuntimeContext && r.Opts.API == "anthropic-messages")
				return validateAnthropicTurns(in, merge, r.Log(RuleAnthropicTurns)), nil
			}},
		},
		Limit: []sanitize.Step{
			sanitize.Pure(RuleHeartbeat, nil, filterHeartbeatTranscriptArtifacts),
			// The runner repairs pairing before the context engine and once
			// more after it (the default engine returns the list unchanged).
			pairing(RuleLimitPairing, sanitize.PolRepairPairing, responsesText),
			pairing(RuleLimitPairing, sanitize.PolRepairPairing, responsesText),
		},
	}
}

// assertResponsesInvariant is assertOpenAIResponsesToolUseResultInvariant:
// on the Responses APIs every tool call must be followed by its results
// before any other message, else 9.6 throws and sends nothing.
func assertResponsesInvariant(r *sanitize.Run, in []sanitize.Message) ([]sanitize.Message, error) {
	type pend struct {
		id    string
		index int
	}
	var pending []pend
	fail := func(reason, id string, index int) error {
		if id != "" {
			id = " toolCallId=" + id
		}
		return &sanitize.OpenClawFailure{What: fmt.Sprintf("invalid_replay_transcript: OpenAI Responses replay contains %s%s at message index %d (OpenClaw 2026.9.6 throws: it sends nothing)", reason, id, index)}
	}
	for i, m := range in {
		rl := ""
		if m != nil {
			rl = jsvalue.Role(m)
		}
		if len(pending) > 0 && rl != "toolResult" {
			return nil, fail("dangling_tool_call", pending[0].id, pending[0].index)
		}
		if !sanitize.IsJSObjectMessage(m) {
			continue
		}
		if rl == "toolResult" {
			id := toolResultID(m)
			at := -1
			for k, p := range pending {
				if p.id == id {
					at = k
					break
				}
			}
			if id == "" || at < 0 {
				return nil, fail("orphan_tool_result", id, i)
			}
			pending = append(pending[:at], pending[at+1:]...)
			continue
		}
		if rl != "assistant" {
			continue
		}
		for _, c := range sanitize.ToolCallsOf(m) {
			// A Map keeps the first insertion's place; set() updates the value.
			found := false
			for k := range pending {
				if pending[k].id == c.ID {
					pending[k].index = i
					found = true
				}
			}
			if !found {
				pending = append(pending, pend{c.ID, i})
			}
		}
	}
	if len(pending) > 0 {
		return nil, fail("dangling_tool_call", pending[0].id, pending[0].index)
	}
	return in, nil
}

// validateAnthropicTurns is 9.6's validateAnthropicTurns
// (dist/embedded-agent-helpers-*.mjs): consecutive assistant turns are now
// merged first (as validateGeminiTurns does), then dangling tool calls are
// stripped, then consecutive user turns merged unless mergeUsers is false
// (shouldMergeConsecutiveUserTurns).
func validateAnthropicTurns(in []sanitize.Message, mergeUsers bool, log *sanitize.ChangeLog) []sanitize.Message {
	msgs := sanitize.StripDanglingAnthropicToolUses(sanitize.MergeConsecutive(in, "assistant", sanitize.MergeAssistantTurns, log), log)
	if !mergeUsers {
		return msgs
	}
	return sanitize.MergeConsecutive(msgs, "user", sanitize.MergeUserTurns, log)
}
