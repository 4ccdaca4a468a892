// Package transcript models OpenClaw's JSONL session transcripts: the entry
// types, the id/parentId tree, the active branch and the model context
// OpenClaw builds from it, and the layout of a state directory.
package transcript

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"

	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/pkg/entrywalk"
	"github.com/openclaw-tools/oc/pkg/jsonl"
	"github.com/openclaw-tools/oc/pkg/vocab"
)

// Entry types and message roles, as package vocab names them (kept here
// for the packages that read entries through transcript).
const (
	TypeSession             = vocab.TypeSession
	TypeMessage             = vocab.TypeMessage
	TypeThinkingLevelChange = vocab.TypeThinkingLevelChange
	TypeModelChange         = vocab.TypeModelChange
	TypeCompaction          = vocab.TypeCompaction
	TypeBranchSummary       = vocab.TypeBranchSummary
	TypeCustom              = vocab.TypeCustom
	TypeCustomMessage       = vocab.TypeCustomMessage
	TypeLabel               = vocab.TypeLabel
	TypeSessionInfo         = vocab.TypeSessionInfo

	RoleUser              = vocab.RoleUser
	RoleAssistant         = vocab.RoleAssistant
	RoleToolResult        = vocab.RoleToolResult
	RoleCustom            = vocab.RoleCustom
	RoleBashExecution     = vocab.RoleBashExecution
	RoleBranchSummary     = vocab.RoleBranchSummary
	RoleCompactionSummary = vocab.RoleCompactionSummary
)

// Key is a JSON value used as an entry id or parentId, compared the way a
// JavaScript Map compares keys: strings by content, other values by their
// JSON text. The zero Key is "absent" (undefined).
type Key struct {
	kind keyKind
	text string
}

type keyKind uint8

const (
	keyAbsent keyKind = iota
	keyNull
	keyString
	keyOther
)

// Present reports whether the field exists (it may be null).
func (k Key) Present() bool { return k.kind != keyAbsent }

// IsString reports whether the key is a JSON string.
func (k Key) IsString() bool { return k.kind == keyString }

// Truthy is JavaScript truthiness: absent, null and "" are false.
func (k Key) Truthy() bool {
	switch k.kind {
	case keyString:
		return k.text != ""
	case keyOther:
		return k.text != "0" && k.text != "false" && k.text != "-0"
	}
	return false
}

// String is the id as text ("" when absent or null).
func (k Key) String() string {
	if k.kind == keyString || k.kind == keyOther {
		return k.text
	}
	return ""
}

func keyOf(raw json.RawMessage) Key {
	raw = jsonl.TrimSpace(raw)
	if len(raw) == 0 {
		return Key{}
	}
	switch raw[0] {
	case 'n':
		return Key{kind: keyNull}
	case '"':
		if s, ok := jsonl.StringValue(raw); ok {
			return Key{kind: keyString, text: s}
		}
	}
	return Key{kind: keyOther, text: string(raw)}
}

// rawEntry is the lenient decoding of one line: every field OpenClaw's
// readers look at, as raw JSON so that no type mismatch can fail the decode.
type rawEntry struct {
	Type      json.RawMessage `json:"type"`
	ID        json.RawMessage `json:"id"`
	ParentID  json.RawMessage `json:"parentId"`
	Timestamp json.RawMessage `json:"timestamp"`
	Version   json.RawMessage `json:"version"`
	Cwd       json.RawMessage `json:"cwd"`
	Message   json.RawMessage `json:"message"`

	// the members of the other entry types, apart: a message entry (nearly
	// every line) sets none, and reset clears them only when one was set
	rawRare
	hasRare bool

	// msg is Message's members, decoded once (messageMembers) for every
	// reader of one line; blocks are its content's (contentBlocks).
	msg           rawMessage
	msgDecoded    bool
	blocks        []rawBlock
	blocksDecoded bool
	// analysis: what the analyzer found of the entry alone, if it was
	// analysed where the line was parsed (done)
	analysis lineAnalysis
	// typ is Type's string value (typOK: Type is a string) and role, for
	// a message entry, its message's role (as intern reads it): decoded
	// where the line is parsed, while its bytes are in that CPU's cache
	// (decodeNames), not again by the ordered stage; roleCode is role's
	// code, as a Node keeps it.
	typ, role string
	typOK     bool
	roleCode  roleCode
	// contentNode is the tape's node of the message's content (-1: none, or
	// read from the text), while fromTape decodes e
	contentNode int
}

// decodeNames sets e's typ, typOK, role and roleCode from its decoded fields.
func (e *rawEntry) decodeNames(in interner) {
	e.typ, e.typOK = in.str(e.Type)
	e.role = ""
	if e.typ == TypeMessage {
		e.role = intern(e.messageMembers().Role)
	}
	e.roleCode = roleCodeOf(e.role)
}

// rawRare holds the fields of the entry types other than message.
type rawRare struct {
	CustomType       json.RawMessage `json:"customType"`
	Content          json.RawMessage `json:"content"`
	Display          json.RawMessage `json:"display"`
	Details          json.RawMessage `json:"details"`
	Summary          json.RawMessage `json:"summary"`
	FromID           json.RawMessage `json:"fromId"`
	FirstKeptEntryID json.RawMessage `json:"firstKeptEntryId"`
	FirstKeptIndex   json.RawMessage `json:"firstKeptEntryIndex"`
	TokensBefore     json.RawMessage `json:"tokensBefore"`
	ThinkingLevel    json.RawMessage `json:"thinkingLevel"`
	Provider         json.RawMessage `json:"provider"`
	ModelID          json.RawMessage `json:"modelId"`
	TargetID         json.RawMessage `json:"targetId"`
	Label            json.RawMessage `json:"label"`
	Name             json.RawMessage `json:"name"`
	ParentSession    json.RawMessage `json:"parentSession"`
	Data             json.RawMessage `json:"data"`
	// Read only by AnalyzeBytesEach's callers (OpenClaw 2026.9.6's rules).
	AppendParentID json.RawMessage `json:"appendParentId"`
	AppendMode     json.RawMessage `json:"appendMode"`
	Reason         json.RawMessage `json:"reason"`
}

// reset empties e for another line, keeping its blocks' room. It writes
// what a line can have set: clearing all of a reused entry for every line
// was 7% of inspect's CPU, most of it the other types' fields.
func (e *rawEntry) reset() {
	e.Type, e.ID, e.ParentID, e.Timestamp, e.Version, e.Cwd, e.Message = nil, nil, nil, nil, nil, nil, nil
	if e.hasRare {
		e.rawRare, e.hasRare = rawRare{}, false
	}
	e.msg, e.msgDecoded = rawMessage{}, false
	e.blocks, e.blocksDecoded = e.blocks[:0], false
	e.analysis = lineAnalysis{findings: e.analysis.findings[:0], calls: e.analysis.calls[:0]}
}

// contentBlocks decodes the message content's blocks the first time it is
// asked and returns them (see appendBlocks). They are valid until e is
// decoded again.
func (e *rawEntry) contentBlocks() []rawBlock {
	if !e.blocksDecoded {
		e.blocksDecoded = true
		e.blocks = appendBlocks(e.blocks, e.messageMembers().Content)
	}
	return e.blocks
}

// fromTape decodes e from the tape tp.Parse(b) made (nil: from b's text),
// through the walk every entry decoder shares: the members decode finds,
// the message's and, where the tape holds them, its content blocks' (what
// the tape left out, past its depth or node budget, is decoded from the
// text). It reports whether b is an object.
func (e *rawEntry) fromTape(b []byte, tp *jsjson.Tape) bool {
	e.reset()
	e.contentNode = -1
	if !entrywalk.Walk(b, tp, e) {
		return false
	}
	e.msgDecoded = true
	if e.contentNode < 0 {
		return true // blocks decoded when asked
	}
	nodes := tp.Nodes
	c := &nodes[e.contentNode]
	if c.Kind != '[' || c.Flags&jsjson.Pruned != 0 {
		return true // decoded when asked
	}
	e.blocksDecoded = true
	for k := e.contentNode + 1; k < int(c.Next); k = int(nodes[k].Next) {
		el := &nodes[k]
		e.blocks = append(e.blocks, rawBlock{})
		bl := &e.blocks[len(e.blocks)-1]
		switch {
		case el.Kind != '{':
		case el.Flags&jsjson.Pruned != 0:
			bl.decode(el.Value(b))
		default:
			for f := k + 1; f < int(el.Next); f = int(nodes[f].Next) {
				bl.member(nodes[f].KeyText(b), nodes[f].Value(b))
			}
		}
	}
	return true
}

// Member takes one member of the entry object (entrywalk.Visitor).
func (e *rawEntry) Member(key, value []byte, _, _ int) { e.member(key, value) }

// MessageMember takes one member of the message object (entrywalk.Visitor),
// and the tape's node of its content.
func (e *rawEntry) MessageMember(key, value []byte, _, node int) {
	if e.msg.member(key, value) {
		e.contentNode = node
	}
}

// messageMembers decodes e.Message's members the first time it is asked and
// returns them (all nil when Message is not an object).
func (e *rawEntry) messageMembers() *rawMessage {
	if !e.msgDecoded {
		e.msgDecoded = true
		e.msg.decode(e.Message)
	}
	return &e.msg
}

// rawMessage is the lenient decoding of an entry's "message" object.
type rawMessage struct {
	Role       json.RawMessage `json:"role"`
	Content    json.RawMessage `json:"content"`
	Provider   json.RawMessage `json:"provider"`
	Model      json.RawMessage `json:"model"`
	API        json.RawMessage `json:"api"`
	StopReason json.RawMessage `json:"stopReason"`
	ErrorMsg   json.RawMessage `json:"errorMessage"`
	ToolCallID json.RawMessage `json:"toolCallId"`
	ToolUseID  json.RawMessage `json:"toolUseId"`
	ToolName   json.RawMessage `json:"toolName"`
	IsError    json.RawMessage `json:"isError"`
	ResponseID json.RawMessage `json:"responseId"`
	Timestamp  json.RawMessage `json:"timestamp"`
	Provenance json.RawMessage `json:"provenance"`
	Mirror     json.RawMessage `json:"openclawDeliveryMirror"`
	ToolMirror json.RawMessage `json:"openclawMessageToolMirror"`
	Summary    json.RawMessage `json:"summary"`
	CustomType json.RawMessage `json:"customType"`
	Excluded   json.RawMessage `json:"excludeFromContext"`
	Usage      json.RawMessage `json:"usage"`
}

// rawBlock is one content block. Large fields that inspect does not need
// (text, thinking, arguments) are left out so the decoder skips them
// without copying.
type rawBlock struct {
	Type        json.RawMessage `json:"type"`
	ID          json.RawMessage `json:"id"`
	Name        json.RawMessage `json:"name"`
	Signature   json.RawMessage `json:"thinkingSignature"`
	Redacted    json.RawMessage `json:"redacted"`
	Data        json.RawMessage `json:"data"`
	MimeType    json.RawMessage `json:"mimeType"`
	PartialJSON json.RawMessage `json:"partialJson"`
	Text        json.RawMessage `json:"text"` // read only for user messages' rules
}

// The raw structs are filled by exact key match, as JavaScript property
// access works: encoding/json and goccy match struct fields case-insensitively,
// which would read {"Type":"session"} as a header. The slices point into the
// decoded bytes.

func (e *rawEntry) decode(b []byte) bool { return e.fromTape(b, nil) }

// member takes one member of the entry object.
func (e *rawEntry) member(k, v []byte) {
	switch string(k) {
	case "type":
		e.Type = v
	case "id":
		e.ID = v
	case "parentId":
		e.ParentID = v
	case "timestamp":
		e.Timestamp = v
	case "version":
		e.Version = v
	case "cwd":
		e.Cwd = v
	case "message":
		e.Message = v
	default:
		e.hasRare = e.rare(k, v) || e.hasRare
	}
}

// rare sets the field of another entry type that k names, if one does.
func (e *rawEntry) rare(k, v []byte) bool {
	switch string(k) {
	case "customType":
		e.CustomType = v
	case "content":
		e.Content = v
	case "display":
		e.Display = v
	case "details":
		e.Details = v
	case "summary":
		e.Summary = v
	case "fromId":
		e.FromID = v
	case "firstKeptEntryId":
		e.FirstKeptEntryID = v
	case "firstKeptEntryIndex":
		e.FirstKeptIndex = v
	case "tokensBefore":
		e.TokensBefore = v
	case "thinkingLevel":
		e.ThinkingLevel = v
	case "provider":
		e.Provider = v
	case "modelId":
		e.ModelID = v
	case "targetId":
		e.TargetID = v
	case "label":
		e.Label = v
	case "name":
		e.Name = v
	case "parentSession":
		e.ParentSession = v
	case "data":
		e.Data = v
	case "appendParentId":
		e.AppendParentID = v
	case "appendMode":
		e.AppendMode = v
	case "reason":
		e.Reason = v
	default:
		return false
	}
	return true
}

func (m *rawMessage) decode(b []byte) bool {
	*m = rawMessage{}
	return jsonl.Members(b, func(k, v []byte) bool {
		m.member(k, v)
		return true
	})
}

// member takes one member of the message object; it reports whether it is
// "content".
func (m *rawMessage) member(k, v []byte) bool {
	switch string(k) {
	case "role":
		m.Role = v
	case "content":
		m.Content = v
		return true
	case "provider":
		m.Provider = v
	case "model":
		m.Model = v
	case "api":
		m.API = v
	case "stopReason":
		m.StopReason = v
	case "errorMessage":
		m.ErrorMsg = v
	case "toolCallId":
		m.ToolCallID = v
	case "toolUseId":
		m.ToolUseID = v
	case "toolName":
		m.ToolName = v
	case "isError":
		m.IsError = v
	case "responseId":
		m.ResponseID = v
	case "timestamp":
		m.Timestamp = v
	case "provenance":
		m.Provenance = v
	case "openclawDeliveryMirror":
		m.Mirror = v
	case "openclawMessageToolMirror":
		m.ToolMirror = v
	case "summary":
		m.Summary = v
	case "customType":
		m.CustomType = v
	case "excludeFromContext":
		m.Excluded = v
	case "usage":
		m.Usage = v
	}
	return false
}

func (b *rawBlock) decode(raw []byte) {
	*b = rawBlock{}
	jsonl.Members(raw, func(k, v []byte) bool {
		b.member(k, v)
		return true
	})
}

// member takes one member of a content block.
func (b *rawBlock) member(k, v []byte) {
	switch string(k) {
	case "type":
		b.Type = v
	case "id":
		b.ID = v
	case "name":
		b.Name = v
	case "thinkingSignature":
		b.Signature = v
	case "redacted":
		b.Redacted = v
	case "data":
		b.Data = v
	case "mimeType":
		b.MimeType = v
	case "partialJson":
		b.PartialJSON = v
	case "text":
		b.Text = v
	}
}

// appendBlocks decodes a content array into dst[:0] (a buffer reused from
// line to line); elements that are not objects give empty blocks, and the
// result is empty when raw is not a complete array.
func appendBlocks(dst []rawBlock, raw []byte) []rawBlock {
	out := dst[:0]
	if !jsonl.Elements(raw, func(v []byte) bool {
		out = append(out, rawBlock{})
		out[len(out)-1].decode(v)
		return true
	}) {
		return out[:0]
	}
	return out
}

// str decodes a JSON string; ok is false for any other JSON value.
func str(raw json.RawMessage) (string, bool) {
	raw = jsonl.TrimSpace(raw)
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	// Fast path: no escapes.
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return string(inner), true
	}
	return jsjson.StringValue(raw)
}

// isObject reports whether raw is a JSON object.
func isObject(raw json.RawMessage) bool {
	raw = jsonl.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{'
}

// isArray reports whether raw is a JSON array.
func isArray(raw json.RawMessage) bool {
	raw = jsonl.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '['
}

// isTrue reports whether raw is the JSON literal true.
func isTrue(raw json.RawMessage) bool { return string(jsonl.TrimSpace(raw)) == "true" }

// jsNumber converts a header "version" the way JavaScript's relational
// operators would (absent/null -> the caller's default, strings -> Number()).
func jsNumber(raw json.RawMessage, absent float64) float64 {
	raw = jsonl.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return absent
	}
	switch raw[0] {
	case 't':
		return 1
	case 'f':
		return 0
	case '"':
		s, _ := str(raw)
		s = string(jsonl.TrimSpace([]byte(s)))
		if s == "" {
			return 0
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return f
		}
		return nan()
	case '{', '[':
		return nan()
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil {
		return nan()
	}
	return f
}

func nan() float64 { return math.NaN() }
