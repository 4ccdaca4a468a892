// Package sanitize is what the OpenClaw releases oc reproduces share of the
// replay sanitize stage: what OpenClaw does to a session's messages before a
// provider sees them. It holds the types (Message, Options, Result, Change,
// ModelSnapshot, OpenClawFailure), the pipeline framework (a Pipeline is a
// table of Steps per stage, run by Pipeline.Run with a Run threading the
// route's policy, the change log and the values a release's Prepare
// derives), the steps every release runs the same way (DropReasoningStep,
// ..., ProviderHookStep), the rules and helpers more than one release uses,
// the parts of the LLM boundary the releases share (ConvertToLLM,
// StripHistoricalRuntimeContext) and CheckAcceptance.
//
// Each release is its own package that exports its pipeline and its LLM
// boundary: sanitize56 (OpenClaw 2026.5.6) and sanitize96 (OpenClaw
// 2026.9.6); replay.Sanitize picks one by Options.Release. A rule both
// releases have, where they differ in a few places, is one function here
// that takes what differs: a small value each release makes (for example a
// ToolIDRelease, made by sanitize56's and sanitize96's toolIDRelease) or a
// flag (StripInvalidThinkingSignatures' preserveLatest, false for 2026.5.6).
// This package never imports a release package and never asks which release
// runs; a new release is a new package beside the two.
package sanitize

import "github.com/openclaw-tools/oc/pkg/replay/jsvalue"

// Message is one model message as OpenClaw holds it in memory (see
// jsvalue.Message).
type Message = jsvalue.Message
