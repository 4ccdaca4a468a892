// Package html renders a conversation as one self-contained HTML file for
// sharing: inline CSS, no script, no external request (no src or href
// attribute at all). Every string from the session is HTML-escaped, and
// control characters are shown as escapes (cli.SafeText), so neither a
// browser nor a terminal the file is printed on acts on them.
package html

import (
	"bufio"
	"fmt"
	stdhtml "html"
	"io"
	"regexp"
	"strings"

	"github.com/openclaw-tools/oc/internal/cli"
	"github.com/openclaw-tools/oc/pkg/conversation"
	"github.com/openclaw-tools/oc/pkg/render"
)

// Renderer writes HTML.
type Renderer struct {
	w    *bufio.Writer
	opts render.Options
}

// New writes to w.
func New(w io.Writer, opts render.Options) *Renderer {
	return &Renderer{w: bufio.NewWriterSize(w, 64<<10), opts: opts}
}

const style = `body{font:15px/1.5 system-ui,sans-serif;max-width:60em;margin:2em auto;padding:0 1em;color:#222;background:#fff}
header{border-bottom:1px solid #ccc;margin-bottom:1em}
h1{font-size:1.4em;margin:.2em 0}
.meta{color:#666;font-size:.85em}
article{border-left:4px solid #ccc;padding:.2em .8em;margin:1em 0}
article.user{border-color:#3572b0}article.assistant{border-color:#2e8b57}
article.summary,article.custom{border-color:#8b5cf6}article.error{border-color:#c0392b}
h2{font-size:1em;margin:.3em 0}h3{font-size:.95em;margin:.6em 0 .2em 1.5em}
.text{white-space:pre-wrap;overflow-wrap:anywhere}
.thinking{color:#666;font-style:italic}
pre{background:#f5f5f5;padding:.5em;margin:.2em 0 .2em 1.5em;white-space:pre-wrap;overflow-wrap:anywhere;font-size:.85em}
.note{color:#555;font-size:.9em}.note.error{color:#c0392b}.note.fork,.note.model{color:#a66a00}
.folded{color:#888;font-size:.85em;margin-left:1.5em}
mark{background:#ffe066}`

// Begin writes the document's head and the session's details.
func (r *Renderer) Begin(h *render.Header) error {
	fmt.Fprintf(r.w, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"referrer\" content=\"no-referrer\">\n<title>Session %s</title>\n<style>\n%s\n</style>\n</head>\n<body>\n<header>\n<h1>Session %s</h1>\n", esc(h.Title), style, esc(h.Title))
	var meta []string
	if h.ID != "" && h.ID != h.Title {
		meta = append(meta, "id "+h.ID)
	}
	if h.Agent != "" {
		meta = append(meta, "agent "+h.Agent)
	}
	meta = append(meta, h.Era+" era", "active branch by OpenClaw "+h.Rules+"'s rules")
	fmt.Fprintf(r.w, "<p class=\"meta\">%s</p>\n", esc(strings.Join(meta, " · ")))
	fmt.Fprintf(r.w, "<p class=\"meta\">from %s</p>\n", esc(h.Source))
	if h.Start != "" || h.Cwd != "" {
		fmt.Fprintf(r.w, "<p class=\"meta\">started %s · cwd %s</p>\n", esc(h.Start), esc(h.Cwd))
	}
	fmt.Fprintf(r.w, "<p class=\"meta\">showing %s</p>\n", esc(h.Shown))
	for _, n := range h.Notes {
		fmt.Fprintf(r.w, "<p class=\"note error\">note: %s</p>\n", esc(n))
	}
	r.w.WriteString("</header>\n<main>\n")
	return nil
}

// Item writes one item as an <article>.
func (r *Renderer) Item(it *conversation.Item) error {
	parts := render.Layout(it, r.opts)
	if len(parts) == 0 {
		return nil
	}
	class := parts[0].Style
	fmt.Fprintf(r.w, "<article class=\"%s\">\n", class)
	for _, p := range parts {
		switch p.Kind {
		case render.PartHeading:
			tag := "h2"
			if p.Nested {
				tag = "h3"
			}
			fmt.Fprintf(r.w, "<%s>%s", tag, esc(p.Title))
			if len(p.Meta) > 0 {
				fmt.Fprintf(r.w, " <span class=\"meta\">%s</span>", esc(strings.Join(p.Meta, " · ")))
			}
			fmt.Fprintf(r.w, "</%s>\n", tag)
		case render.PartText:
			cls := "text"
			if p.Style == "thinking" {
				cls += " thinking"
			}
			fmt.Fprintf(r.w, "<div class=\"%s\">%s</div>\n", cls, r.mark(p.Text))
			r.folded(p.Folded)
		case render.PartCode:
			fmt.Fprintf(r.w, "<pre>%s</pre>\n", r.mark(p.Text))
			r.folded(p.Folded)
		case render.PartNote:
			s := p.Text
			if len(p.Meta) > 0 {
				s += " · " + strings.Join(p.Meta, " · ")
			}
			fmt.Fprintf(r.w, "<p class=\"note %s\">%s</p>\n", p.Style, esc(s))
		}
	}
	r.w.WriteString("</article>\n")
	return nil
}

// End closes the document.
func (r *Renderer) End() error {
	r.w.WriteString("</main>\n</body>\n</html>\n")
	return r.w.Flush()
}

func (r *Renderer) folded(note string) {
	if note != "" {
		fmt.Fprintf(r.w, "<p class=\"folded\">… %s</p>\n", esc(note))
	}
}

// mark escapes a text and wraps the matches of --grep in <mark>.
func (r *Renderer) mark(s string) string {
	return Mark(s, r.opts.Highlight)
}

// Mark is s escaped for HTML, with re's matches in <mark> (re nil: none).
func Mark(s string, re *regexp.Regexp) string {
	s = cli.SafeText(s)
	if re == nil {
		return stdhtml.EscapeString(s)
	}
	var b strings.Builder
	last := 0
	for _, m := range re.FindAllStringIndex(s, -1) {
		if m[0] == m[1] {
			continue
		}
		b.WriteString(stdhtml.EscapeString(s[last:m[0]]))
		b.WriteString("<mark>" + stdhtml.EscapeString(s[m[0]:m[1]]) + "</mark>")
		last = m[1]
	}
	b.WriteString(stdhtml.EscapeString(s[last:]))
	return b.String()
}

// esc is a one-line string escaped for HTML.
func esc(s string) string { return stdhtml.EscapeString(cli.Safe(s)) }
