package sanitize

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/pkg/jsonl"
	"github.com/openclaw-tools/oc/pkg/policy"
	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
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
	Rule96InterSessionMarkers        = "annotateInterSessionUserMessages@2026.9.6"
	Rule96NormalizeAssistant         = "normalizeAssistantReplayContent@2026.9.6"
	Rule96StaleCompactionSignatures  = "stripStaleThinkingSignaturesForCompactionReplay"
	Rule96InvalidSignatures          = "stripInvalidThinkingSignatures@2026.9.6"
	Rule96ToolCallInputs             = "sanitizeToolCallInputs@2026.9.6"
	Rule96ResponsesPairing           = "sanitizeToolUseResultPairingForModel(responses)"
	Rule96StaleOpenAIReasoning       = "dropStaleOpenAIReasoning"
	Rule96ResponsesToolCallIDs       = "normalizeOpenAIResponsesToolCallIds"
	Rule96Pairing                    = "sanitizeToolUseResultPairingForModel"
	Rule96ToolCallIDs                = "sanitizeToolCallIdsForCloudCodeAssist@2026.9.6"
	Rule96UsageSnapshots             = "ensureAssistantUsageSnapshots@2026.9.6"
	Rule96ResponsesPairingAfterHooks = "sanitizeToolUseResultPairingForModel(responses, after provider hooks)"
	Rule96ResponsesInvariant         = "assertOpenAIResponsesToolUseResultInvariant"
	Rule96AnthropicTurns             = "validateAnthropicTurns@2026.9.6"
	Rule96Heartbeat                  = "filterHeartbeatTranscriptArtifacts"
	Rule96LimitPairing               = "sanitizeToolUseResultPairingForModel(after limitHistoryTurns)"
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

// signedThinkingProviders96 is SIGNED_THINKING_PROVIDERS
// (embedded-agent-helpers providerRequiresSignedThinking).
func providerRequiresSignedThinking96(provider string) bool {
	switch lowerTrimJS(provider) {
	case "anthropic", "amazon-bedrock", "anthropic-vertex":
		return true
	}
	return false
}

func lowerTrimJS(s string) string { return strings.ToLower(jsjson.Trim(s)) }

// isResponsesAPI96 is sanitizeSessionHistory's isOpenAIResponsesApi.
func isResponsesAPI96(api string) bool {
	return api == "openai-responses" || api == "openai-chatgpt-responses" || api == "azure-openai-responses"
}

// ModelSnapshotsOnBranch reads the "model-snapshot" custom entries of a
// session's active branch (its entries as JSON lines, in order): what 9.6's
// readModelSnapshotState reads through sessionManager.getBranch(). Entries
// that are not model snapshots are skipped; a snapshot whose data is not an
// object is skipped, as 9.6 skips it.
func ModelSnapshotsOnBranch(entries [][]byte) ([]ModelSnapshot, error) {
	var out []ModelSnapshot
	for _, e := range entries {
		if notCustomEntry(e) {
			continue
		}
		var head struct {
			Type       any             `json:"type"`
			CustomType any             `json:"customType"`
			Data       json.RawMessage `json:"data"`
		}
		if json.Unmarshal(e, &head) != nil {
			continue
		}
		if head.Type != "custom" || head.CustomType != "model-snapshot" {
			continue
		}
		var data map[string]any
		if json.Unmarshal(head.Data, &data) != nil || data == nil {
			continue
		}
		snap := ModelSnapshot{Provider: snapshotField(data["provider"]), ModelAPI: snapshotField(data["modelApi"]), ModelID: snapshotField(data["modelId"])}
		if ts, ok := data["timestamp"].(float64); ok && !math.IsInf(ts, 0) && !math.IsNaN(ts) {
			snap.Timestamp = &ts
		}
		out = append(out, snap)
	}
	return out, nil
}

// notCustomEntry reports, without decoding the entry, that the full decode
// below would not read it as a "custom" entry: either it is no valid JSON
// (the decode fails) or the last member whose key matches "type" (as
// encoding/json matches it: ASCII case-folded; the last one wins) holds
// something other than the plain string "custom". Anything unsure (escapes
// or non-ASCII bytes in a key, an escaped type string, not an object) says
// false and takes the full decode. On valid JSON the scanner finds exact
// member boundaries; on damaged JSON whatever it reads is skipped, as the
// failed decode skips it.
func notCustomEntry(e []byte) bool {
	var typ []byte
	unsure := false
	_, complete := jsonl.EachMember(e, 0, func(m jsonl.Member) bool {
		for _, c := range m.Key {
			if c == '\\' || c >= utf8.RuneSelf {
				unsure = true
				return false
			}
		}
		if len(m.Key) == len("type") && bytes.EqualFold(m.Key, []byte("type")) {
			typ = e[m.Start:m.End]
		}
		return true
	})
	if unsure {
		return false
	}
	if !complete {
		// not an object, or damaged: JSON that is not an object decodes
		// without members (no error for a few shapes), so decode it
		return false
	}
	if typ == nil {
		return true
	}
	if typ[0] == '"' && bytes.IndexByte(typ, '\\') >= 0 {
		return false
	}
	return string(typ) != `"custom"`
}

// snapshotField is a snapshot member as isSameModelSnapshot compares it
// (`value ?? ""`); a value that is not a string is shown in Go syntax so
// that it never equals a route.
func snapshotField(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	}
	return fmt.Sprintf("\x00%v", v)
}

// runState96 is what 2026.9.6's steps share beyond the run's common values.
type runState96 struct {
	// latestSwitch is the latest model switch (readModelSnapshotState).
	latestSwitch *float64
	// preserveLatestThinking is shouldPreserveLatestAssistantThinking of
	// the image step's output.
	preserveLatestThinking bool
}

// stateOf96 is the run's 2026.9.6 values (set by prepare96).
func stateOf96(r *Run) *runState96 { return r.State.(*runState96) }

// prepare96 derives what sanitizeSessionHistory computes before its steps.
func prepare96(r *Run) {
	st := &runState96{}
	r.State = st
	api, provider := r.Opts.API, r.Opts.Provider
	signed := providerRequiresSignedThinking96(provider)
	// shouldAllowProviderOwnedThinkingReplay (embedded-agent-helpers).
	r.OwnedThinking = policy.IsAnthropicAPI(api) && r.Policy.ValidateAnthropicTurns && (r.Policy.PreserveSignatures || signed) && !r.Policy.DropThinkingBlocks
	r.Responses = isResponsesAPI96(api)
	// readModelSnapshotState over the branch, and the current snapshot.
	if provider == "" && api == "" && r.Opts.Model == "" {
		return
	}
	var last *ModelSnapshot
	for i := range r.Opts.ModelSnapshots {
		s := &r.Opts.ModelSnapshots[i]
		if last != nil && !sameSnapshot(*last, *s) && s.Timestamp != nil {
			ts := *s.Timestamp
			st.latestSwitch = &ts
		}
		last = s
	}
	if last != nil && !sameSnapshot(*last, ModelSnapshot{Provider: provider, ModelAPI: api, ModelID: r.Opts.Model}) {
		r.ModelChanged = true
		now := float64(r.NowMillis())
		st.latestSwitch = &now
	}
}

func sameSnapshot(a, b ModelSnapshot) bool {
	return a.Provider == b.Provider && a.ModelAPI == b.ModelAPI && a.ModelID == b.ModelID
}

// signedOrPreserved: the provider owns signed thinking or the policy keeps
// signatures (sanitizeSessionHistory's signedThinkingProvider ||
// policy.preserveSignatures).
func signedOrPreserved(r *Run) bool {
	return providerRequiresSignedThinking96(r.Opts.Provider) || r.Policy.PreserveSignatures
}

func pipeline96() Pipeline {
	pairing := func(rule string, when func(r *Run) bool, text func(r *Run) string) Step {
		return Step{Rule: rule, When: when, Apply: func(r *Run, in []Message) ([]Message, error) {
			return repairPairing96(r, in, rule, text(r)), nil
		}}
	}
	responsesText := func(r *Run) string {
		if r.Responses {
			return MissingResultAborted
		}
		return ""
	}
	return Pipeline{
		Release: policy.Release96,
		Policy: func(rt policy.Route) policy.Policy {
			return policy.ResolveFor(policy.Release96, rt).Policy
		},
		Prepare: prepare96,
		Sanitize: []Step{
			Pure(Rule96InterSessionMarkers, nil, annotateInterSessionUserMessages96),
			Pure(Rule96NormalizeAssistant, nil, normalizeAssistantReplayContent96),
			{Rule: RuleImages, Apply: func(r *Run, in []Message) ([]Message, error) {
				// 9.6 passes sanitizeToolCallIds: false: ids are left to the
				// later step.
				pol := r.Policy
				return r.SanitizeImages(in, ImageStepOptions{
					IDMode:         pol.ToolCallIDMode,
					PreserveNative: pol.PreserveNativeAnthropicToolUseIDs,
					PreserveSigs:   pol.PreserveSignatures,
					ThoughtSigs:    pol.SanitizeThoughtSignatures,
					Images:         imageRelease96(),
				})
			}},
			{Rule: Rule96StaleCompactionSignatures, When: signedOrPreserved, Apply: func(r *Run, in []Message) ([]Message, error) {
				// shouldPreserveLatestAssistantThinking runs on the image
				// step's output, before this step.
				stateOf96(r).preserveLatestThinking = shouldPreserveLatestAssistantThinking(in)
				return stripStaleThinkingSignaturesForCompactionReplay(in, r.Log(Rule96StaleCompactionSignatures)), nil
			}},
			{Rule: Rule96InvalidSignatures, When: signedOrPreserved, Apply: func(r *Run, in []Message) ([]Message, error) {
				return StripInvalidThinkingSignatures(in, stateOf96(r).preserveLatestThinking, r.Log(Rule96InvalidSignatures)), nil
			}},
			DropReasoningStep(),
			DropThinkingStep(),
			{Rule: Rule96ToolCallInputs, Apply: func(r *Run, in []Message) ([]Message, error) {
				return SanitizeToolCallInputs(in, ToolInputOptions{
					Allowed:       NormalizeAllowedToolNames(r.Opts.AllowedToolNames),
					OwnedThinking: r.OwnedThinking,
				}, toolInputRelease96(), r.Log(Rule96ToolCallInputs)), nil
			}},
			pairing(Rule96ResponsesPairing, ResponsesRepair, AbortedText),
			{Rule: Rule96StaleOpenAIReasoning, When: IsResponses, Apply: func(r *Run, in []Message) ([]Message, error) {
				return dropStaleOpenAIReasoning(in, stateOf96(r).latestSwitch, r.Log(Rule96StaleOpenAIReasoning)), nil
			}},
			Pure(Rule96ResponsesToolCallIDs, IsResponses, normalizeOpenAIResponsesToolCallIDs),
			FunctionCallPairsStep(),
			pairing(Rule96Pairing, NotResponsesRepair, DefaultText),
			{Rule: Rule96ToolCallIDs, When: func(r *Run) bool { return !r.Responses && PolSanitizeIDs(r) }, Apply: func(r *Run, in []Message) ([]Message, error) {
				pol := r.Policy
				return SanitizeToolCallIDs(in, pol.ToolCallIDMode, ToolIDOptions{
					PreserveNative:       pol.PreserveNativeAnthropicToolUseIDs,
					PreserveSafeThinking: r.OwnedThinking,
					Allowed:              NormalizeAllowedToolNames(r.Opts.AllowedToolNames),
					DuplicateStyle:       pol.DuplicateToolCallIDStyle,
				}, toolIDRelease96(), r.Log(Rule96ToolCallIDs)), nil
			}},
			ToolResultDetailsStep(),
			StaleUsageStep(),
			{Rule: Rule96UsageSnapshots, Apply: func(r *Run, in []Message) ([]Message, error) {
				return EnsureAssistantUsageSnapshots(in, snapshotUsage96, r.Log(Rule96UsageSnapshots)), nil
			}},
			ProviderHookStep(func(r *Run) bool {
				// 2026.9.6: the google-gemini replay family's sanitizeReplayHistory
				// (provider-model-shared buildProviderReplayFamilyHooks ->
				// provider-replay-helpers sanitizeGoogleGeminiReplayHistory).
				return policy.Resolve96(policy.Route{Provider: r.Opts.Provider, API: r.Opts.API, Model: r.Opts.Model}).Family == "google-gemini"
			}),
			pairing(Rule96ResponsesPairingAfterHooks, ResponsesRepair, AbortedText),
			{Rule: Rule96ResponsesInvariant, When: IsResponses, Apply: assertResponsesInvariant},
			GoogleTurnOrderingStep(),
			{Rule: Rule96ResponsesInvariant, When: func(r *Run) bool { return r.Responses && r.Policy.ApplyGoogleTurnOrdering }, Apply: assertResponsesInvariant},
		},
		Validate: []Step{
			GeminiTurnsStep(),
			{Rule: Rule96AnthropicTurns, When: PolValidateAnthropic, Apply: func(r *Run, in []Message) ([]Message, error) {
				// shouldMergeConsecutiveUserTurns: only the direct Messages API
				// under append-only runtime context keeps user turns apart.
				merge := !(r.Policy.AppendOnlyRuntimeContext && r.Opts.API == "anthropic-messages")
				return validateAnthropicTurns96(in, merge, r.Log(Rule96AnthropicTurns)), nil
			}},
		},
		Limit: []Step{
			Pure(Rule96Heartbeat, nil, filterHeartbeatTranscriptArtifacts),
			// The runner repairs pairing before the context engine and once
			// more after it (the default engine returns the list unchanged).
			pairing(Rule96LimitPairing, PolRepairPairing, responsesText),
			pairing(Rule96LimitPairing, PolRepairPairing, responsesText),
		},
	}
}

// assertResponsesInvariant is assertOpenAIResponsesToolUseResultInvariant:
// on the Responses APIs every tool call must be followed by its results
// before any other message, else 9.6 throws and sends nothing.
func assertResponsesInvariant(r *Run, in []Message) ([]Message, error) {
	type pend struct {
		id    string
		index int
	}
	var pending []pend
	fail := func(reason, id string, index int) error {
		if id != "" {
			id = " toolCallId=" + id
		}
		return &OpenClawFailure{What: fmt.Sprintf("invalid_replay_transcript: OpenAI Responses replay contains %s%s at message index %d (OpenClaw 2026.9.6 throws: it sends nothing)", reason, id, index)}
	}
	for i, m := range in {
		rl := ""
		if m != nil {
			rl = jsvalue.Role(m)
		}
		if len(pending) > 0 && rl != "toolResult" {
			return nil, fail("dangling_tool_call", pending[0].id, pending[0].index)
		}
		if !IsJSObjectMessage(m) {
			continue
		}
		if rl == "toolResult" {
			id := toolResultID96(m)
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
		for _, c := range ToolCallsOf(m) {
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

// validateAnthropicTurns96 is 9.6's validateAnthropicTurns
// (dist/embedded-agent-helpers-*.mjs): consecutive assistant turns are now
// merged first (as validateGeminiTurns does), then dangling tool calls are
// stripped, then consecutive user turns merged unless mergeUsers is false
// (shouldMergeConsecutiveUserTurns).
func validateAnthropicTurns96(in []Message, mergeUsers bool, log *ChangeLog) []Message {
	msgs := StripDanglingAnthropicToolUses(MergeConsecutive(in, "assistant", MergeAssistantTurns, log), log)
	if !mergeUsers {
		return msgs
	}
	return MergeConsecutive(msgs, "user", MergeUserTurns, log)
}
