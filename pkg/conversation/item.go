// Package conversation turns a stored session, from either storage era,
// into a stream of items a person reads: messages with their blocks, model
// changes, compaction and branch summaries, custom messages, with the fork
// points of the entry tree. The session is never held in memory: a first
// pass keeps each entry's id, parent and offset, a second reads the chosen
// entries one at a time (see Open and Conversation.Items).
package conversation

import (
	"encoding/base64"
	"encoding/json"
	"image"
	_ "image/gif"  // image dimensions of GIF placeholders
	_ "image/jpeg" // image dimensions of JPEG placeholders
	_ "image/png"  // image dimensions of PNG placeholders
	"strings"
	"time"

	_ "golang.org/x/image/webp" // image dimensions of WebP placeholders

	"github.com/openclaw-tools/oc/pkg/transcript"
	"github.com/openclaw-tools/oc/pkg/vocab"
)

// Kind is what an item is.
type Kind string

const (
	KindMessage       Kind = "message"
	KindModelChange   Kind = "model_change"
	KindThinkingLevel Kind = "thinking_level_change"
	KindCompaction    Kind = "compaction"
	KindBranchSummary Kind = "branch_summary"
	KindCustomMessage Kind = "custom_message"
	KindCustom        Kind = "custom"
	KindLabel         Kind = "label"
	KindSessionInfo   Kind = "session_info"
	KindSessionHeader Kind = "session"
	KindOther         Kind = "other"     // an entry type oc does not know
	KindMalformed     Kind = "malformed" // a line that is not JSON (OpenClaw skips it)
)

// Item is one entry of a session as a reader sees it. Every string in it
// comes from the file and is untrusted: renderers escape it.
type Item struct {
	Kind     Kind      `json:"kind"`
	Type     string    `json:"type,omitempty"` // the entry's type as stored
	Line     int64     `json:"line"`           // line in the transcript (row position for SQLite, header first)
	ID       string    `json:"id,omitempty"`
	ParentID string    `json:"parentId,omitempty"`
	Time     time.Time `json:"time,omitzero"`

	Role         string  `json:"role,omitempty"`
	Provider     string  `json:"provider,omitempty"`
	Model        string  `json:"model,omitempty"`
	API          string  `json:"api,omitempty"`
	StopReason   string  `json:"stopReason,omitempty"`
	ErrorMessage string  `json:"errorMessage,omitempty"`
	Usage        *Usage  `json:"usage,omitempty"`
	Blocks       []Block `json:"content,omitempty"`

	// A tool result: the call it answers, and that call's name (from the
	// result, else from the call seen earlier in the stream).
	ToolCallID string `json:"toolCallId,omitempty"`
	ToolName   string `json:"toolName,omitempty"`
	IsError    bool   `json:"isError,omitempty"`
	// Paired: the call this result answers was shown before it.
	Paired bool `json:"paired,omitempty"`

	// Compaction and branch summaries.
	Summary      string `json:"summary,omitempty"`
	TokensBefore string `json:"tokensBefore,omitempty"`
	FromID       string `json:"fromId,omitempty"`
	// Custom messages and custom entries.
	CustomType string `json:"customType,omitempty"`
	// Thinking level changes, labels, session names.
	Value string `json:"value,omitempty"`

	// Children is the number of entries whose parent this one is: more
	// than one makes it a fork point; ChildIDs names them (forks only).
	Children int      `json:"children,omitempty"`
	ChildIDs []string `json:"childIds,omitempty"`
	// Active: the entry is on the active branch (set with --all).
	Active bool `json:"active,omitempty"`
}

// Usage is an assistant turn's token accounting, as stored.
type Usage struct {
	Input  string `json:"input,omitempty"`
	Output string `json:"output,omitempty"`
	Total  string `json:"totalTokens,omitempty"`
}

// BlockKind is what a content block is.
type BlockKind string

const (
	BlockText     BlockKind = "text"
	BlockThinking BlockKind = "thinking"
	BlockToolCall BlockKind = vocab.BlockToolCall
	BlockImage    BlockKind = "image"
	BlockOther    BlockKind = "other"
)

// Block is one content block.
type Block struct {
	Kind BlockKind `json:"kind"`
	Type string    `json:"type,omitempty"` // the block's type as stored
	Text string    `json:"text,omitempty"` // text, thinking, or a tool result's text
	// Redacted thinking (no text to show).
	Redacted bool `json:"redacted,omitempty"`
	// Tool calls.
	CallID    string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// Images: never their data, only what it is.
	MimeType string `json:"mimeType,omitempty"`
	Bytes    int64  `json:"bytes,omitempty"`
	Width    int    `json:"width,omitempty"`
	Height   int    `json:"height,omitempty"`
}

// IsFailedTurn reports whether the item is an assistant turn that ended in
// an error (stopReason "error").
func (it *Item) IsFailedTurn() bool {
	return it.Kind == KindMessage && it.Role == transcript.RoleAssistant && it.StopReason == "error"
}

// StringValues calls fn with every string value inside a JSON document
// (object keys excluded), decoded.
func StringValues(raw json.RawMessage, fn func(string)) {
	if len(raw) == 0 {
		return
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	// Keys and values alternate inside objects: track where we are.
	type frame struct {
		object bool
		key    bool // the next token of an object is a key
	}
	var stack []frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{':
				stack = append(stack, frame{object: true, key: true})
				continue
			case '[':
				stack = append(stack, frame{})
				continue
			default:
				stack = stack[:len(stack)-1]
			}
		case string:
			if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].key {
				stack[n-1].key = false
				continue
			}
			fn(v)
		}
		if n := len(stack); n > 0 && stack[n-1].object {
			stack[n-1].key = true
		}
	}
}

// imageInfo describes an image block's base64 data without decoding all of
// it: its decoded size and, when the head decodes as a known format, its
// dimensions.
func imageInfo(data string) (size int64, width, height int) {
	data = strings.TrimSpace(data)
	if i := strings.Index(data, ";base64,"); strings.HasPrefix(data, "data:") && i >= 0 {
		data = data[i+len(";base64,"):]
	}
	n := int64(len(data))
	size = n / 4 * 3
	if n%4 != 0 {
		size += (n % 4) * 3 / 4
	}
	switch {
	case strings.HasSuffix(data, "=="):
		size -= 2
	case strings.HasSuffix(data, "="):
		size--
	}
	head := data
	const headChars = 64 << 10
	if len(head) > headChars {
		head = head[:headChars]
	}
	head = head[:len(head)/4*4]
	raw, err := base64.StdEncoding.DecodeString(head)
	if err != nil {
		return size, 0, 0
	}
	if cfg, _, err := image.DecodeConfig(strings.NewReader(string(raw))); err == nil {
		return size, cfg.Width, cfg.Height
	}
	return size, 0, 0
}

// parseTime reads an entry's ISO timestamp, else a message's milliseconds.
func parseTime(iso string, ms json.Number) time.Time {
	if iso != "" {
		if t, ok := transcript.ParseJSDate(iso); ok {
			return t.UTC()
		}
	}
	if ms != "" {
		if f, err := ms.Float64(); err == nil && f > 0 && f < 1e15 {
			return time.UnixMilli(int64(f)).UTC()
		}
	}
	return time.Time{}
}
