package sanitize

import (
	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
)

// What the LLM boundaries of the releases share (each release's Boundary is
// in its package): dropping runtime-context custom messages of earlier turns
// (stripHistoricalRuntimeContextCustomMessages, with the release's idea of
// the current ones) and pi's convertToLlm (pi-coding-agent,
// core/messages.ts), which makes the agent's own message kinds user
// messages.

// RuntimeContextCustomType is the customType of OpenClaw's runtime-context messages.
const RuntimeContextCustomType = "openclaw.runtime-context"

// Texts pi's convertToLlm wraps summaries in.
const (
	compactionSummaryPrefix = "The conversation history before this point was compacted into the following summary:\n\n<summary>\n"
	compactionSummarySuffix = "\n</summary>"
	branchSummaryPrefix     = "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
	branchSummarySuffix     = "</summary>"
)

// IsRuntimeContextMessage: a custom message of type RuntimeContextCustomType.
func IsRuntimeContextMessage(m Message) bool {
	return m.Get("role") == "custom" && m.Get("customType") == RuntimeContextCustomType
}

// StripHistoricalRuntimeContext drops the runtime-context custom messages
// that are not current: all of them without a user message, else those
// outside the range current picks around the last user message (from and
// to inclusive). The input is not modified; it is returned as is when
// nothing is dropped.
func StripHistoricalRuntimeContext(msgs []Message, current func(msgs []Message, lastUser int) (from, to int)) []Message {
	lastUser, found := -1, false
	for i, m := range msgs {
		if m.Get("role") == "user" {
			lastUser = i
		}
		if IsRuntimeContextMessage(m) {
			found = true
		}
	}
	if !found {
		return msgs
	}
	from, to := 0, -1
	if lastUser != -1 {
		from, to = current(msgs, lastUser)
	}
	out := make([]Message, 0, len(msgs))
	for i, m := range msgs {
		if IsRuntimeContextMessage(m) && (lastUser == -1 || i < from || i > to) {
			continue
		}
		out = append(out, m)
	}
	return out
}

// ConvertToLLM is pi's convertToLlm: bashExecution, custom, branchSummary and
// compactionSummary messages become user messages (bashExecution marked
// excludeFromContext is dropped), user/assistant/toolResult pass through and
// other roles are dropped. Messages it creates carry the source timestamp.
func ConvertToLLM(msgs []Message) []Message {
	out := make([]Message, 0, len(msgs))
	for _, m := range msgs {
		role, _ := m.Get("role").(string)
		ts, hasTS := m.Lookup("timestamp")
		user := func(content any) Message {
			u := jsvalue.NewObject("role", "user", "content", content)
			if hasTS {
				u.Set("timestamp", ts)
			}
			return u
		}
		switch role {
		case "user", "assistant", "toolResult":
			out = append(out, m)
		case "bashExecution":
			if jsvalue.Truthy(m.Get("excludeFromContext")) {
				continue
			}
			out = append(out, user([]any{jsvalue.TextBlock(bashExecutionText(m))}))
		case "custom":
			c, ok := m.Lookup("content")
			if s, isStr := c.(string); isStr {
				out = append(out, user([]any{jsvalue.TextBlock(s)}))
			} else if ok {
				out = append(out, user(c))
			} else {
				out = append(out, user(jsvalue.Undefined{}))
			}
		case "branchSummary":
			s, ok := m.Lookup("summary")
			out = append(out, user([]any{jsvalue.TextBlock(branchSummaryPrefix + jsvalue.ToString(s, ok) + branchSummarySuffix)}))
		case "compactionSummary":
			s, ok := m.Lookup("summary")
			out = append(out, user([]any{jsvalue.TextBlock(compactionSummaryPrefix + jsvalue.ToString(s, ok) + compactionSummarySuffix)}))
		}
	}
	return out
}

// bashExecutionText is pi's bashExecutionToText.
func bashExecutionText(m Message) string {
	cmd, hasCmd := m.Lookup("command")
	text := "Ran `" + jsvalue.ToString(cmd, hasCmd) + "`\n"
	if out, ok := m.Lookup("output"); jsvalue.Truthy(out) {
		text += "```\n" + jsvalue.ToString(out, ok) + "\n```"
	} else {
		text += "(no output)"
	}
	code, hasCode := m.Lookup("exitCode")
	if jsvalue.Truthy(m.Get("cancelled")) {
		text += "\n\n(command cancelled)"
	} else if hasCode && code != nil && !jsvalue.StrictEqual(code, 0) {
		text += "\n\nCommand exited with code " + jsvalue.ToString(code, true)
	}
	if p, ok := m.Lookup("fullOutputPath"); jsvalue.Truthy(m.Get("truncated")) && jsvalue.Truthy(p) {
		text += "\n\n[Output truncated. Full output: " + jsvalue.ToString(p, ok) + "]"
	}
	return text
}
