// Package markdown renders a conversation as Markdown for tickets and wikis:
// a heading naming the session, a heading per message, its text as written
// (Markdown in practice), tool calls and results in fenced code blocks that
// their content cannot close, notes as quotes. Text from the session keeps
// its Markdown but no raw HTML tag (a "<" that would open one is written
// as "&lt;") and no control character (escaped as cli.SafeText does).
package markdown

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/openclaw-tools/oc/internal/cli"
	"github.com/openclaw-tools/oc/internal/lazyre"
	"github.com/openclaw-tools/oc/pkg/conversation"
	"github.com/openclaw-tools/oc/pkg/render"
)

// Renderer writes Markdown.
type Renderer struct {
	w    *bufio.Writer
	opts render.Options
}

// New writes to w.
func New(w io.Writer, opts render.Options) *Renderer {
	return &Renderer{w: bufio.NewWriterSize(w, 64<<10), opts: opts}
}

// Begin writes the document's heading and the session's details.
func (r *Renderer) Begin(h *render.Header) error {
	r.printf("# Session %s\n\n", Inline(h.Title))
	row := func(k, v string) {
		if v != "" {
			r.printf("- **%s:** %s\n", k, Inline(v))
		}
	}
	row("Session id", h.ID)
	row("Agent", h.Agent)
	row("Era", h.Era+" (active branch by OpenClaw "+h.Rules+"'s rules)")
	row("Read from", h.Source)
	row("Started", h.Start)
	row("Working directory", h.Cwd)
	row("Showing", h.Shown)
	for _, n := range h.Notes {
		row("Note", n)
	}
	r.w.WriteString("\n")
	return nil
}

// Item writes one item.
func (r *Renderer) Item(it *conversation.Item) error {
	for _, p := range render.Layout(it, r.opts) {
		switch p.Kind {
		case render.PartHeading:
			level := "##"
			if p.Nested {
				level = "###"
			}
			r.printf("\n%s %s\n\n", level, Inline(p.Title))
			if len(p.Meta) > 0 {
				r.printf("*%s*\n\n", Inline(strings.Join(p.Meta, " · ")))
			}
		case render.PartText:
			if p.Title != "" {
				r.printf("**%s:**\n\n", Inline(p.Title))
			}
			r.w.WriteString(Text(p.Text, r.opts.Highlight))
			r.w.WriteString("\n\n")
			r.folded(p.Folded)
		case render.PartCode:
			r.w.WriteString(Fence(p.Text, p.Lang))
			r.w.WriteString("\n")
			r.folded(p.Folded)
		case render.PartNote:
			s := p.Text
			if len(p.Meta) > 0 {
				s += " · " + strings.Join(p.Meta, " · ")
			}
			r.printf("> %s\n\n", Inline(s))
		}
	}
	return nil
}

// End flushes the output.
func (r *Renderer) End() error { return r.w.Flush() }

func (r *Renderer) folded(note string) {
	if note != "" {
		r.printf("*… %s*\n\n", Inline(note))
	}
}

func (r *Renderer) printf(format string, args ...any) {
	// every argument is escaped by the caller
	fmt.Fprintf(r.w, format, args...)
}

// Fence is s in a fenced code block that s cannot close: the fence is one
// backtick longer than the longest run of backticks in s (and at least
// three), as CommonMark reads fences. Control characters are escaped.
func Fence(s, lang string) string {
	s = cli.SafeText(s)
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", max(3, longest+1))
	return fence + lang + "\n" + s + "\n" + fence + "\n"
}

// Text is a text as written, for a Markdown document: raw HTML cannot
// start (a "<" before a letter, "/", "!" or "?" is written "&lt;"), control
// characters are escaped, matches of highlight are bold, and a code fence
// the text opens is closed at its end (it would swallow the rest of the
// document).
func Text(s string, highlight *regexp.Regexp) string {
	s = htmlTag().ReplaceAllString(cli.SafeText(s), "&lt;$1")
	if highlight != nil {
		s = highlight.ReplaceAllStringFunc(s, func(m string) string { return "**" + m + "**" })
	}
	if open := OpenFence(s); open != "" {
		s += "\n" + open
	}
	return s
}

// OpenFence is the fence a Markdown text leaves open at its end ("" when
// none), read as CommonMark reads fences: a line of three or more backticks
// or tildes (after up to three spaces) opens a block, a line of at least as
// many of the same character, and nothing else, closes it.
func OpenFence(s string) string {
	open := ""
	for _, l := range strings.Split(s, "\n") {
		t := strings.TrimLeft(l, " ")
		if len(l)-len(t) > 3 || len(t) < 3 || (t[0] != '`' && t[0] != '~') {
			continue
		}
		c := t[0]
		n := 0
		for n < len(t) && t[n] == c {
			n++
		}
		if n < 3 {
			continue
		}
		switch {
		case open == "":
			if c == '`' && strings.ContainsRune(t[n:], '`') {
				continue // an info string with a backtick: not a fence
			}
			open = t[:n]
		case open[0] == c && n >= len(open) && strings.TrimSpace(t[n:]) == "":
			open = ""
		}
	}
	return open
}

// Inline is a one-line string (a name, an id, a note) in running Markdown:
// the punctuation that would start emphasis, code, a link or a table cell
// is backslash-escaped, "<" and ">" are entities (no tag can start), and
// line ends become spaces.
func Inline(s string) string {
	s = cli.Safe(strings.NewReplacer("\n", " ", "\r", " ", "\t", " ").Replace(s))
	var b strings.Builder
	for _, c := range s {
		switch {
		case c == '<':
			b.WriteString("&lt;")
		case c == '>':
			b.WriteString("&gt;")
		case c == '&':
			b.WriteString("&amp;")
		case strings.ContainsRune("\\`*_[]#|~!", c):
			b.WriteByte('\\')
			b.WriteRune(c)
		default:
			b.WriteRune(c)
		}
	}
	return b.String()
}

var htmlTag = lazyre.New(`<([A-Za-z/!?])`)
