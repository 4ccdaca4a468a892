package conversation

import (
	"bytes"

	"github.com/openclaw-tools/oc/pkg/transcript"
)

// DecodeLine turns one stored line into an item. A line that is not JSON
// is a KindMalformed item (OpenClaw skips it; a reader sees where it is).
func DecodeLine(line int64, data []byte) *Item {
	data = bytes.TrimPrefix(data, []byte{0xef, 0xbb, 0xbf})
	e, err := transcript.DecodeEntry(data)
	if err != nil {
		return &Item{Kind: KindMalformed, Line: line, Value: string(data)}
	}
	it := &Item{Line: line, Type: e.Type, ID: e.ID, ParentID: e.ParentID}
	it.Time = parseTime(e.Timestamp, "")
	switch e.Type {
	case transcript.TypeSession:
		it.Kind = KindSessionHeader
		if e.Session != nil {
			it.Value = e.Session.Cwd
		}
	case transcript.TypeMessage:
		it.Kind = KindMessage
		if m := e.Message; m != nil {
			fillMessage(it, m)
			if it.Time.IsZero() {
				it.Time = parseTime("", m.Timestamp)
			}
		}
	case transcript.TypeModelChange:
		it.Kind = KindModelChange
		if mc := e.ModelChange; mc != nil {
			it.Provider, it.Model = mc.Provider, mc.ModelID
		}
	case transcript.TypeThinkingLevelChange:
		it.Kind = KindThinkingLevel
		if e.ThinkingLevel != nil {
			it.Value = *e.ThinkingLevel
		}
	case transcript.TypeCompaction:
		it.Kind = KindCompaction
		if c := e.Compaction; c != nil {
			it.Summary, it.TokensBefore = c.Summary, string(c.TokensBefore)
		}
	case transcript.TypeBranchSummary:
		it.Kind = KindBranchSummary
		if b := e.BranchSummary; b != nil {
			it.Summary, it.FromID = b.Summary, b.FromID
		}
	case transcript.TypeCustomMessage, transcript.TypeCustom:
		it.Kind = KindCustom
		if e.Type == transcript.TypeCustomMessage {
			it.Kind = KindCustomMessage
		}
		if c := e.Custom; c != nil {
			it.CustomType = c.CustomType
			if c.Content != nil {
				it.Blocks = blocksOf(*c.Content)
			}
			if it.Kind == KindCustom && len(c.Data) > 0 {
				it.Value = string(c.Data)
			}
		}
	case transcript.TypeLabel:
		it.Kind = KindLabel
		if l := e.Label; l != nil {
			it.FromID = l.TargetID
			if l.Label != nil {
				it.Value = *l.Label
			}
		}
	case transcript.TypeSessionInfo:
		it.Kind = KindSessionInfo
		if si := e.SessionInfo; si != nil && si.Name != nil {
			it.Value = *si.Name
		}
	default:
		it.Kind = KindOther
		it.Value = string(data)
	}
	return it
}

// fillMessage copies a message's fields and blocks into it.
func fillMessage(it *Item, m *transcript.Message) {
	it.Role, it.Provider, it.Model, it.API = m.Role, m.Provider, m.Model, m.API
	it.StopReason, it.ErrorMessage = m.StopReason, m.ErrorMessage
	it.ToolCallID, it.ToolName, it.IsError = m.ToolCallID, m.ToolName, m.IsError
	it.CustomType = m.CustomType
	if u := m.Usage; u != nil {
		it.Usage = &Usage{Input: string(u.Input), Output: string(u.Output), Total: string(u.TotalTokens)}
	}
	it.Blocks = blocksOf(m.Content)
}

// blocksOf turns stored content (a string or blocks) into blocks.
func blocksOf(c transcript.Content) []Block {
	if c.Text != nil {
		return []Block{{Kind: BlockText, Type: "text", Text: *c.Text}}
	}
	out := make([]Block, 0, len(c.Blocks))
	for _, b := range c.Blocks {
		out = append(out, blockOf(b))
	}
	return out
}

func blockOf(b transcript.Block) Block {
	out := Block{Type: b.Type}
	switch {
	case b.Type == "text":
		out.Kind, out.Text = BlockText, b.Text
	case b.Type == "thinking" || b.Type == "redacted_thinking":
		out.Kind, out.Text, out.Redacted = BlockThinking, b.Thinking, b.Redacted || b.Type == "redacted_thinking"
	case b.IsToolCall():
		out.Kind, out.CallID, out.Name, out.Arguments = BlockToolCall, b.ID, b.Name, b.Arguments
		if len(out.Arguments) == 0 && b.PartialJSON != "" {
			out.Text = b.PartialJSON
		}
	case b.Type == "image" || b.Type == "input_image":
		out.Kind, out.MimeType = BlockImage, b.MimeType
		out.Bytes, out.Width, out.Height = imageInfo(b.Data)
	default:
		out.Kind, out.Text = BlockOther, b.Text
	}
	return out
}
