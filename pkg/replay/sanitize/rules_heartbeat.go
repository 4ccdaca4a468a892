package sanitize

import (
	"strings"
	"unicode/utf8"

	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/internal/lazyre"
	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
)

// What the releases' heartbeat filters share (src/auto-reply/heartbeat-filter.ts,
// src/auto-reply/tokens.ts): the HEARTBEAT_OK token and the task prompt,
// resolveMessageText's joining of text blocks, and stripHeartbeatToken.

const (
	heartbeatToken = "HEARTBEAT_OK"
	// HeartbeatTaskPrefix starts the heartbeat prompt of periodic tasks.
	HeartbeatTaskPrefix   = "Run the following periodic tasks (only those due based on their intervals):"
	heartbeatAckMaxChars  = 300
	heartbeatMarkupLeadRE = "^[*`~_]+"
)

var (
	htmlTagRE        = lazyre.New(`<[^>]*>`)
	nbspRE           = lazyre.New(`(?i)&nbsp;`)
	markupLeadRE     = lazyre.New(heartbeatMarkupLeadRE)
	markupTrailingRE = lazyre.New("[*`~_]+$")
)

// BlockKind is how resolveMessageText treats a content block type.
type BlockKind int

const (
	BlockOther BlockKind = iota // makes the message not pure text
	BlockText                   // joined
	BlockSkip                   // ignored
)

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
