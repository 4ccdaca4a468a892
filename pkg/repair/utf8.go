package repair

import (
	"fmt"
	"unicode/utf8"

	"github.com/openclaw-tools/oc/pkg/jsonl"
)

// nodeUTF8 returns b with every invalid UTF-8 sequence replaced by U+FFFD the
// way Node's decoder (WHATWG "maximal subpart") replaces them, so the line
// reads the same in OpenClaw before and after, and the number replaced.
func nodeUTF8(b []byte) ([]byte, int) {
	out := make([]byte, 0, len(b)+8)
	n := 0
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			out = append(out, c)
			i++
			continue
		}
		need, lo, hi := 0, byte(0x80), byte(0xBF)
		switch {
		case c >= 0xC2 && c <= 0xDF:
			need = 1
		case c >= 0xE0 && c <= 0xEF:
			need = 2
			if c == 0xE0 {
				lo = 0xA0
			} else if c == 0xED {
				hi = 0x9F
			}
		case c >= 0xF0 && c <= 0xF4:
			need = 3
			if c == 0xF0 {
				lo = 0x90
			} else if c == 0xF4 {
				hi = 0x8F
			}
		default:
			out = append(out, "\uFFFD"...)
			n++
			i++
			continue
		}
		j := i + 1
		ok := true
		for k := 0; k < need; k++ {
			if j >= len(b) || b[j] < lo || b[j] > hi {
				ok = false
				break
			}
			lo, hi = 0x80, 0xBF
			j++
		}
		if ok {
			out = append(out, b[i:j]...)
		} else {
			out = append(out, "\uFFFD"...) // the maximal subpart b[i:j] is one U+FFFD
			n++
		}
		i = j
	}
	return out, n
}

// invalidUTF8 handles a line JSON.parse accepts but whose bytes are not all
// UTF-8: the bytes Node reads as U+FFFD are written as U+FFFD.
func (pl *planner) invalidUTF8(ln jsonl.Line) {
	fixed, n := nodeUTF8(ln.Data)
	if !jsonl.Valid(fixed) { // cannot happen: the replaced bytes sat inside strings
		pl.entry(ln, nil, 0, ln.Data, false)
		return
	}
	ed := pl.replaceEdit(ln)
	ed.add(RuleInvalidUTF8, 1, fmt.Sprintf("%d invalid UTF-8 sequence(s) written as U+FFFD, as OpenClaw reads them", n))
	pl.entry(ln, ed, 0, fixed, false)
}
