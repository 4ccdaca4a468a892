// Package render lays out a conversation's items for a reader, in one shape
// every output format shares: headings (who spoke, when, with which model),
// text, code (tool arguments and results, folded) and notes (forks, model
// changes, errors). The formats (render/text, render/markdown, render/html,
// render/jsonout) turn the parts into bytes; each escapes the untrusted
// text its own way.
package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/openclaw-tools/oc/pkg/conversation"
	"github.com/openclaw-tools/oc/pkg/transcript"
)

// Header is what a rendering says about the session before its items.
type Header struct {
	Title  string   `json:"title"` // the session's key, else its id, else its path
	Key    string   `json:"key,omitempty"`
	ID     string   `json:"sessionId,omitempty"`
	Agent  string   `json:"agent,omitempty"`
	Era    string   `json:"era"`
	Source string   `json:"source"` // the file, or the database and row the session was read from
	Rules  string   `json:"rules"`  // the release whose rules chose the active branch
	Cwd    string   `json:"cwd,omitempty"`
	Start  string   `json:"started,omitempty"`
	Shown  string   `json:"shown"` // which entries: "active branch", "branch ending at X", "all entries"
	Notes  []string `json:"notes,omitempty"`
}

// Options tune a rendering.
type Options struct {
	// Full shows tool arguments and results, long texts and custom data
	// whole; otherwise they are folded.
	Full bool
	// Thinking shows thinking blocks; otherwise each is one folded line.
	Thinking bool
	// Highlight marks where it matches (nil: nothing is marked).
	Highlight *regexp.Regexp
	// Color styles text output (terminals only).
	Color bool
	// MarkActive names the entries off the active branch (oc show --all).
	MarkActive bool
}

// Renderer writes one session.
type Renderer interface {
	Begin(h *Header) error
	Item(it *conversation.Item) error
	End() error
}

// Folding limits: what is shown of a tool's arguments and result, of any
// one line of them, and of a text, unless --full.
const (
	ArgLines      = 6
	ResultLines   = 12
	LineBytes     = 400
	TextBytes     = 1 << 20
	customLines   = 4
	malformedLine = 200
)

// PartKind is what a part of the layout is.
type PartKind uint8

const (
	PartHeading PartKind = iota // who or what, with Meta
	PartText                    // prose as written (Markdown in practice)
	PartCode                    // tool arguments or results, custom data: verbatim, monospace
	PartNote                    // one line about the entry (a fork, a model change, an error)
)

// Part is one piece of an item's layout.
type Part struct {
	Kind PartKind
	// Style names what the part shows: user, assistant, toolResult,
	// toolCall, thinking, summary, custom, model, fork, error, meta.
	Style string
	Title string
	Meta  []string // heading details: model, time, line, id
	Text  string   // the text or code shown (already folded)
	Lang  string   // code: "json" for JSON
	// Folded says what folding left out ("" when nothing was).
	Folded string
	// Nested: the part belongs to a tool call or result under a message.
	Nested bool
}

// Layout turns an item into parts.
func Layout(it *conversation.Item, o Options) []Part {
	var out []Part
	meta := func(extra ...string) []string {
		m := append([]string(nil), extra...)
		if !it.Time.IsZero() {
			m = append(m, it.Time.Format("2006-01-02 15:04:05Z"))
		}
		m = append(m, fmt.Sprintf("line %d", it.Line))
		if it.ID != "" {
			m = append(m, "id "+it.ID)
		}
		if o.MarkActive && !it.Active {
			m = append(m, "off the active branch")
		}
		return m
	}
	switch it.Kind {
	case conversation.KindMessage:
		out = messageParts(it, o, meta)
	case conversation.KindModelChange:
		out = append(out, Part{Kind: PartNote, Style: "model", Text: "model changed to " + joinModel(it.Provider, it.Model), Meta: meta()})
	case conversation.KindThinkingLevel:
		out = append(out, Part{Kind: PartNote, Style: "model", Text: "thinking level set to " + it.Value, Meta: meta()})
	case conversation.KindCompaction:
		title := "compaction summary"
		var m []string
		if it.TokensBefore != "" {
			m = append(m, it.TokensBefore+" tokens before")
		}
		out = append(out, Part{Kind: PartHeading, Style: "summary", Title: title, Meta: meta(m...)})
		out = append(out, textPart("summary", it.Summary, o))
	case conversation.KindBranchSummary:
		var m []string
		if it.FromID != "" {
			m = append(m, "from "+it.FromID)
		}
		out = append(out, Part{Kind: PartHeading, Style: "summary", Title: "branch summary", Meta: meta(m...)})
		out = append(out, textPart("summary", it.Summary, o))
	case conversation.KindCustomMessage:
		out = append(out, Part{Kind: PartHeading, Style: "custom", Title: "custom message " + bracket(it.CustomType), Meta: meta()})
		out = append(out, blockParts(it, o)...)
	case conversation.KindCustom:
		out = append(out, Part{Kind: PartNote, Style: "meta", Text: "custom entry " + bracket(it.CustomType) + " (extension state, not sent to the model)", Meta: meta()})
		if o.Full && it.Value != "" {
			out = append(out, codePart("custom", prettyJSON(it.Value), "json", customLines, o, true))
		}
	case conversation.KindLabel:
		out = append(out, Part{Kind: PartNote, Style: "meta", Text: fmt.Sprintf("label %q on %s", it.Value, it.FromID), Meta: meta()})
	case conversation.KindSessionInfo:
		out = append(out, Part{Kind: PartNote, Style: "meta", Text: fmt.Sprintf("session named %q", it.Value), Meta: meta()})
	case conversation.KindSessionHeader:
		out = append(out, Part{Kind: PartNote, Style: "meta", Text: "another session header (not an entry)", Meta: meta()})
	case conversation.KindMalformed:
		out = append(out, Part{Kind: PartNote, Style: "error", Text: "not JSON: OpenClaw skips this line", Meta: meta()})
		out = append(out, codePart("error", it.Value, "", 1, Options{Full: o.Full}, false))
	default:
		out = append(out, Part{Kind: PartNote, Style: "meta", Text: "entry of type " + quoteOr(it.Type, "(none)"), Meta: meta()})
		if o.Full {
			out = append(out, codePart("meta", it.Value, "json", customLines, o, false))
		}
	}
	if it.Children > 1 {
		out = append(out, Part{Kind: PartNote, Style: "fork", Text: fmt.Sprintf("fork: %d branches continue from here (%s); --branch LEAF shows another", it.Children, strings.Join(it.ChildIDs, ", "))})
	}
	return out
}

// messageParts lays out a message: a heading by role, then its blocks.
func messageParts(it *conversation.Item, o Options, meta func(...string) []string) []Part {
	var out []Part
	switch it.Role {
	case transcript.RoleToolResult:
		title := "result of " + quoteOr(it.ToolName, "a tool")
		var m []string
		if it.ToolCallID != "" {
			m = append(m, "call "+it.ToolCallID)
		}
		if !it.Paired {
			m = append(m, "its call is not on this branch")
		}
		style := "toolResult"
		if it.IsError {
			title += " (error)"
			style = "error"
		}
		out = append(out, Part{Kind: PartHeading, Style: style, Title: title, Meta: meta(m...), Nested: true})
		var text strings.Builder
		for i, b := range it.Blocks {
			if i > 0 {
				text.WriteByte('\n')
			}
			switch b.Kind {
			case conversation.BlockImage:
				text.WriteString(imageText(b))
			default:
				text.WriteString(b.Text)
			}
		}
		out = append(out, codePart(style, text.String(), "", ResultLines, o, true))
		return out
	case transcript.RoleAssistant:
		var m []string
		if mod := joinModel(it.Provider, it.Model); mod != "" {
			m = append(m, mod)
		}
		if it.Usage != nil && it.Usage.Output != "" && it.Usage.Output != "0" {
			m = append(m, it.Usage.Output+" tokens out")
		}
		out = append(out, Part{Kind: PartHeading, Style: "assistant", Title: "assistant", Meta: meta(m...)})
	default:
		role := quoteOr(it.Role, "message without a role")
		out = append(out, Part{Kind: PartHeading, Style: styleOf(it.Role), Title: role, Meta: meta()})
	}
	out = append(out, blockParts(it, o)...)
	if it.IsFailedTurn() {
		msg := "the turn failed (stopReason error)"
		if it.ErrorMessage != "" {
			msg += ": " + it.ErrorMessage
		}
		out = append(out, Part{Kind: PartNote, Style: "error", Text: msg})
	} else if it.StopReason != "" && it.StopReason != "stop" && it.StopReason != "toolUse" && it.StopReason != "end_turn" {
		out = append(out, Part{Kind: PartNote, Style: "meta", Text: "stopped: " + it.StopReason})
	}
	return out
}

// blockParts lays out content blocks.
func blockParts(it *conversation.Item, o Options) []Part {
	var out []Part
	for _, b := range it.Blocks {
		switch b.Kind {
		case conversation.BlockText, conversation.BlockOther:
			if b.Kind == conversation.BlockOther && b.Text == "" {
				out = append(out, Part{Kind: PartNote, Style: "meta", Text: "block of type " + quoteOr(b.Type, "(none)")})
				continue
			}
			out = append(out, textPart(styleOf(it.Role), b.Text, o))
		case conversation.BlockThinking:
			switch {
			case b.Redacted:
				out = append(out, Part{Kind: PartNote, Style: "thinking", Text: "thinking (redacted)"})
			case !o.Thinking:
				out = append(out, Part{Kind: PartNote, Style: "thinking", Text: fmt.Sprintf("thinking folded (%s; --thinking shows it)", size(len(b.Text)))})
			default:
				p := textPart("thinking", b.Text, o)
				p.Title = "thinking"
				out = append(out, p)
			}
		case conversation.BlockToolCall:
			var m []string
			if b.CallID != "" {
				m = append(m, "call "+b.CallID)
			}
			out = append(out, Part{Kind: PartHeading, Style: "toolCall", Title: "tool call " + quoteOr(b.Name, "(no name)"), Meta: m, Nested: true})
			args := prettyJSON(string(b.Arguments))
			if len(b.Arguments) == 0 {
				args = b.Text
			}
			out = append(out, codePart("toolCall", args, "json", ArgLines, o, true))
		case conversation.BlockImage:
			out = append(out, Part{Kind: PartNote, Style: "meta", Text: imageText(b)})
		}
	}
	return out
}

func imageText(b conversation.Block) string {
	s := "[image " + quoteOr(b.MimeType, "of unknown type") + ", " + size(int(b.Bytes))
	if b.Width > 0 {
		s += fmt.Sprintf(", %dx%d", b.Width, b.Height)
	}
	return s + "]"
}

func textPart(style, text string, o Options) Part {
	p := Part{Kind: PartText, Style: style, Text: text}
	if !o.Full && len(text) > TextBytes {
		cut := cutUTF8(text, TextBytes)
		p.Text = cut
		p.Folded = fmt.Sprintf("%s more (--full shows all)", size(len(text)-len(cut)))
	}
	return p
}

// codePart is verbatim text folded to lines lines of LineBytes each.
func codePart(style, text, lang string, lines int, o Options, nested bool) Part {
	p := Part{Kind: PartCode, Style: style, Lang: lang, Nested: nested}
	if o.Full {
		p.Text = text
		return p
	}
	p.Text, p.Folded = Fold(text, lines, LineBytes)
	return p
}

// Fold keeps the first maxLines lines of s, each cut at maxBytes, and says
// what it left out ("" when nothing). It never looks past what it keeps by
// more than a scan for line ends.
func Fold(s string, maxLines, maxBytes int) (kept, folded string) {
	var b strings.Builder
	lines, cutLines := 0, 0
	rest := s
	for rest != "" && lines < maxLines {
		line := rest
		if i := strings.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			rest = ""
		}
		if lines > 0 {
			b.WriteByte('\n')
		}
		if len(line) > maxBytes {
			line = cutUTF8(line, maxBytes) + "…"
			cutLines++
		}
		b.WriteString(line)
		lines++
	}
	var notes []string
	if rest != "" {
		n := strings.Count(rest, "\n") + 1
		notes = append(notes, fmt.Sprintf("%d more %s, %s", n, plural(n, "line", "lines"), size(len(rest))))
	}
	if cutLines > 0 {
		notes = append(notes, fmt.Sprintf("%d long %s cut", cutLines, plural(cutLines, "line", "lines")))
	}
	if len(notes) > 0 {
		folded = strings.Join(notes, "; ") + " (--full shows all)"
	}
	return b.String(), folded
}

// cutUTF8 is s cut to at most n bytes, not inside a character.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xc0 == 0x80 {
		n--
	}
	return s[:n]
}

// prettyJSON indents a JSON document (as it is when it is not JSON).
func prettyJSON(s string) string {
	if len(s) > TextBytes*4 {
		return s // not worth indenting: it is folded anyway
	}
	var b bytes.Buffer
	if err := json.Indent(&b, []byte(s), "", "  "); err != nil {
		return s
	}
	return b.String()
}

func joinModel(provider, model string) string {
	switch {
	case provider != "" && model != "":
		return provider + "/" + model
	case model != "":
		return model
	}
	return provider
}

func bracket(s string) string {
	if s == "" {
		return ""
	}
	return "[" + s + "]"
}

func quoteOr(s, none string) string {
	if s == "" {
		return none
	}
	return s
}

func styleOf(role string) string {
	switch role {
	case transcript.RoleUser, transcript.RoleAssistant, transcript.RoleToolResult:
		return role
	case transcript.RoleCompactionSummary, transcript.RoleBranchSummary:
		return "summary"
	}
	return "custom"
}

func size(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d %s", n, plural(n, "byte", "bytes"))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
