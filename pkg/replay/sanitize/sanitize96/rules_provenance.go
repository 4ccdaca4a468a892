package sanitize96

import (
	"strings"

	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
	"github.com/openclaw-tools/oc/pkg/replay/sanitize"
)

// OpenClaw 2026.9.6's annotateInterSessionPromptText
// (dist/input-provenance-*.mjs). It replaces an earlier marker with
// stripInterSessionPromptPrefixForDisplay, which keeps the white space after
// the marker (5.6 trimmed it) and removes one line break after the
// explanation.

func stripInterSessionPromptPrefix(text string) string {
	index := strings.Index(text, sanitize.InterSessionHeader)
	if index == -1 {
		return text
	}
	headerEnd := strings.IndexByte(text[index:], '\n')
	var body string
	if headerEnd == -1 {
		body = text[index+len(sanitize.InterSessionHeader):]
	} else {
		body = text[index+headerEnd+1:]
		if strings.HasPrefix(body, sanitize.InterSessionExplanation) {
			body = body[len(sanitize.InterSessionExplanation):]
			if strings.HasPrefix(body, "\r\n") {
				body = body[2:]
			} else if strings.HasPrefix(body, "\n") {
				body = body[1:]
			}
		}
	}
	parts := []string{}
	for _, p := range []string{jsvalue.TrimEnd(text[:index]), body} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, "\n")
}

func annotateInterSessionUserMessages(in []sanitize.Message, log *sanitize.ChangeLog) []sanitize.Message {
	return sanitize.AnnotateInterSessionWith(in, stripInterSessionPromptPrefix, log)
}
