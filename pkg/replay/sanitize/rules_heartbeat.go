package sanitize

import (
	"strings"
	"unicode/utf8"

	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/internal/lazyre"
	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
)

// filterHeartbeatPairs (src/auto-reply/heartbeat-filter.ts): a heartbeat poll
// and the assistant's bare HEARTBEAT_OK reply carry nothing; the runner
// drops such pairs before the model call.

const (
	heartbeatToken        = "HEARTBEAT_OK"
	heartbeatPoll         = "[OpenClaw heartbeat poll]"
	HeartbeatTaskPrefix   = "Run the following periodic tasks (only those due based on their intervals):"
	heartbeatTaskAck      = "After completing all due tasks, reply HEARTBEAT_OK."
	heartbeatAckMaxChars  = 300
	heartbeatMarkupLeadRE = "^[*`~_]+"
)

var (
	htmlTagRE        = lazyre.New(`<[^>]*>`)
	nbspRE           = lazyre.New(`(?i)&nbsp;`)
	markupLeadRE     = lazyre.New(heartbeatMarkupLeadRE)
	markupTrailingRE = lazyre.New("[*`~_]+$")
)

// messageText is resolveMessageText: the joined text blocks and whether
// anything else was there.
func messageText(content any) (string, bool) { return JoinTextBlocks(content, textBlockKind56) }

// BlockKind is how resolveMessageText treats a content block type.
type BlockKind int

const (
	BlockOther BlockKind = iota // makes the message not pure text
	BlockText                   // joined
	BlockSkip                   // ignored
)

// textBlockKind56 is 2026.5.6's: only "text" blocks are text.
func textBlockKind56(typ string) BlockKind {
	if typ == "text" {
		return BlockText
	}
	return BlockOther
}

// JoinTextBlocks joins the text of a message's content blocks by the
// release's block kinds, and says whether a block of another kind (or one
// without a type, or a text block whose text is not a string) was there.
func JoinTextBlocks(content any, kind func(typ string) BlockKind) (string, bool) {
	switch c := content.(type) {
	case string:
		return c, false
	case []any:
		if len(c) == 1 { // one text block: its text, without a copy
			if bm, ok := jsvalue.AsObject(c[0]); ok && jsvalue.Has(bm, "type") && kind(jsvalue.StringOrEmpty(bm, "type")) == BlockText {
				if t, ok := jsvalue.StringMember(bm, "text"); ok {
					return t, false
				}
			}
		}
		var b strings.Builder
		nonText := false
		for _, blk := range c {
			bm, ok := jsvalue.AsObject(blk)
			if !ok || !jsvalue.Has(bm, "type") {
				nonText = true
				continue
			}
			switch kind(jsvalue.StringOrEmpty(bm, "type")) {
			case BlockSkip:
				continue
			case BlockOther:
				nonText = true
				continue
			}
			t, ok := jsvalue.StringMember(bm, "text")
			if !ok {
				nonText = true
				continue
			}
			b.WriteString(t)
		}
		return b.String(), nonText
	case nil:
		return "", false
	}
	return "", true
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

func isHeartbeatUserMessage(m Message) bool {
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
	return strings.HasPrefix(t, HeartbeatTaskPrefix) && strings.Contains(t, heartbeatTaskAck)
}

func isHeartbeatOkResponse(m Message) bool {
	if jsvalue.Role(m) != "assistant" {
		return false
	}
	text, nonText := messageText(m.Get("content"))
	if nonText {
		return false
	}
	return HeartbeatShouldSkip(text)
}

// tokenAtEnd is /HEARTBEAT_OK[^\w]{0,4}$/ (four UTF-16 units at most).
func tokenAtEnd(s string) (int, bool) {
	idx := strings.LastIndex(s, heartbeatToken)
	if idx < 0 {
		return 0, false
	}
	suffix := s[idx+len(heartbeatToken):]
	if jsjson.Len(suffix) > 4 {
		return 0, false
	}
	for _, r := range suffix {
		if r < utf8.RuneSelf && (r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return 0, false
		}
	}
	return idx, true
}

// stripTokenAtEdges removes HEARTBEAT_OK at the start or end of the text.
func stripTokenAtEdges(raw string) (string, bool) {
	text := jsjson.Trim(raw)
	if text == "" {
		return "", false
	}
	if !strings.Contains(text, heartbeatToken) {
		return text, false
	}
	didStrip := false
	for changed := true; changed; {
		changed = false
		next := jsjson.Trim(text)
		if strings.HasPrefix(next, heartbeatToken) {
			text = jsvalue.TrimStart(next[len(heartbeatToken):])
			didStrip, changed = true, true
			continue
		}
		if idx, ok := tokenAtEnd(next); ok {
			before := jsvalue.TrimEnd(next[:idx])
			if before == "" {
				text = ""
			} else {
				text = jsvalue.TrimEnd(before + jsvalue.TrimStart(next[idx+len(heartbeatToken):]))
			}
			didStrip, changed = true, true
		}
	}
	return jsjson.Trim(jsvalue.CollapseSpace(text)), didStrip
}

// normalizeHeartbeatMarkup replaces HTML tags and &nbsp; with spaces and
// strips markup characters at both ends. Text without '<' or '&' and
// without markup at its ends is returned as is, without the regexps.
func normalizeHeartbeatMarkup(t string) string {
	isMarkup := func(c byte) bool { return c == '*' || c == '`' || c == '~' || c == '_' }
	if strings.IndexByte(t, '<') < 0 && strings.IndexByte(t, '&') < 0 && !isMarkup(t[0]) && !isMarkup(t[len(t)-1]) {
		return t
	}
	normalized := htmlTagRE().ReplaceAllLiteralString(t, " ")
	normalized = nbspRE().ReplaceAllLiteralString(normalized, " ")
	normalized = markupLeadRE().ReplaceAllLiteralString(normalized, "")
	return markupTrailingRE().ReplaceAllLiteralString(normalized, "")
}

// HeartbeatShouldSkip is stripHeartbeatToken(text, {mode: "heartbeat"}).shouldSkip.
func HeartbeatShouldSkip(raw string) bool {
	t := jsjson.Trim(raw)
	if t == "" {
		return true
	}
	// The normalisation only puts spaces where it removes text, so it
	// cannot make the token appear.
	if !strings.Contains(t, heartbeatToken) {
		return false
	}
	normalized := normalizeHeartbeatMarkup(t)
	origText, origStrip := stripTokenAtEdges(t)
	normText, normStrip := origText, origStrip
	if normalized != t {
		normText, normStrip = stripTokenAtEdges(normalized)
	}
	text, did := normText, normStrip
	if origStrip && origText != "" {
		text, did = origText, origStrip
	}
	if !did {
		return false
	}
	if text == "" {
		return true
	}
	return jsjson.Len(jsjson.Trim(text)) <= heartbeatAckMaxChars
}

// filterHeartbeatPairs drops each heartbeat poll directly followed by a
// bare HEARTBEAT_OK reply.
func filterHeartbeatPairs(in []Message, log *ChangeLog) []Message {
	if len(in) < 2 {
		return in
	}
	var out []Message
	for i := 0; i < len(in); i++ {
		if i+1 < len(in) && isHeartbeatUserMessage(in[i]) && isHeartbeatOkResponse(in[i+1]) {
			if out == nil {
				out = append(make([]Message, 0, len(in)), in[:i]...)
			}
			log.Add(i, KindMessageDropped, "heartbeat poll and its HEARTBEAT_OK reply dropped")
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
