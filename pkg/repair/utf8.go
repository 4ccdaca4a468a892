package repair

import (
	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/pkg/jsonl"
)

// invalidUTF8 handles a line JSON.parse accepts but whose bytes are not all
// UTF-8: the bytes Node reads as U+FFFD are written as U+FFFD.
func (pl *planner) invalidUTF8(ln jsonl.Line) {
	fixed, n := jsjson.ReplaceInvalidUTF8(ln.Data)
	if !jsonl.Valid(fixed) { // cannot happen: the replaced bytes sat inside strings
		pl.entry(ln, nil, 0, ln.Data, false)
		return
	}
	ed := pl.replaceEdit(ln)
	ed.add(RuleInvalidUTF8, 1, countNoun(n, "invalid UTF-8 sequence", "invalid UTF-8 sequences")+" written as U+FFFD, as OpenClaw reads them")
	pl.entry(ln, ed, 0, fixed, false)
}
