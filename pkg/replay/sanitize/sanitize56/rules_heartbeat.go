package sanitize56

import (
	"strings"

	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
	"github.com/openclaw-tools/oc/pkg/replay/sanitize"
)

// 2026.5.6's filterHeartbeatPairs (src/auto-reply/heartbeat-filter.ts): a heartbeat poll
// and the assistant's bare HEARTBEAT_OK reply carry nothing; the runner
// drops such pairs before the model call.

const (
	heartbeatPoll    = "[OpenClaw heartbeat poll]"
	heartbeatTaskAck = "After completing all due tasks, reply HEARTBEAT_OK."
)

// messageText is resolveMessageText: the joined text blocks and whether
// anything else was there.
func messageText(content any) (string, bool) {
	return sanitize.JoinTextBlocks(content, textBlockKind)
}

// textBlockKind is 2026.5.6's: only "text" blocks are text.
func textBlockKind(typ string) sanitize.BlockKind {
	if typ == "text" {
		return sanitize.BlockText
	}
	return sanitize.BlockOther
}

// firstNonSpace is the first non-white-space rune of a message's joined
// text blocks (0 when none), to rule out most messages without joining.
func firstNonSpace(content any) rune {
	scan := func(s string) rune {
		for _, r := range s {
			if !jsjson.IsSpace(r) {
				return r
			}
		}
		return 0
	}
	switch c := content.(type) {
	case string:
		return scan(c)
	case []any:
		for _, b := range c {
			bm, ok := jsvalue.AsObject(b)
			if !ok || jsvalue.StringOrEmpty(bm, "type") != "text" {
				continue
			}
			if r := scan(jsvalue.StringOrEmpty(bm, "text")); r != 0 {
				return r
			}
		}
	}
	return 0
}

func isHeartbeatUserMessage(m sanitize.Message) bool {
	if jsvalue.Role(m) != "user" {
		return false
	}
	if r := firstNonSpace(m.Get("content")); r != '[' && r != 'R' {
		return false
	}
	text, _ := messageText(m.Get("content"))
	t := jsjson.Trim(text)
	if t == "" {
		return false
	}
	if t == heartbeatPoll {
		return true
	}
	return strings.HasPrefix(t, sanitize.HeartbeatTaskPrefix) && strings.Contains(t, heartbeatTaskAck)
}

func isHeartbeatOkResponse(m sanitize.Message) bool {
	if jsvalue.Role(m) != "assistant" {
		return false
	}
	text, nonText := messageText(m.Get("content"))
	if nonText {
		return false
	}
	return sanitize.HeartbeatShouldSkip(text)
}

// filterHeartbeatPairs drops each heartbeat poll directly followed by a
// bare HEARTBEAT_OK reply.
func filterHeartbeatPairs(in []sanitize.Message, log *sanitize.ChangeLog) []sanitize.Message {
	if len(in) < 2 {
		return in
	}
	var out []sanitize.Message
	for i := 0; i < len(in); i++ {
		if i+1 < len(in) && isHeartbeatUserMessage(in[i]) && isHeartbeatOkResponse(in[i+1]) {
			if out == nil {
				out = append(make([]sanitize.Message, 0, len(in)), in[:i]...)
			}
			log.Add(i, sanitize.KindMessageDropped, "heartbeat poll and its HEARTBEAT_OK reply dropped")
			i++
			continue
		}
		if out != nil {
			out = append(out, in[i])
		}
	}
	if out == nil {
		return in
	}
	return out
}
