package show_test

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-tools/oc/internal/cli"
	"github.com/openclaw-tools/oc/internal/oracletest"
	"github.com/openclaw-tools/oc/pkg/render"
	"github.com/openclaw-tools/oc/pkg/render/html"
	"github.com/openclaw-tools/oc/pkg/render/markdown"
	"github.com/openclaw-tools/oc/pkg/show"
	"github.com/openclaw-tools/oc/pkg/store"
)

// contextText is one text block of OpenClaw's own context: its role, and
// whether oc show prints it as code (a tool result) or as text.
type contextText struct {
	role, text string
}

// textsOf lists the text blocks of context messages (string content
// counts as one text block).
func textsOf(t *testing.T, messages []json.RawMessage) []contextText {
	t.Helper()
	var out []contextText
	for _, raw := range messages {
		var m struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		}
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		var s string
		if json.Unmarshal(m.Content, &s) == nil {
			if strings.TrimSpace(s) != "" {
				out = append(out, contextText{m.Role, s})
			}
			continue
		}
		var blocks []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		_ = json.Unmarshal(m.Content, &blocks)
		for _, b := range blocks {
			if b.Type == "text" && strings.TrimSpace(b.Text) != "" {
				out = append(out, contextText{m.Role, b.Text})
			}
		}
	}
	return out
}

// unindent drops the leading blanks of every line (the text format indents
// tool output under its call).
func unindent(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimLeft(l, " ")
	}
	return strings.Join(lines, "\n")
}

// present reports whether a context text is in one format's output, in the
// form that format writes it.
func present(t *testing.T, format, out string, c contextText, jsonTexts map[string]bool) bool {
	code := c.role == "toolResult"
	switch format {
	case "text":
		return strings.Contains(unindent(out), unindent(cli.SafeText(c.text)))
	case "markdown":
		if code {
			return strings.Contains(out, cli.SafeText(c.text))
		}
		return strings.Contains(out, markdown.Text(c.text, nil))
	case "html":
		return strings.Contains(out, html.Mark(c.text, nil))
	case "json":
		if jsonTexts[c.text] {
			return true
		}
		// a tool result's blocks are separate JSON blocks
		return code && jsonHas(jsonTexts, c.text)
	}
	t.Fatalf("format %s", format)
	return false
}

func jsonHas(texts map[string]bool, s string) bool {
	for k := range texts {
		if strings.Contains(k, s) {
			return true
		}
	}
	return false
}

// jsonTextsOf collects every text of a JSON rendering.
func jsonTextsOf(t *testing.T, out []byte) map[string]bool {
	t.Helper()
	var doc struct {
		Messages []struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
			Summary string `json:"summary"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatalf("json output does not parse: %v", err)
	}
	texts := map[string]bool{}
	for _, m := range doc.Messages {
		for _, b := range m.Content {
			texts[b.Text] = true
		}
		texts[m.Summary] = true
	}
	return texts
}

// checkSession renders one session in every format and checks that every
// context text is there; it returns how many (text, format) pairs it checked.
func checkSession(t *testing.T, st *store.State, ses store.Session, name string, texts []contextText) int {
	t.Helper()
	n := 0
	for _, format := range show.Formats() {
		for _, full := range []bool{false, true} {
			var out bytes.Buffer
			err := show.Write(context.Background(), st, ses, &out, show.Options{Format: format, Render: render.Options{Full: full}, Styles: plainStyles()})
			if err != nil {
				t.Fatalf("%s %s: %v", name, format, err)
			}
			var jt map[string]bool
			if format == "json" {
				jt = jsonTextsOf(t, out.Bytes())
			}
			for _, c := range texts {
				if c.role == "toolResult" && !full {
					continue // folded unless --full
				}
				if !present(t, format, out.String(), c, jt) {
					t.Errorf("%s (--format %s, full %v): the %s text %q is not in the output", name, format, full, c.role, clip(c.text))
				}
				n++
			}
		}
	}
	return n
}

func want(texts []contextText) int {
	n := 0
	for _, c := range texts {
		n += 1 // full
		if c.role != "toolResult" {
			n++ // folded
		}
	}
	return n * len(show.Formats())
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

func plainStyles() *cli.Styles {
	ios, _, _ := cli.Test(false)
	return ios.Styles()
}

// TestShowHoldsOpenClawContext56: for every real corpus transcript, every
// text block of the context OpenClaw 2026.5.6 builds (its stored answers)
// is in oc show's output, in each format.
func TestShowHoldsOpenClawContext56(t *testing.T) {
	answers := oracletest.StoredAnswers(t)
	st, err := store.Open(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, wantN, sessions := 0, 0, 0
	for _, path := range oracletest.Transcripts(t) {
		a, ok := answers[filepath.Base(path)+"|context"]
		if !ok || !a.OK {
			continue
		}
		var out struct {
			Messages []json.RawMessage `json:"messages"`
		}
		if err := json.Unmarshal(a.Out, &out); err != nil {
			t.Fatal(err)
		}
		texts := textsOf(t, out.Messages)
		ses, err := st.Resolve(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		got += checkSession(t, st, ses, filepath.Base(path), texts)
		wantN += want(texts)
		sessions++
	}
	if sessions == 0 {
		t.Fatal("no context answer matched a corpus transcript")
	}
	oracletest.Compared(t, "oc show holds the 2026.5.6 context's text blocks (corpus, 4 formats)", got, wantN)
}

// TestShowHoldsOpenClawContext96: the same on the database 2026.9.6 wrote
// when it imported the corpus, session by session key.
func TestShowHoldsOpenClawContext96(t *testing.T) {
	dir, _ := oracletest.Corpus96State(t)
	contexts := oracletest.CorpusContexts96(t)
	st, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, wantN := 0, 0
	for key, c := range contexts {
		ses, err := st.Resolve(context.Background(), key)
		if err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		if ses.Era != store.EraSQLite {
			t.Fatalf("%s: resolved to %s, not the database", key, ses.Era)
		}
		texts := textsOf(t, c.Messages)
		got += checkSession(t, st, ses, key, texts)
		wantN += want(texts)
	}
	if len(contexts) == 0 {
		t.Fatal("no 2026.9.6 context answers")
	}
	oracletest.Compared(t, "oc show holds the 2026.9.6 context's text blocks (imported corpus by key, 4 formats)", got, wantN)
}
