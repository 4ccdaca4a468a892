package cli

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Safe makes a string that came from a file (a session id, a model or tool
// name, a cwd, message text, a file name) safe to print on a terminal: every
// character a terminal would act on instead of showing is written as an
// escape a reader can see. That is the C0 controls (including ESC, BEL, CR,
// LF and TAB), DEL, the C1 controls (U+0080-U+009F, of which U+009B is a
// CSI on some terminals), the bidirectional overrides and isolates
// (U+202A-U+202E, U+2066-U+2069) that reorder what is shown, and bytes that
// are not UTF-8. ASCII controls and stray bytes become \xNN, the others
// \uNNNN; everything else is unchanged. Human output passes every such
// string through Safe, whatever the colour mode; --json output is exact and
// does not.
func Safe(s string) string {
	i := firstUnsafe(s)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// firstUnsafe is the byte offset of the first character Safe escapes, or -1.
func firstUnsafe(s string) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || unsafeRune(r) {
			return i
		}
		i += size
	}
	return -1
}

// unsafeRune: the non-ASCII characters Safe escapes (C1 controls, bidi
// embeddings, overrides and isolates).
func unsafeRune(r rune) bool {
	return (r >= 0x80 && r <= 0x9f) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}

// SafeJSON rewrites a JSON document for a terminal: the characters Safe
// escapes that JSON allows raw inside strings (DEL, C1 controls, bidi
// overrides) become \uNNNN escapes and bytes that are not UTF-8 become
// \ufffd. The document keeps its meaning (the same values); only how they
// are spelled changes. Documents without such characters are returned as
// they are.
func SafeJSON(doc []byte) []byte {
	s := string(doc)
	i := firstUnsafe(s)
	if i < 0 {
		return doc
	}
	out := make([]byte, 0, len(doc)+16)
	out = append(out, doc[:i]...)
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			out = append(out, `\ufffd`...)
		case r == 0x7f || unsafeRune(r) || r < 0x20 && r != '\n' && r != '\r' && r != '\t':
			out = fmt.Appendf(out, `\u%04x`, r)
		default:
			out = append(out, s[i:i+size]...)
		}
		i += size
	}
	return out
}

// SafeText is Safe for a text of several lines (a message as written): line
// ends and tabs stay as they are, every other character Safe escapes is
// escaped.
func SafeText(s string) string {
	if firstUnsafeText(s) < 0 {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		cells := strings.Split(l, "\t")
		for j, c := range cells {
			cells[j] = Safe(c)
		}
		lines[i] = strings.Join(cells, "\t")
	}
	return strings.Join(lines, "\n")
}

// firstUnsafeText is firstUnsafe that passes line ends and tabs.
func firstUnsafeText(s string) int {
	for i := 0; i < len(s); {
		if i2 := firstUnsafe(s[i:]); i2 < 0 {
			return -1
		} else if c := s[i+i2]; c == '\n' || c == '\t' {
			i += i2 + 1
		} else {
			return i + i2
		}
	}
	return -1
}
