package text_test

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/openclaw-tools/oc/internal/cli"
	"github.com/openclaw-tools/oc/pkg/conversation"
	"github.com/openclaw-tools/oc/pkg/render"
	"github.com/openclaw-tools/oc/pkg/render/text"
)

const markdownMessage = "## Plan\n" +
	"Use **bold**, *italic*, `a_b` and [the docs](https://example.com/x).\n" +
	"- first\n" +
	"> quoted\n" +
	"```go\n" +
	"x := **not bold** // `not code`\n" +
	"```\n" +
	"snake_case_name stays\n" +
	"---\n" +
	"**unclosed and * alone"

func renderMessage(t *testing.T, color bool, msg string, hl *regexp.Regexp) string {
	t.Helper()
	ios, _, _ := cli.Test(color)
	var out bytes.Buffer
	r := text.New(&out, ios.Styles(), render.Options{Color: color, Highlight: hl})
	it := &conversation.Item{Kind: conversation.KindMessage, Role: "assistant", Line: 2, ID: "a",
		Blocks: []conversation.Block{{Kind: conversation.BlockText, Text: msg}}}
	if err := r.Item(it); err != nil {
		t.Fatal(err)
	}
	if err := r.End(); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// ansi removes SGR sequences.
var ansi = regexp.MustCompile("\x1b\\[[0-9;]*m")

// On a terminal a message's Markdown is styled, its marks gone but every
// word kept, code blocks left as written; piped, the text is as written.
func TestMarkdownOnATerminal(t *testing.T) {
	styled := renderMessage(t, true, markdownMessage, nil)
	if !strings.Contains(styled, "\x1b[") {
		t.Fatalf("no styling on a terminal: %q", styled)
	}
	seen := ansi.ReplaceAllString(styled, "")
	for _, want := range []string{
		"## Plan", "Use bold, italic, a_b and the docs (https://example.com/x).", "• first", "│ quoted",
		"x := **not bold** // `not code`", "snake_case_name stays", "────", "**unclosed and * alone",
	} {
		if !strings.Contains(seen, want) {
			t.Errorf("styled output lacks %q:\n%s", want, seen)
		}
	}
	plain := renderMessage(t, false, markdownMessage, nil)
	if strings.Contains(plain, "\x1b") {
		t.Errorf("escape sequences in piped output: %q", plain)
	}
	for _, l := range strings.Split(markdownMessage, "\n") {
		if !strings.Contains(plain, l) {
			t.Errorf("piped output does not hold %q as written:\n%s", l, plain)
		}
	}
	// --grep's matches are marked inside styled pieces too
	hl := renderMessage(t, true, markdownMessage, regexp.MustCompile("(?i)bold"))
	if strings.Count(hl, "\x1b[7m") < 2 {
		t.Errorf("--grep matches not marked in styled Markdown: %q", hl)
	}
}

// Control characters inside Markdown constructs never reach the terminal:
// the only escape sequences in styled output are the styles' own.
func TestMarkdownKeepsControlCharactersOut(t *testing.T) {
	hostile := "# \x1b]0;title\x07head\n" +
		"**\x1b[31mred\x1b[0m** and `\x9b2J` and [x\u202e](http://e/\x1b[2J)\n" +
		"```\n\x1b[2Jinside code\n```\n" +
		"> \x07bell \u2066isolate"
	out := renderMessage(t, true, hostile, regexp.MustCompile("(?i)red"))
	rest := ansi.ReplaceAllString(out, "")
	for _, bad := range []string{"\x1b", "\x07", "\x9b", "\u202e", "\u2066"} {
		if strings.Contains(rest, bad) {
			t.Errorf("%q reached the output: %q", bad, out)
		}
	}
	// the file's sequences are shown as escapes a reader sees (so none of
	// the SGR sequences removed above was the file's)
	for _, want := range []string{`\x1b]0;title\x07head`, `\x1b[31mred\x1b[0m`, `\x9b2J`, `\x1b[2Jinside code`, `\x07bell`} {
		if !strings.Contains(rest, want) && !strings.Contains(ansi.ReplaceAllString(strings.ReplaceAll(out, "\x1b[7m", ""), ""), want) {
			t.Errorf("output lacks the escaped %q:\n%s", want, rest)
		}
	}
}
