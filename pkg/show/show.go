// Package show writes one session for a reader: it opens the session
// (conversation.Open), names it in a header and streams the selected items
// through the renderer of the chosen format.
package show

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/openclaw-tools/oc/internal/cli"
	"github.com/openclaw-tools/oc/pkg/conversation"
	"github.com/openclaw-tools/oc/pkg/render"
	"github.com/openclaw-tools/oc/pkg/render/html"
	"github.com/openclaw-tools/oc/pkg/render/jsonout"
	"github.com/openclaw-tools/oc/pkg/render/markdown"
	"github.com/openclaw-tools/oc/pkg/render/text"
	"github.com/openclaw-tools/oc/pkg/store"
)

// Formats lists the output formats, the default first.
func Formats() []string { return []string{"text", "markdown", "html", "json"} }

// Options say what to show and how.
type Options struct {
	Format    string
	Selection conversation.Selection
	Render    render.Options
	// Styles style the text format (their plain profile writes none).
	Styles *cli.Styles
	// Stdin is read for the session "-".
	Stdin io.Reader
}

// NewRenderer is the renderer of a format.
func NewRenderer(format string, w io.Writer, st *cli.Styles, o render.Options) (render.Renderer, error) {
	switch format {
	case "", "text":
		return text.New(w, st, o), nil
	case "markdown", "md":
		return markdown.New(w, o), nil
	case "html":
		return html.New(w, o), nil
	case "json":
		return jsonout.New(w), nil
	}
	return nil, fmt.Errorf("unknown format %q (want %s)", format, strings.Join(Formats(), ", "))
}

// Write opens a session and writes it to w.
func Write(ctx context.Context, st *store.State, ses store.Session, w io.Writer, o Options) error {
	o.Render.MarkActive = o.Selection.All
	r, err := NewRenderer(o.Format, w, o.Styles, o.Render)
	if err != nil {
		return err
	}
	c, err := conversation.Open(ctx, st, ses, o.Stdin)
	if err != nil {
		return err
	}
	defer c.Close()
	return Render(ctx, c, r, o.Selection)
}

// Render writes an opened session through r.
func Render(ctx context.Context, c *conversation.Conversation, r render.Renderer, sel conversation.Selection) error {
	if err := r.Begin(HeaderOf(c, sel)); err != nil {
		return err
	}
	if err := c.Items(ctx, sel, r.Item); err != nil {
		// what was written stays a well-formed document
		_ = r.End()
		return err
	}
	return r.End()
}

// HeaderOf describes an opened session and the selection shown.
func HeaderOf(c *conversation.Conversation, sel conversation.Selection) *render.Header {
	ses := c.Session
	h := &render.Header{Title: ses.Label(), Key: ses.Key, ID: ses.ID, Agent: ses.Agent, Era: string(ses.Era), Rules: c.Rules, Notes: c.Notes}
	switch {
	case ses.Archive != nil:
		h.Era = string(store.EraSQLite)
		h.Source = fmt.Sprintf("archived generation %s of %s (%s) in %s", ses.Archive.Generation, ses.Key, ses.Archive.Reason, ses.Path)
	case ses.Era == store.EraSQLite:
		h.Source = "session " + ses.ID + " in " + ses.Path
		if ses.Cold {
			h.Source += " (cold archive)"
		}
	default:
		h.Source = ses.Path
		if ses.Path == "-" {
			h.Source = "<stdin>"
		}
	}
	if hd := c.Header; hd != nil {
		if h.ID == "" {
			h.ID = hd.ID
		}
		h.Cwd, h.Start = hd.Cwd, hd.Timestamp
	}
	if ses.Key == "" && h.ID != "" && (ses.Era == store.EraJSONL && ses.Archive == nil) {
		h.Title = h.ID
	}
	switch {
	case sel.All:
		h.Shown = fmt.Sprintf("all %d entries in file order (forks marked)", c.Entries)
	case sel.Branch != "":
		h.Shown = "the branch ending at " + sel.Branch
	default:
		h.Shown = fmt.Sprintf("the active branch (%d of %d entries)", c.ActiveLength(), c.Entries)
	}
	if sel.From != "" || sel.To != "" {
		h.Shown += fmt.Sprintf(", from %s to %s", orEnd(sel.From, "the start"), orEnd(sel.To, "the end"))
	}
	return h
}

func orEnd(s, none string) string {
	if s == "" {
		return none
	}
	return s
}
