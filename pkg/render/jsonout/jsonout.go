// Package jsonout renders a conversation as one JSON document, written as
// it is read: {"session": {...}, "messages": [item, ...], "count": N}, the
// items in order (conversation.Item's shape: every text whole, images
// described, never their data). Characters a terminal would act on are
// spelled as \u escapes (the same JSON values), so the document is safe to
// print.
package jsonout

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"

	"github.com/openclaw-tools/oc/internal/cli"
	"github.com/openclaw-tools/oc/pkg/conversation"
	"github.com/openclaw-tools/oc/pkg/render"
)

// Renderer writes the JSON document.
type Renderer struct {
	w *bufio.Writer
	n int
}

// New writes to w.
func New(w io.Writer) *Renderer { return &Renderer{w: bufio.NewWriterSize(w, 64<<10)} }

// Begin writes the session object and opens the messages.
func (r *Renderer) Begin(h *render.Header) error {
	b, err := json.Marshal(h)
	if err != nil {
		return err
	}
	r.w.WriteString(`{"session":`)
	r.w.Write(cli.SafeJSON(b))
	r.w.WriteString(",\n\"messages\":[")
	return nil
}

// Item writes one item.
func (r *Renderer) Item(it *conversation.Item) error {
	b, err := json.Marshal(it)
	if err != nil {
		return fmt.Errorf("line %d: %w", it.Line, err)
	}
	if r.n > 0 {
		r.w.WriteByte(',')
	}
	r.w.WriteByte('\n')
	r.w.Write(cli.SafeJSON(b))
	r.n++
	return nil
}

// End closes the document.
func (r *Renderer) End() error {
	fmt.Fprintf(r.w, "\n],\n\"count\":%d}\n", r.n)
	return r.w.Flush()
}
