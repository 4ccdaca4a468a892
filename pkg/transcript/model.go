package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/openclaw-tools/oc/pkg/jsonl"
	"github.com/openclaw-tools/oc/pkg/vocab"
)

// Entry is one transcript line decoded leniently: the common fields, a typed
// view of the payload for the types OpenClaw writes, and Raw, the line's
// exact bytes. Nothing is ever dropped: fields oc does not model, unknown
// entry types and values of an unexpected JSON type stay in Raw, and oc never
// writes an entry back from the typed view (repairs patch Raw surgically).
type Entry struct {
	Line      int64           `json:"line"`
	Type      string          `json:"type"`
	ID        string          `json:"id,omitempty"`
	ParentID  string          `json:"parentId,omitempty"`
	Timestamp string          `json:"timestamp,omitempty"`
	Raw       json.RawMessage `json:"-"`

	Session       *SessionHeader `json:"session,omitempty"`
	Message       *Message       `json:"message,omitempty"`
	ThinkingLevel *string        `json:"thinkingLevel,omitempty"` // thinking_level_change
	ModelChange   *ModelChange   `json:"modelChange,omitempty"`
	Compaction    *Compaction    `json:"compaction,omitempty"`
	BranchSummary *BranchSummary `json:"branchSummary,omitempty"`
	Custom        *Custom        `json:"custom,omitempty"`      // custom and custom_message
	Label         *Label         `json:"label,omitempty"`       // label
	SessionInfo   *SessionInfo   `json:"sessionInfo,omitempty"` // session_info
}

// SessionHeader is the first line of a transcript.
type SessionHeader struct {
	Version       json.Number `json:"version,omitempty"`
	Cwd           string      `json:"cwd,omitempty"`
	ParentSession string      `json:"parentSession,omitempty"`
}

// Message is an AgentMessage: user, assistant, toolResult, custom, bashExecution.
type Message struct {
	Role         string          `json:"role"`
	Content      Content         `json:"content"`
	API          string          `json:"api,omitempty"`
	Provider     string          `json:"provider,omitempty"`
	Model        string          `json:"model,omitempty"`
	StopReason   string          `json:"stopReason,omitempty"`
	ErrorMessage string          `json:"errorMessage,omitempty"`
	ResponseID   string          `json:"responseId,omitempty"`
	Usage        *Usage          `json:"usage,omitempty"`
	ToolCallID   string          `json:"toolCallId,omitempty"` // toolResult (toolCallId, else toolUseId)
	ToolName     string          `json:"toolName,omitempty"`
	IsError      bool            `json:"isError,omitempty"`
	CustomType   string          `json:"customType,omitempty"`
	Timestamp    json.Number     `json:"timestamp,omitempty"`
	Provenance   json.RawMessage `json:"provenance,omitempty"`
}

// Usage is an assistant turn's token accounting.
type Usage struct {
	Input       json.Number `json:"input,omitempty"`
	Output      json.Number `json:"output,omitempty"`
	CacheRead   json.Number `json:"cacheRead,omitempty"`
	CacheWrite  json.Number `json:"cacheWrite,omitempty"`
	TotalTokens json.Number `json:"totalTokens,omitempty"`
}

// Content is a message's content: a plain string (user messages) or blocks.
type Content struct {
	Text   *string `json:"text,omitempty"`
	Blocks []Block `json:"blocks,omitempty"`
}

// Block is one content block: text, thinking, redacted_thinking, image,
// toolCall (also toolUse / functionCall).
type Block struct {
	Type              string          `json:"type"`
	Text              string          `json:"text,omitempty"`
	Thinking          string          `json:"thinking,omitempty"`
	ThinkingSignature string          `json:"thinkingSignature,omitempty"`
	Redacted          bool            `json:"redacted,omitempty"`
	ID                string          `json:"id,omitempty"`
	Name              string          `json:"name,omitempty"`
	Arguments         json.RawMessage `json:"arguments,omitempty"` // arguments, else input
	PartialJSON       string          `json:"partialJson,omitempty"`
	Data              string          `json:"data,omitempty"`
	MimeType          string          `json:"mimeType,omitempty"` // mimeType, else mediaType / media_type
}

// IsToolCall reports whether the block is a tool call OpenClaw recognises.
func (b Block) IsToolCall() bool { return vocab.IsToolCallBlock(b.Type) }

// ModelChange is a model_change entry.
type ModelChange struct {
	Provider string `json:"provider"`
	ModelID  string `json:"modelId"`
}

// Compaction is a compaction entry.
type Compaction struct {
	Summary          string          `json:"summary"`
	FirstKeptEntryID string          `json:"firstKeptEntryId,omitempty"`
	TokensBefore     json.Number     `json:"tokensBefore,omitempty"`
	FromHook         bool            `json:"fromHook,omitempty"`
	Details          json.RawMessage `json:"details,omitempty"`
}

// BranchSummary is a branch_summary entry.
type BranchSummary struct {
	FromID  string `json:"fromId"`
	Summary string `json:"summary"`
}

// Custom is a custom (extension state) or custom_message (model-visible) entry.
type Custom struct {
	CustomType string          `json:"customType"`
	Data       json.RawMessage `json:"data,omitempty"`
	Content    *Content        `json:"content,omitempty"`
	Display    *bool           `json:"display,omitempty"`
}

// Label is a label entry (an absent label clears it).
type Label struct {
	TargetID string  `json:"targetId"`
	Label    *string `json:"label,omitempty"`
}

// SessionInfo is a session_info entry (the display name).
type SessionInfo struct {
	Name *string `json:"name,omitempty"`
}

// DecodeEntry decodes one line. It fails only when the line is not JSON
// (what OpenClaw skips as malformed); any JSON value decodes, with the
// fields it has.
func DecodeEntry(line []byte) (*Entry, error) {
	if !jsonl.Valid(line) {
		return nil, fmt.Errorf("not valid JSON")
	}
	en := &Entry{Raw: append(json.RawMessage(nil), line...)}
	var e rawEntry
	if !e.decode(en.Raw) {
		return en, nil
	}
	en.Type, _ = str(e.Type)
	en.ID = keyOf(e.ID).String()
	en.ParentID = keyOf(e.ParentID).String()
	en.Timestamp, _ = str(e.Timestamp)
	switch en.Type {
	case TypeSession:
		h := &SessionHeader{}
		h.Cwd, _ = str(e.Cwd)
		if v := jsonl.TrimSpace(e.Version); len(v) > 0 && v[0] != '"' && v[0] != 'n' {
			h.Version = json.Number(v)
		}
		h.ParentSession, _ = str(e.ParentSession)
		en.Session = h
	case TypeMessage:
		if isObject(e.Message) {
			en.Message = decodeMessage(e.Message)
		}
	case TypeThinkingLevelChange:
		if s, ok := str(e.ThinkingLevel); ok {
			en.ThinkingLevel = &s
		}
	case TypeModelChange:
		mc := &ModelChange{}
		mc.Provider, _ = str(e.Provider)
		mc.ModelID, _ = str(e.ModelID)
		en.ModelChange = mc
	case TypeCompaction:
		c := &Compaction{Details: cloneRaw(e.Details)}
		c.Summary, _ = str(e.Summary)
		c.FirstKeptEntryID = keyOf(e.FirstKeptEntryID).String()
		c.TokensBefore = number(e.TokensBefore)
		en.Compaction = c
	case TypeBranchSummary:
		b := &BranchSummary{}
		b.FromID = keyOf(e.FromID).String()
		b.Summary, _ = str(e.Summary)
		en.BranchSummary = b
	case TypeCustom, TypeCustomMessage:
		c := &Custom{}
		c.CustomType, _ = str(e.CustomType)
		c.Data = cloneRaw(e.Data)
		if len(jsonl.TrimSpace(e.Content)) > 0 {
			ct := decodeContent(e.Content)
			c.Content = &ct
		}
		if v := jsonl.TrimSpace(e.Display); len(v) > 0 {
			b := isTrue(v)
			c.Display = &b
		}
		en.Custom = c
	case TypeLabel:
		l := &Label{TargetID: keyOf(e.TargetID).String()}
		if s, ok := str(e.Label); ok {
			l.Label = &s
		}
		en.Label = l
	case TypeSessionInfo:
		si := &SessionInfo{}
		if s, ok := str(e.Name); ok {
			si.Name = &s
		}
		en.SessionInfo = si
	}
	return en, nil
}

func number(raw json.RawMessage) json.Number {
	raw = jsonl.TrimSpace(raw)
	if len(raw) > 0 && (raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9') {
		return json.Number(raw)
	}
	return ""
}

func decodeMessage(raw json.RawMessage) *Message {
	var m rawMessage
	m.decode(raw)
	msg := &Message{Content: decodeContent(m.Content), Provenance: cloneRaw(m.Provenance)}
	msg.Role, _ = str(m.Role)
	msg.API, _ = str(m.API)
	msg.Provider, _ = str(m.Provider)
	msg.Model, _ = str(m.Model)
	msg.StopReason, _ = str(m.StopReason)
	msg.ErrorMessage, _ = str(m.ErrorMsg)
	msg.ResponseID, _ = str(m.ResponseID)
	msg.ToolName, _ = str(m.ToolName)
	msg.CustomType, _ = str(m.CustomType)
	msg.IsError = isTrue(m.IsError)
	msg.Timestamp = number(m.Timestamp)
	if id, ok := str(m.ToolCallID); ok && id != "" {
		msg.ToolCallID = id
	} else {
		msg.ToolCallID, _ = str(m.ToolUseID)
	}
	if isObject(m.Usage) {
		u := &Usage{}
		jsonl.Members(m.Usage, func(k, v []byte) bool {
			switch string(k) {
			case "input":
				u.Input = number(v)
			case "output":
				u.Output = number(v)
			case "cacheRead":
				u.CacheRead = number(v)
			case "cacheWrite":
				u.CacheWrite = number(v)
			case "totalTokens":
				u.TotalTokens = number(v)
			}
			return true
		})
		msg.Usage = u
	}
	return msg
}

func decodeContent(raw json.RawMessage) Content {
	raw = jsonl.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		s, _ := str(raw)
		return Content{Text: &s}
	}
	if !isArray(raw) {
		return Content{}
	}
	out := Content{Blocks: []Block{}}
	jsonl.Elements(raw, func(v []byte) bool {
		var blk Block
		var args, input, mime, media, media2 []byte
		jsonl.Members(v, func(k, v []byte) bool {
			switch string(k) {
			case "type":
				blk.Type, _ = str(v)
			case "text":
				blk.Text, _ = str(v)
			case "thinking":
				blk.Thinking, _ = str(v)
			case "thinkingSignature":
				blk.ThinkingSignature, _ = str(v)
			case "redacted":
				blk.Redacted = isTrue(v)
			case "id":
				blk.ID, _ = str(v)
			case "name":
				blk.Name, _ = str(v)
			case "partialJson":
				blk.PartialJSON, _ = str(v)
			case "data":
				blk.Data, _ = str(v)
			case "arguments":
				args = v
			case "input":
				input = v
			case "mimeType":
				mime = v
			case "mediaType":
				media = v
			case "media_type":
				media2 = v
			}
			return true
		})
		blk.Arguments = cloneRaw(args)
		if blk.Arguments == nil {
			blk.Arguments = cloneRaw(input)
		}
		for _, mt := range [][]byte{mime, media, media2} {
			if s, ok := str(mt); ok {
				blk.MimeType = s
				break
			}
		}
		out.Blocks = append(out.Blocks, blk)
		return true
	})
	return out
}

// ReadEntries streams the entries of a transcript to fn in file order,
// skipping blank lines; a malformed line is passed as a nil entry with its
// line number so callers can count or report it. fn's error stops the walk.
func ReadEntries(r io.Reader, fn func(line int64, e *Entry) error) error {
	rd := jsonl.NewReader(r)
	for {
		l, err := rd.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		data := l.Data
		if l.Num == 1 {
			data = bytes.TrimPrefix(data, bom)
		}
		if jsonl.IsBlank(data) {
			continue
		}
		e, err := DecodeEntry(data)
		if err != nil {
			if err := fn(l.Num, nil); err != nil {
				return err
			}
			continue
		}
		e.Line = l.Num
		if err := fn(l.Num, e); err != nil {
			return err
		}
	}
}
