// Package text renders a conversation for a terminal or a pager: a heading
// line per message (role, model, time, line, id), its text as written, tool
// calls and results indented under it and folded, notes for forks, model
// changes and errors. Every string from the session goes through
// cli.SafeText or cli.Safe: no control character reaches the terminal. On
// styled output a message's Markdown is shown styled (markdownBlock); piped
// output is the text as written.
package text

import (
	"bufio"
	"io"
	"regexp"
	"strings"

	"github.com/openclaw-tools/oc/internal/cli"
	"github.com/openclaw-tools/oc/pkg/conversation"
	"github.com/openclaw-tools/oc/pkg/render"
)

// Renderer writes plain or styled text.
type Renderer struct {
	w    *bufio.Writer
	st   *cli.Styles
	opts render.Options
	// items counts the items written (a blank line goes between them).
	items int
}

// New writes to w; st styles the output (its plain profile writes no
// escape sequences).
func New(w io.Writer, st *cli.Styles, opts render.Options) *Renderer {
	return &Renderer{w: bufio.NewWriterSize(w, 64<<10), st: st, opts: opts}
}

// Begin writes the session's heading.
func (r *Renderer) Begin(h *render.Header) error {
	r.line(r.paint(r.st.Title, "Session "+cli.Safe(h.Title)), "")
	var ids []string
	if h.ID != "" && h.ID != h.Title {
		ids = append(ids, "id "+cli.Safe(h.ID))
	}
	if h.Agent != "" {
		ids = append(ids, "agent "+cli.Safe(h.Agent))
	}
	ids = append(ids, h.Era+" era", "rules "+h.Rules)
	r.line(r.paint(r.st.Dim, strings.Join(ids, " · ")), "")
	r.line(r.paint(r.st.Dim, "from "+cli.Safe(h.Source)), "")
	var more []string
	if h.Start != "" {
		more = append(more, "started "+cli.Safe(h.Start))
	}
	if h.Cwd != "" {
		more = append(more, "cwd "+cli.Safe(h.Cwd))
	}
	if len(more) > 0 {
		r.line(r.paint(r.st.Dim, strings.Join(more, " · ")), "")
	}
	r.line(r.paint(r.st.Dim, "showing "+cli.Safe(h.Shown)), "")
	for _, n := range h.Notes {
		r.line(r.paint(r.st.Warn, "note: "+cli.Safe(n)), "")
	}
	return nil
}

// Item writes one item.
func (r *Renderer) Item(it *conversation.Item) error {
	parts := render.Layout(it, r.opts)
	if len(parts) == 0 {
		return nil
	}
	r.w.WriteByte('\n')
	r.items++
	for _, p := range parts {
		indent := ""
		if p.Nested {
			indent = "    "
		}
		switch p.Kind {
		case render.PartHeading:
			head := r.paint(r.style(p.Style), marker(p.Style)+" "+cli.Safe(p.Title))
			if len(p.Meta) > 0 {
				head += r.paint(r.st.Dim, " · "+cli.Safe(strings.Join(p.Meta, " · ")))
			}
			r.line(head, indent)
		case render.PartText:
			if p.Title != "" {
				r.line(r.paint(r.st.Dim, p.Title+":"), indent)
			}
			if r.opts.Color && p.Style != "thinking" {
				r.markdownBlock(cli.SafeText(p.Text), indent)
			} else {
				r.block(cli.SafeText(p.Text), indent, p.Style == "thinking")
			}
			r.folded(p.Folded, indent)
		case render.PartCode:
			r.block(cli.SafeText(p.Text), indent+"  ", true)
			r.folded(p.Folded, indent+"  ")
		case render.PartNote:
			s := marker(p.Style) + " " + cli.Safe(p.Text)
			if len(p.Meta) > 0 {
				s += " · " + cli.Safe(strings.Join(p.Meta, " · "))
			}
			r.line(r.paint(r.style(p.Style), s), indent)
		}
	}
	return nil
}

// Flush writes what is buffered (oc browse renders item by item).
func (r *Renderer) Flush() error { return r.w.Flush() }

// End flushes the output.
func (r *Renderer) End() error {
	if r.items == 0 {
		r.line("", "")
		r.line(r.paint(r.st.Dim, "(no entries to show)"), "")
	}
	return r.w.Flush()
}

// block writes text line by line under indent, highlighting matches.
func (r *Renderer) block(s, indent string, dim bool) {
	for _, l := range strings.Split(s, "\n") {
		l = r.highlight(l)
		if dim {
			l = r.paint(r.st.Dim, l)
		}
		r.line(l, indent)
	}
}

func (r *Renderer) folded(note, indent string) {
	if note != "" {
		r.line(r.paint(r.st.Dim, "… "+note), indent)
	}
}

func (r *Renderer) line(s, indent string) {
	r.w.WriteString(indent)
	r.w.WriteString(s)
	r.w.WriteByte('\n')
}

// highlight marks the matches of --grep: reverse video when styled, »…«
// when plain.
func (r *Renderer) highlight(s string) string {
	return Highlight(s, r.opts.Highlight, r.opts.Color)
}

// Highlight marks re's matches in s: reverse video when color, else »…«.
func Highlight(s string, re *regexp.Regexp, color bool) string {
	if re == nil || s == "" {
		return s
	}
	return re.ReplaceAllStringFunc(s, func(m string) string {
		if color {
			return "\x1b[7m" + m + "\x1b[27m"
		}
		return "»" + m + "«"
	})
}

func (r *Renderer) style(name string) styleFn {
	switch name {
	case "user":
		return r.st.Key
	case "assistant":
		return r.st.String
	case "error":
		return r.st.Error
	case "summary", "custom":
		return r.st.Number
	case "fork", "model":
		return r.st.Warn
	case "toolCall", "toolResult":
		return r.st.Bold
	}
	return r.st.Dim
}

// styleFn is what r.style returns (a lipgloss.Style).
type styleFn interface{ Render(...string) string }

// paint styles s when the output is styled; plain output is s as it is
// (a style would turn its tabs into spaces).
func (r *Renderer) paint(st styleFn, s string) string {
	if !r.opts.Color {
		return s
	}
	return st.Render(s)
}

func marker(style string) string {
	switch style {
	case "toolCall":
		return "⚙"
	case "toolResult":
		return "↳"
	case "error":
		return "✗"
	case "fork":
		return "⑂"
	case "model":
		return "◆"
	case "thinking", "meta":
		return "·"
	}
	return "▌"
}
