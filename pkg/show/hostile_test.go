package show_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/openclaw-tools/oc/pkg/conversation"
	"github.com/openclaw-tools/oc/pkg/render"
	"github.com/openclaw-tools/oc/pkg/render/markdown"
	"github.com/openclaw-tools/oc/pkg/show"
	"github.com/openclaw-tools/oc/pkg/store"
)

// hostile is text an attacker controls: markup, terminal escapes (CSI,
// OSC with a hyperlink and a title, a C1 CSI), bidi overrides, DEL, NUL,
// a fence that would close a Markdown code block.
const hostile = "<script>alert(1)</script><img src=x onerror=alert(2)><a href=\"https://evil.example/\">x</a> " +
	"\x1b[31mred\x1b[0m \x1b]0;title\x07 \x1b]8;;https://evil.example/\x1b\\link\x1b]8;;\x1b\\ " +
	"\u009b2J c1 \u202eevil\u202c \u2066iso\u2069 del\x7f nul\x00 bell\x07 cr\rcr\n```\nout of the fence\n````\n"

func writeLines(t *testing.T, lines ...any) string {
	t.Helper()
	var b bytes.Buffer
	for _, l := range lines {
		switch v := l.(type) {
		case string:
			b.WriteString(v)
		default:
			j, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			b.Write(j)
		}
		b.WriteByte('\n')
	}
	p := filepath.Join(t.TempDir(), "hostile.jsonl")
	if err := os.WriteFile(p, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func tinyPNG(t *testing.T) string {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewRGBA(image.Rect(0, 0, 7, 3))); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(b.Bytes())
}

func hostileTranscript(t *testing.T, huge int) string {
	t.Helper()
	type m = map[string]any
	lines := []any{
		m{"type": "session", "version": 3, "id": "h-1\x1b]0;x\x07", "timestamp": "2026-05-01T00:00:00.000Z", "cwd": "/tmp/" + hostile},
		m{"type": "model_change", "id": "a1", "parentId": nil, "provider": "p\u202e", "modelId": "m\x1b[2J"},
		m{"type": "message", "id": "a2", "parentId": "a1", "message": m{"role": "user", "content": hostile}},
		m{"type": "message", "id": "a3", "parentId": "a2", "message": m{"role": "assistant", "provider": "openai", "model": "gpt\x1b[5m", "content": []any{
			m{"type": "thinking", "thinking": "think " + hostile},
			m{"type": "text", "text": hostile},
			m{"type": "toolCall", "id": "call\x1b[1m", "name": "exec\x1b]0;t\x07", "arguments": m{"command": hostile}},
			m{"type": "image", "mimeType": "image/png", "data": tinyPNG(t)},
		}}},
		m{"type": "message", "id": "a4", "parentId": "a3", "message": m{"role": "toolResult", "toolCallId": "call\x1b[1m", "toolName": "exec\x1b]0;t\x07", "content": []any{m{"type": "text", "text": hostile}}}},
		m{"type": "compaction", "id": "a5", "parentId": "a4", "summary": hostile, "firstKeptEntryId": "a4", "tokensBefore": 9},
		m{"type": "custom_message", "id": "a6", "parentId": "a5", "customType": "x\x1b[0m", "content": hostile + "~~~~\nan unclosed fence", "display": true},
		m{"type": "message", "id": "a7", "parentId": "a6", "message": m{"role": "assistant", "stopReason": "error", "errorMessage": hostile, "content": []any{}}},
		"{not json \x1b[31m" + hostile[:20],
	}
	if huge > 0 {
		lines = append(lines, m{"type": "message", "id": "a8", "parentId": "a7", "message": m{"role": "toolResult", "toolCallId": "c", "toolName": "cat",
			"content": []any{m{"type": "text", "text": strings.Repeat("A", huge)}}}},
			m{"type": "message", "id": "a9", "parentId": "a8", "message": m{"role": "user", "content": strings.Repeat("é", huge/2)}})
	}
	return writeLines(t, lines...)
}

// unsafeForTerminal finds a character a terminal would act on: C0 controls
// but line end and tab, DEL, C1 controls, bidi embeddings, overrides and
// isolates, bytes that are not UTF-8.
func unsafeForTerminal(s string) (rune, int, bool) {
	for i, r := range s {
		switch {
		case r == utf8.RuneError:
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				return r, i, true
			}
		case r < 0x20 && r != '\n' && r != '\t', r == 0x7f, r >= 0x80 && r <= 0x9f,
			r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
			return r, i, true
		}
	}
	return 0, 0, false
}

func render1(t *testing.T, path, format string, o render.Options, sel conversation.Selection) string {
	t.Helper()
	st, err := store.Open(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	err = show.Write(context.Background(), st, store.Session{Era: store.EraJSONL, Path: path}, &out, show.Options{Format: format, Render: o, Styles: plainStyles(), Selection: sel})
	if err != nil {
		t.Fatalf("%s: %v", format, err)
	}
	return out.String()
}

// TestHostileTranscriptIsRenderedSafely: in every format, with every
// option, nothing a terminal acts on gets through; HTML has no script, no
// src or href; Markdown's fences hold.
func TestHostileTranscriptIsRenderedSafely(t *testing.T) {
	path := hostileTranscript(t, 0)
	for _, format := range show.Formats() {
		for _, o := range []render.Options{{}, {Full: true, Thinking: true, Highlight: regexp.MustCompile("(?i)evil")}} {
			for _, sel := range []conversation.Selection{{}, {All: true}} {
				out := render1(t, path, format, o, sel)
				if r, i, bad := unsafeForTerminal(out); bad {
					t.Errorf("%s %+v: %U at byte %d reaches the output: %q", format, o.Full, r, i, out[max(0, i-40):min(len(out), i+40)])
				}
				if !strings.Contains(out, "red") || !strings.Contains(out, "out of the fence") {
					t.Errorf("%s: the hostile text itself is missing", format)
				}
				switch format {
				case "html":
					checkTags(t, out)
					if !strings.Contains(out, "&lt;script&gt;") {
						t.Errorf("html: the <script> text is not shown escaped")
					}
				case "markdown":
					checkFences(t, out)
				case "json":
					var doc any
					if err := json.Unmarshal([]byte(out), &doc); err != nil {
						t.Errorf("json: does not parse: %v", err)
					}
				}
			}
		}
	}
}

// checkTags checks that the HTML's only tags are the renderer's own, with
// no attribute that could fetch or run anything: class, lang, charset,
// name and content only.
func checkTags(t *testing.T, out string) {
	t.Helper()
	allowed := map[string]bool{"html": true, "head": true, "meta": true, "title": true, "style": true, "body": true, "header": true,
		"h1": true, "h2": true, "h3": true, "p": true, "main": true, "article": true, "div": true, "pre": true, "span": true, "mark": true}
	tags := regexp.MustCompile(`<(/?)([A-Za-z0-9!]+)([^>]*)>`).FindAllStringSubmatch(out, -1)
	if len(tags) < 10 {
		t.Fatalf("html: only %d tags", len(tags))
	}
	attr := regexp.MustCompile(`([A-Za-z-]+)=`)
	for _, tag := range tags {
		name := strings.ToLower(tag[2])
		if name == "!doctype" {
			continue
		}
		if !allowed[name] {
			t.Errorf("html: tag <%s%s> is not the renderer's", tag[1], tag[2])
		}
		for _, a := range attr.FindAllStringSubmatch(tag[3], -1) {
			switch strings.ToLower(a[1]) {
			case "class", "lang", "charset", "name", "content":
			default:
				t.Errorf("html: attribute %s= in <%s%s>", a[1], tag[2], tag[3])
			}
		}
	}
	low := strings.ToLower(out)
	for _, bad := range []string{"<script", "<img", "<a ", "<link", "<iframe", "@import", "url("} {
		if strings.Contains(low, bad) {
			t.Errorf("html: %q in the output", bad)
		}
	}
}

// checkFences reads the Markdown's fences as CommonMark does: every block
// closes, no heading of the renderer's is inside one, and no raw HTML tag
// is outside one.
func checkFences(t *testing.T, out string) {
	t.Helper()
	open, headings := "", 0
	for _, l := range strings.Split(out, "\n") {
		if f := markdown.OpenFence(open + "\n" + l); open == "" && f != "" || open != "" && f == "" {
			open = f
			continue
		}
		if open != "" {
			continue
		}
		if strings.Contains(l, "<script") || strings.Contains(l, "<img") || strings.Contains(l, "<a ") {
			t.Errorf("markdown: raw HTML outside code: %q", l)
		}
		if strings.HasPrefix(l, "## ") {
			headings++
		}
	}
	if open != "" {
		t.Errorf("markdown: a fence %q is never closed", open)
	}
	if headings < 5 {
		t.Errorf("markdown: %d message headings outside fences", headings)
	}
}

// TestHugeLineIsFolded: a 50 MB line is shown folded in every format
// (unless --full), and the output stays small.
func TestHugeLineIsFolded(t *testing.T) {
	if testing.Short() {
		t.Skip("50 MB line")
	}
	const huge = 50 << 20
	path := hostileTranscript(t, huge)
	for _, format := range show.Formats() {
		if format == "json" {
			continue // the JSON document holds every text whole, by design
		}
		out := render1(t, path, format, render.Options{}, conversation.Selection{})
		if len(out) > 2<<20 {
			t.Errorf("%s: %d bytes of output for a 50 MB line: not folded", format, len(out))
		}
		if !strings.Contains(out, "--full shows all") {
			t.Errorf("%s: no fold note", format)
		}
		if _, _, bad := unsafeForTerminal(out); bad {
			t.Errorf("%s: unsafe output", format)
		}
	}
}

// TestImagePlaceholder: an image is described, never printed.
func TestImagePlaceholder(t *testing.T) {
	path := hostileTranscript(t, 0)
	out := render1(t, path, "text", render.Options{}, conversation.Selection{})
	if !strings.Contains(out, "[image image/png, ") || !strings.Contains(out, ", 7x3]") {
		t.Errorf("no image placeholder with type, size and dimensions:\n%s", out)
	}
	if strings.Contains(out, tinyPNG(t)[:20]) {
		t.Errorf("image data printed")
	}
}
