package policy

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Release names an OpenClaw release whose replay rules oc reproduces.
type Release string

// The releases oc knows. The zero value means 2026.5.6, the JSONL-era
// reference release, so that existing callers keep their meaning.
const (
	Release56 Release = "2026.5.6"
	Release96 Release = "2026.9.6"
)

// Releases lists the known releases, oldest first.
func Releases() []Release { return []Release{Release56, Release96} }

// ParseRelease accepts a release name as users write it ("2026.9.6",
// "v2026.9.6").
func ParseRelease(s string) (Release, error) {
	for _, r := range Releases() {
		if s == string(r) || s == "v"+string(r) {
			return r, nil
		}
	}
	return "", fmt.Errorf("unknown OpenClaw release %q (known: 2026.5.6, 2026.9.6)", s)
}

// String is the release name; the zero value is 2026.5.6.
func (r Release) String() string {
	if r == "" {
		return string(Release56)
	}
	return string(r)
}

// ResolveFor is resolveTranscriptPolicy of the given release.
func ResolveFor(rel Release, r Route) Resolution {
	if rel == Release96 {
		return Resolve96(r)
	}
	return Resolve(r)
}

// policy56JSON is the 2026.5.6 shape (the struct tags of Policy).
type policy56JSON Policy

// MarshalJSON prints the policy as the release's resolveTranscriptPolicy
// result would be printed by JSON.stringify: the members of its
// DEFAULT_TRANSCRIPT_POLICY in order, undefined members left out.
func (p Policy) MarshalJSON() ([]byte, error) {
	if p.Release != Release96 {
		return json.Marshal(policy56JSON(p))
	}
	var b bytes.Buffer
	b.WriteByte('{')
	first := true
	member := func(name string, v any) {
		if !first {
			b.WriteByte(',')
		}
		first = false
		k, _ := json.Marshal(name)
		val, _ := json.Marshal(v)
		b.Write(k)
		b.WriteByte(':')
		b.Write(val)
	}
	member("sanitizeMode", p.SanitizeMode)
	member("sanitizeToolCallIds", p.SanitizeToolCallIDs)
	if p.ToolCallIDMode != "" {
		member("toolCallIdMode", p.ToolCallIDMode)
	}
	if p.DuplicateToolCallIDStyle != "" {
		member("duplicateToolCallIdStyle", p.DuplicateToolCallIDStyle)
	}
	member("preserveNativeAnthropicToolUseIds", p.PreserveNativeAnthropicToolUseIDs)
	member("repairToolUseResultPairing", p.RepairToolUseResultPairing)
	member("preserveSignatures", p.PreserveSignatures)
	member("appendOnlyRuntimeContext", p.AppendOnlyRuntimeContext)
	if p.SanitizeThoughtSignatures != nil {
		member("sanitizeThoughtSignatures", p.SanitizeThoughtSignatures)
	}
	member("dropThinkingBlocks", p.DropThinkingBlocks)
	member("dropReasoningFromHistory", p.DropReasoningFromHistory)
	member("applyGoogleTurnOrdering", p.ApplyGoogleTurnOrdering)
	member("validateGeminiTurns", p.ValidateGeminiTurns)
	member("validateAnthropicTurns", p.ValidateAnthropicTurns)
	member("allowSyntheticToolResults", p.AllowSyntheticToolResults)
	b.WriteByte('}')
	return b.Bytes(), nil
}

// WireAPIs is the set of model APIs a release can build a request body for
// without an installable plugin. 2026.9.6 dropped bedrock-converse-stream
// (its provider became a plugin: the oracle's `payload` answers "No API
// provider registered for api: bedrock-converse-stream") and renamed
// openai-codex-responses to openai-chatgpt-responses.
func WireAPIs(rel Release) []string {
	if rel == Release96 {
		return []string{"anthropic-messages", "openai-completions", "openai-responses", "openai-chatgpt-responses",
			"azure-openai-responses", "google-generative-ai", "google-vertex", "mistral-conversations"}
	}
	return []string{"anthropic-messages", "openai-completions", "openai-responses", "openai-codex-responses",
		"azure-openai-responses", "google-generative-ai", "google-vertex", "bedrock-converse-stream", "mistral-conversations"}
}

// BuildsAPI reports whether the release builds requests for api itself.
func BuildsAPI(rel Release, api string) bool {
	for _, a := range WireAPIs(rel) {
		if a == api {
			return true
		}
	}
	return false
}
