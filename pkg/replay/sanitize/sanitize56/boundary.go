package sanitize56

import (
	"github.com/openclaw-tools/oc/pkg/replay/sanitize"
)

// The LLM boundary: what OpenClaw 2026.5.6 does to the runner's message list
// (the sanitize pipeline's `limited`) right before the provider converter.
//
//  1. stripHistoricalRuntimeContextCustomMessages (OpenClaw,
//     src/agents/internal-runtime-context.ts): custom messages of type
//     "openclaw.runtime-context" are dropped unless they come after the last
//     user message (those describe the current turn). Without any user message
//     they are all dropped.
//  2. convertToLlm (pi-coding-agent, core/messages.ts): the agent's own message
//     kinds become user messages; user, assistant and toolResult pass through;
//     any other role is dropped.

// runtimeContextAfterLastUser is 2026.5.6's current runtime context: the
// messages after the last user message.
func runtimeContextAfterLastUser(msgs []sanitize.Message, lastUser int) (from, to int) {
	return lastUser + 1, len(msgs) - 1
}

// Boundary is OpenClaw 2026.5.6's LLM boundary through pi-ai 0.73:
// runtime-context messages from earlier turns dropped, then pi's
// convertToLlm.
func Boundary(msgs []sanitize.Message) []sanitize.Message {
	return sanitize.ConvertToLLM(sanitize.StripHistoricalRuntimeContext(msgs, runtimeContextAfterLastUser))
}
