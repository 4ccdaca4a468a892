package sanitize56

import (
	"github.com/openclaw-tools/oc/pkg/replay/sanitize"
)

// 2026.5.6's validateAnthropicTurns
// (src/agents/pi-embedded-helpers/turns.ts).

// validateAnthropicTurns strips dangling tool calls, then merges consecutive
// user turns.
func validateAnthropicTurns(in []sanitize.Message, log *sanitize.ChangeLog) []sanitize.Message {
	return sanitize.MergeConsecutive(sanitize.StripDanglingAnthropicToolUses(in, log), "user", sanitize.MergeUserTurns, log)
}
