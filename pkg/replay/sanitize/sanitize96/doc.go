// Package sanitize96 is OpenClaw 2026.9.6's replay sanitize stage,
// mirroring the release's built dist (dist/builtin-openclaw-*.mjs
// sanitizeSessionHistory and validateReplayTurns, region
// src/agents/embedded-agent-runner/replay-history.ts; what
// attempt-history-prepare does before the model call; the dist modules they
// call, named in each file): Pipeline, its steps in OpenClaw's order each
// reporting what it changed, with the Rule names of the steps 2026.9.6
// changed or added; Boundary, the LLM boundary (attempt-llm-boundary.ts)
// the payload passes through before OpenClaw's `stream`; and
// ModelSnapshotsOnBranch, the model snapshots 2026.9.6 reads to date a model
// switch.
//
// The steps and rules every release shares are in package sanitize; this
// package holds 2026.9.6's own rules and its values for the shared ones
// (toolIDRelease, toolInputRelease, imageRelease, assistantBlockRules,
// snapshotUsage, ...).
package sanitize96
