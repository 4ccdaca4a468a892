// Package sanitize56 is OpenClaw 2026.5.6's replay sanitize stage, mirroring
// its TypeScript sources (replay-history.ts's sanitizeSessionHistory and
// validateReplayTurns, the embedded runner's heartbeat filter and pairing
// repair before the model call, and the rules under src/agents and
// src/auto-reply they call, named in each file): Pipeline, its steps in
// OpenClaw's order each reporting what it changed, with the Rule names of
// the steps 2026.5.6 has its own way; Boundary, the LLM boundary the
// payload passes through before pi-ai 0.73's wire converters; and
// ContextError, the contexts 2026.5.6 never finishes building.
//
// The steps and rules every release shares are in package sanitize; this
// package holds 2026.5.6's own rules and its values for the shared ones
// (toolIDRelease, toolInputRelease, imageRelease, assistantBlockRules,
// snapshotUsage, ...).
package sanitize56
