package text

import (
	"strings"
)

// markdownBlock writes a message's text (already through cli.SafeText: no
// control character left) with its Markdown shown as a terminal shows it,
// line by line and never across lines but for fenced code: headings bold,
// fenced code blocks dimmed as they are (their content not read as
// Markdown), block quotes behind a bar, list bullets as "•", rules as a
// line, and inline `code`, **bold**, *italic* and [links](url). The marks
// go (but for code fences and the # of a heading, kept so that the level
// shows); the text itself is kept whole, so nothing written is lost. Used
// only on styled output: piped text is written as it is.
func (r *Renderer) markdownBlock(s, indent string) {
	fence := "" // the fence of the open code block ("" when none)
	for _, l := range strings.Split(s, "\n") {
		trimmed := strings.TrimLeft(l, " ")
		lead := len(l) - len(trimmed)
		switch {
		case fence != "":
			if lead < 4 && strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, fence[:1]) == "" {
				fence = ""
			}
			r.line(r.paint(r.st.Dim, r.highlight(l)), indent)
			continue
		case lead < 4 && (strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~")):
			fence = trimmed[:3]
			r.line(r.paint(r.st.Dim, r.highlight(l)), indent)
			continue
		}
		r.line(r.markdownLine(l), indent)
	}
}

// markdownLine is one line outside a code block, styled.
func (r *Renderer) markdownLine(l string) string {
	trimmed := strings.TrimLeft(l, " ")
	lead := l[:len(l)-len(trimmed)]
	if len(lead) >= 4 {
		return r.paint(r.st.Dim, r.highlight(l)) // an indented code block
	}
	if h := headingLevel(trimmed); h > 0 {
		return lead + r.paint(r.st.Title, r.highlight(trimmed))
	}
	if isRule(trimmed) {
		return lead + r.paint(r.st.Dim, strings.Repeat("─", 40))
	}
	if rest, ok := strings.CutPrefix(trimmed, ">"); ok {
		rest = strings.TrimPrefix(rest, " ")
		return lead + r.paint(r.st.Dim, "│ ") + r.paint(r.st.Dim, r.inline(rest))
	}
	for _, b := range []string{"- ", "* ", "+ "} {
		if rest, ok := strings.CutPrefix(trimmed, b); ok {
			return lead + r.paint(r.st.Key, "•") + " " + r.inline(rest)
		}
	}
	return lead + r.inline(trimmed)
}

// headingLevel is the level of an ATX heading ("## Title"), 0 for none.
func headingLevel(s string) int {
	n := 0
	for n < len(s) && s[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || (n < len(s) && s[n] != ' ' && s[n] != '\t') {
		return 0
	}
	return n
}

// isRule reports whether s is a thematic break (---, ***, ___).
func isRule(s string) bool {
	s = strings.ReplaceAll(strings.TrimSpace(s), " ", "")
	if len(s) < 3 {
		return false
	}
	return strings.Trim(s, "-") == "" || strings.Trim(s, "*") == "" || strings.Trim(s, "_") == ""
}

// inline styles a line's inline marks: `code` (its content as it is),
// **bold** and __bold__, *italic* (not _italic_: snake_case words are
// common in what models write), [text](url) as the text and the url dimmed.
// An unclosed mark is text. --grep's matches are marked inside each piece.
func (r *Renderer) inline(s string) string {
	var b strings.Builder
	plain := 0 // start of the text not written yet
	flush := func(end int) {
		b.WriteString(r.highlight(s[plain:end]))
	}
	for i := 0; i < len(s); {
		switch {
		case s[i] == '`':
			n := 1
			for i+n < len(s) && s[i+n] == '`' {
				n++
			}
			ticks := s[i : i+n]
			if end := strings.Index(s[i+n:], ticks); end >= 0 {
				flush(i)
				b.WriteString(r.paint(r.st.Number, r.highlight(s[i+n:i+n+end])))
				i += n + end + n
				plain = i
				continue
			}
			i += n
			continue
		case strings.HasPrefix(s[i:], "**") || strings.HasPrefix(s[i:], "__"):
			mark := s[i : i+2]
			if end := strings.Index(s[i+2:], mark); end > 0 {
				flush(i)
				b.WriteString(r.paint(r.st.Heading, r.highlight(s[i+2:i+2+end])))
				i += 2 + end + 2
				plain = i
				continue
			}
		case s[i] == '*' && i+1 < len(s) && s[i+1] != ' ' && s[i+1] != '*':
			if end := strings.IndexByte(s[i+1:], '*'); end > 0 && s[i+end] != ' ' {
				flush(i)
				b.WriteString(r.paint(r.st.Heading.Bold(false).Italic(true), r.highlight(s[i+1:i+1+end])))
				i += 1 + end + 1
				plain = i
				continue
			}
		case s[i] == '[':
			if close := strings.Index(s[i:], "]("); close > 1 {
				if end := strings.IndexByte(s[i+close+2:], ')'); end >= 0 {
					text := s[i+1 : i+close]
					url := s[i+close+2 : i+close+2+end]
					if !strings.ContainsAny(text, "[]") && !strings.ContainsAny(url, " ") {
						flush(i)
						b.WriteString(r.paint(r.st.Key.Underline(true), r.highlight(text)))
						b.WriteString(r.paint(r.st.Dim, " ("+r.highlight(url)+")"))
						i += close + 2 + end + 1
						plain = i
						continue
					}
				}
			}
		}
		i++
	}
	flush(len(s))
	return b.String()
}
