// Package replay previews what OpenClaw 2026.5.6 sends a provider for a
// session: the sanitize pipeline (in OpenClaw's order, each step reporting what
// it changed), the LLM boundary and one wire renderer per API family.
package replay

// Message is one model message as OpenClaw holds it in memory: the shape of
// the oracle's context.messages entries. Numbers are json.Number so that
// values pass through unchanged.
type Message = map[string]any
