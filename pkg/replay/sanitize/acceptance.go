package sanitize

import (
	"fmt"
	"strings"

	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/internal/lazyre"
	"github.com/openclaw-tools/oc/pkg/policy"
	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
)

// wireRole is the role a message has on the wire: summaries and custom
// messages reach the model as user text.
func wireRole(m Message) string {
	switch r := jsvalue.Role(m); r {
	case "compactionSummary", "branchSummary", "custom":
		return "user"
	default:
		return r
	}
}

var (
	strict9ID = lazyre.New(`^[a-zA-Z0-9]{9}$`)
	strictID  = lazyre.New(`^[a-zA-Z0-9]+$`)
)

// CheckAcceptance looks for what providers are known to reject in the
// messages they are handed (research/replay-policy.md §7): empty turns,
// blank text, unpaired tool calls and results, a history that does not
// start with a user turn on Gemini, and tool-call ids outside the
// provider's alphabet. It is a heuristic: an empty list means none of
// these known causes is present.
func CheckAcceptance(api string, all []Message, pol policy.Policy) []string {
	// Messages that are not objects never reach the wire (the LLM boundary
	// drops them).
	msgs := make([]Message, 0, len(all))
	for _, m := range all {
		if _, ok := jsvalue.NonObjectValue(m); !ok {
			msgs = append(msgs, m)
		}
	}
	var problems []string
	add := func(i int, format string, args ...any) {
		if len(problems) < 20 {
			problems = append(problems, fmt.Sprintf("message %d: ", i)+fmt.Sprintf(format, args...))
		}
	}
	pending := map[string]bool{}
	var order []string
	flush := func(i int, format string) {
		for _, id := range order {
			if pending[id] {
				add(i, format, id)
			}
		}
		pending, order = map[string]bool{}, nil
	}
	for i, m := range msgs {
		r := wireRole(m)
		switch content := m.Get("content").(type) {
		case []any:
			if len(content) == 0 && (r != "assistant" || api == "bedrock-converse-stream" || api == "anthropic-messages") {
				add(i, "%s turn with empty content", r)
			}
			for _, b := range content {
				if bm, ok := jsvalue.AsObject(b); ok && jsvalue.StringOrEmpty(bm, "type") == "text" && jsjson.Blank(jsvalue.StringOrEmpty(bm, "text")) && r != "assistant" {
					add(i, "blank text block in a %s turn", r)
				}
			}
		case string:
			if jsjson.Blank(content) {
				add(i, "blank %s text", r)
			}
		}
		switch r {
		case "assistant":
			flush(i, "tool call %s has no result before the next assistant turn")
			for _, c := range ToolCallsOf(m) {
				pending[c.ID] = true
				order = append(order, c.ID)
				switch {
				case pol.ToolCallIDMode == policy.IDStrict9 && !strict9ID().MatchString(c.ID):
					add(i, "tool call id %q is not 9 letters/digits (Mistral rejects it)", c.ID)
				case pol.ToolCallIDMode == policy.IDStrict && !strictID().MatchString(c.ID) && !nativeKimiToolCallID().MatchString(c.ID) &&
					!(pol.PreserveNativeAnthropicToolUseIDs && nativeAnthropicToolUseID().MatchString(c.ID)):
					add(i, "tool call id %q has characters outside [A-Za-z0-9]", c.ID)
				case api == "openai-completions" && strings.HasPrefix(c.ID, "|"):
					// pi-ai keeps the part before "|": an empty tool_call id,
					// while the result keeps the whole id and pi-ai adds a
					// "No result provided" result for the empty one.
					add(i, "tool call id %q is sent as an empty tool_call id (pi-ai keeps the part before |), with its result under %q and a synthetic \"No result provided\" result: the provider will reject the request", c.ID, c.ID)
				}
			}
		case "toolResult":
			id := ToolResultID(m)
			if !pending[id] {
				add(i, "tool result %s has no matching tool call before it", id)
			}
			delete(pending, id)
		}
	}
	flush(len(msgs), "tool call %s has no result")
	if (policy.IsGoogleAPI(api) || api == "google-vertex") && len(msgs) > 0 && wireRole(msgs[0]) != "user" {
		add(0, "history starts with a %s turn (Gemini wants a user turn first)", wireRole(msgs[0]))
	}
	if strings.HasPrefix(api, "google") {
		for i := 1; i < len(msgs); i++ {
			if wireRole(msgs[i]) == "assistant" && wireRole(msgs[i-1]) == "assistant" {
				add(i, "two assistant turns in a row")
			}
		}
	}
	return problems
}
