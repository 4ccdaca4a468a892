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

// prepare96 derives what sanitizeSessionHistory computes before its steps.
func prepare96(r *run) {
	api, provider := r.opts.API, r.opts.Provider
	signed := providerRequiresSignedThinking96(provider)
	// shouldAllowProviderOwnedThinkingReplay (embedded-agent-helpers).
	r.ownedThinking = policy.IsAnthropicAPI(api) && r.pol.ValidateAnthropicTurns && (r.pol.PreserveSignatures || signed) && !r.pol.DropThinkingBlocks
	r.responses = isResponsesAPI96(api)
	// readModelSnapshotState over the branch, and the current snapshot.
	if provider == "" && api == "" && r.opts.Model == "" {
		return
	}
	var last *ModelSnapshot
	for i := range r.opts.ModelSnapshots {
		s := &r.opts.ModelSnapshots[i]
		if last != nil && !sameSnapshot(*last, *s) && s.Timestamp != nil {
			ts := *s.Timestamp
			r.latestSwitch = &ts
		}
		last = s
	}
	if last != nil && !sameSnapshot(*last, ModelSnapshot{Provider: provider, ModelAPI: api, ModelID: r.opts.Model}) {
		r.modelChanged = true
		now := float64(r.nowMillis())
		r.latestSwitch = &now
	}
}

func sameSnapshot(a, b ModelSnapshot) bool {
	return a.Provider == b.Provider && a.ModelAPI == b.ModelAPI && a.ModelID == b.ModelID
}

// signedOrPreserved: the provider owns signed thinking or the policy keeps
// signatures (sanitizeSessionHistory's signedThinkingProvider ||
// policy.preserveSignatures).
func signedOrPreserved(r *run) bool {
	return providerRequiresSignedThinking96(r.opts.Provider) || r.pol.PreserveSignatures
}

func pipeline96() pipeline {
	sh := shared()
	pairing := func(rule string, when func(r *run) bool, text func(r *run) string) step {
		return step{rule: rule, when: when, apply: func(r *run, in []Message) ([]Message, error) {
			return r.repairPairing96(in, rule, text(r)), nil
		}}
	}
	responsesText := func(r *run) string {
		if r.responses {
			return missingResultAborted
		}
		return ""
	}
	return pipeline{
		release: policy.Release96,
		prepare: prepare96,
		sanitize: []step{
			pure(Rule96InterSessionMarkers, nil, annotateInterSessionUserMessages96),
			pure(Rule96NormalizeAssistant, nil, normalizeAssistantReplayContent96),
			{rule: RuleImages, apply: func(r *run, in []Message) ([]Message, error) {
				// 9.6 passes sanitizeToolCallIds: false: ids are left to the
				// later step.
				pol := r.pol
				return r.sanitizeImages(in, imageStepOptions{
					idMode:         pol.ToolCallIDMode,
					preserveNative: pol.PreserveNativeAnthropicToolUseIDs,
					preserveSigs:   pol.PreserveSignatures,
					thoughtSigs:    pol.SanitizeThoughtSignatures,
					images96:       true,
				})
			}},
			{rule: Rule96StaleCompactionSignatures, when: signedOrPreserved, apply: func(r *run, in []Message) ([]Message, error) {
				// shouldPreserveLatestAssistantThinking runs on the image
				// step's output, before this step.
				r.preserveLatestThinking = shouldPreserveLatestAssistantThinking(in)
				return stripStaleThinkingSignaturesForCompactionReplay(in, r.step(Rule96StaleCompactionSignatures)), nil
			}},
			{rule: Rule96InvalidSignatures, when: signedOrPreserved, apply: func(r *run, in []Message) ([]Message, error) {
				return stripInvalidThinkingSignatures(in, r.preserveLatestThinking, r.step(Rule96InvalidSignatures)), nil
			}},
			sh.dropReasoning,
			sh.dropThinking,
			{rule: Rule96ToolCallInputs, apply: func(r *run, in []Message) ([]Message, error) {
				return sanitizeToolCallInputs(in, toolInputOptions{
					allowed:       normalizeAllowedToolNames(r.opts.AllowedToolNames),
					ownedThinking: r.ownedThinking,
				}, toolInputRelease96(), r.step(Rule96ToolCallInputs)), nil
			}},
			pairing(Rule96ResponsesPairing, responsesRepair, abortedText),
			{rule: Rule96StaleOpenAIReasoning, when: isResponses, apply: func(r *run, in []Message) ([]Message, error) {
				return dropStaleOpenAIReasoning(in, r.latestSwitch, r.step(Rule96StaleOpenAIReasoning)), nil
			}},
			pure(Rule96ResponsesToolCallIDs, isResponses, normalizeOpenAIResponsesToolCallIDs),
			sh.functionCallPairs,
			pairing(Rule96Pairing, notResponsesRepair, defaultText),
			{rule: Rule96ToolCallIDs, when: func(r *run) bool { return !r.responses && polSanitizeIDs(r) }, apply: func(r *run, in []Message) ([]Message, error) {
				pol := r.pol
				return sanitizeToolCallIDs(in, pol.ToolCallIDMode, toolIDOptions{
					preserveNative:       pol.PreserveNativeAnthropicToolUseIDs,
					preserveSafeThinking: r.ownedThinking,
					allowed:              normalizeAllowedToolNames(r.opts.AllowedToolNames),
					duplicateStyle:       pol.DuplicateToolCallIDStyle,
				}, toolIDRelease96(), r.step(Rule96ToolCallIDs)), nil
			}},
			sh.toolResultDetails,
			sh.staleUsage,
			{rule: Rule96UsageSnapshots, apply: func(r *run, in []Message) ([]Message, error) {
				return ensureAssistantUsageSnapshots(in, snapshotUsage96, r.step(Rule96UsageSnapshots)), nil
			}},
			sh.providerHook,
			pairing(Rule96ResponsesPairingAfterHooks, responsesRepair, abortedText),
			{rule: Rule96ResponsesInvariant, when: isResponses, apply: assertResponsesInvariant},
			sh.googleTurnOrdering,
			{rule: Rule96ResponsesInvariant, when: func(r *run) bool { return r.responses && r.pol.ApplyGoogleTurnOrdering }, apply: assertResponsesInvariant},
		},
		validate: []step{
			sh.geminiTurns,
			{rule: Rule96AnthropicTurns, when: polValidateAnthropic, apply: func(r *run, in []Message) ([]Message, error) {
				// shouldMergeConsecutiveUserTurns: only the direct Messages API
				// under append-only runtime context keeps user turns apart.
				merge := !(r.pol.AppendOnlyRuntimeContext && r.opts.API == "anthropic-messages")
				return validateAnthropicTurns96(in, merge, r.step(Rule96AnthropicTurns)), nil
			}},
		},
		limit: []step{
			pure(Rule96Heartbeat, nil, filterHeartbeatTranscriptArtifacts),
			// The runner repairs pairing before the context engine and once
			// more after it (the default engine returns the list unchanged).
			pairing(Rule96LimitPairing, polRepairPairing, responsesText),
			pairing(Rule96LimitPairing, polRepairPairing, responsesText),
		},
	}
}

// assertResponsesInvariant is assertOpenAIResponsesToolUseResultInvariant:
// on the Responses APIs every tool call must be followed by its results
// before any other message, else 9.6 throws and sends nothing.
func assertResponsesInvariant(r *run, in []Message) ([]Message, error) {
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
		if !isJSObjectMessage(m) {
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
		for _, c := range toolCallsOf(m) {
			// A Map keeps the first insertion's place; set() updates the value.
			found := false
			for k := range pending {
				if pending[k].id == c.id {
					pending[k].index = i
					found = true
				}
			}
			if !found {
				pending = append(pending, pend{c.id, i})
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
func validateAnthropicTurns96(in []Message, mergeUsers bool, log *changeLog) []Message {
	msgs := stripDanglingAnthropicToolUses(mergeConsecutive(in, "assistant", mergeAssistantTurns, log), log)
	if !mergeUsers {
		return msgs
	}
	return mergeConsecutive(msgs, "user", mergeUserTurns, log)
}
