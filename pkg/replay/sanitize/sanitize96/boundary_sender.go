package sanitize96

import (
	"strings"
	"unicode/utf8"

	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
	"github.com/openclaw-tools/oc/pkg/replay/sanitize"
)

// 2026.9.6's projectPersistedSenderContext (dist/history-image-prune-*.mjs):
// a user message whose __openclaw metadata names a sender (readPersistedSender
// of history-image-prune: senderId, senderName, senderUsername, NULs removed
// and trimmed; any one of them is enough) gets a "Conversation info: ⟦openclaw:ctx⟧" JSON block with that
// sender before its first text (after a leading timestamp envelope), or the
// sender merged into such a block when the text already starts with one
// (mergeSenderIntoLeadingConversationInfo). Inter-session messages (by
// provenance or by their "[Inter-session message]" prefix) are left alone.

const (
	conversationInfoLabel      = "Conversation info: " + inboundContextMarker
	interSessionPromptPrefix   = "[Inter-session message]"
	maxContextJSONStringChars  = 2000
	contextJSONTruncatedSuffix = "…[truncated]"
)

// persistedSender is readPersistedSender's {id, name, username}.
type persistedSender struct{ id, name, username string }

func readPersistedSender(m sanitize.Message) (persistedSender, bool) {
	meta, ok := m.Get("__openclaw").(*jsvalue.Object)
	if !ok {
		return persistedSender{}, false
	}
	norm := func(key string) string {
		s, _ := meta.Get(key).(string)
		return jsjson.Trim(strings.ReplaceAll(s, "\x00", ""))
	}
	s := persistedSender{id: norm("senderId"), name: norm("senderName"), username: norm("senderUsername")}
	return s, s.id != "" || s.name != "" || s.username != ""
}

// object is the sender as JSON.stringify writes {id, name, username}
// (undefined members left out), its strings sanitized.
func (s persistedSender) object() *jsvalue.Object {
	o := jsvalue.NewObject()
	if s.id != "" {
		o.Set("id", sanitizeContextJSONString(s.id))
	}
	if s.name != "" {
		o.Set("name", sanitizeContextJSONString(s.name))
	}
	if s.username != "" {
		o.Set("username", sanitizeContextJSONString(s.username))
	}
	return o
}

// sanitizeContextJSONString is truncateContextJsonString then
// neutralizeMarkdownFences (channel-prompt-context).
func sanitizeContextJSONString(s string) string {
	if jsjson.Len(s) > maxContextJSONStringChars {
		s = strings.TrimRightFunc(truncateUTF16Safe(s, 1986), jsjson.IsSpace) + contextJSONTruncatedSuffix
	}
	return strings.ReplaceAll(s, "```", "`\u200b``")
}

// truncateUTF16Safe keeps at most n UTF-16 units without splitting a
// surrogate pair.
func truncateUTF16Safe(s string, n int) string {
	units := 0
	for i, r := range s {
		w := 1
		if r > 0xFFFF {
			w = 2
		}
		if units+w > n {
			return s[:i]
		}
		units += w
	}
	return s
}

// sanitizeContextJSONValue is sanitizeContextJsonValue on a parsed value.
func sanitizeContextJSONValue(v any) any {
	switch x := v.(type) {
	case string:
		return sanitizeContextJSONString(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = sanitizeContextJSONValue(e)
		}
		return out
	case *jsvalue.Object:
		o := &jsvalue.Object{Members: make([]jsvalue.Member, len(x.Members))}
		for i, mb := range x.Members {
			o.Members[i] = jsvalue.Member{Key: mb.Key, Value: sanitizeContextJSONValue(mb.Value)}
		}
		return o
	}
	return v
}

// formatContextJSONBlock is formatContextJsonBlock: label, fenced JSON.
func formatContextJSONBlock(label string, payload *jsvalue.Object) (string, error) {
	b, err := jsvalue.AppendJS(nil, payload)
	if err != nil {
		return "", err
	}
	return label + "\n```json\n" + string(b) + "\n```", nil
}

func isInterSessionUser(m sanitize.Message) bool {
	if p, ok := m.Get("provenance").(*jsvalue.Object); ok && p.Get("kind") == "inter_session" {
		return true
	}
	var first string
	found := false
	switch x := m.Get("content").(type) {
	case string:
		first, found = x, true
	case []any:
		for _, b := range x {
			if bm, ok := b.(*jsvalue.Object); ok && bm.Get("type") == "text" {
				if s, ok := bm.Get("text").(string); ok {
					first, found = s, true
					break
				}
			}
		}
	}
	if !found {
		return false
	}
	env := sanitize.LeadingTimestampPrefix().FindString(first)
	return strings.HasPrefix(first[len(env):], interSessionPromptPrefix)
}

// projectPersistedSenderContext prepends or merges the persisted sender.
func projectPersistedSenderContext(c *boundaryRun, msgs []sanitize.Message) []sanitize.Message {
	return mapMessages(msgs, func(_ int, m sanitize.Message) sanitize.Message {
		if m.Get("role") != "user" || isInterSessionUser(m) {
			return m
		}
		sender, ok := readPersistedSender(m)
		if !ok {
			return m
		}
		context, err := formatContextJSONBlock(conversationInfoLabel, jsvalue.NewObject("sender", sender.object()))
		if err != nil {
			c.fail("sender context: %v", err)
			return m
		}
		project := func(text string) (string, bool) {
			env := sanitize.LeadingTimestampPrefix().FindString(text)
			body := text[len(env):]
			if body == context || strings.HasPrefix(body, context+"\n\n") {
				return text, false
			}
			if merged, ok := mergeSenderIntoConversationInfo(c, env, body, sender); ok {
				return merged, merged != text
			}
			if body == "" {
				return env + context, true
			}
			return env + context + "\n\n" + body, true
		}
		switch x := m.Get("content").(type) {
		case string:
			next, changed := project(x)
			if !changed {
				return m
			}
			out := m.With("content", next)
			return out
		case []any:
			idx := -1
			for i, b := range x {
				if bm, ok := b.(*jsvalue.Object); ok && bm.Get("type") == "text" {
					if _, ok := bm.Get("text").(string); ok {
						idx = i
						break
					}
				}
			}
			var next []any
			if idx < 0 {
				next = append([]any{jsvalue.TextBlock(context)}, x...)
			} else {
				bm := x[idx].(*jsvalue.Object)
				text, changed := project(bm.Get("text").(string))
				if !changed {
					return m
				}
				nb := bm.With("text", text)
				next = append([]any(nil), x...)
				next[idx] = nb
			}
			out := m.With("content", next)
			return out
		}
		return m
	})
}

// mergeSenderIntoConversationInfo is mergeSenderIntoLeadingConversationInfo:
// a body starting with the Conversation info JSON block gets that block
// rewritten as {...payload, sender}.
func mergeSenderIntoConversationInfo(c *boundaryRun, env, body string, sender persistedSender) (string, bool) {
	prefix := conversationInfoLabel + "\n```json\n"
	if !strings.HasPrefix(body, prefix) {
		return "", false
	}
	end := strings.Index(body[len(prefix):], "\n```")
	if end < 0 {
		return "", false
	}
	end += len(prefix)
	raw := body[len(prefix):end]
	v, err := jsvalue.Parse(raw)
	if err != nil || !utf8.ValidString(raw) {
		return "", false
	}
	payload, ok := jsvalue.AsObject(v)
	if !ok {
		return "", false
	}
	obj := sanitizeContextJSONValue(payload).(*jsvalue.Object)
	obj.Set("sender", sender.object())
	block, err := formatContextJSONBlock(conversationInfoLabel, obj)
	if err != nil {
		c.fail("sender context: %v", err)
		return "", false
	}
	return env + block + body[end+4:], true
}
