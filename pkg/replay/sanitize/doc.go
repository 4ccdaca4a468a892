// Package sanitize is what OpenClaw does to a session's messages before a
// provider sees them, per release: the 2026.5.6 sanitize pipeline
// (pipeline.go, rules_*.go) and the 2026.9.6 one (pipeline96.go,
// rules96_*.go), each step in OpenClaw's order reporting what it changed,
// and the LLM boundary the payload passes through before a wire renderer
// (boundary.go for 2026.5.6, boundary96*.go for 2026.9.6).
//
// A rule both releases have, where they differ in a few places, is one
// function that takes what differs: a small value each release makes (for
// example toolIDRelease56 in rules_toolids.go and toolIDRelease96 in
// rules96_toolids.go) or a flag (stripInvalidThinkingSignatures'
// preserveLatest, false for 2026.5.6). The 9.6 files hold 9.6's own rules
// and its values for the shared ones.
package sanitize

import "github.com/openclaw-tools/oc/pkg/replay/jsvalue"

// Message is one model message as OpenClaw holds it in memory (see
// jsvalue.Message).
type Message = jsvalue.Message
