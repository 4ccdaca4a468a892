package sanitize56

import (
	"strings"

	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
	"github.com/openclaw-tools/oc/pkg/replay/sanitize"
)

// R1: 2026.5.6's removal of an earlier inter-session marker
// (src/sessions/input-provenance.ts).

// removeFirstInterSessionPrefix drops an earlier header line (and the
// explanation line after it) from text.
func removeFirstInterSessionPrefix(text string) string {
	index := strings.Index(text, sanitize.InterSessionHeader)
	if index == -1 {
		return text
	}
	joinNonEmpty := func(a, b string) string {
		switch {
		case a == "":
			return b
		case b == "":
			return a
		}
		return a + "\n" + b
	}
	nl := strings.IndexByte(text[index:], '\n')
	if nl == -1 {
		return joinNonEmpty(jsvalue.TrimEnd(text[:index]), jsvalue.TrimStart(text[index+len(sanitize.InterSessionHeader):]))
	}
	explanationStart := index + nl + 1
	explanationEnd := explanationStart
	if strings.HasPrefix(text[explanationStart:], sanitize.InterSessionExplanation) {
		explanationEnd += len(sanitize.InterSessionExplanation)
	}
	return joinNonEmpty(jsvalue.TrimEnd(text[:index]), jsvalue.TrimStart(text[explanationEnd:]))
}

// annotateInterSessionUserMessages prefixes user turns that another session
// or an internal tool routed here, so the model does not take them as the
// end user's words.
func annotateInterSessionUserMessages(in []sanitize.Message, log *sanitize.ChangeLog) []sanitize.Message {
	return sanitize.AnnotateInterSessionWith(in, removeFirstInterSessionPrefix, log)
}
